// Package scale1m is the in-process 1M-relationship benchmark graph the
// ranking retrievers' benchmarks share (docs/PERFORMANCE.md):
// randgraph.ScaleTyped(100_000, 1_000_000, 200_000, 2.5, 1), loaded once
// per test binary into the embedded engine, and its five seeds.
package scale1m

import (
	"bytes"
	"runtime"
	"sync"
	"testing"

	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/internal/testkit/randgraph"
	"github.com/memoria-graph/memoria/retriever"
)

// Seeds are the five seeds every 1M-edge benchmark uses.
var Seeds = []retriever.Seed{{NodeID: "N000011", Score: 0.95}, {NodeID: "N037824", Score: 0.9},
	{NodeID: "N075637", Score: 0.85}, {NodeID: "N013450", Score: 0.8}, {NodeID: "N051263", Score: 0.75}}

var (
	once sync.Once
	g    *inmem.Graph
	err  error
)

// Graph is randgraph.ScaleTyped(100_000, 1_000_000, 200_000, 2.5, 1):
// Activation Energy's 1M-RELATES benchmark graph plus 200,000 typed
// relationships, loaded once.
func Graph(b testing.TB) *inmem.Graph {
	once.Do(func() {
		g, err = inmem.Load(bytes.NewReader(randgraph.ScaleTyped(100_000, 1_000_000, 200_000, 2.5, 1)), "scale typed")
		runtime.GC() // the parse's garbage is not the runs'
	})
	if err != nil {
		b.Fatal(err)
	}
	return g
}
