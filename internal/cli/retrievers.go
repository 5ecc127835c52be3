package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/registry"
)

// retrieverNames are the names explore's --retriever and compare's
// --retrievers take, the default first: the registry's (Activation Energy,
// then every ranking retriever).
func retrieverNames() []string { return registry.Names() }

// retrieverFlags are --retriever and the parameters of the ranking
// retrievers, each registered from its table (retriever.Spec).
type retrieverFlags struct {
	name string
	topK int // --top-k, shared by every ranking retriever
	// set holds each ranking retriever's parameters, by name.
	set map[string]*retriever.Settings
	// queryVector is --query-vector's file, read by finish into vector
	// (the query's embedding, for the retrievers that read one).
	queryVector string
	vector      []float64
	// keyed are values of the retrievers' keyed parameters (fusion's
	// weight per fused ranking) that tune and the metric sweep set, by
	// retriever and key, over what the flags give.
	keyed map[string]map[string]float64
}

// setKeyed sets retriever name's keyed parameter at key to v (setSwept).
func (r *retrieverFlags) setKeyed(name, key string, v float64) {
	if r.keyed == nil {
		r.keyed = map[string]map[string]float64{}
	}
	if r.keyed[name] == nil {
		r.keyed[name] = map[string]float64{}
	}
	r.keyed[name][key] = v
}

// activationFlagNames are the flags that apply to Activation Energy only.
var activationFlagNames = []string{"max-depth", "min-activation", "tag-sim-floor", "max-branches", "near-misses", "trace", "cypher"}

// ownFlags are the flags that apply to retriever name (its table's and its
// own); a flag listed for some retrievers is refused with the others.
func ownFlags(name string) []string {
	if name == registry.Activation {
		return activationFlagNames
	}
	spec, ok := registry.Lookup(name)
	if !ok {
		return nil
	}
	out := []string{}
	for _, p := range spec.Params {
		out = append(out, p.Flag)
	}
	return append(out, spec.FlagNames...)
}

func (r *retrieverFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&r.name, "retriever", registry.Activation, "the `retriever`: "+strings.Join(retrieverNames(), ", ")+" (docs/RETRIEVERS.md)")
	var ranking []string
	for _, spec := range registry.Specs() {
		ranking = append(ranking, spec.Name)
	}
	fs.IntVar(&r.topK, "top-k", 10, strings.Join(ranking, ", ")+": hits kept `K`")
	r.set = map[string]*retriever.Settings{}
	for _, spec := range registry.Specs() {
		p := spec.Defaults()
		r.set[spec.Name] = &p
		spec.RegisterFlags(fs, &p, registry.Others(spec.Name), listItems)
	}
	fs.StringVar(&r.queryVector, "query-vector", "", "spreading, --rerank signals with any retriever, and --query's vector matcher: a JSON array of\n"+
		"numbers in `FILE`, the query's embedding (semantic similarity)")
}

// settings are retriever name's parameters as its flags set them, with
// the shared K and the query's embedding.
func (r *retrieverFlags) settings(name string) retriever.Settings {
	s := r.set[name].WithTopK(r.topK).WithVector(r.vector)
	for _, k := range slices.Sorted(maps.Keys(r.keyed[name])) {
		s = s.WithKeyed(k, r.keyed[name][k])
	}
	return s
}

// all are every ranking retriever's settings, by name.
func (r *retrieverFlags) all() map[string]retriever.Settings {
	out := make(map[string]retriever.Settings, len(r.set))
	for name := range r.set {
		out[name] = r.settings(name)
	}
	return out
}

// combined are the retrievers name combines (fusion's --fuse), none for
// the others.
func (r *retrieverFlags) combined(name string) []string {
	s, ok := r.set[name]
	if !ok {
		return nil
	}
	names, _, _ := s.Spec().Combines(*s)
	return names
}

// names are the retrievers a run of r.name involves: itself, and the ones
// it combines.
func (r *retrieverFlags) names() []string {
	return append([]string{r.name}, r.combined(r.name)...)
}

// refuseOthers refuses every flag set on fs that belongs to other
// retrievers and not to name.
func refuseOthers(fs *flag.FlagSet, cmd, name string) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if err != nil || slices.Contains(ownFlags(name), f.Name) || slices.Contains(sharedWith(fs), f.Name) {
			return
		}
		for _, other := range retrieverNames() {
			if other != name && slices.Contains(ownFlags(other), f.Name) {
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
	if !slices.Contains(retrieverNames(), r.name) {
		return usagef("%s: unknown --retriever %q (want %s)", cmd, r.name, strings.Join(retrieverNames(), ", "))
	}
	if len(r.combined(r.name)) > 0 {
		if err := refuseUnlisted(fs, cmd, "--retriever "+r.name+" does not fuse it", r.names()); err != nil {
			return err
		}
	} else if err := refuseOthers(fs, cmd, r.name); err != nil {
		return err
	}
	return r.finish(cmd, r.names())
}

// finish checks the parameters of the retrievers named and of those they
// combine (the shared --top-k set into each) and reads the query vector;
// errors start with cmd (none when "").
func (r *retrieverFlags) finish(cmd string, names []string) error {
	for _, n := range slices.Clone(names) {
		names = append(names, r.combined(n)...)
	}
	if cmd != "" {
		cmd += ": "
	}
	// A combining retriever's parameters first, then the others in the
	// registry's order.
	specs := registry.Specs()
	slices.SortStableFunc(specs, func(a, b *retriever.Spec) int {
		return cmpBool(len(r.combined(b.Name)) > 0, len(r.combined(a.Name)) > 0)
	})
	for _, spec := range specs {
		if !slices.Contains(names, spec.Name) {
			continue
		}
		if e := r.settings(spec.Name).Validate(); e != nil {
			return usageError{eachLine(cmd, flagNamed(e))}
		}
	}
	// Given without spreading only when a rerank takes it (sharedWith).
	if r.queryVector != "" {
		v, err := readInput(cmd, "query-vector", r.queryVector, parseQueryVector)
		if err != nil {
			return err
		}
		r.vector = v
	}
	return nil
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
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
