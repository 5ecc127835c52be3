package onneo4j

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/sweep"
)

// BenchmarkNeo4jAnalysis runs the analyses as `memoria sweep --uri` runs
// them, on BenchmarkNeo4jScale's uniform graph (100k nodes, 1M RELATES,
// loaded once; MEMORIA_BENCH_DATA keeps it) and its five seeds and two
// tags, default thresholds, beside a plain fast-path exploration of the
// same seeds in the same run. After 5 s of fast explorations to warm the
// server, it reports the p50 of 9 fast explorations and of 3 default
// min-activation sweeps, each through a fresh snapshot (as every command
// starts with one) with the CLI's budget (sweep.DefaultBudget), and the
// exact part and the queries the last sweep sent. Target
// (docs/PERFORMANCE.md): the default sweep ≤ 3 s, the whole command.
func BenchmarkNeo4jAnalysis(b *testing.B) {
	_, src, seeds, tags := scaleSource(b, "uniform", 100_000, 1_000_000, 2.5)
	ctx := context.Background()
	fast := mustRetriever(b, New(src), activation.DefaultParams())
	explore := func() time.Duration {
		t0 := time.Now()
		if _, err := fast.ExploreAll(ctx, seeds, tags); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	for t0 := time.Now(); time.Since(t0) < 5*time.Second; {
		explore()
	}
	from, to, steps := sweep.DefaultRange(sweep.MinActivation)
	values, err := sweep.Grid(sweep.MinActivation, from, to, steps)
	if err != nil {
		b.Fatal(err)
	}
	var last *sweep.Sweep
	var queries int
	sweepOnce := func() time.Duration {
		snap := NewSnapshot(src)
		var n atomic.Int64
		snap.fast.trace = func(string, map[string]any) { n.Add(1) }
		t0 := time.Now()
		s, err := sweep.Run(ctx, sweep.Config{Backend: snap, Params: activation.DefaultParams(), Options: activation.DefaultOptions(),
			Seeds: seeds, Tags: tags, Param: sweep.MinActivation, Values: values, Breakpoints: true, Budget: sweep.DefaultBudget})
		if err != nil {
			b.Fatal(err)
		}
		last, queries = s, int(n.Load())
		return time.Since(t0)
	}
	p50 := func(k int, f func() time.Duration) time.Duration {
		ds := make([]time.Duration, k)
		for i := range ds {
			ds[i] = f()
		}
		slices.Sort(ds)
		return ds[k/2]
	}
	exploreP50 := p50(9, explore)
	sweepP50 := p50(3, sweepOnce)
	b.Logf("fast explore p50 %v; default sweep p50 %v: %d points, exact [%v, %v), stopped %q, %d explorations, ~%d queries",
		exploreP50.Round(time.Microsecond), sweepP50.Round(time.Millisecond), len(last.Points), last.ExactFrom, last.ExactUntil, last.Stopped, last.Explorations, queries)
	for b.Loop() {
		sweepOnce()
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(exploreP50), "explore-p50-ms")
	b.ReportMetric(ms(sweepP50), "sweep-default-p50-ms")
	b.ReportMetric(float64(len(last.Points)), "sweep-points")
}
