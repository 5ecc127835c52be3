package cli

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/eval"
	"github.com/memoria-graph/memoria/retriever/registry"
)

const evalUsage = `Usage: memoria eval [source flags] --queries Q.jsonl [--qrels FILE]
       [--seeding given|gathered|both] [--retrievers A,B,...]
       [every listed retriever's flags] [--k 5,10] [--run FILE]...
       [--format text|json|markdown|trec] [--out DIR]

Measures retrievers against relevance labels (docs/EVALUATION.md). Each
query of the query set (JSON lines: {"id", "seeds": [{"node_id", "score"}],
"query": TEXT or [TEXT, ...], "vector", "tags", "query_vector", "relevant":
{"NODE": grade}}) is run by each listed retriever with its own flags, as
compare runs them (--top-k is each ranking retriever's K), from its given
seeds or from those the gather stage finds for its "query" (--seeding); its
ranking is scored as trec_eval scores a run: P@k, Recall@k and nDCG@k at
each --k, MRR and MAP, with a grade of 1 or more relevant (--qrels adds the
grades of a TREC qrels file, lines "qid 0 docid rel"). The report gives
each retriever's means, its cost (mean hits and mean characters of the llm
context), each retriever against the first (the mean difference and a
two-sided paired randomization test's p, 10,000 permutations, fixed seed),
where its relevant nodes went (seeded, found, cut below K, unreached), a
row per query, and the nodes the queries name that the graph lacks
(relevant ones stay judged). --run adds another system's ranking as a row.

Formats:
  text  the tables
  json  the report as one object (docs/EVALUATION.md)
  trec  one TREC run file per retriever, DIR/NAME.run ("qid Q0 docid rank
        score NAME", scores strictly decreasing in memoria's order, also as
        32-bit floats), and DIR/qrels, the judgments used: trec_eval -c
        gives memoria's numbers. Needs --out DIR; each file is written
        whole or not at all.

Flags:
`

// evalDefaultKs are --k's default cut-offs.
const evalDefaultKs = "5,10"

// evalFlags are eval's flags: the bundle every running command shares
// (its seeds, tags and query vector come from the query set instead) and
// its own.
type evalFlags struct {
	runFlags
	queries, qrels, list, kList, format, outDir string
	// whyNot is --why-not: the retriever that accounts for the runs'
	// misses.
	whyNot string
	// seeding is --seeding: given, gathered or both ("" until resolved:
	// resolveSeeding).
	seeding string
	// runFiles are the --run files (other systems' runs, each a row).
	runFiles []string
	// alpha marks the differences that survive Holm's adjustment.
	alpha float64
	// names and ks are --retrievers and --k as check read them.
	names []string
	ks    []int
}

func (e *evalFlags) register(fs *flag.FlagSet) {
	e.runFlags.register(fs, "not for eval: each query's seeds come from --queries", true)
	fs.Lookup("tags").Usage = "not for eval: each query's tags come from --queries"
	fs.Lookup("query-vector").Usage = "not for eval: each query's query_vector comes from --queries"
	fs.Lookup("retriever").Usage = "not for eval: --retrievers lists them"
	fs.StringVar(&e.queries, "queries", "", "the query set, JSON lines in `FILE` (required)")
	fs.StringVar(&e.qrels, "qrels", "", "relevance grades from a TREC qrels `FILE` (qid 0 docid rel), beside the query set's")
	fs.StringVar(&e.list, "retrievers", strings.Join(retrieverNames(), ","), "the `retrievers` to measure, comma-separated, the first the one the others are compared with: "+strings.Join(retrieverNames(), ", "))
	fs.StringVar(&e.kList, "k", evalDefaultKs, "the cut-offs `K,...` of P@k, Recall@k and nDCG@k, each at least 1")
	fs.StringVar(&e.format, "format", "text", "output `format`: text, json, markdown or trec")
	fs.Float64Var(&e.alpha, "significance", eval.DefaultAlpha, "the level `α` below which a Holm-adjusted p marks a difference from the first row, in (0, 1)\n"+
		"(--alpha is spreading activation's)")
	registerSeeding(fs, &e.seeding, true)
	fs.StringVar(&e.whyNot, "why-not", "", "with --run on a graph: why each run missed each relevant node it neither seeded nor returned, in\n"+
		"`retriever` NAME's account (at most "+strconv.Itoa(evalWhyNotMax)+" a run and query; as why --retriever NAME answers)")
	fs.StringVar(&e.outDir, "out", "", "with --format trec: the `DIR` the run files and qrels go to (made if missing)")
	fs.Func("run", "another system's ranking: a TREC run `FILE` (qid Q0 docno rank score tag; a run per tag) or a retrieval\n"+
		"log FILE.jsonl ({\"query\", \"hits\": [{\"node_id\", \"score\"}]} a line), a row beside the retrievers (repeatable;\n"+
		"without --queries, the runs alone against --qrels, no graph)", func(v string) error {
		e.runFiles = append(e.runFiles, v)
		return nil
	})
}

