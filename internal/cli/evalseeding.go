package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/retriever/eval"
	"github.com/memoria-graph/memoria/retriever/gather"
)

// The values of eval's --seeding (docs/EVALUATION.md, "Text queries"):
// each query's seeds as the query set gives them, as the gather stage
// finds them from its "query" text, or both side by side.
const (
	seedingGiven    = "given"
	seedingGathered = "gathered"
	seedingBoth     = "both"
)

// gatheredSuffix ends the name of a row run from the gathered seeds beside
// the same retriever's row from the given ones (--seeding both).
const gatheredSuffix = "@gathered"

// resolveSeeding is --seeding for set: as given, or when left out, given
// when every line has seeds and gathered when every line has a question.
// It returns the queries the evaluation runs: with both, only the lines
// that have seeds and a question (the others named on stderr); a line
// lacking what its seeding needs is refused, naming it.
func (e *evalFlags) resolveSeeding(env Env, set []eval.Query) ([]eval.Query, error) {
	all := func(f func(eval.Query) bool) bool {
		return !slices.ContainsFunc(set, func(q eval.Query) bool { return !f(q) })
	}
	if e.seeding == "" {
		switch {
		case all(eval.Query.HasSeeds):
			e.seeding = seedingGiven
		case all(eval.Query.HasText):
			e.seeding = seedingGathered
		default:
			return nil, usagef("eval: --queries %s: some lines give seeds and some only a question: say which to run with --seeding given, gathered or both", textsafe.Escape(e.queries))
		}
	}
	need := map[string]func(eval.Query) bool{seedingGiven: eval.Query.HasSeeds, seedingGathered: eval.Query.HasText}
	switch e.seeding {
	case seedingGiven, seedingGathered:
		for _, q := range set {
			if !need[e.seeding](q) {
				what := map[string]string{seedingGiven: `"seeds"`, seedingGathered: `"query" text`}[e.seeding]
				return nil, usagef("eval: --queries %s: line %d (query %s) has no %s, which --seeding %s runs from", textsafe.Escape(e.queries), q.Line, textsafe.Quote(q.ID), what, e.seeding)
			}
		}
		return set, nil
	}
	var both []eval.Query
	var left []string
	for _, q := range set {
		if q.HasSeeds() && q.HasText() {
			both = append(both, q)
		} else {
			left = append(left, textsafe.Quote(q.ID))
		}
	}
	if len(both) == 0 {
		return nil, usagef("eval: --seeding both: no line of --queries %s has both \"seeds\" and a \"query\" text", textsafe.Escape(e.queries))
	}
	if len(left) > 0 {
		fmt.Fprintf(env.Stderr, "memoria: eval: --seeding both measures the lines with seeds and a question; left out: %s\n", strings.Join(left, ", "))
	}
	return both, nil
}

// gatheredSet is set with each query's seeds those the gather stage finds
// for its "query" texts (and "vector", when given), on src: one index of
// the graph's names and texts, built once, serves every query. A query the
// gather finds no seed for keeps none, and is said on stderr: every
// retriever returns nothing for it. A query the gather refuses (one of only
// punctuation) is refused, naming its line.
func (e *evalFlags) gatheredSet(ctx context.Context, env Env, src graph.Source, set []eval.Query) ([]eval.Query, error) {
	g := &e.q.gather
	f, err := g.fields(e.q.src.schema.preset)
	if err != nil {
		return nil, err
	}
	find, err := gathererOn(ctx, src, f)
	if err != nil {
		return nil, fmt.Errorf("eval: --seeding %s: %w", e.seeding, err)
	}
	out := make([]eval.Query, len(set))
	var none []string
	for i, q := range set {
		opt := g.opt
		vec := q.GatherVector()
		if opt.Matchers, err = g.matchers(q.Vector); err != nil {
			return nil, err
		}
		if !slices.Contains(opt.Matchers, gather.Vector) {
			vec = nil
		}
		if err := gather.Check(q.Text, vec, opt); err != nil {
			return nil, usagef("eval: --queries %s: line %d (query %s): %v", textsafe.Escape(e.queries), q.Line, textsafe.Quote(q.ID), err)
		}
		res, err := find(q.Text, vec, opt)
		if err != nil {
			return nil, fmt.Errorf("eval: --queries %s: line %d (query %s): %w", textsafe.Escape(e.queries), q.Line, textsafe.Quote(q.ID), err)
		}
		q.Seeds = res.Seeds()
		if len(q.Seeds) == 0 {
			none = append(none, textsafe.Quote(q.ID))
		}
		out[i] = q
	}
	if len(none) > 0 {
		fmt.Fprintf(env.Stderr, "memoria: eval: the gather found no seed for %s: no retriever returns anything there\n", strings.Join(none, ", "))
	}
	return out, nil
}

// gathererOn is the gather stage on src for fields f, as --query runs it
// (gatherFlags.run): on the embedded engine one index of every node, built
// here once; on Neo4j its fulltext (and vector) indexes, a searcher per
// set of matchers, made when first asked.
func gathererOn(ctx context.Context, src graph.Source, f gather.Fields) (func(queries []string, vector []float64, opt gather.Options) (gather.Result, error), error) {
	switch s := src.(type) {
	case *neo4jdb.Source:
		searchers := map[string]*neo4jSearcher{}
		return func(queries []string, vector []float64, opt gather.Options) (gather.Result, error) {
			key := strings.Join(opt.Matchers, ",")
			ns := searchers[key]
			if ns == nil {
				var err error
				if ns, err = newNeo4jSearcher(ctx, s, f, opt.Matchers); err != nil {
					return gather.Result{}, err
				}
				searchers[key] = ns
			}
			return gather.GatherFrom(ctx, ns, queries, vector, opt)
		}, nil
	case graph.NodeScanner:
		ix, err := gather.Build(ctx, s, f)
		if err != nil {
			return nil, err
		}
		return func(queries []string, vector []float64, opt gather.Options) (gather.Result, error) {
			return ix.Gather(ctx, queries, vector, opt)
		}, nil
	}
	return nil, fmt.Errorf("the gather stage cannot read this source")
}

// seedingCost compares, for each retriever of names (rows i and
// i+len(names) of rep under --seeding both), its row from the gathered
// seeds with its row from the given ones (eval.Report.Paired).
func seedingCost(rep *eval.Report, names []string) {
	for i, n := range names {
		diff, p := rep.Paired(i, i+len(names))
		rep.Seeding = append(rep.Seeding, eval.SeedingCost{Retriever: n, Given: i, Gathered: i + len(names), Diff: diff, P: p})
	}
}
