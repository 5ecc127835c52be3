package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
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
	"github.com/memoria-graph/memoria/retriever/ppr"
)

// Retrievers are the names --retriever takes, the default first.
var Retrievers = []string{activation.Name, expansion.Name, ppr.Name}

// typeWeights collects repeated --type-weight TYPE=X flags over the
// default table.
type typeWeights struct{ p *expansion.Params }

func (t typeWeights) String() string { return "" }

func (t typeWeights) Set(v string) error {
	ty, w, err := expansion.ParseTypeWeight(v)
	if err != nil {
		return err
	}
	t.p.TypeWeights[ty] = w
	return nil
}

// retrieverFlags are --retriever and the expansion's and personalized
// PageRank's parameters (--top-k is both's: it is read into exp and
// copied to ppr).
type retrieverFlags struct {
	name string
	exp  expansion.Params
	ppr  ppr.Params
}

// expansionFlagNames are the flags that apply to the expansion only.
var expansionFlagNames = []string{"max-hops", "expansion-factor", "depth-decay", "top-k", "type-weight"}

// activationFlagNames are the flags that apply to Activation Energy only.
var activationFlagNames = []string{"max-depth", "min-activation", "tag-sim-floor", "max-branches", "near-misses", "trace", "cypher"}

// pprFlagNames are the flags that apply to personalized PageRank only
// (and --top-k, which the expansion has too).
var pprFlagNames = []string{"damping", "epsilon", "top-k"}

// ownFlags are each retriever's own flags: any other retriever refuses
// them.
var ownFlags = map[string][]string{activation.Name: activationFlagNames, expansion.Name: expansionFlagNames, ppr.Name: pprFlagNames}

func (r *retrieverFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&r.name, "retriever", activation.Name, "the `retriever`: "+strings.Join(Retrievers, " or ")+" (docs/RETRIEVERS.md)")
	r.exp = expansion.DefaultParams()
	fs.IntVar(&r.exp.MaxHops, "max-hops", r.exp.MaxHops, "expansion: hops from the seeds `H` (1-3)")
	fs.Float64Var(&r.exp.ExpansionFactor, "expansion-factor", r.exp.ExpansionFactor, "expansion: the factor `f` every expanded score is damped by, in (0, 1]")
	fs.Float64Var(&r.exp.DepthDecay, "depth-decay", r.exp.DepthDecay, "expansion: the decay `δ` per hop, in (0, 1]")
	fs.IntVar(&r.exp.TopK, "top-k", r.exp.TopK, "expansion, ppr: hits kept `K`")
	fs.Var(typeWeights{&r.exp}, "type-weight", "expansion: weigh a relationship type, `TYPE=X` with X in [-1, 1] (0: not followed; repeatable)")
	r.ppr = ppr.DefaultParams()
	fs.Float64Var(&r.ppr.Damping, "damping", r.ppr.Damping, "ppr: the probability `d` of following a relationship rather than restart, in (0, 1)")
	fs.Float64Var(&r.ppr.Epsilon, "epsilon", r.ppr.Epsilon, "ppr: push until every residual is below `ε` × the node's RELATES weight, in (0, 1)")
}

// check refuses a retriever it does not know and flags of the other
// retriever.
func (r *retrieverFlags) check(fs *flag.FlagSet, cmd string) error {
	known := false
	for _, n := range Retrievers {
		known = known || n == r.name
	}
	if !known {
		return usagef("%s: unknown --retriever %q (want %s)", cmd, r.name, strings.Join(Retrievers, " or "))
	}
	var err error
	fs.Visit(func(f *flag.Flag) {
		if err != nil || slices.Contains(ownFlags[r.name], f.Name) {
			return
		}
		for _, names := range ownFlags {
			if slices.Contains(names, f.Name) {
				err = usagef("%s: --%s does not apply to --retriever %s", cmd, f.Name, r.name)
				return
			}
		}
	})
	if err != nil {
		return err
	}
	r.ppr.TopK = r.exp.TopK
	var e error
	switch r.name {
	case expansion.Name:
		e = r.exp.Validate()
	case ppr.Name:
		e = r.ppr.Validate()
	}
	if e != nil {
		return usageError{cmd + ": " + e.Error()}
	}
	return nil
}

// neighbourhoodFor returns the graph reads every retriever but Activation
// Energy uses, over whichever engine src is: the one place that pairs an
// engine with them.
func neighbourhoodFor(src graph.Source) (graph.Neighbourhood, error) {
	switch s := src.(type) {
	case *inmem.Graph:
		return s, nil
	case *neo4jdb.Source:
		return neo4jdb.NewNeighbourhood(s), nil
	}
	return nil, fmt.Errorf("no retriever can read %s", src.Describe())
}

// rankingFormats are the formats of a ranking retriever.
var rankingFormats = []string{"ranking", "tree", "d3", "llm", "cypher"}

// printRanking writes r in format.
func printRanking(r retriever.Ranking, format string, form render.CypherForm, out io.Writer) error {
	var err error
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
		_, err = io.WriteString(out, render.Script(render.RankingCypher(r), form))
	}
	return err
}

// runExpansion runs the expansion for explore and prints it.
func runExpansion(ctx context.Context, src graph.Source, q retriever.Query, p expansion.Params, format string, form render.CypherForm, out io.Writer) error {
	return runRanking(src, format, form, out, func(nb graph.Neighbourhood) (retriever.Ranking, error) {
		return expansion.Retrieve(ctx, nb, q, p)
	})
}

// runPPR runs personalized PageRank for explore and prints it.
func runPPR(ctx context.Context, src graph.Source, q retriever.Query, p ppr.Params, format string, form render.CypherForm, out io.Writer) error {
	return runRanking(src, format, form, out, func(nb graph.Neighbourhood) (retriever.Ranking, error) {
		return ppr.Retrieve(ctx, nb, q, p)
	})
}

// runRanking runs a ranking retriever over src's neighbourhood reads and
// prints its ranking in format.
func runRanking(src graph.Source, format string, form render.CypherForm, out io.Writer, retrieve func(graph.Neighbourhood) (retriever.Ranking, error)) error {
	nb, err := neighbourhoodFor(src)
	if err != nil {
		return err
	}
	r, err := retrieve(nb)
	if err != nil {
		return err
	}
	return printRanking(r, format, form, out)
}
