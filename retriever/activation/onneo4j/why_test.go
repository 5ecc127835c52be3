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
	"github.com/memoria-graph/memoria/testkit/neo4jfix"
)

// TestWhyKnowsItsElementIDs: why.Explain reads from both ends
// (docs/ALGORITHM.md, "Why not X", step 1): from the seeds, and from the
// node asked about, which it looked up with FetchSeed, outwards through
// nodes no exploration from a seed may have met. The fast path and the
// snapshot address a frontier node by the element id an earlier lookup or
// level returned, and look up (resolve) only ids they have never seen.
// Asking about every node of the demo graph in scenario A, and in the
// cross-cluster scenario from T3000 with MAX_DEPTH 6, through both, sends
// no resolve query at all, while why's reads did run on the server (some
// restricted level query, BatchNearQuery, was sent: how many depends on
// what the snapshot already held, so the test asks for at least one), and
// the plan of one of them (EXPLAINed with its
// parameters) scans no node. Control: an expander asked to expand a node
// it has never seen does send a resolve query, so the check can fail.
func TestWhyKnowsItsElementIDs(t *testing.T) {
	src := fx.Demo(t)
	fast := New(src)
	snap := NewSnapshot(src)
	var mu sync.Mutex
	var resolves, levels int
	var sample map[string]any // the parameters of one restricted level query
	trace := func(q string, p map[string]any) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case strings.HasPrefix(q, "UNWIND $ids AS id\n"):
			resolves++
		case q == BatchNearQuery:
			levels++
			if sample == nil || len(p["requests"].([]any)[0].(map[string]any)["near"].(map[string]any)) > 0 {
				sample = p
			}
		}
	}
	fast.trace, snap.fast.trace = trace, trace
	var ids []string
	for _, n := range neo4jfix.DemoGraph(t).Nodes {
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
	t.Logf("%d resolve queries, %d restricted level queries", resolves, levels)
	if resolves != 0 || levels == 0 {
		t.Errorf("%d resolve queries, %d restricted level queries; want none and some", resolves, levels)
	}
	if sample != nil {
		if ops := planOperators(t, src.Driver(), BatchNearQuery, sample); hasScan(ops) {
			t.Errorf("the plan of BatchNearQuery scans: %v", ops)
		}
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