// check refuses what eval cannot do with the flags given and reads
// --retrievers and --k.
func (e *evalFlags) check(fs *flag.FlagSet) error {
	if fs.NArg() > 0 {
		return usagef("eval: unexpected argument %s (the queries go in --queries)", textsafe.Quote(fs.Arg(0)))
	}
	for _, f := range [][2]string{{"seed", "--queries gives each query's seeds"}, {"tags", "--queries gives each query's tags"},
		{"query-vector", "--queries gives each query's query_vector"}, {"retriever", "--retriever picks one retriever; eval takes --retrievers A,B,..."},
		{"query", "--queries gives each query's question, its \"query\" text (--seeding gathered finds the seeds from it)"}} {
		if isSet(fs, f[0]) {
			return usagef("eval: --%s does not apply: %s", f[0], f[1])
		}
	}
	if err := e.checkRuns(isSet(fs, "retrievers")); err != nil {
		return err
	}
	if e.queries == "" && len(e.runFiles) == 0 {
		return usagef("eval: --queries FILE is required")
	}
	var err error
	if e.queries != "" {
		if e.names, err = listedRetrievers(fs, "eval", e.list, 1, &e.rf, &e.rr); err != nil {
			return err
		}
	}
	if e.ks, err = parseKs("eval", e.kList); err != nil {
		return err
	}
	if err := e.seedingOf().check(); err != nil {
		return err
	}
	switch {
	case e.whyNot != "" && (e.queries == "" || len(e.runFiles) == 0):
		return usagef("eval: --why-not explains the misses of --run files on the query set's graph: give --queries and --run")
	case e.whyNot != "" && !slices.Contains(retrieverNames(), e.whyNot):
		return usagef("eval: unknown --why-not %s (want one of %s)", textsafe.Quote(e.whyNot), strings.Join(retrieverNames(), ", "))
	case !slices.Contains([]string{"text", "json", "markdown", "trec"}, e.format):
		return usagef("eval: unknown --format %s (want text, json, markdown or trec)", textsafe.Quote(e.format))
	case !(e.alpha > 0 && e.alpha < 1):
		return usagef("eval: --significance must be in (0, 1), got %v", e.alpha)
	case e.format == "trec" && e.outDir == "":
		return usagef("eval: --format trec writes files: give --out DIR")
	case e.format != "trec" && e.outDir != "":
		return usagef("eval: --out applies to --format trec")
	}
	return nil
}

