package oninmem

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/testkit/peakmem"
	"github.com/memoria-graph/memoria/testkit/randgraph"
)

// resultsKey writes explorations' paths as text (seed, then each hop's
// end and transfer energy), to compare two engines' answers exactly.
func resultsKey(t testing.TB, res []activation.Result) string {
	t.Helper()
	var b strings.Builder
	for _, r := range res {
		if r.TerminatedReason == activation.TerminatedError || r.TerminatedReason == activation.TerminatedSeedNotFound {
			t.Fatalf("seed %s: %s %s", r.Seed.NodeID, r.TerminatedReason, r.Error)
		}
		fmt.Fprintf(&b, "seed %s %s\n", r.Seed.NodeID, r.TerminatedReason)
		for _, p := range r.Paths {
			for _, s := range p.Steps {
				fmt.Fprintf(&b, " %s %v d=%d", s.ToNode.ID, s.TransferEnergy, s.Degree)
			}
			fmt.Fprintf(&b, " %s\n", p.EndReason)
		}
	}
	return b.String()
}

// loadLightRAG loads data, a graph in LightRAG's shape, under the lightrag
// preset.
func loadLightRAG(data []byte) (*inmem.Graph, error) {
	s, _ := graph.Preset(graph.SchemaLightRAG)
	return inmem.LoadSchema(bytes.NewReader(data), "lightrag", int64(len(data)), s, nil)
}

// TestScaleLightRAGIsScale: randgraph.ScaleLightRAG is randgraph.Scale's
// graph in LightRAG's shape: loaded under the lightrag preset it explores
// exactly as Scale's file does (the same paths, energies and degrees from
// five seeds), on a 2,000-node, 20,000-relationship graph.
func TestScaleLightRAGIsScale(t *testing.T) {
	plain, err := inmem.Load(bytes.NewReader(randgraph.Scale(2_000, 20_000, 2.5, 1)), "scale")
	if err != nil {
		t.Fatal(err)
	}
	mapped, err := loadLightRAG(randgraph.ScaleLightRAG(2_000, 20_000, 2.5, 1))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, g := range []*inmem.Graph{plain, mapped} {
		rt, err := activation.New(New(g), activation.DefaultParams(), activation.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		res, err := rt.ExploreAll(context.Background(), randgraph.ScaleSeeds(2_000), []string{randgraph.ScaleTag(0), randgraph.ScaleTag(3)})
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, resultsKey(t, res))
	}
	if keys[0] != keys[1] || strings.Count(keys[0], "\n") < 10 {
		t.Errorf("LightRAG's shape explores otherwise:\n%s\nmemoria's shape:\n%s", keys[1], keys[0])
	}
}

// BenchmarkSchemaLightRAG1M is the cost of reading a graph through a
// schema mapping at 10^6 relationships: the scale graph
// (randgraph.Scale(100_000, 1_000_000, 2.5, 1), 214 MB) and the same graph
// in LightRAG's shape (randgraph.ScaleLightRAG: entity_id, DIRECTED, a
// keywords string), each a file, loaded as the CLI loads them
// (inmem.LoadFile; inmem.LoadFileSchema under the lightrag preset, which
// reads the whole file, then translates) and explored (Activation
// Energy, the five scale seeds, tags topic_00,topic_03, default
// thresholds; 100 ExploreAll per iteration). Every iteration loads and
// explores both, so both run in the same minutes; the first checks that
// they explore alike. Reported per shape, the median over iterations:
// load-ms, load-peak-MB (the heap's peak above the heap before the load),
// kept-MB (the loaded graph's heap), explore-us and explore-peak-KB (one
// ExploreAll's); and lightrag's load time and peak over memoria's.
func BenchmarkSchemaLightRAG1M(b *testing.B) {
	dir := b.TempDir()
	shapes := []struct {
		name string
		gen  func(n, m int, hub float64, seed uint64) []byte
		load func(path string) (*inmem.Graph, error)
	}{
		{"memoria", randgraph.Scale, inmem.LoadFile},
		{"lightrag", randgraph.ScaleLightRAG, func(path string) (*inmem.Graph, error) {
			s, _ := graph.Preset(graph.SchemaLightRAG)
			return inmem.LoadFileSchema(path, s, nil)
		}},
	}
	paths := make([]string, len(shapes))
	for i, sh := range shapes {
		paths[i] = filepath.Join(dir, sh.name+".jsonl")
		if err := os.WriteFile(paths[i], sh.gen(100_000, 1_000_000, 2.5, 1), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	seeds, tags := randgraph.ScaleSeeds(100_000), []string{randgraph.ScaleTag(0), randgraph.ScaleTag(3)}
	ctx := context.Background()
	const explorations = 100
	metrics := map[string][]float64{}
	add := func(name string, v float64) { metrics[name] = append(metrics[name], v) }
	// one loads and explores shape i, and returns its paths (resultsKey);
	// nothing it loaded stays reachable after it returns.
	one := func(i int, check bool) string {
		sh := shapes[i]
		// Twice: the previous expansion's sync.Pool, which holds its graph,
		// is let go only by the second collection.
		runtime.GC()
		runtime.GC()
		base := peakmem.HeapObjects()
		p := peakmem.Start()
		t0 := time.Now()
		g, err := sh.load(paths[i])
		el := time.Since(t0)
		peak := p.End()
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		after := peakmem.HeapObjects()
		add(sh.name+"-load-ms", float64(el.Microseconds())/1000)
		add(sh.name+"-load-peak-MB", float64(peak-min(peak, base))/(1<<20))
		add(sh.name+"-kept-MB", float64(after-min(after, base))/(1<<20))
		rt, err := activation.New(New(g), activation.DefaultParams(), activation.DefaultOptions())
		if err != nil {
			b.Fatal(err)
		}
		res, err := rt.ExploreAll(ctx, seeds, tags)
		if err != nil {
			b.Fatal(err)
		}
		key := ""
		if check {
			key = resultsKey(b, res)
		}
		runtime.GC()
		eb := peakmem.HeapObjects()
		p = peakmem.Start()
		if _, err := rt.ExploreAll(ctx, seeds, tags); err != nil {
			b.Fatal(err)
		}
		ep := p.End()
		add(sh.name+"-explore-peak-KB", float64(ep-min(ep, eb))/(1<<10))
		t0 = time.Now()
		for range explorations {
			if _, err := rt.ExploreAll(ctx, seeds, tags); err != nil {
				b.Fatal(err)
			}
		}
		add(sh.name+"-explore-us", float64(time.Since(t0).Microseconds())/explorations)
		return key
	}
	checked := false
	for b.Loop() {
		memoria, lightrag := one(0, !checked), one(1, !checked)
		if !checked && memoria != lightrag {
			b.Fatalf("LightRAG's shape explores otherwise:\n%.3000s\nmemoria's shape:\n%.3000s", lightrag, memoria)
		}
		checked = true
	}
	med := func(xs []float64) float64 {
		s := slices.Clone(xs)
		slices.Sort(s)
		return s[len(s)/2]
	}
	for name, xs := range metrics {
		b.ReportMetric(med(xs), name)
	}
	b.ReportMetric(med(metrics["lightrag-load-ms"])/med(metrics["memoria-load-ms"]), "lightrag-x-load-time")
	b.ReportMetric(med(metrics["lightrag-load-peak-MB"])/med(metrics["memoria-load-peak-MB"]), "lightrag-x-load-peak")
}
