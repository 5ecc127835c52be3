package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/expansion"
	"github.com/memoria-graph/memoria/retriever/fusion"
	"github.com/memoria-graph/memoria/retriever/ppr"
	"github.com/memoria-graph/memoria/retriever/spreading"
	"github.com/memoria-graph/memoria/tui"
)

// Retrievers are the names explore's --retriever and compare's
// --retrievers take, the default first: the explorer's (tui.Retrievers),
// then fusion, which the explorer does not run.
var Retrievers = append(slices.Clone(tui.Retrievers), fusion.Name)

// typeWeights collects repeated --type-weight TYPE=X flags over the
// default table; given holds the types set so far, one of which given
// again is refused (the second weight replaced the first silently).
type typeWeights struct {
	p     *expansion.Params
	given map[string]bool
}

func (t typeWeights) String() string { return "" }

func (t typeWeights) Set(v string) error {
	ty, w, err := expansion.ParseTypeWeight(v)
	if err != nil {
		return err
	}
	if t.given[ty] {
		return fmt.Errorf("type %s is weighed twice", textsafe.Quote(ty))
	}
	t.given[ty] = true
	t.p.TypeWeights[ty] = w
	return nil
}

// retrieverFlags are --retriever and the parameters of the retrievers
// other than Activation Energy.
type retrieverFlags struct {
	name   string
	topK   int // --top-k, shared by every ranking retriever
	exp    expansion.Params
	spread spreading.Params
	ppr    ppr.Params
	fusion fusion.Params
	// queryVector is --query-vector's file, read by check into
	// spread.QueryVector.
	queryVector string
}

// expansionFlagNames are the flags that apply to the expansion only.
var expansionFlagNames = []string{"max-hops", "expansion-factor", "depth-decay", "top-k", "type-weight"}

// activationFlagNames are the flags that apply to Activation Energy only.
var activationFlagNames = []string{"max-depth", "min-activation", "tag-sim-floor", "max-branches", "near-misses", "trace", "cypher"}

// spreadingFlagNames are the flags that apply to spreading activation
// (--top-k to the expansion too).
var spreadingFlagNames = []string{"pulses", "decay", "threshold", "alpha", "entity-penalty-above", "top-k", "initial", "query-vector"}

// pprFlagNames are the flags that apply to personalized PageRank (--top-k
// to the other ranking retrievers too).
var pprFlagNames = []string{"damping", "epsilon", "top-k"}

// fusionFlagNames are the flags of fusion (the fused retrievers' own
// apply too; --top-k is fusion's K, the lists run at --fuse-depth).
var fusionFlagNames = []string{"fuse", "fuse-depth", "rrf-k", "top-k"}

// ownFlags are, per retriever, the flags that apply to it; a flag listed
// for some retrievers is refused with the others.
var ownFlags = map[string][]string{
	activation.Name: activationFlagNames,
	expansion.Name:  expansionFlagNames,
	spreading.Name:  spreadingFlagNames,
	ppr.Name:        pprFlagNames,
	fusion.Name:     fusionFlagNames,
}