func runEval(ctx context.Context, args []string, env Env) error {
	var e evalFlags
	if err := parseCommand(env, "eval", evalUsage, args, &e); err != nil {
		return err
	}
	if e.queries == "" {
		return e.evalRunsOnly(env)
	}
	set, unjudged, err := readQuerySet("eval", e.queries, e.qrels)
	if err != nil {
		return err
	}
	if maxK := slices.Max(e.ks); maxK > e.rf.topK && slices.ContainsFunc(e.names, func(n string) bool { return n != registry.Activation }) {
		fmt.Fprintf(env.Stderr, "memoria: eval: --k %d is above --top-k %d: the ranking retrievers return at most %d hits, and P@%d counts the rest as not relevant\n", maxK, e.rf.topK, e.rf.topK, maxK)
	}
	sd := e.seedingOf()
	if set, err = sd.resolve(env, set); err != nil {
		return err
	}
	e.seeding = sd.mode
	g, closeSource, err := openRankings(ctx, env, &e.q, &e.rf)
	if err != nil {
		return err
	}
	defer closeSource()
	var gathered []eval.Query
	if e.seeding != seedingGiven {
		if gathered, err = sd.gathered(ctx, env, g.source, set); err != nil {
			return err
		}
	}
	variants := map[string][][]eval.Query{seedingGiven: {set}, seedingGathered: {gathered}, seedingBoth: {set, gathered}}[e.seeding]
	names := slices.Clone(e.names)
	var runs [][]scored
	var failed error
	outcomes := [][]eval.Outcome{}
	for v, vset := range variants {
		vruns, vfailed, err := evalRuns(ctx, "eval", g, &e.rf, &e.rr, names, vset)
		if err != nil {
			return err
		}
		failed = cmp.Or(failed, vfailed)
		if runs == nil {
			runs = make([][]scored, len(set))
		}
		for i := range names {
			o := make([]eval.Outcome, len(set))
			for j := range set {
				o[j] = vruns[j][i].outcome()
				runs[j] = append(runs[j], vruns[j][i])
			}
			outcomes = append(outcomes, o)
		}
		if v == 1 {
			for _, n := range names {
				e.names = append(e.names, n+gatheredSuffix)
			}
		}
	}
	// Another system's run counts as seeded the seeds of the first seeding
	// (the given ones, unless only the gathered ran).
	if outcomes, runs, err = e.withRuns(env, variants[0], outcomes, runs); err != nil {
		return err
	}
	rep := eval.Evaluate(set, e.names, outcomes, e.ks)
	rep.UnjudgedQrels = unjudged
	rep.SeedingMode = e.seeding
	if e.seeding == seedingBoth {
		seedingCost(&rep, names)
	}
	if rep.Missing, err = missingNodes(ctx, g.nb, set); err != nil {
		return err
	}
	why, err := e.runMisses(ctx, g, variants[0], runs, len(variants)*len(names))
	if err != nil {
		return err
	}
	return cmp.Or(e.write(env, rep, set, runs, why), failed)
}

// write prints the report in eval's format (trec: the run files and qrels
// into --out, the nodes the graph lacks said on stderr).
func (e *evalFlags) write(env Env, rep eval.Report, set []eval.Query, runs [][]scored, why render.RunMisses) error {
	rep.Alpha = e.alpha
	switch e.format {
	case "markdown":
		_, err := io.WriteString(env.Stdout, render.EvalMarkdown(rep))
		return err
	case "json":
		b, err := render.EvalJSONWith(rep, why)
		if err == nil {
			_, err = env.Stdout.Write(b)
		}
		return err
	case "trec":
		for _, m := range rep.Missing {
			what := "relevant node"
			if m.Seed {
				what = "seed"
			}
			fmt.Fprintf(env.Stderr, "memoria: eval: query %s: %s %s is not in the graph\n", textsafe.Quote(m.Query), what, render.DisplayID(m.NodeID))
		}
		return writeTrec(e.outDir, e.names, set, runs, env.Stdout)
	}
	_, err := io.WriteString(env.Stdout, render.EvalText(rep)+render.RunMissesText(why))
	return err
}

// parseKs reads cmd's --k: positive integers, each once, in the order
// given.
func parseKs(cmd, v string) ([]int, error) {
	var ks []int
	items, err := listItems(v, "cut-off")
	if err != nil {
		items = []string{""} // refused below, as a cut-off that is not one
	}
	for _, f := range items {
		k, err := strconv.Atoi(f)
		if err != nil || k < 1 {
			return nil, usagef("%s: --k %s: want cut-offs of at least 1, comma-separated, like %s", cmd, textsafe.Quote(v), evalDefaultKs)
		}
		if slices.Contains(ks, k) {
			return nil, usagef("%s: --k names %d twice", cmd, k)
		}
		ks = append(ks, k)
	}
	return ks, nil
}

// seedingOf is eval's --seeding, which takes both.
func (e *evalFlags) seedingOf() *seeding {
	return &seeding{cmd: "eval", queries: e.queries, mode: e.seeding, both: true, q: &e.q}
}

