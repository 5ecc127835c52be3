package ppr_test

import (
	"context"
	"fmt"
	"math/rand"
	"runtime"
	"strconv"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/ppr"
	"github.com/memoria-graph/memoria/testkit/peakmem"
)

// star is a hub H with leaves L0 … L(n−1), each H–Li of weight 1.
func star(t testing.TB, n int) *inmem.Graph {
	g := &apoc.Graph{Nodes: []apoc.Node{{InternalID: "h", Labels: []string{"Memory"}, Properties: map[string]any{"id": "H"}}}}
	for i := range n {
		id := strconv.Itoa(i)
		g.Nodes = append(g.Nodes, apoc.Node{InternalID: id, Labels: []string{"Memory"}, Properties: map[string]any{"id": "L" + id}})
		g.Rels = append(g.Rels, apoc.Relationship{InternalID: id, Type: "RELATES", Start: "h", End: id, Properties: map[string]any{"weight": 1.0}})
	}
	m, err := inmem.New(g, "star")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// pairs is n pairs Ai–Bi, each of weight 1, and the query of every Ai, R 1.
func pairs(t testing.TB, n int) (*inmem.Graph, retriever.Query) {
	g := &apoc.Graph{}
	var q retriever.Query
	for i := range n {
		a, b := "A"+strconv.Itoa(i), "B"+strconv.Itoa(i)
		g.Nodes = append(g.Nodes, apoc.Node{InternalID: a, Labels: []string{"Memory"}, Properties: map[string]any{"id": a}},
			apoc.Node{InternalID: b, Labels: []string{"Memory"}, Properties: map[string]any{"id": b}})
		g.Rels = append(g.Rels, apoc.Relationship{InternalID: strconv.Itoa(i), Type: "RELATES", Start: a, End: b, Properties: map[string]any{"weight": 1.0}})
		q.Seeds = append(q.Seeds, retriever.Seed{NodeID: a, Score: 1})
	}
	m, err := inmem.New(g, "pairs")
	if err != nil {
		t.Fatal(err)
	}
	return m, q
}

// TestRoutesThroughHub: the star of 2,000 leaves from L0, every node
// ranked (K 2,001, as `why` asks: its nodes touched). Every node is
// pushed: L0's 1 − d = ½ reaches H, ½ ≥ ε × 2000; H sends each leaf ½ ×
// ½ / 2000 = 1.25e-4 ≥ ε × 1. Every leaf's route is leaf ← H ← L0. The
// route looks at each leaf's one relationship once (1,999 leaves but
// L0, a seed, which has no route) and at H's 2,000 once, 3,999 entries in
// all; looking at H's 2,000 again for every leaf it looked at 4,001,999
// (1,999 × (1 + 2,000) + 2,000).
func TestRoutesThroughHub(t *testing.T) {
	g := star(t, 2000)
	var scans int
	defer ppr.CountRouteScans(&scans)()
	p := ppr.DefaultParams()
	p.TopK = 2001
	r := run(t, g, p, retriever.Seed{NodeID: "L0", Score: 1})
	if len(r.Hits) != 2001 || stat(r, "pushes").(int) < 2001 {
		t.Fatalf("%d hits, %v pushes", len(r.Hits), stat(r, "pushes"))
	}
	for _, h := range r.Hits {
		if h.NodeID != "L0" && h.NodeID != "H" && (len(h.Route) != 2 || h.Route[0].From != "L0" || h.Route[1].To != h.NodeID) {
			t.Fatalf("%s's route %+v", h.NodeID, h.Route)
		}
	}
	if scans != 3999 {
		t.Errorf("the routes looked at %d adjacency entries, want 3,999", scans)
	}
}

// TestManySeedsMemory: 1,000 seeds, one per pair of 1,000 pairs. Kept
// by seed, a run held 2 floats per seed per node met, 2 × 1,000 × 2,000 ×
// 8 B = 32 MB at the least (it allocated 162 MB, the arrays growing by
// appends). The run's allocations must stay
// under 8 MB, from no kept state: its own arrays are a few values per
// node, with the seeds' shares for the K = 10 hits alone.
func TestManySeedsMemory(t *testing.T) {
	g, q := pairs(t, 1000)
	run := func() retriever.Ranking {
		r, err := ppr.Retrieve(context.Background(), g, q, ppr.DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	run() // the graph's strengths, built once
	var before, after runtime.MemStats
	runtime.GC() // twice: the state kept from the last run (a sync.Pool) is let go
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := run()
	runtime.ReadMemStats(&after)
	got := after.TotalAlloc - before.TotalAlloc
	t.Logf("one run allocated %.2f MB", float64(got)/(1<<20))
	if got > 8<<20 {
		t.Errorf("one run allocated %.1f MB", float64(got)/(1<<20))
	}
	// Each pair alike: A ½·…, π(A) = 2/3, π(B) = 1/3, times p = 1/1000.
	if len(r.Hits) != 10 || len(r.Hits[0].Terms) != 1 || r.Hits[0].Terms[0].Name != "share("+r.Hits[0].NodeID+")" {
		t.Errorf("%+v", r.Hits[0])
	}
}

// BenchmarkStarRoutes is `why --retriever ppr`'s ranking on stars of
// 25,000, 50,000 and 100,000 leaves (the star above, from L0, K every
// node touched): the routes of every leaf pass through the hub.
func BenchmarkStarRoutes(b *testing.B) {
	for _, n := range []int{25_000, 50_000, 100_000} {
		b.Run(fmt.Sprintf("leaves=%d", n), func(b *testing.B) {
			g := star(b, n)
			p := ppr.DefaultParams()
			p.TopK = n + 1
			q := retriever.Query{Seeds: []retriever.Seed{{NodeID: "L0", Score: 1}}}
			for b.Loop() {
				r, err := ppr.Retrieve(context.Background(), g, q, p)
				if err != nil || len(r.Hits) != n+1 {
					b.Fatal(err, len(r.Hits))
				}
			}
		})
	}
}

// BenchmarkManySeeds is one run from 1,000, 2,000 and 4,000 seeds, one
// per pair of as many pairs (TestManySeedsMemory's graph). One more run,
// from no kept state (the pool let go by two collections), reports its
// peak heap above the heap before it (peak-MB, sampled by peakmem, garbage
// not yet collected included) and the bytes it allocated (alloc-MB).
func BenchmarkManySeeds(b *testing.B) {
	for _, n := range []int{1000, 2000, 4000} {
		b.Run(fmt.Sprintf("seeds=%d", n), func(b *testing.B) {
			g, q := pairs(b, n)
			f := func() {
				if _, err := ppr.Retrieve(context.Background(), g, q, ppr.DefaultParams()); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				f()
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.GC()
			runtime.ReadMemStats(&before)
			base := peakmem.HeapObjects()
			p := peakmem.Start()
			f()
			peak := p.End()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(peak-min(peak, base))/(1<<20), "peak-MB")
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/(1<<20), "alloc-MB")
		})
	}
}

// TestReplayBothWaysSameBits: the seeds' shares are replayed by walking
// every push per seed (few seeds) or by visiting only the pushes that
// move the seed's mass, from a heap (many), switching back to the walk
// after a replay that visited a quarter of the pushes: on 200 random
// graphs (100 with their usual one to six seeds, 100 with every node a
// seed, scores at random), half read by number and half through Arcs,
// the walk, the heap alone and the heap switching give the same ranking,
// to the bit, and the same statistics.
func TestReplayBothWaysSameBits(t *testing.T) {
	r := rand.New(rand.NewSource(59))
	for i := range 200 {
		c := newRandomCase(r)
		if i%2 == 1 {
			c.query.Seeds = nil
			for _, n := range c.g.Nodes {
				if id, ok := n.Properties["id"].(string); ok {
					c.query.Seeds = append(c.query.Seeds, retriever.Seed{NodeID: id, Score: []float64{1, 0.5, 0.1}[r.Intn(3)]})
				}
			}
		}
		g, err := inmem.New(c.g, "random")
		if err != nil {
			t.Fatal(err)
		}
		var nb graph.Neighbourhood = g
		if i%4 >= 2 {
			nb = genericOnly{g}
		}
		var ways []string
		for _, w := range [][2]int{{1 << 30, 0}, {0, 0}, {0, 4}} {
			restore := ppr.SetReplay(w[0], w[1])
			got, err := ppr.Retrieve(context.Background(), nb, c.query, c.p)
			restore()
			ways = append(ways, fmt.Sprintf("%+v %v", got, err))
		}
		if ways[0] != ways[1] || ways[0] != ways[2] {
			t.Fatalf("case %d (%d seeds): walking every push:\n%s\nfrom the heap:\n%s\nswitching:\n%s", i, len(c.query.Seeds), ways[0], ways[1], ways[2])
		}
	}
}