func (r *retrieverFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&r.name, "retriever", activation.Name, "the `retriever`: "+strings.Join(Retrievers, ", ")+" (docs/RETRIEVERS.md)")
	r.exp = expansion.DefaultParams()
	r.spread = spreading.DefaultParams()
	fs.IntVar(&r.exp.MaxHops, "max-hops", r.exp.MaxHops, "expansion: hops from the seeds `H` (1-3)")
	fs.Float64Var(&r.exp.ExpansionFactor, "expansion-factor", r.exp.ExpansionFactor, "expansion: the factor `f` every expanded score is damped by, in (0, 1]")
	fs.Float64Var(&r.exp.DepthDecay, "depth-decay", r.exp.DepthDecay, "expansion: the decay `δ` per hop, in (0, 1]")
	fs.IntVar(&r.topK, "top-k", r.exp.TopK, "expansion, spreading, ppr: hits kept `K`")
	fs.Var(typeWeights{&r.exp, map[string]bool{}}, "type-weight", "expansion: weigh a relationship type, `TYPE=X` with X in [-1, 1] (0: not followed; repeatable)")
	fs.IntVar(&r.spread.Pulses, "pulses", r.spread.Pulses, "spreading: pulses `P` (1-6)")
	fs.Float64Var(&r.spread.Decay, "decay", r.spread.Decay, "spreading: the decay `D` each relationship passes activation with, in (0, 1]")
	fs.Float64Var(&r.spread.Threshold, "threshold", r.spread.Threshold, "spreading: the firing and candidate threshold `θ`, in [0, 1)")
	fs.Float64Var(&r.spread.Alpha, "alpha", r.spread.Alpha, "spreading: the weight `α` of semantic similarity against activation, in [0, 1]")
	fs.Float64Var(&r.spread.EntityPenaltyAbove, "entity-penalty-above", r.spread.EntityPenaltyAbove, "spreading: penalise nodes counting more than `E` entities (at least 1)")
	fs.Func("initial", "spreading: what each seed starts with, `one` (1.0, the default) or score (its R)", func(v string) error {
		r.spread.Initial = spreading.Initial(v)
		if r.spread.Initial != spreading.InitialOne && r.spread.Initial != spreading.InitialScore {
			return fmt.Errorf("want one or score, got %q", v)
		}
		return nil
	})
	fs.StringVar(&r.queryVector, "query-vector", "", "spreading, and --rerank signals with any retriever: a JSON array of numbers in `FILE`, the\n"+
		"query's embedding (semantic similarity)")
	r.ppr = ppr.DefaultParams()
	fs.Float64Var(&r.ppr.Damping, "damping", r.ppr.Damping, "ppr: the probability `d` of following a relationship rather than restart, in (0, 1)")
	fs.Float64Var(&r.ppr.Epsilon, "epsilon", r.ppr.Epsilon, "ppr: push until every residual is below `ε` × the node's RELATES weight, in (0, 1)")
	r.fusion = fusion.DefaultParams()
	fs.Func("fuse", "fusion: the `retrievers` whose rankings are fused, comma-separated (default "+strings.Join(r.fusion.Fuse, ",")+")", func(v string) error {
		names, err := fusion.ParseFuse(v)
		if err != nil {
			return err
		}
		for _, n := range names {
			if n == fusion.Name || !slices.Contains(Retrievers, n) {
				return fmt.Errorf("%q is not a retriever fusion can fuse (want %s)", n, strings.Join(tui.Retrievers, ", "))
			}
		}
		r.fusion.Fuse = names
		return nil
	})
	fs.IntVar(&r.fusion.Depth, "fuse-depth", r.fusion.Depth, "fusion: the hits `N` of each fused ranking (each retriever runs with K = N)")
	fs.Float64Var(&r.fusion.K, "rrf-k", r.fusion.K, "fusion: RRF's `k`: a hit at rank r brings 1/(k + r) (at least 0; Graphiti's is 0 here)")
}

// names are the retrievers a run of r.name involves: itself, and for
// fusion the ones it fuses.
func (r *retrieverFlags) names() []string {
	if r.name == fusion.Name {
		return append([]string{fusion.Name}, r.fusion.Fuse...)
	}
	return []string{r.name}
}

// refuseOthers refuses every flag set on fs that belongs to other
// retrievers and not to name.
func refuseOthers(fs *flag.FlagSet, cmd, name string) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if err != nil || slices.Contains(ownFlags[name], f.Name) || slices.Contains(sharedWith(fs), f.Name) {
			return
		}
		for _, other := range Retrievers {
			if other != name && slices.Contains(ownFlags[other], f.Name) {
				err = usagef("%s: --%s does not apply to --retriever %s", cmd, f.Name, name)
				return
			}
		}
	})
	return err
}

// check refuses a retriever it does not know and flags of the other
// retrievers, checks the chosen one's parameters and reads its query
// vector.
func (r *retrieverFlags) check(fs *flag.FlagSet, cmd string) error {
	if !slices.Contains(Retrievers, r.name) {
		return usagef("%s: unknown --retriever %q (want %s)", cmd, r.name, strings.Join(Retrievers, ", "))
	}
	if r.name == fusion.Name {
		if err := refuseUnlisted(fs, cmd, "--retriever fusion does not fuse it", r.names()); err != nil {
			return err
		}
	} else if err := refuseOthers(fs, cmd, r.name); err != nil {
		return err
	}
	return r.finish(cmd, r.names())
}

