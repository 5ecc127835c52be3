package spreading_test

import (
	"bytes"
	"context"
	"runtime"
	"sync"
	"testing"

	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/internal/testkit/randgraph"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/spreading"
)

// benchSeeds are the five seeds every 1M-edge benchmark uses
// (docs/PERFORMANCE.md).
var benchSeeds = []retriever.Seed{{NodeID: "N000011", Score: 0.95}, {NodeID: "N037824", Score: 0.9},
	{NodeID: "N075637", Score: 0.85}, {NodeID: "N013450", Score: 0.8}, {NodeID: "N051263", Score: 0.75}}

var (
	bench1MOnce sync.Once
	bench1M     *inmem.Graph
	bench1MErr  error
)

// graph1M is randgraph.ScaleTyped(100_000, 1_000_000, 200_000, 2.5, 1),
// the typed expansion's benchmark graph, loaded once.
func graph1M(b *testing.B) *inmem.Graph {
	bench1MOnce.Do(func() {
		bench1M, bench1MErr = inmem.Load(bytes.NewReader(randgraph.ScaleTyped(100_000, 1_000_000, 200_000, 2.5, 1)), "scale typed")
		runtime.GC() // the parse's garbage is not the runs'
	})
	if bench1MErr != nil {
		b.Fatal(bench1MErr)
	}
	return bench1M
}

// BenchmarkSpreading1M is spreading activation as `explore --retriever
// spreading` runs it by default (P 2, D 0.7, θ 0.05, α 0.7, E 20, K 10,
// no query vector) from the five benchmark seeds on the embedded engine.
// It reports the relationships read and the candidates scored per run.
func BenchmarkSpreading1M(b *testing.B) {
	g := graph1M(b)
	p := spreading.DefaultParams()
	var read, cands any
	for b.Loop() {
		r, err := spreading.Retrieve(context.Background(), g, retriever.Query{Seeds: benchSeeds}, p)
		if err != nil {
			b.Fatal(err)
		}
		read, _ = r.Stats.Get("relationships_read")
		cands, _ = r.Stats.Get("candidates")
	}
	b.ReportMetric(float64(read.(int)), "rels/op")
	b.ReportMetric(float64(cands.(int)), "candidates/op")
}
