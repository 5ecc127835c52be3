package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/expansion"
)

// Retrievers are the names --retriever takes, the default first.
var Retrievers = []string{activation.Name, expansion.Name}

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

// retrieverFlags are --retriever and the expansion's parameters.
type retrieverFlags struct {
	name string
	exp  expansion.Params
}

// expansionFlagNames are the flags that apply to the expansion only.
var expansionFlagNames = []string{"max-hops", "expansion-factor", "depth-decay", "top-k", "type-weight"}

// activationFlagNames are the flags that apply to Activation Energy only.
var activationFlagNames = []string{"max-depth", "min-activation", "tag-sim-floor", "max-branches", "near-misses", "trace", "cypher"}

func (r *retrieverFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&r.name, "retriever", activation.Name, "the `retriever`: "+strings.Join(Retrievers, " or ")+" (docs/RETRIEVERS.md)")
	r.exp = expansion.DefaultParams()
	fs.IntVar(&r.exp.MaxHops, "max-hops", r.exp.MaxHops, "expansion: hops from the seeds `H` (1-3)")
	fs.Float64Var(&r.exp.ExpansionFactor, "expansion-factor", r.exp.ExpansionFactor, "expansion: the factor `f` every expanded score is damped by, in (0, 1]")
	fs.Float64Var(&r.exp.DepthDecay, "depth-decay", r.exp.DepthDecay, "expansion: the decay `δ` per hop, in (0, 1]")
	fs.IntVar(&r.exp.TopK, "top-k", r.exp.TopK, "expansion: hits kept `K`")
	fs.Var(typeWeights{&r.exp}, "type-weight", "expansion: weigh a relationship type, `TYPE=X` with X in [-1, 1] (0: not followed; repeatable)")
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
	other := expansionFlagNames
	if r.name == expansion.Name {
		other = activationFlagNames
	}
	var err error
	fs.Visit(func(f *flag.Flag) {
		for _, n := range other {
			if f.Name == n && err == nil {
				err = usagef("%s: --%s does not apply to --retriever %s", cmd, n, r.name)
			}
		}
	})
	if err != nil {
		return err
	}
	if r.name == expansion.Name {
		if e := r.exp.Validate(); e != nil {
			return usageError{cmd + ": " + e.Error()}
		}
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
	nb, err := neighbourhoodFor(src)
	if err != nil {
		return err
	}
	r, err := expansion.Retrieve(ctx, nb, q, p)
	if err != nil {
		return err
	}
	return printRanking(r, format, form, out)
}