// readQuerySet reads the query set and the qrels (when file is given) and
// judges the queries with both (eval.Judge). Errors name the file and the
// line.
func readQuerySet(cmd, queries, qrelsFile string) ([]eval.Query, []string, error) {
	lead := cmd + ": "
	if cmd == "" { // the explorer's
		lead = ""
	}
	set, err := readInput(lead, "queries", queries, eval.ParseQueries)
	if err != nil {
		return nil, nil, err
	}
	var qrels eval.Qrels
	if qrelsFile != "" {
		if qrels, err = readInput(lead, "qrels", qrelsFile, eval.ParseQrels); err != nil {
			return nil, nil, err
		}
	}
	set, unjudged, err := eval.Judge(set, qrels)
	if err != nil {
		return nil, nil, fmt.Errorf("%s--queries %s: %w", lead, textsafe.Escape(queries), err)
	}
	return set, unjudged, nil
}

// evalRuns runs every retriever of names on every query of set, as compare
// runs them (rankings.compared, at --top-k), each ranking reranked when
// --rerank signals is on; a query's query vector goes to the
// retrievers that read one and to the rerank. runs[query][retriever] are the rankings,
// contexts[query][retriever] the llm context each gives an agent, as
// `explore --format llm` writes it: Activation Energy's own, of its paths
// (render.ToLLMContext; of its ranking when reranked, as explore does), the
// ranking's for the others (render.RankingLLM). Of each ranking only what
// eval measures is kept (scored), so that memory does not grow with every
// hit of every query.
//
// The queries run in parallel, one worker per core (GOMAXPROCS), each with
// its own copy of the flags' parameters (a query's vector goes into the
// copy) over the one graph and the one Activation Energy retriever, both
// safe for concurrent use; the results land in the query's own slot, so
// the report does not depend on the order they finish in. The first error
// stops the others. failed, when Activation Energy ran and a seed of some
// query ended in error in it, is the first such query's failedSeedsError,
// led by cmd (the report is printed, then the command exits 1, as explore
// does).
func evalRuns(ctx context.Context, cmd string, g *rankings, rf *retrieverFlags, rr *rerankFlags, names []string, set []eval.Query) (runs [][]scored, failed, err error) {
	runs = make([][]scored, len(set))
	failures := make([]error, len(set))
	all := slices.Clone(names)
	for _, n := range names {
		all = append(all, rf.combined(n)...)
	}
	if err := g.prepare(ctx, all); err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(set)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wrf, wrr := *rf, *rr
			w := *g
			w.rf = &wrf
			var paths string
			var explored []activation.Result
			w.explored = func(results []activation.Result) {
				explored = results
				if !wrr.on() {
					paths = render.ToLLMContext(results...).Text()
				}
			}
			for i := range next {
				explored = nil
				if err := evalQuery(ctx, &w, &wrf, &wrr, names, set[i], &paths, &runs[i]); err != nil {
					cancel(err)
				}
				failures[i] = failedSeedsError(cmd+": query "+textsafe.Quote(set[i].ID), explored)
			}
		}()
	}
	for i := range set {
		select {
		case next <- i:
			continue
		case <-ctx.Done():
		}
		break
	}
	close(next)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, nil, err
	}
	var more int
	for _, f := range failures {
		if f != nil {
			if failed == nil {
				failed = f
			} else {
				more++
			}
		}
	}
	switch {
	case more == 1:
		failed = fmt.Errorf("%w; and in 1 more query", failed)
	case more > 1:
		failed = fmt.Errorf("%w; and in %d more queries", failed, more)
	}
	return runs, failed, nil
}

// evalQuery runs one query for evalRuns with a worker's rankings g and
// parameters rf and rr (paths: where g's explored hook puts Activation
// Energy's paths context), into run.
func evalQuery(ctx context.Context, g *rankings, rf *retrieverFlags, rr *rerankFlags, names []string, query eval.Query, paths *string, run *[]scored) error {
	rf.vector = query.QueryVector
	rr.p.QueryVector = query.QueryVector
	kept := make([]scored, len(names))
	if !query.HasSeeds() { // the gather found none: no retriever has a start
		for j := range kept {
			kept[j].whole = true
		}
		*run = kept
		return nil
	}
	rq := query.Retriever()
	rq.Probe = relevantNonSeeds(query) // where each ranked the ones it missed: relevantBelow
	out, deep, err := g.comparedDeep(ctx, names, rq, rf.topK)
	if err != nil {
		return fmt.Errorf("eval: query %s: %w", textsafe.Quote(query.ID), err)
	}
	for j := range out {
		r, err := rr.apply(out[j])
		if err == nil {
			err = r.CheckFinite() // its order would be no order
		}
		if err != nil {
			return fmt.Errorf("eval: query %s: %w", textsafe.Quote(query.ID), err)
		}
		context := render.RankingLLM(r)
		if names[j] == activation.Name && !rr.on() {
			context = *paths
		}
		kept[j] = scoredOf(r, context)
		kept[j].seeds, kept[j].whole = query.SeedIDs(), true
		if kept[j].below, err = relevantBelow(ctx, g, names[j], rq, rf.topK, out[j], deep, query); err != nil {
			return fmt.Errorf("eval: query %s: %w", textsafe.Quote(query.ID), err)
		}
	}
	*run = kept
	return nil
}