// finish checks the parameters of the retrievers named (the shared
// --top-k set into each) and reads the query vector when spreading
// activation is among them; errors start with cmd (none when "").
func (r *retrieverFlags) finish(cmd string, names []string) error {
	r.exp.TopK, r.spread.TopK, r.ppr.TopK, r.fusion.TopK = r.topK, r.topK, r.topK, r.topK
	if slices.Contains(names, fusion.Name) {
		names = append(slices.Clone(names), r.fusion.Fuse...)
	}
	if cmd != "" {
		cmd += ": "
	}
	if slices.Contains(names, fusion.Name) {
		if e := r.fusion.Validate(); e != nil {
			return usageError{eachLine(cmd, flagNamed(e))}
		}
	}
	if slices.Contains(names, expansion.Name) {
		if e := r.exp.Validate(); e != nil {
			return usageError{eachLine(cmd, flagNamed(e))}
		}
	}
	if slices.Contains(names, ppr.Name) {
		if e := r.ppr.Validate(); e != nil {
			return usageError{eachLine(cmd, flagNamed(e))}
		}
	}
	if slices.Contains(names, spreading.Name) {
		if e := r.spread.Validate(); e != nil {
			return usageError{eachLine(cmd, flagNamed(e))}
		}
	}
	// Given without spreading only when a rerank takes it (sharedWith).
	if r.queryVector != "" {
		data, err := os.ReadFile(r.queryVector)
		if err != nil {
			return fmt.Errorf("%s--query-vector: %w", cmd, err)
		}
		if r.spread.QueryVector, err = spreading.ParseQueryVector(data); err != nil {
			return fmt.Errorf("%s--query-vector %s: %w", cmd, textsafe.Escape(r.queryVector), err)
		}
	}
	return nil
}

// neighbourhoodFor returns the graph reads every retriever but Activation
// Energy uses, over whichever engine src is: the one place that pairs an
// engine with them.
func neighbourhoodFor(src graph.Source, f graph.RelFilter) (graph.Neighbourhood, error) {
	switch s := src.(type) {
	case *inmem.Graph:
		return s.Filtered(f), nil
	case *neo4jdb.Source:
		return neo4jdb.Filtered(s, f), nil
	}
	return nil, fmt.Errorf("no retriever can read %s", src.Describe())
}

// rankingFormats are the formats of a ranking retriever.
var rankingFormats = []string{"ranking", "tree", "d3", "llm", "cypher"}

// printRanking writes r in format (its Cypher by cy, the source's
// mapping); a ranking holding a number that is not finite is refused,
// nothing written (retriever.Ranking.CheckFinite).
func printRanking(r retriever.Ranking, format string, cy render.Cypher, form render.CypherForm, out io.Writer) error {
	err := r.CheckFinite()
	if err != nil {
		return err
	}
	switch format {
	case "ranking":
		var b []byte
		if b, err = render.RankingJSON(r); err == nil {
			_, err = out.Write(b)
		}
	case "tree":
		_, err = io.WriteString(out, render.RankingText(r))
	case "d3":
		enc := json.NewEncoder(textsafe.JSONWriter{W: out})
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		err = enc.Encode(render.RankingD3(r))
	case "llm":
		_, err = io.WriteString(out, render.RankingLLM(r))
	case "cypher":
		_, err = io.WriteString(out, render.Script(cy.RankingCypher(r), form))
	}
	return err
}

// runRanking runs a ranking retriever for explore over src, reranks its
// ranking (rr, when on) and prints it.
func runRanking(ctx context.Context, src graph.Source, f graph.RelFilter, retrieve func(graph.Neighbourhood) (retriever.Ranking, error), rr *rerankFlags, format string, form render.CypherForm, out io.Writer) error {
	r, err := rankingOver(src, f, retrieve, rr)
	if err != nil {
		return err
	}
	return printRanking(r, format, render.CypherFor(schemaOf(src)), form, out)
}

// rankingOver runs a ranking retriever over src under the relationship
// filter f and reranks its ranking (rr, when on).
func rankingOver(src graph.Source, f graph.RelFilter, retrieve func(graph.Neighbourhood) (retriever.Ranking, error), rr *rerankFlags) (retriever.Ranking, error) {
	nb, err := neighbourhoodFor(src, f)
	if err != nil {
		return retriever.Ranking{}, err
	}
	r, err := retrieve(nb)
	if err == nil {
		r.Filter = f.String()
		r, err = rr.apply(r)
	}
	return r, err
}
