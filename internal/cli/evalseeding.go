package cli

import (
	"context"
	"flag"
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

// seeding is how a command that reads a query set (eval, tune, sweep
// --queries, the explorer's --queries) seeds its queries: cmd leads its
// messages ("" for the explorer), queries is the --queries file, mode the --seeding asked (""
// until resolve chooses), both whether "both" is taken (eval's), q the
// flags whose gather settings --query would use.
type seeding struct {
	cmd, queries, mode string
	both               bool
	q                  *queryFlags
}

// lead is what the seeding's messages start with: the command and a
// colon, or nothing for the explorer (cmd "").
func (s *seeding) lead() string {
	if s.cmd == "" {
		return ""
	}
	return s.cmd + ": "
}

// registerSeeding registers --seeding into mode: given, gathered and, when
// both, both.
func registerSeeding(fs *flag.FlagSet, mode *string, both bool) {
	usage := "each query's `seeds`: given (the query set's \"seeds\") or gathered (found by the gather stage from its\n" +
		"\"query\" text, as --query finds them; default: given when every line has seeds, gathered when every line\n" +
		"has only a question)"
	if both {
		usage = "each query's `seeds`: given (the query set's \"seeds\"), gathered (found by the gather stage from its\n" +
			"\"query\" text, as --query finds them) or both, side by side with the paired test between them (default:\n" +
			"given when every line has seeds, gathered when every line has only a question)"
	}
	fs.StringVar(mode, "seeding", "", usage)
}

// check refuses an unknown --seeding, or one without --queries.
func (s *seeding) check() error {
	want, say := []string{seedingGiven, seedingGathered}, "given or gathered"
	if s.both {
		want, say = append(want, seedingBoth), "given, gathered or both"
	}
	switch {
	case s.mode != "" && !slices.Contains(want, s.mode):
		return usagef("%sunknown --seeding %s (want %s)", s.lead(), textsafe.Quote(s.mode), say)
	case s.mode != "" && s.queries == "":
		return usagef("%s--seeding applies to the query set's queries: give --queries", s.lead())
	}
	return nil
}

// resolve is --seeding for set: as given, or when left out, given when
// every line has seeds and gathered when every line has a question. It
// returns the queries to run: with both, only the lines that have seeds
// and a question (the others named on stderr); a line lacking what its
// seeding needs is refused, naming it.
func (s *seeding) resolve(env Env, set []eval.Query) ([]eval.Query, error) {
	all := func(f func(eval.Query) bool) bool {
		return !slices.ContainsFunc(set, func(q eval.Query) bool { return !f(q) })
	}
	if s.mode == "" {
		switch {
		case all(eval.Query.HasSeeds):
			s.mode = seedingGiven
		case all(eval.Query.HasText):
			s.mode = seedingGathered
		default:
			with := "given or gathered"
			if s.both {
				with = "given, gathered or both"
			}
			return nil, usagef("%s--queries %s: some lines give seeds and some only a question: say which to run with --seeding %s", s.lead(), textsafe.Escape(s.queries), with)
		}
	}
	need := map[string]func(eval.Query) bool{seedingGiven: eval.Query.HasSeeds, seedingGathered: eval.Query.HasText}
	switch s.mode {
	case seedingGiven, seedingGathered:
		for _, q := range set {
			if !need[s.mode](q) {
				what := map[string]string{seedingGiven: `"seeds"`, seedingGathered: `"query" text`}[s.mode]
				return nil, usagef("%s--queries %s: line %d (query %s) has no %s, which --seeding %s runs from", s.lead(), textsafe.Escape(s.queries), q.Line, textsafe.Quote(q.ID), what, s.mode)
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
		return nil, usagef("%s--seeding both: no line of --queries %s has both \"seeds\" and a \"query\" text", s.lead(), textsafe.Escape(s.queries))
	}
	if len(left) > 0 {
		fmt.Fprintf(env.Stderr, "memoria: %s--seeding both measures the lines with seeds and a question; left out: %s\n", s.lead(), strings.Join(left, ", "))
	}
	return both, nil
}

// gathered is set with each query's seeds those the gather stage finds
// for its "query" texts (and "vector", when given), on src: one index of
// the graph's names and texts, built once, serves every query. A query the
// gather finds no seed for keeps none, and is said on stderr: every
// retriever returns nothing for it. A query the gather refuses (one of only
// punctuation) is refused, naming its line.
func (s *seeding) gathered(ctx context.Context, env Env, src graph.Source, set []eval.Query) ([]eval.Query, error) {
	g := &s.q.gather
	f, err := g.fields(s.q.src.schema.preset)
	if err != nil {
		return nil, err
	}
	find, err := gathererOn(ctx, src, f)
	if err != nil {
		return nil, fmt.Errorf("%s--seeding %s: %w", s.lead(), s.mode, err)
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
			return nil, usagef("%s--queries %s: line %d (query %s): %v", s.lead(), textsafe.Escape(s.queries), q.Line, textsafe.Quote(q.ID), err)
		}
		res, err := find(q.Text, vec, opt)
		if err != nil {
			return nil, fmt.Errorf("%s--queries %s: line %d (query %s): %w", s.lead(), textsafe.Escape(s.queries), q.Line, textsafe.Quote(q.ID), err)
		}
		q.Seeds = res.Seeds()
		if len(q.Seeds) == 0 {
			none = append(none, textsafe.Quote(q.ID))
		}
		out[i] = q
	}
	if len(none) > 0 {
		fmt.Fprintf(env.Stderr, "memoria: %sthe gather found no seed for %s: no retriever returns anything there\n", s.lead(), strings.Join(none, ", "))
	}
	return out, nil
}

// seeded is set as s seeds it, for the commands that run one seeding
// (tune, sweep --queries, the explorer): resolved, then gathered on src
// when gathered.
func (s *seeding) seeded(ctx context.Context, env Env, src graph.Source, set []eval.Query) ([]eval.Query, error) {
	set, err := s.resolve(env, set)
	if err != nil || s.mode != seedingGathered {
		return set, err
	}
	return s.gathered(ctx, env, src, set)
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
