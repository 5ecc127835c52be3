package expansion_test

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/internal/testkit/randgraph"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/expansion"
)

// BenchSeeds are the five seeds every 1M-edge benchmark uses
// (docs/PERFORMANCE.md).
var benchSeeds = []retriever.Seed{{NodeID: "N000011", Score: 0.95}, {NodeID: "N037824", Score: 0.9},
	{NodeID: "N075637", Score: 0.85}, {NodeID: "N013450", Score: 0.8}, {NodeID: "N051263", Score: 0.75}}

var (
	bench1MOnce sync.Once
	bench1M     *inmem.Graph
	bench1MErr  error
)

// graph1M is randgraph.ScaleTyped(100_000, 1_000_000, 200_000, 2.5, 1):
// Activation Energy's 1M-RELATES benchmark graph plus 200,000 typed
// relationships, loaded once.
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

// BenchmarkExpansion1M is the expansion as `explore --retriever expansion`
// runs it by default (f 0.6, δ 0.8, K 10, the default table) from the five
// benchmark seeds on the embedded engine, at H = 1, 2 and 3. It reports
// the relationships read per run.
func BenchmarkExpansion1M(b *testing.B) {
	g := graph1M(b)
	for _, h := range []int{1, 2, 3} {
		b.Run(fmt.Sprintf("H=%d", h), func(b *testing.B) {
			p := expansion.DefaultParams()
			p.MaxHops = h
			var read any
			for b.Loop() {
				r, err := expansion.Retrieve(context.Background(), g, retriever.Query{Seeds: benchSeeds}, p)
				if err != nil {
					b.Fatal(err)
				}
				read, _ = r.Stats.Get("relationships_read")
			}
			b.ReportMetric(float64(read.(int)), "rels/op")
		})
	}
}
