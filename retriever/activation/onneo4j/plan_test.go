package onneo4j

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/testkit/neo4jfix"
)

func planOperators(t *testing.T, d neo4j.DriverWithContext, query string, params map[string]any) []string {
	t.Helper()
	return neo4jfix.PlanOperators(t, d, query, params)
}

// hasScan: a plan that reads every node, or every node of a label, which
// the fast path must never run (neo4jfix.Scans).
func hasScan(ops []string) bool { return neo4jfix.HasScan(ops) }

// TestFastPathPlansNoScan runs the demo graph's scenarios (docs/DEMO_GRAPH.md
// A, B1, B2, B3, the cycle seed T4001 and a missing-free set of five seeds,
// MAX_DEPTH 5) on the fast path and on a snapshot (what the explorer
// runs), the graph loaded by `memoria load` with its id indexes, records
// every query the explorations sent with its parameters, and EXPLAINs each
// on the server: no plan may hold an AllNodesScan or a NodeByLabelScan.
// Every seed has an indexed label, so the scan fallback must never have
// run; the seed lookup, the level query and the snapshot's adjacency read
// must all have run (at least 6, 10 and 6 times). As a control, the specification's
// SeedQuery and ExpandQuery, EXPLAINed with the same parameters, do scan:
// the check can fail.
func TestFastPathPlansNoScan(t *testing.T) {
	src := fx.Demo(t)
	b := New(src)
	snap := NewSnapshot(src)
	type sent struct {
		query  string
		params map[string]any
	}
	var queries []sent
	b.trace = func(q string, p map[string]any) { queries = append(queries, sent{q, p}) }
	snap.fast.trace = b.trace
	cfg := activation.DefaultParams()
	cfg.MinActivation = 0.001
	for _, seeds := range [][]retriever.Seed{
		{{NodeID: "N2006", Score: 0.85}},
		{{NodeID: "T3000", Score: 0.9}},
		{{NodeID: "T4001", Score: 1}},
		{{NodeID: "N2006", Score: 1}, {NodeID: "N2003", Score: 0.5}, {NodeID: "T3000", Score: 0.7}, {NodeID: "P5001", Score: 0.6}, {NodeID: "N2010", Score: 0.9}},
	} {
		// One seed at a time, so that trace (not synchronised) sees one
		// goroutine.
		for _, s := range seeds {
			for _, backend := range []activation.Backend{b, snap} {
				res, err := mustRetriever(t, backend, cfg).ExploreAll(context.Background(), []retriever.Seed{s}, []string{"campaign", "stockout"})
				if err != nil || res[0].Error != "" || res[0].TerminatedReason == activation.TerminatedSeedNotFound {
					t.Fatalf("seed %s: %v %s %s", s.NodeID, err, res[0].TerminatedReason, res[0].Error)
				}
			}
		}
	}
	d := src.Driver()
	var seedLookups, levels, adjacency int
	for _, q := range queries {
		switch {
		case q.query == seedScanQuery || q.query == resolveScanQuery:
			t.Errorf("the scan fallback ran for %v although every label is indexed", q.params)
		case strings.HasPrefix(q.query, "UNWIND $requests AS q\nMATCH (n) WHERE n.id = q.node_id AND ("):
			seedLookups++
		case q.query == BatchExpandQuery:
			levels++
		case q.query == batchAdjacencyQuery:
			adjacency++
		}
		if ops := planOperators(t, d, q.query, q.params); hasScan(ops) {
			t.Errorf("the plan of\n%s\nscans: %v", q.query, ops)
		}
	}
	if seedLookups < 6 || levels < 10 || adjacency < 6 {
		t.Errorf("%d seed lookups, %d level queries and %d adjacency reads recorded; want at least 6, 10 and 6", seedLookups, levels, adjacency)
	}
	for _, q := range queries {
		if q.query == BatchExpandQuery {
			// The one request's frontier and visited ids, as ExpandQuery takes them.
			params := maps.Clone(q.params)
			req := params["requests"].([]any)[0].(map[string]any)
			params["frontier"], params["visited_ids"] = req["frontier"], req["visited_ids"]
			if ops := planOperators(t, d, ExpandQuery, params); !hasScan(ops) {
				t.Errorf("control: the seed's ExpandQuery plans without a scan: %v", ops)
			}
			break
		}
	}
	if ops := planOperators(t, d, SeedQuery, map[string]any{"node_id": "N2006"}); !hasScan(ops) {
		t.Errorf("control: the seed's SeedQuery plans without a scan: %v", ops)
	}
}

// TestUnindexedLabelFallsBack: the demo graph plus a node (:Orphan {id:
// "O1"}) related to N2006 by RELATES (w 0.5), created without an index.
// IDCoverage lists Orphan as unindexed and its notice carries the statement
// that fixes it (CREATE INDEX idx_orphan_id IF NOT EXISTS FOR (n:Orphan) ON
// (n.id)); exploring from O1 still finds it (by the scan fallback) and gives
// the same result as the seed's Cypher: O1 → N2006 with T = 1 × 0.5 / √1 ×
// 1 = 0.5 (no query tags, so tag_sim 1), then onwards as on the memory
// engine.
func TestUnindexedLabelFallsBack(t *testing.T) {
	src := fx.Demo(t)
	fx.Changed() // the graph is changed below
	ctx := context.Background()
	if _, err := neo4j.ExecuteQuery(ctx, src.Driver(), `MATCH (s {id: "N2006"}) CREATE (:Orphan {id: "O1"})-[:RELATES {weight: 0.5}]->(s)`, nil, neo4j.EagerResultTransformer); err != nil {
		t.Fatal(err)
	}
	cov, err := New(src).Coverage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cov.Unindexed, []string{"Orphan"}) || !strings.Contains(cov.Notice(), "CREATE INDEX idx_orphan_id IF NOT EXISTS FOR (n:Orphan) ON (n.id)") {
		t.Errorf("coverage %+v, notice %q", cov, cov.Notice())
	}
	seed := []retriever.Seed{{NodeID: "O1", Score: 1}}
	fast, err := mustRetriever(t, New(src), activation.DefaultParams()).ExploreAll(ctx, seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := mustRetriever(t, NewSeedCypher(src), activation.DefaultParams()).ExploreAll(ctx, seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fast[0].SeedNode == nil || len(fast[0].Paths) == 0 || fast[0].Paths[0].Steps[0].ToNode.ID != "N2006" || fast[0].Paths[0].Steps[0].TransferEnergy != 0.5 {
		t.Fatalf("fast path from O1: %+v", fast[0])
	}
	if msg := compareResults(fast[0], spec[0], nil, nil); msg != "" {
		t.Errorf("fast path and the seed's Cypher differ: %s", msg)
	}
}
