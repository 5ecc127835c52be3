package main

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/onneo4j"
	"github.com/memoria-graph/memoria/retriever/expansion"
	"github.com/memoria-graph/memoria/retriever/ppr"
	"github.com/memoria-graph/memoria/retriever/spreading"
	"github.com/memoria-graph/memoria/testkit/randgraph"
	"github.com/memoria-graph/memoria/testkit/scale1m"
)

// BenchmarkNeo4jRetrievers1M compares, in one run on one server, the typed
// expansion (defaults, H = 1 and H = 2) with Activation Energy's fast path
// (default thresholds, tags topic_00 and topic_03) from the same five seeds
// (scaleSeeds) on randgraph.ScaleTyped(100_000, 1_000_000, 200_000, 2.5, 1):
// the 1M-RELATES benchmark graph plus 200,000 typed relationships, loaded
// once (MEMORIA_BENCH_DATA=DIR keeps the database). After 5 s of warm-up
// it reports each one's p50 over 15 runs and the ratios expansion /
// activation (target, docs/PERFORMANCE.md: ≤ 2); then personalized
// PageRank's p50 over 5 runs, at its defaults and at ε 1e-4, and the
// ratio ppr / activation (target ≤ 3).
func BenchmarkNeo4jRetrievers1M(b *testing.B) {
	src := scale1m.Neo4j(b)
	ctx := context.Background()
	seeds := scale1m.Seeds
	tags := []string{randgraph.ScaleTag(0), randgraph.ScaleTag(3)}

	fast, err := activation.New(onneo4j.New(src), activation.DefaultParams(), activation.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	nb := neo4jdb.NewNeighbourhood(src)
	runActivation := func() {
		res, err := fast.ExploreAll(ctx, seeds, tags)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range res {
			if r.TerminatedReason == activation.TerminatedError {
				b.Fatal(r.Error)
			}
		}
	}
	runExpansion := func(h int) func() {
		p := expansion.DefaultParams()
		p.MaxHops = h
		return func() {
			if _, err := expansion.Retrieve(ctx, nb, retriever.Query{Seeds: seeds, Tags: tags}, p); err != nil {
				b.Fatal(err)
			}
		}
	}
	for t0 := time.Now(); time.Since(t0) < 5*time.Second; {
		runActivation()
		runExpansion(2)()
	}
	p50 := func(f func()) time.Duration { return p50n(15, f) }
	act, e1, e2 := p50(runActivation), p50(runExpansion(1)), p50(runExpansion(2))
	b.Logf("activation fast path p50 %v; expansion H=1 p50 %v (×%.2f), H=2 p50 %v (×%.2f)",
		act.Round(time.Microsecond), e1.Round(time.Microsecond), float64(e1)/float64(act), e2.Round(time.Microsecond), float64(e2)/float64(act))
	for b.Loop() {
		runExpansion(1)()
	}
	// Spreading activation, defaults (P 2), beside the same fast path
	// (target, docs/PERFORMANCE.md: ≤ 3×).
	runSpreading := func() {
		if _, err := spreading.Retrieve(ctx, nb, retriever.Query{Seeds: seeds, Tags: tags}, spreading.DefaultParams()); err != nil {
			b.Fatal(err)
		}
	}
	runSpreading()
	sp := p50(runSpreading)
	b.Logf("spreading P=2 p50 %v (×%.2f)", sp.Round(time.Microsecond), float64(sp)/float64(act))
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(sp), "spreading-p50-ms")
	b.ReportMetric(float64(sp)/float64(act), "spreading/activation")
	b.ReportMetric(ms(act), "activation-p50-ms")
	b.ReportMetric(ms(e1), "expansion-h1-p50-ms")
	b.ReportMetric(ms(e2), "expansion-h2-p50-ms")
	b.ReportMetric(float64(e1)/float64(act), "h1/activation")
	b.ReportMetric(float64(e2)/float64(act), "h2/activation")

	// Personalized PageRank (defaults, and ε 1e-4), p50 of 5: a default
	// run weighs about 34,000 nodes and reads about 72,000 relationships
	// (docs/PERFORMANCE.md).
	var last retriever.Ranking
	runPPR := func(eps float64) func() {
		p := ppr.DefaultParams()
		p.Epsilon = eps
		return func() {
			var err error
			if last, err = ppr.Retrieve(ctx, nb, retriever.Query{Seeds: seeds, Tags: tags}, p); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, eps := range []float64{1e-6, 1e-4} {
		d := p50n(5, runPPR(eps))
		reads, _ := last.Stats.Get("reads")
		rels, _ := last.Stats.Get("relationships_read")
		weighed, _ := last.Stats.Get("nodes_weighed")
		b.Logf("ppr ε %g p50 %v (×%.2f): %v reads, %v relationships, %v nodes weighed", eps, d.Round(time.Millisecond), float64(d)/float64(act), reads, rels, weighed)
		name := "ppr-p50-ms"
		if eps != 1e-6 {
			name = "ppr-eps1e-4-p50-ms"
		} else {
			b.ReportMetric(float64(d)/float64(act), "ppr/activation")
		}
		b.ReportMetric(ms(d), name)
	}
}

// p50n runs f n times and returns the median of its times.
func p50n(n int, f func()) time.Duration {
	ds := make([]time.Duration, n)
	for i := range ds {
		t0 := time.Now()
		f()
		ds[i] = time.Since(t0)
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}
