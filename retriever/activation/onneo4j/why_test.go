package onneo4j

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/why"
)

// TestWhyKnowsItsElementIDs: why.Explain reads from both ends
// (docs/ALGORITHM.md, "Why not X", step 1): from the seeds, and from the
// node asked about, which it looked up with FetchSeed, outwards through
// nodes no exploration from a seed may have met. The fast path and the
// snapshot address a frontier node by the element id an earlier lookup or
// level returned, and look up (resolve) only ids they have never seen.
// Asking about every node of the demo graph in scenario A, and in the
// cross-cluster scenario from T3000 with MAX_DEPTH 6, through both, sends
// no resolve query at all, while the reads with no threshold did run (at
// least 20 level queries on the fast path, 10 adjacency reads on the
// snapshot). Control: an expander asked to expand a node it has never
// seen does send one, so the check can fail.
func TestWhyKnowsItsElementIDs(t *testing.T) {
	src := demoSource(t)
	fast := New(src)
	snap := NewSnapshot(src)
	var mu sync.Mutex
	var resolves, levels, adjacency int
	trace := func(q string, p map[string]any) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case strings.HasPrefix(q, "UNWIND $ids AS id\n"):
			resolves++
		case q == BatchExpandQuery && p["min_threshold"] == -math.MaxFloat64:
			levels++
		case q == batchAdjacencyQuery:
			adjacency++
		}
	}
	fast.trace, snap.fast.trace = trace, trace
	var ids []string
	for _, n := range demoGraph(t).Nodes {
		ids = append(ids, n.Properties["id"].(string))
	}
	for _, q := range []struct {
		seed  retriever.Seed
		tags  []string
		depth int
	}{
		{retriever.Seed{NodeID: "N2006", Score: 0.85}, []string{"demand_forecasting", "stockout", "safety_stock", "inventory_policy"}, 5},
		{retriever.Seed{NodeID: "T3000", Score: 0.9}, []string{"campaign"}, 6},
	} {
		ps := activation.DefaultParams()
		ps.MaxDepth = q.depth
		for _, be := range []activation.Backend{fast, snap} {
			for _, id := range ids {
				if _, err := why.Explain(context.Background(), why.Config{Backend: be, Params: ps, Options: activation.DefaultOptions(),
					Seeds: []retriever.Seed{q.seed}, Tags: q.tags, NodeID: id}); err != nil {
					t.Fatalf("why %s: %v", id, err)
				}
			}
		}
	}
	mu.Lock()
	t.Logf("%d resolve queries, %d level and %d adjacency reads with no threshold", resolves, levels, adjacency)
	if resolves != 0 || levels < 20 || adjacency < 10 {
		t.Errorf("%d resolve queries, %d level and %d adjacency reads with no threshold; want none, at least 20 and 10", resolves, levels, adjacency)
	}
	mu.Unlock()

	exp, release, err := fast.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer release(context.Background())
	if _, err := exp.ExpandFrontier(context.Background(), activation.ExpandRequest{Frontier: []activation.FrontierInput{{NodeID: "N2010", Activation: 1}},
		Visited: map[string]struct{}{}, MinActivation: -math.MaxFloat64, TagSimFloor: 0.15}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if resolves == 0 {
		t.Error("control: expanding a node never seen sent no resolve query")
	}
}