// relevantNonSeeds are the ids of query's relevant nodes (grade ≥ 1) that
// are not its seeds, sorted.
func relevantNonSeeds(query eval.Query) []string {
	seeds := map[string]bool{}
	for _, s := range query.Seeds {
		seeds[s.NodeID] = true
	}
	out := []string{}
	for id, grade := range query.Relevant {
		if grade >= 1 && !seeds[id] {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// relevantBelow are the relevant nodes of query that retriever name's
// whole ranking holds below its top k (top, as compared returned it, run
// with the relevant nodes as its query's Probe; deep, the lists a
// combining retriever combined): where eval's "cut" comes from
// (docs/EVALUATION.md, "Where the relevant nodes went"). Activation
// Energy's ranking is never cut at a K, and a ranking of fewer than k hits
// is whole; a retriever that answered the probe (Ranking.Probed) said
// which it ranks. Otherwise, when a relevant node that is not a seed is
// missing from the top k, the retriever ranks again at its whole-ranking
// K (retriever.Spec.WholeK), a combining one by combining the same lists
// again.
func relevantBelow(ctx context.Context, g *rankings, name string, rq retriever.Query, k int, top retriever.Ranking, deep map[string]retriever.Ranking, query eval.Query) ([]string, error) {
	if name == activation.Name || len(top.Hits) < k {
		return nil, nil
	}
	in := map[string]bool{}
	for _, h := range top.Hits {
		in[h.NodeID] = true
	}
	for _, s := range rq.Seeds {
		in[s.NodeID] = true
	}
	var missing []string
	for id, grade := range query.Relevant {
		if grade >= 1 && !in[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return nil, nil
	}
	if top.Probed != nil {
		ranked := eval.SetOf(top.Probed)
		return slices.DeleteFunc(missing, func(id string) bool { return !ranked[id] }), nil
	}
	p := g.rf.settings(name)
	spec := p.Spec()
	whole := spec.WholeK(top, len(rq.Seeds), k)
	var all retriever.Ranking
	var err error
	if combined, _, ok := spec.Combines(p); ok {
		lists := make([]retriever.Ranking, len(combined))
		for i, c := range combined {
			lists[i] = deep[c]
		}
		all, err = spec.Combine(lists, p, whole)
	} else {
		all, err = g.of(ctx, name, rq, whole)
	}
	if err != nil {
		return nil, err
	}
	ranked := map[string]bool{}
	for _, h := range all.Hits {
		ranked[h.NodeID] = true
	}
	var below []string
	for _, id := range missing {
		if ranked[id] {
			below = append(below, id)
		}
	}
	return below, nil
}

// scored is what eval keeps of a ranking: its node ids and scores in rank
// order and the characters of the llm context it gives an agent.
type scored struct {
	ids          []string
	scores       []float64
	contextChars int
	// seeds, whole and below are where the relevant nodes went
	// (eval.Outcome).
	seeds []string
	whole bool
	below []string
}

func scoredOf(r retriever.Ranking, context string) scored {
	s := scored{ids: make([]string, len(r.Hits)), scores: make([]float64, len(r.Hits)), contextChars: utf8.RuneCountInString(context)}
	for i, h := range r.Hits {
		s.ids[i], s.scores[i] = h.NodeID, h.Score
	}
	return s
}

// outcome is what eval measures of it.
func (s scored) outcome() eval.Outcome {
	return eval.Outcome{Ranked: s.ids, ContextChars: s.contextChars, Seeds: s.seeds, Whole: s.whole, Below: s.below}
}

// missingNodes are the seeds and relevant nodes of set that the graph does
// not hold, looked up in one read, by query and then node id.
func missingNodes(ctx context.Context, nb graph.Neighbourhood, set []eval.Query) ([]eval.Missing, error) {
	var ids []string
	for _, q := range set {
		for _, s := range q.Seeds {
			ids = append(ids, s.NodeID)
		}
		for id := range q.Relevant {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	found := map[string]bool{}
	err := nb.Read(ctx, func(r graph.Reader) error {
		clear(found)
		refs, err := r.Nodes(ctx, ids)
		for _, ref := range refs {
			found[ref.Node.ID] = true
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	var out []eval.Missing
	for _, q := range set {
		var miss []eval.Missing
		for _, s := range q.Seeds {
			if !found[s.NodeID] {
				miss = append(miss, eval.Missing{Query: q.ID, NodeID: s.NodeID, Seed: true})
			}
		}
		for id := range q.Relevant {
			if !found[id] {
				miss = append(miss, eval.Missing{Query: q.ID, NodeID: id})
			}
		}
		slices.SortFunc(miss, func(a, b eval.Missing) int { return strings.Compare(a.NodeID, b.NodeID) })
		out = append(out, miss...)
	}
	return out, nil
}

// writeTrec writes DIR/NAME.run for each retriever and DIR/qrels
// (eval.WriteRun, eval.WriteQrels), each to a temporary file in DIR first;
// only when every one is whole are they renamed into place, so a failure
// leaves no file half-written. It prints each path written.
func writeTrec(dir string, names []string, set []eval.Query, runs [][]scored, out io.Writer) error {
	files := map[string][]byte{}
	var order []string
	for i, name := range names {
		var b bytes.Buffer
		for j, q := range set {
			r := runs[j][i]
			if err := eval.WriteRun(&b, name, q.ID, r.ids, r.scores); err != nil {
				return fmt.Errorf("eval: %s's run file: %w", name, err)
			}
		}
		files[name+".run"] = b.Bytes()
		order = append(order, name+".run")
	}
	var b bytes.Buffer
	if err := eval.WriteQrels(&b, set); err != nil {
		return fmt.Errorf("eval: qrels: %w", err)
	}
	files["qrels"] = b.Bytes()
	order = append(order, "qrels")
	if err := makeOutDir(dir); err != nil {
		return fmt.Errorf("eval: --out: %w", err)
	}
	if err := writeAllAtomic(dir, order, files); err != nil {
		return fmt.Errorf("eval: --out: %w", err)
	}
	for _, name := range order {
		if _, err := fmt.Fprintln(out, textsafe.Escape(filepath.Join(dir, name))); err != nil {
			return err // the files are written; the list of them is not
		}
	}
	return nil
}

// writeAllAtomic writes each file of names (its content in files) to a
// temporary file in dir, and renames them into place only once all are
// written and closed; on an error it removes the temporary files.
func writeAllAtomic(dir string, names []string, files map[string][]byte) (err error) {
	// A rename onto a directory fails: found before anything is written,
	// or the files renamed before it would be replaced and the rest not,
	// a set half new and half old (docs/EVALUATION.md: whole or none).
	for _, name := range names {
		if fi, err := os.Lstat(filepath.Join(dir, name)); err == nil && fi.IsDir() {
			return fmt.Errorf("%s is a directory", filepath.Join(dir, name))
		}
	}
	temps := make([]string, 0, len(names))
	defer func() {
		if err != nil {
			for _, t := range temps {
				os.Remove(t)
			}
		}
	}()
	for _, name := range names {
		f, err := os.CreateTemp(dir, "."+name+".*.tmp")
		if err != nil {
			return asFile(filepath.Join(dir, name), err)
		}
		temps = append(temps, f.Name())
		_, err = f.Write(files[name])
		if err == nil {
			err = f.Chmod(0o644)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return asFile(filepath.Join(dir, name), err)
		}
	}
	for i, name := range names {
		if err := os.Rename(temps[i], filepath.Join(dir, name)); err != nil {
			return asFile(filepath.Join(dir, name), err)
		}
	}
	return nil
}

// asFile is err, met writing path through a temporary file beside it,
// told of path: the user chose path (eval --out DIR gives DIR/NAME.run,
// docs/CLI.md "Measuring retrievers"), never the temporary file's name,
// which err would otherwise give ("open DIR/.ppr.run.123.tmp:
// permission denied").
func asFile(path string, err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return fmt.Errorf("%s: %w", path, err)
}
