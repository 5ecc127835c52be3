package expansion_test

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/expansion"
	"github.com/memoria-graph/memoria/testkit/naiveexp"
	"github.com/memoria-graph/memoria/testkit/randgraph"
)

// RandomCase is a random typed graph with random seeds and parameters.
type randomCase struct {
	g     *apoc.Graph
	query retriever.Query
	p     expansion.Params
}

func newRandomCase(r *rand.Rand) randomCase {
	g := randgraph.Generate(r, randgraph.Random(r, 20, 120))
	randgraph.AddTyped(r, g, 1.5*r.Float64())
	q := retriever.Query{Seeds: randgraph.Seeds(r, g)}
	p := expansion.DefaultParams()
	p.MaxHops = 1 + r.Intn(3)
	p.ExpansionFactor = []float64{0.6, 1, 0.5}[r.Intn(3)]
	p.DepthDecay = []float64{0.8, 1, 0.5}[r.Intn(3)]
	p.TopK = []int{10, 3, 1, 50}[r.Intn(4)]
	if r.Intn(3) == 0 {
		p.TypeWeights["RELATES"] = 0
	}
	if r.Intn(3) == 0 {
		p.TypeWeights["CITES"] = 0.3
	}
	return randomCase{g: g, query: q, p: p}
}

// naiveOf runs the naive implementation on c.
func (c randomCase) naive() naiveexp.Result {
	var seeds []naiveexp.Seed
	for _, s := range c.query.Seeds {
		seeds = append(seeds, naiveexp.Seed{ID: s.NodeID, R: s.Score})
	}
	return naiveexp.Run(c.g, seeds, naiveexp.Params{MaxHops: c.p.MaxHops, ExpansionFactor: c.p.ExpansionFactor,
		DepthDecay: c.p.DepthDecay, TopK: c.p.TopK, TypeWeights: c.p.TypeWeights})
}

// agreeWithNaive compares a ranking with the naive result: the same hits
// in the same order with the same scores (exactly: both multiply in the
// same order), seeds, origins and routes, and the same statistics.
func agreeWithNaive(t *testing.T, label string, got retriever.Ranking, want naiveexp.Result) {
	t.Helper()
	if len(got.Hits) != len(want.Hits) {
		t.Fatalf("%s: %d hits, naive %d: %v vs %v", label, len(got.Hits), len(want.Hits), hitIDs(got), want.Hits)
	}
	for i, h := range got.Hits {
		w := want.Hits[i]
		if h.NodeID != w.ID || h.Score != w.Score || h.Rank != w.Rank || h.Seed != w.Seed ||
			(h.Origin == retriever.OriginInitial) != w.Initial || h.Contradicting != w.Contradicting || len(h.Route) != len(w.Route) {
			t.Fatalf("%s: hit %d is %s %v seed %s %s, naive %+v", label, i+1, h.NodeID, h.Score, h.Seed, h.Origin, w)
		}
		for j, hop := range h.Route {
			wh := w.Route[j]
			if hop.From != wh.From || hop.To != wh.To || hop.Type != wh.Type || hop.Weight != wh.Weight || hop.Factor != wh.Factor {
				t.Fatalf("%s: %s's hop %d is %+v, naive %+v", label, h.NodeID, j, hop, wh)
			}
		}
	}
	skipped, _ := got.Stats.Get("skipped_by_type")
	var ws retriever.Fields
	for _, ty := range randgraph.Types {
		if n := want.Skipped[ty]; n > 0 {
			ws = append(ws, retriever.Field{Name: ty, Value: n})
		}
	}
	if n := want.Skipped["RELATES"]; n > 0 {
		ws = append(ws, retriever.Field{Name: "RELATES", Value: n})
	}
	for name, v := range map[string]any{"initial_count": want.Found, "new_results": want.New, "kept_results": want.Kept,
		"dropped_results": want.Dropped, "self_loops_skipped": want.SelfLoops} {
		if g, _ := got.Stats.Get(name); g != v {
			t.Errorf("%s: %s = %v, naive %v", label, name, g, v)
		}
	}
	if fmt.Sprint(sortedFields(skipped.(retriever.Fields))) != fmt.Sprint(sortedFields(ws)) {
		t.Errorf("%s: skipped %v, naive %v", label, skipped, ws)
	}
}

func sortedFields(f retriever.Fields) map[string]any {
	m := map[string]any{}
	for _, x := range f {
		m[x.Name] = x.Value
	}
	return m
}

// TestAgreesWithNaive: on 300 random typed graphs (parallel relationships,
// self-loops, nodes without ids, missing and integer weights, types the
// table does not know) the retriever on the embedded engine ranks exactly
// as the naive implementation.
func TestAgreesWithNaive(t *testing.T) {
	for i := range 300 {
		r := rand.New(rand.NewSource(int64(i)))
		c := newRandomCase(r)
		g, err := inmem.New(c.g, "random")
		if err != nil {
			t.Fatal(err)
		}
		got, err := expansion.Retrieve(context.Background(), g, c.query, c.p)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		agreeWithNaive(t, fmt.Sprintf("case %d", i), got, c.naive())
	}
}
