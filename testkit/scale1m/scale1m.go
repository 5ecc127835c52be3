// Package scale1m is the in-process 1M-relationship benchmark graph the
// ranking retrievers' benchmarks share (docs/PERFORMANCE.md):
// randgraph.ScaleTyped(100_000, 1_000_000, 200_000, 2.5, 1), loaded once
// per test binary into the embedded engine, and its five seeds.
package scale1m

import (
	"bytes"
	"context"
	"runtime"
	"sync"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/testkit/randgraph"
)

// Seeds are the five seeds every 1M-edge benchmark uses
// (randgraph.ScaleSeeds): N000011 (R 0.95), N037824, N075637, N013450
// and N051263 (R 0.75).
var Seeds = randgraph.ScaleSeeds(100_000)

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

// BenchFiltered runs a retriever on the graph without a relationship
// filter and with `--rel-where weight>=0.5` (about half the relationships
// pass), as two sub-benchmarks of one run, so that the filter's cost per
// relationship read shows beside the work it saves; each reports the
// ranking's relationships_read as rels/op.
func BenchFiltered(b *testing.B, retrieve func(context.Context, graph.Neighbourhood, retriever.Query) (retriever.Ranking, error)) {
	g := Graph(b)
	ge, err := graph.ParseRelCond("weight>=0.5")
	if err != nil {
		b.Fatal(err)
	}
	for _, k := range []struct {
		name string
		nb   graph.Neighbourhood
	}{{"none", g}, {"weight>=0.5", g.Filtered(graph.RelFilter{Where: []graph.RelCond{ge}})}} {
		b.Run(k.name, func(b *testing.B) {
			var read any
			for b.Loop() {
				r, err := retrieve(context.Background(), k.nb, retriever.Query{Seeds: Seeds})
				if err != nil {
					b.Fatal(err)
				}
				read, _ = r.Stats.Get("relationships_read")
			}
			b.ReportMetric(float64(read.(int)), "rels/op")
		})
	}
}
