package spreading_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand"
	"testing"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/spreading"
	"github.com/memoria-graph/memoria/testkit/naivespread"
	"github.com/memoria-graph/memoria/testkit/randgraph"
)

// dims is the length of the random graphs' embeddings and query vectors.
const dims = 3

// decorate gives nodes of g embedding and entity_count properties, by a
// deterministic rule on a 64-bit FNV-1a hash h of the node's id: three in
// four nodes get an embedding, element i being ((h >> 8i) & 0xff − 128) /
// 128 (so dot products are exact), or that times 128 as an integer for
// one in five (the same direction), one in eleven of those with a fourth
// element (a length the query vector does not have); one node in seven
// gets entity_count (h >> 40) % 50 as an integer, one in thirteen as a
// float.
func decorate(g *apoc.Graph) {
	for _, n := range g.Nodes {
		id, ok := n.Properties["id"].(string)
		if !ok {
			continue
		}
		f := fnv.New64a()
		f.Write([]byte(id))
		h := f.Sum64()
		if h%4 != 0 {
			k := dims
			if h%11 == 0 {
				k++
			}
			emb := make([]any, k)
			for i := range emb {
				x := int((h>>(8*i))&0xff) - 128
				if h%5 == 0 {
					emb[i] = int64(x) // whole numbers, as a model may write them
				} else {
					emb[i] = float64(x) / 128
				}
			}
			n.Properties["embedding"] = emb
		}
		switch {
		case h%7 == 0:
			n.Properties["entity_count"] = int64((h >> 40) % 50)
		case h%13 == 0:
			n.Properties["entity_count"] = float64((h >> 40) % 50)
		}
	}
}

// randomCase is a random typed graph, decorated, with random seeds and
// parameters.
type randomCase struct {
	g     *apoc.Graph
	query retriever.Query
	p     spreading.Params
}

func newRandomCase(r *rand.Rand) randomCase {
	g := randgraph.Generate(r, randgraph.Random(r, 20, 120))
	randgraph.AddTyped(r, g, 1.5*r.Float64())
	decorate(g)
	var ids []string
	for _, n := range g.Nodes {
		if id, ok := n.Properties["id"].(string); ok {
			ids = append(ids, id)
		}
	}
	var q retriever.Query
	for _, i := range r.Perm(len(ids))[:1+r.Intn(min(5, len(ids)))] {
		q.Seeds = append(q.Seeds, retriever.Seed{NodeID: ids[i], Score: []float64{1, 0.9, 0.5, 0.25, 0.1}[r.Intn(5)]})
	}
	if r.Intn(4) == 0 {
		q.Seeds = append(q.Seeds, retriever.Seed{NodeID: "absent", Score: 0.7})
	}
	p := spreading.DefaultParams()
	p.Pulses = []int{1, 2, 2, 3, 4, 6}[r.Intn(6)]
	p.Decay = []float64{0.7, 1, 0.5}[r.Intn(3)]
	p.Threshold = []float64{0.05, 0, 0.2, 0.01}[r.Intn(4)]
	p.Alpha = []float64{0.7, 0, 1, 0.5}[r.Intn(4)]
	p.EntityPenaltyAbove = []float64{20, 1, 3, 5}[r.Intn(4)]
	p.TopK = []int{10, 3, 1, 200}[r.Intn(4)]
	if r.Intn(2) == 0 {
		p.Initial = spreading.InitialScore
	}
	if r.Intn(3) != 0 {
		p.QueryVector = make([]float64, dims)
		for i := range p.QueryVector {
			p.QueryVector[i] = float64(r.Intn(17)-8) / 8
		}
		p.QueryVector[r.Intn(dims)] = 1 // never all zeros
	}
	return randomCase{g: g, query: q, p: p}
}

func (c randomCase) naive() naivespread.Result {
	var seeds []naivespread.Seed
	for _, s := range c.query.Seeds {
		seeds = append(seeds, naivespread.Seed{ID: s.NodeID, R: s.Score})
	}
	return naivespread.Run(c.g, seeds, naivespread.Params{Pulses: c.p.Pulses, Decay: c.p.Decay, Threshold: c.p.Threshold,
		Alpha: c.p.Alpha, EntityPenaltyAbove: c.p.EntityPenaltyAbove, ScoreStart: c.p.Initial == spreading.InitialScore,
		QueryVector: c.p.QueryVector})
}

// agreeWithNaive compares a ranking with the naive result. The naive adds
// in another order (the graph's relationship order, not the engines'), so
// scores agree to 1e-12 relative, not bit for bit. Rankings agree exactly
// except between exact ties: every hit is a naive candidate with the same
// score; no two hits are in an order the naive scores contradict by more
// than that tolerance; no candidate left out scores above the last hit
// kept by more than it; and there are min(K, candidates) hits. The
// statistics agree exactly.
func agreeWithNaive(t *testing.T, label string, got retriever.Ranking, want naivespread.Result, k int) {
	t.Helper()
	score := map[string]float64{}
	for _, h := range want.Hits {
		score[h.ID] = h.Score
	}
	if len(got.Hits) != min(k, len(want.Hits)) {
		t.Fatalf("%s: %d hits, naive %d candidates with K %d", label, len(got.Hits), len(want.Hits), k)
	}
	kept := map[string]bool{}
	for i, h := range got.Hits {
		w, ok := score[h.NodeID]
		if !ok || !close12(h.Score, w) {
			t.Fatalf("%s: hit %d %s scores %v, naive %v (candidate %v)", label, i+1, h.NodeID, h.Score, w, ok)
		}
		if i > 0 {
			if prev := score[got.Hits[i-1].NodeID]; prev < w && !close12(prev, w) {
				t.Fatalf("%s: %s (naive %v) ranks above %s (naive %v)", label, got.Hits[i-1].NodeID, prev, h.NodeID, w)
			}
		}
		kept[h.NodeID] = true
	}
	if n := len(got.Hits); n > 0 {
		last := score[got.Hits[n-1].NodeID]
		for _, h := range want.Hits {
			if !kept[h.ID] && h.Score > last && !close12(h.Score, last) {
				t.Fatalf("%s: %s (naive %v) left out below %v", label, h.ID, h.Score, last)
			}
		}
	}
	for name, v := range map[string]int{"seeds_found": want.Found, "nodes_activated": want.Activated, "candidates": want.Candidates,
		"pulses_run": want.PulsesRun, "relationships_read": want.RelsRead} {
		if g, _ := got.Stats.Get(name); g != v {
			t.Errorf("%s: %s = %v, naive %v", label, name, g, v)
		}
	}
}

// TestAgreesWithNaive: on 300 random typed graphs (parallel relationships,
// self-loops, missing and integer weights, other types, embeddings of the
// right and the wrong length, entity counts) the retriever on the embedded
// engine agrees with the naive implementation (agreeWithNaive).
func TestAgreesWithNaive(t *testing.T) {
	var reached randgraph.Reached
	for i := range 300 {
		r := rand.New(rand.NewSource(int64(i)))
		c := newRandomCase(r)
		g, err := inmem.New(c.g, "random")
		if err != nil {
			t.Fatal(err)
		}
		got, err := spreading.Retrieve(context.Background(), g, c.query, c.p)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		agreeWithNaive(t, fmt.Sprintf("case %d", i), got, c.naive(), c.p.TopK)
		reached.Count(c.g, got)
	}
	reached.Check(t)
}
