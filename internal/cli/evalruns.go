package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever/eval"
	"github.com/memoria-graph/memoria/retriever/rankwhy"
)

// readRuns reads eval's --run files: a TREC run file (several tags, several
// runs), or with a .jsonl name a retrieval log (one run, named by the
// file's base name without .jsonl). Run names must be distinct from each
// other and from the retrievers measured (taken).
func readRuns(files, taken []string) ([]eval.SystemRun, error) {
	var out []eval.SystemRun
	for _, f := range files {
		var runs []eval.SystemRun
		if strings.HasSuffix(f, ".jsonl") {
			name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
			r, err := readInput("eval: ", "run", f, func(r io.Reader) (eval.SystemRun, error) { return eval.ParseLog(r, name) })
			if err != nil {
				return nil, err
			}
			runs = []eval.SystemRun{r}
		} else {
			var err error
			if runs, err = readInput("eval: ", "run", f, eval.ParseRun); err != nil {
				return nil, err
			}
		}
		for _, r := range runs {
			if slices.Contains(taken, r.Name) {
				return nil, usagef("eval: --run %s: a run or retriever is named %s already: each row needs a name of its own", textsafe.Escape(f), textsafe.Quote(r.Name))
			}
			taken = append(taken, r.Name)
			out = append(out, r)
		}
	}
	return out, nil
}

// noteRunQueries names, on stderr, where a run and the queries disagree:
// a query the run answers that the queries lack (ignored, as trec_eval
// ignores it) and a query it does not answer (it counts 0 there).
func noteRunQueries(env Env, runs []eval.SystemRun, set []eval.Query) {
	known := map[string]bool{}
	for _, q := range set {
		known[q.ID] = true
	}
	for _, r := range runs {
		var extra, missing []string
		for _, qid := range r.Queries {
			if !known[qid] {
				extra = append(extra, textsafe.Quote(qid))
			}
		}
		for _, q := range set {
			if _, ok := r.Ranked[q.ID]; !ok {
				missing = append(missing, textsafe.Quote(q.ID))
			}
		}
		if len(extra) > 0 {
			fmt.Fprintf(env.Stderr, "memoria: eval: run %s answers queries that are not judged, ignored: %s\n", textsafe.Quote(r.Name), strings.Join(extra, ", "))
		}
		if len(missing) > 0 {
			fmt.Fprintf(env.Stderr, "memoria: eval: run %s does not answer %s: each counts 0\n", textsafe.Quote(r.Name), strings.Join(missing, ", "))
		}
	}
}

// runScored is a run's answer to each query of set, as eval keeps the
// retrievers' (scored; no context, a run has none).
func runScored(r eval.SystemRun, set []eval.Query) []scored {
	out := make([]scored, len(set))
	for i, q := range set {
		out[i] = scored{ids: r.Ranked[q.ID], scores: r.Scores[q.ID]}
	}
	return out
}

// evalRunsOnly is eval without a graph: the --run files measured against
// the --qrels alone, whose judged queries are the query set.
func (e *evalFlags) evalRunsOnly(env Env) error {
	qrels, err := readInput("eval: ", "qrels", e.qrels, eval.ParseQrels)
	if err != nil {
		return err
	}
	set := eval.QueriesOf(qrels)
	if len(set) == 0 {
		return fmt.Errorf("eval: --qrels %s: no query has a relevant node", textsafe.Escape(e.qrels))
	}
	runs, err := readRuns(e.runFiles, nil)
	if err != nil {
		return err
	}
	noteRunQueries(env, runs, set)
	e.names = nil
	outcomes := make([][]eval.Outcome, len(runs))
	scoredRuns := make([][]scored, len(set))
	for i, r := range runs {
		e.names = append(e.names, r.Name)
		outcomes[i] = r.Outcomes(set)
		for j, s := range runScored(r, set) {
			scoredRuns[j] = append(scoredRuns[j], s)
		}
	}
	rep := eval.Evaluate(set, e.names, outcomes, e.ks)
	return e.write(env, rep, set, scoredRuns, render.RunMisses{})
}

