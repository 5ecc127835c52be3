package gather

import (
	"bytes"
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/testkit/randgraph"
)

// heapInUse is the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkGatherScale is issue 32's embedded targets, in one run
// (docs/PERFORMANCE.md, "The gather stage at 10^6 edges"): the benchmark
// graph randgraph.Scale(100_000, 1_000_000, 2.5, 1), whose every node has
// a text ("memory 4711 about topic_07 and what followed from it"), loaded
// (timed, its live heap measured), then the gather's index built from it
// under memoria's preset (timed, its live heap measured): build/load-time
// and build/load-heap are the ratios (target ≤ 0.3 each). Then one gather
// per op (default matchers: exact, token, bm25) of a 3-word query: a rare
// word, a tag and a word of every text ("4711 topic_07 memory"), and
// three words of every text ("what followed memory"), target ≤ 2 ms.
func BenchmarkGatherScale(b *testing.B) {
	data := randgraph.Scale(100_000, 1_000_000, 2.5, 1)
	h0 := heapInUse()
	t0 := time.Now()
	g, err := inmem.Load(bytes.NewReader(data), "scale")
	if err != nil {
		b.Fatal(err)
	}
	load := time.Since(t0)
	h1 := heapInUse()
	f, _ := Preset("memoria")
	t1 := time.Now()
	ix, err := Build(context.Background(), g, f)
	if err != nil {
		b.Fatal(err)
	}
	build := time.Since(t1)
	h2 := heapInUse()
	b.Logf("load %v, %d MB live; index %v, %d MB live", load.Round(time.Millisecond), (h1-h0)>>20, build.Round(time.Millisecond), (h2-h1)>>20)
	for _, c := range []struct{ name, q string }{{"rare+tag+common", "4711 topic_07 memory"}, {"three common", "what followed memory"}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := ix.Gather(context.Background(), []string{c.q}, nil, DefaultOptions()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(build)/float64(load), "build/load-time")
			b.ReportMetric(float64(h2-h1)/float64(h1-h0), "build/load-heap")
		})
	}
	runtime.KeepAlive(data)
	runtime.KeepAlive(g)
	runtime.KeepAlive(ix)
}
