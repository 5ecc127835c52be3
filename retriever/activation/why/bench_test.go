package why_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/oninmem"
	"github.com/memoria-graph/memoria/retriever/activation/why"
	"github.com/memoria-graph/memoria/testkit/peakmem"
	"github.com/memoria-graph/memoria/testkit/randgraph"
)

// bench1M is the benchmark graph of retriever/activation/oninmem's 1M
// benchmarks: testkit/randgraph.Scale(100_000, 1_000_000, 2.5, 1),
// written to a temporary file and loaded as the program loads a file.
var bench1M = sync.OnceValues(func() (*inmem.Graph, error) {
	f, err := os.CreateTemp("", "memoria-why-bench-*.jsonl")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(randgraph.Scale(100_000, 1_000_000, 2.5, 1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	runtime.GC()
	return inmem.LoadFile(f.Name())
})

// BenchmarkWhy1M asks why as `memoria why` does by default
// (activation.DefaultParams, the benchmark's five seeds N%06d for (i ×
// 37813 + 11) mod 100000 with scores 0.95 − 0.05i, tags topic_00 and
// topic_03) about nodes 1, 3 and 5 hops from the nearest seed (the first
// in id order that is not in the result; when no node is 5 hops out, the
// farthest, which the sub-benchmark's name says), and beside it explores
// the same seeds as `memoria explore` does. Each reports ns/op, the peak
// heap above the heap before the operation (peak-MB, testkit/peakmem)
// and, for why, the neighbourhoods it read (read), the rows (candidates)
// they returned (rows) and the route's length (hops).
// BenchmarkReferenceWhy1M asks the same questions through the whole-ball
// reader Explain replaced (ReferenceExplain), for comparison.
func BenchmarkWhy1M(b *testing.B) { benchWhy1M(b, why.Explain, true) }

// BenchmarkReferenceWhy1M is BenchmarkWhy1M through ReferenceExplain (each
// question takes tens of seconds and gigabytes: run it with -benchtime 1x).
func BenchmarkReferenceWhy1M(b *testing.B) { benchWhy1M(b, why.ReferenceExplain, false) }

func benchWhy1M(b *testing.B, explain func(context.Context, why.Config) (why.Answer, error), explore bool) {
	g, err := bench1M()
	if err != nil {
		b.Fatal(err)
	}
	seeds := randgraph.ScaleSeeds(100_000)
	tags := []string{randgraph.ScaleTag(0), randgraph.ScaleTag(3)}
	ps, opts := activation.DefaultParams(), activation.DefaultOptions()
	rt, err := activation.New(oninmem.New(g), ps, opts)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	results, err := rt.ExploreAll(ctx, seeds, tags)
	if err != nil {
		b.Fatal(err)
	}
	kept := map[string]bool{}
	for _, res := range results {
		for _, p := range res.Paths {
			for _, id := range p.NodeIDs() {
				kept[id] = true
			}
		}
	}
	dist := hops(g, seeds)
	far := slices.Max(dist)
	// The first node in id order at each distance that is not kept.
	pick := map[int]string{}
	for i := range g.NodeCount() {
		id := g.NodeAt(int32(i)).ID
		if d := dist[i]; !kept[id] && (pick[d] == "" || id < pick[d]) {
			pick[d] = id
		}
	}
	measure := func(b *testing.B, op func() error) {
		var peak uint64
		for b.Loop() {
			b.StopTimer()
			runtime.GC()
			base := peakmem.HeapObjects()
			p := peakmem.Start()
			b.StartTimer()
			if err := op(); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			peak = max(peak, p.End()-base)
			b.StartTimer()
		}
		b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
	}
	if explore {
		b.Run("explore", func(b *testing.B) {
			measure(b, func() error { _, err := rt.ExploreAll(ctx, seeds, tags); return err })
		})
	}
	for _, want := range []int{1, 3, 5} {
		d, name := want, fmt.Sprintf("why/%dhops", want)
		if want > far {
			d, name = far, fmt.Sprintf("why/%dhops_farthest_none_at_%d", far, want)
		}
		id := pick[d]
		b.Run(name+"/"+id, func(b *testing.B) {
			cfg := why.Config{Backend: oninmem.New(g), Params: ps, Options: opts, Seeds: seeds, Tags: tags, NodeID: id}
			var a why.Answer
			measure(b, func() (err error) { a, err = explain(ctx, cfg); return err })
			if a.Verdict == why.Kept || a.Verdict == why.Unreachable {
				b.Fatalf("%s: %s", id, a.Verdict)
			}
			// What it reads, counted apart: the counting wrapper hides the
			// engine's traces (activation.Tracer), which the real run, as
			// the CLI's, computes.
			be := newCounting(oninmem.New(g))
			cfg.Backend = be
			if _, err := explain(ctx, cfg); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(be.entries.Load()), "read")
			b.ReportMetric(float64(be.rows.Load()), "rows")
			b.ReportMetric(float64(len(a.Route)), "hops")
			b.Logf("%s, %d hops from a seed: %s, %s", id, d, a.Verdict, routeText(a.Route))
		})
	}
}

func routeText(steps []activation.Step) string {
	var b strings.Builder
	for i, s := range steps {
		if i == 0 {
			b.WriteString(s.FromNode.ID)
		}
		fmt.Fprintf(&b, " → %s (%.4g)", s.ToNode.ID, s.TransferEnergy)
	}
	return b.String()
}
