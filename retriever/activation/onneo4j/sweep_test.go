package onneo4j

import (
	"context"
	"sync"
	"testing"

	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/oninmem"
	"github.com/memoria-graph/memoria/retriever/activation/sweep"
	"github.com/memoria-graph/memoria/testkit/neo4jfix"
)

// TestSweepReadsOnceThenReplays: the default min-activation sweep of
// scenario A's seed and scenario B's (N2006 R 0.85, T3000 R 0.9; the tags
// campaign and stockout) on the demo graph loaded into Neo4j, through a
// snapshot (the explorer's and `memoria sweep`'s backend), gives the same
// points, breakpoints and totals as on the memory engine, and exact over the
// whole range. It sends far fewer queries than it has points × seeds (each
// frontier node's adjacency is read once, then replayed), and a second sweep
// over the same snapshot sends none at all.
func TestSweepReadsOnceThenReplays(t *testing.T) {
	src := fx.Demo(t)
	snap := NewSnapshot(src)
	var mu sync.Mutex
	queries := 0
	snap.fast.trace = func(string, map[string]any) { mu.Lock(); queries++; mu.Unlock() }
	from, to, steps := sweep.DefaultRange(sweep.MinActivation)
	values, err := sweep.Grid(sweep.MinActivation, from, to, steps)
	if err != nil {
		t.Fatal(err)
	}
	cfg := sweep.Config{Params: activation.DefaultParams(), Options: activation.DefaultOptions(),
		Seeds: []retriever.Seed{{NodeID: "N2006", Score: 0.85}, {NodeID: "T3000", Score: 0.9}}, Tags: []string{"campaign", "stockout"},
		Param: sweep.MinActivation, Values: values, Breakpoints: true}
	g, err := inmem.New(neo4jfix.DemoGraph(t), "demo")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Backend = oninmem.New(g)
	want, err := sweep.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Backend = snap
	got, err := sweep.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Exact() || len(got.Points) != len(want.Points) {
		t.Fatalf("Neo4j: %d points, exact %v; memory engine: %d points", len(got.Points), got.Exact(), len(want.Points))
	}
	for i, p := range got.Points {
		if w := want.Points[i]; p != w {
			t.Errorf("point %d: Neo4j %+v, memory engine %+v", i, p, w)
		}
	}
	first := queries
	if first == 0 || first >= len(got.Points)*len(cfg.Seeds) {
		t.Fatalf("%d queries for %d points of %d seeds: want some, and fewer than one per point and seed", first, len(got.Points), len(cfg.Seeds))
	}
	if _, err := sweep.Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if queries != first {
		t.Fatalf("a second sweep on the same snapshot sent %d queries; want none", queries-first)
	}
	t.Logf("%d points, %d explorations, %d queries", len(got.Points), got.Explorations, first)
}
