package cli

import (
	"context"
	"flag"
	"io"
	"testing"
	"time"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/fusion"
	"github.com/memoria-graph/memoria/retriever/overlap"
	"github.com/memoria-graph/memoria/testkit/randgraph"
	"github.com/memoria-graph/memoria/testkit/scale1m"
)

// BenchmarkCompare1M is `memoria compare` with its defaults (the four
// retrievers and fusion, each at its defaults, K 10) from the five
// benchmark seeds (tags topic_00 and topic_03, as the other 1M benchmarks)
// on the embedded engine's 1M graph, the graph loaded beforehand as in the
// explorer: the rankings (one after another; each retriever fusion fuses
// runs once, to the fuse depth, as compare runs them) and their
// comparison. In the same run it times each retriever alone, and reports
// compare's time against the sum of the four (compare/four; target ≤
// 1.2×, and ≤ 100 ms; docs/PERFORMANCE.md).
func BenchmarkCompare1M(b *testing.B) { benchCompare(b, scale1m.Graph(b)) }

// BenchmarkCompareNeo4j1M is BenchmarkCompare1M on Neo4j: the same graph
// on a server of `make neo4j`'s settings (scale1m.Neo4j;
// MEMORIA_BENCH_DATA=DIR keeps the loaded database), Activation Energy on
// its fast path.
func BenchmarkCompareNeo4j1M(b *testing.B) { benchCompare(b, scale1m.Neo4j(b)) }

// benchCompare times compare's gathering over g beside each retriever
// alone, in one run.
func benchCompare(b *testing.B, g graph.Source) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var q queryFlags
	q.register(fs, "")
	var rf retrieverFlags
	rf.register(fs)
	if err := rf.finish("", retrieverNames()); err != nil {
		b.Fatal(err)
	}
	gather, err := newRankings(Env{Stderr: io.Discard}, &q, &rf, g)
	if err != nil {
		b.Fatal(err)
	}
	rq := retriever.Query{Seeds: scale1m.Seeds, Tags: []string{randgraph.ScaleTag(0), randgraph.ScaleTag(3)}}
	ctx := context.Background()
	one := func(name string) retriever.Ranking {
		r, err := gather.of(ctx, name, rq, 0)
		if err != nil {
			b.Fatal(err)
		}
		return r
	}
	compare := func() {
		out, err := gather.compared(ctx, retrieverNames(), rq, rf.topK)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := overlap.Compare(retrieverNames(), out, rf.topK); err != nil {
			b.Fatal(err)
		}
	}
	compare() // warm: the first run builds the engine's kept arrays
	p50 := func(f func()) time.Duration {
		ds := make([]time.Duration, 9)
		for i := range ds {
			t0 := time.Now()
			f()
			ds[i] = time.Since(t0)
		}
		for i := range ds {
			for j := i + 1; j < len(ds); j++ {
				if ds[j] < ds[i] {
					ds[i], ds[j] = ds[j], ds[i]
				}
			}
		}
		return ds[len(ds)/2]
	}
	for b.Loop() {
		compare()
	}
	var sum time.Duration // the four, fusion left out: it runs them again
	for _, name := range retrieverNames() {
		d := p50(func() { one(name) })
		b.ReportMetric(float64(d)/1e6, name+"-ms")
		if name != fusion.Name {
			sum += d
		}
	}
	c := p50(compare)
	b.ReportMetric(float64(c)/1e6, "compare-ms")
	b.ReportMetric(float64(c)/float64(sum), "compare/four")
}
