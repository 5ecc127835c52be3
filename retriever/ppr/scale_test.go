package ppr_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/ppr"
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
