package oninmem

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"testing"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/testkit/peakmem"
	"github.com/memoria-graph/memoria/testkit/randgraph"
)

// Benchmark graph: 100k nodes, 1M RELATES relationships.
const (
	benchNodes = 100_000
	benchRels  = 1_000_000
)

func benchTag(i int) string { return randgraph.ScaleTag(i) }

// genAPOC is the benchmark graph (testkit/randgraph.Scale, hub power 2.5).
func genAPOC(n, m int, seed uint64) []byte { return randgraph.Scale(n, m, 2.5, seed) }

// benchFile writes the benchmark graph to a temporary file once; the
// bytes are not kept, so they do not weigh on the heap of other benchmarks.
var benchFile = sync.OnceValues(func() (string, error) {
	f, err := os.CreateTemp("", "memoria-bench-*.jsonl")
	if err != nil {
		return "", err
	}
	benchPath = f.Name()
	defer f.Close()
	if _, err := f.Write(genAPOC(benchNodes, benchRels, 1)); err != nil {
		return "", err
	}
	runtime.GC()
	return f.Name(), nil
})

// benchPath is the file benchFile wrote, removed by TestMain.
var benchPath string

func TestMain(m *testing.M) {
	code := m.Run()
	if benchPath != "" {
		os.Remove(benchPath)
	}
	os.Exit(code)
}

func benchData(b *testing.B) []byte {
	path, err := benchFile()
	if err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

const mb = 1 << 20

// benchLoad runs load b.N times and reports, above the heap in use before
// (which holds the input when it is in memory): the peak heap during a
// load, and the heap the loaded graph keeps.
func benchLoad(b *testing.B, size int64, load func() (any, error)) {
	b.SetBytes(size)
	var peak, kept uint64
	var keep any
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		keep = nil
		runtime.GC()
		base := peakmem.HeapObjects()
		p := peakmem.Start()
		b.StartTimer()
		g, err := load()
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		peak = max(peak, p.End()-base)
		keep = g
		runtime.GC()
		kept = peakmem.HeapObjects() - base
		b.StartTimer()
	}
	runtime.KeepAlive(keep)
	b.ReportMetric(float64(peak)/mb, "peak-MB")
	b.ReportMetric(float64(kept)/mb, "kept-MB")
}

// BenchmarkLoad loads the 100k-node, 1M-relationship graph (about 185 MB
// of APOC JSON lines). ParseNew reads the bytes in memory through
// apoc.Parse then New, holding the whole apoc.Graph (a property map per
// relationship) on the way; Stream reads the same bytes through Load,
// which builds the engine while parsing; File is LoadFile, the path the
// program takes, with no copy of the input in memory (the bytes held by
// the other two also raise the garbage collector's heap goal). Targets:
// < 3 s and < 400 MB.
func BenchmarkLoad(b *testing.B) {
	b.Run("ParseNew", func(b *testing.B) {
		data := benchData(b)
		benchLoad(b, int64(len(data)), func() (any, error) {
			ag, err := apoc.Parse(bytes.NewReader(data))
			if err != nil {
				return nil, err
			}
			return inmem.New(ag, "bench")
		})
	})
	b.Run("Stream", func(b *testing.B) {
		data := benchData(b)
		benchLoad(b, int64(len(data)), func() (any, error) { return inmem.Load(bytes.NewReader(data), "bench") })
	})
	b.Run("File", func(b *testing.B) {
		path, err := benchFile()
		if err != nil {
			b.Fatal(err)
		}
		st, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		benchLoad(b, st.Size(), func() (any, error) { return inmem.LoadFile(path) })
	})
}

var benchGraph = sync.OnceValues(func() (*inmem.Graph, error) {
	path, err := benchFile()
	if err != nil {
		return nil, err
	}
	return inmem.LoadFile(path)
})

// BenchmarkExplore5Seeds explores 5 seeds (drawn with a fixed seed) with
// activation.DefaultParams and 2 query tags over the benchmark graph, through
// activation.New(New(g), cfg, activation.DefaultOptions()).ExploreAll. Target: < 2 ms per op.
func BenchmarkExplore5Seeds(b *testing.B) {
	g, err := benchGraph()
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 7))
	seeds := make([]retriever.Seed, 5)
	for i := range seeds {
		seeds[i] = retriever.Seed{NodeID: fmt.Sprintf("N%06d", r.IntN(benchNodes)), Score: 0.95 - 0.05*float64(i)}
	}
	rt, err := activation.New(New(g), activation.DefaultParams(), activation.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	tags := []string{benchTag(0), benchTag(3)}
	ctx := context.Background()
	res, err := rt.ExploreAll(ctx, seeds, tags)
	if err != nil {
		b.Fatal(err)
	}
	paths, hops := 0, 0
	for _, rr := range res {
		if rr.TerminatedReason == activation.TerminatedError || rr.TerminatedReason == activation.TerminatedSeedNotFound {
			b.Fatalf("seed %s: %s %s", rr.Seed.NodeID, rr.TerminatedReason, rr.Error)
		}
		paths += len(rr.Paths)
		for _, p := range rr.Paths {
			hops += p.Len()
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := rt.ExploreAll(ctx, seeds, tags); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(paths), "paths")
	b.ReportMetric(float64(hops), "hops")
}

// BenchmarkExpandFrontier is one level from one seed: the engine alone.
func BenchmarkExpandFrontier(b *testing.B) {
	g, err := benchGraph()
	if err != nil {
		b.Fatal(err)
	}
	req := activation.ExpandRequest{
		Frontier:      []activation.FrontierInput{{NodeID: "N000123", Activation: 0.9}},
		Visited:       map[string]struct{}{"N000123": {}},
		QueryTags:     []string{benchTag(0), benchTag(3)},
		MinActivation: 0.005,
		TagSimFloor:   0.15,
	}
	ctx := context.Background()
	e := New(g)
	for b.Loop() {
		if _, err := e.ExpandFrontier(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}
