package sweep

import (
	"bytes"
	"context"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/oninmem"
	"github.com/memoria-graph/memoria/testkit/peakmem"
	"github.com/memoria-graph/memoria/testkit/randgraph"
)

// benchSweep runs a 100-point MIN_ACTIVATION sweep (a log grid from 0.0001
// to 0.1, no breakpoints added) of seeds over be, b.N times.
func benchSweep(b *testing.B, be activation.Backend, seeds []retriever.Seed, tags []string) {
	vals, err := Grid(MinActivation, 0.0001, 0.1, 100)
	if err != nil || len(vals) != 100 {
		b.Fatalf("grid: %d values, %v", len(vals), err)
	}
	cfg := Config{Backend: be, Params: activation.DefaultParams(), Options: activation.DefaultOptions(),
		Seeds: seeds, Tags: tags, Param: MinActivation, Values: vals}
	s, err := Run(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	if len(s.Failures) > 0 || s.Points[0].Totals.Paths == 0 {
		b.Fatalf("failures %v, %d paths at 0.0001", s.Failures, s.Points[0].Totals.Paths)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Run(context.Background(), cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(s.Points[0].Totals.Paths), "paths@0.0001")
}

// BenchmarkSweepDemo: 100 points, 5 seeds, on the demo graph. Target
// (docs/PERFORMANCE.md): ≤ 16 ms per sweep.
func BenchmarkSweepDemo(b *testing.B) {
	data, err := os.ReadFile("../../../testdata/demo.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	g, err := inmem.Load(bytes.NewReader(data), "demo")
	if err != nil {
		b.Fatal(err)
	}
	seeds := []retriever.Seed{{NodeID: "N2006", Score: 0.85}, {NodeID: "T3000", Score: 0.9}, {NodeID: "N2000", Score: 0.8},
		{NodeID: "N2004", Score: 0.7}, {NodeID: "T4008", Score: 0.6}}
	benchSweep(b, oninmem.New(g), seeds, []string{"campaign", "stockout", "safety_stock"})
}

// BenchmarkSweep1M: 100 points, 5 seeds, on a generated 100k-node /
// 1M-edge graph (testkit/randgraph.Scale(100_000, 1_000_000, 2.5, 1)).
// Target (docs/PERFORMANCE.md): ≤ 300 ms per sweep.
func BenchmarkSweep1M(b *testing.B) {
	be, seeds, tags := scaleCase(b)
	benchSweep(b, be, seeds, tags)
}

// scaleCase is the 1M-edge graph on the memory engine, loaded, with the
// benchmarks' five seeds and two tags.
func scaleCase(b *testing.B) (activation.Backend, []retriever.Seed, []string) {
	ag, err := apoc.Parse(bytes.NewReader(randgraph.Scale(100_000, 1_000_000, 2.5, 1)))
	if err != nil {
		b.Fatal(err)
	}
	g, err := inmem.New(ag, "scale")
	if err != nil {
		b.Fatal(err)
	}
	ag = nil
	runtime.GC()
	return oninmem.New(g), randgraph.ScaleSeeds(100_000), []string{randgraph.ScaleTag(0), randgraph.ScaleTag(3)}
}

// BenchmarkSweepDefault1M is the explorer's s on the 1M-edge graph
// (loaded beforehand, as the explorer has it): the default min-activation
// sweep (25-point log grid from 0.0001 to 0.1, the current value 0.005, the
// breakpoints nearest it first) of BenchmarkSweep1M's five seeds, with the
// explorer's budget. Reported beside ns/op: a plain exploration of the same
// seeds in the same run (explore-ms), when the first snapshot (the current
// value's point) and the snapshot after the whole grid (the chart over the
// whole range: the explorer's first full chart; target ≤ 200 ms) were
// ready, the explorations run, the points, whether the range came out
// exact, and the peak heap above the graph's (testkit/peakmem).
func BenchmarkSweepDefault1M(b *testing.B) {
	be, seeds, tags := scaleCase(b)
	from, to, steps := DefaultRange(MinActivation)
	vals, err := Grid(MinActivation, from, to, steps)
	if err != nil {
		b.Fatal(err)
	}
	rt, err := activation.New(be, activation.DefaultParams(), activation.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	var first, grid, explore []time.Duration
	var last *Sweep
	var peak uint64
	base := peakmem.HeapObjects()
	for b.Loop() {
		t0 := time.Now()
		if _, err := rt.ExploreAll(context.Background(), seeds, tags); err != nil {
			b.Fatal(err)
		}
		explore = append(explore, time.Since(t0))
		snaps := 0
		p := peakmem.Start()
		t0 = time.Now()
		s, err := Run(context.Background(), Config{Backend: be, Params: activation.DefaultParams(), Options: activation.DefaultOptions(),
			Seeds: seeds, Tags: tags, Param: MinActivation, Values: vals, Breakpoints: true, Budget: 30 * time.Second,
			Progress: func(s *Sweep) {
				snaps++
				if snaps == 1 {
					first = append(first, time.Since(t0))
				}
				if snaps == len(vals)+1 { // the current value, then every value asked
					grid = append(grid, time.Since(t0))
				}
			}})
		if err != nil {
			b.Fatal(err)
		}
		end := p.End()
		peak = max(peak, end-min(base, end))
		last = s
	}
	med := func(ds []time.Duration) float64 {
		ds = slices.Clone(ds)
		slices.Sort(ds)
		return float64(ds[len(ds)/2]) / float64(time.Millisecond)
	}
	exact := 0.0
	if last.Exact() {
		exact = 1
	}
	b.ReportMetric(med(explore), "explore-ms")
	b.ReportMetric(med(first), "first-snapshot-ms")
	b.ReportMetric(med(grid), "grid-chart-ms")
	b.ReportMetric(float64(last.Explorations), "explorations")
	b.ReportMetric(float64(len(last.Points)), "points")
	b.ReportMetric(exact, "exact")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}