// withRuns adds the --run files' rows after the retrievers': their
// outcomes and their answers (for --format trec), the disagreements with
// the query set named on stderr.
func (e *evalFlags) withRuns(env Env, set []eval.Query, outcomes [][]eval.Outcome, runs [][]scored) ([][]eval.Outcome, [][]scored, error) {
	extra, err := readRuns(e.runFiles, e.names)
	if err != nil {
		return nil, nil, err
	}
	noteRunQueries(env, extra, set)
	for _, r := range extra {
		e.names = append(e.names, r.Name)
		outcomes = append(outcomes, r.Outcomes(set))
		for j, s := range runScored(r, set) {
			runs[j] = append(runs[j], s)
		}
	}
	return outcomes, runs, nil
}

// checkRuns refuses --run where it cannot apply: without --queries, eval
// measures runs alone and needs --qrels, and runs no retriever.
func (e *evalFlags) checkRuns(retrieversSet bool) error {
	switch {
	case e.queries != "" || len(e.runFiles) == 0:
		return nil
	case e.qrels == "":
		return usagef("eval: --run without --queries measures the runs against --qrels: give --qrels FILE")
	case retrieversSet:
		return usagef("eval: --retrievers runs retrievers on a graph, which needs --queries; without it eval measures the --run files alone")
	}
	return nil
}

// evalWhyNotMax is the most relevant nodes --why-not explains per run and
// query (by grade, then id); the rest are counted.
const evalWhyNotMax = 10

// runMisses answers --why-not: for each --run row of rep (from row first
// on), each query of set and each relevant node the run neither seeded
// (set's seeds) nor returned, retriever e.whyNot's account of it, as `why
// --retriever` gives it, run from the query's seeds. Nodes the graph
// lacks are left out (the report names them). One explainer per query
// serves every run and node, so each retriever runs once per query and K.
func (e *evalFlags) runMisses(ctx context.Context, g *rankings, set []eval.Query, runs [][]scored, first int) (render.RunMisses, error) {
	out := render.RunMisses{Retriever: e.whyNot, PerQuery: evalWhyNotMax}
	if e.whyNot == "" || first >= len(e.names) {
		return render.RunMisses{}, nil
	}
	for qi, q := range set {
		var w *rankwhy.Explainer
		for ri := first; ri < len(e.names); ri++ {
			ranked := eval.SetOf(runs[qi][ri].ids)
			seeds := eval.SetOf(q.SeedIDs())
			var miss []string
			for _, id := range slices.SortedFunc(maps.Keys(q.Relevant), func(a, b string) int {
				return cmp.Or(cmp.Compare(q.Relevant[b], q.Relevant[a]), strings.Compare(a, b))
			}) {
				if q.Relevant[id] >= 1 && !seeds[id] && !ranked[id] {
					miss = append(miss, id)
				}
			}
			if len(miss) > evalWhyNotMax {
				out.Left += len(miss) - evalWhyNotMax
				miss = miss[:evalWhyNotMax]
			}
			for _, id := range miss {
				var about *rankwhy.Explainer
				var err error
				if w == nil {
					about, err = rankwhy.New(ctx, whyConfig(g, q.Retriever()), id)
				} else {
					about, err = w.About(ctx, id)
				}
				var none *rankwhy.NoNodeError
				if errors.As(err, &none) {
					continue // the report names the nodes the graph lacks
				}
				if err != nil {
					return out, err
				}
				w = about
				a, err := w.Explain(ctx, e.whyNot, 0)
				if err != nil {
					return out, fmt.Errorf("eval: --why-not: query %s: %w", textsafe.Quote(q.ID), err)
				}
				out.Misses = append(out.Misses, render.RunMiss{Run: e.names[ri], Query: q.ID, Answer: a})
			}
		}
	}
	return out, nil
}
