package spreading_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/spreading"
	"github.com/memoria-graph/memoria/testkit/peakmem"
	"github.com/memoria-graph/memoria/testkit/scale1m"
	"github.com/memoria-graph/memoria/testkit/tinygraph"
)

// BenchmarkSpreading1M is spreading activation as `explore --retriever
// spreading` runs it by default (P 2, D 0.7, θ 0.05, α 0.7, E 20, K 10,
// no query vector) from the five benchmark seeds on the embedded engine's
// 1M graph (testkit/scale1m). It reports the relationships read
// and the candidates scored per run, and one more run's peak heap above
// the heap before it (peakmem.Report: base-MB is the graph's own).
func BenchmarkSpreading1M(b *testing.B) {
	g := scale1m.Graph(b)
	p := spreading.DefaultParams()
	var read, cands any
	for b.Loop() {
		r, err := spreading.Retrieve(context.Background(), g, retriever.Query{Seeds: scale1m.Seeds}, p)
		if err != nil {
			b.Fatal(err)
		}
		read, _ = r.Stats.Get("relationships_read")
		cands, _ = r.Stats.Get("candidates")
	}
	b.ReportMetric(float64(read.(int)), "rels/op")
	b.ReportMetric(float64(cands.(int)), "candidates/op")
	peakmem.Report(b, func() {
		if _, err := spreading.Retrieve(context.Background(), g, retriever.Query{Seeds: scale1m.Seeds}, p); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkSpreadingFiltered1M is BenchmarkSpreading1M without a filter
// and with `--rel-where weight>=0.5` (about half the relationships pass),
// in one run, so the filter's cost per relationship read shows beside the
// work it saves.
func BenchmarkSpreadingFiltered1M(b *testing.B) {
	scale1m.BenchFiltered(b, func(ctx context.Context, nb graph.Neighbourhood, q retriever.Query) (retriever.Ranking, error) {
		return spreading.Retrieve(ctx, nb, q, spreading.DefaultParams())
	})
}

// starGraph is a star: hub H and leaves L1 … Ln, each joined to H by one
// RELATES relationship of weight 0.5.
func starGraph(b testing.TB, n int) *inmem.Graph {
	rels := make([]tinygraph.Rel, n)
	for i := range rels {
		rels[i] = tinygraph.Rel{Spec: "H-RELATES->L" + strconv.Itoa(i+1), Weight: 0.5}
	}
	return tinygraph.Build(b, nil, rels...)
}

// BenchmarkSpreadingStar is spreading activation from the hub of a star
// of 10,000, 20,000 and 40,000 leaves with K above the leaves, so every
// node is a hit (`explore --retriever spreading --top-k 1000000` on a
// star): the work grows with the hits and the relationships read, so the
// time per op doubles with the leaves (docs/PERFORMANCE.md).
func BenchmarkSpreadingStar(b *testing.B) {
	for _, n := range []int{10000, 20000, 40000} {
		b.Run("leaves="+strconv.Itoa(n), func(b *testing.B) {
			g := starGraph(b, n)
			p := spreading.DefaultParams()
			p.TopK = 1000000
			q := retriever.Query{Seeds: []retriever.Seed{{NodeID: "H", Score: 1}}}
			for b.Loop() {
				r, err := spreading.Retrieve(context.Background(), g, q, p)
				if err != nil {
					b.Fatal(err)
				}
				if len(r.Hits) != n+1 {
					b.Fatalf("%d hits, want %d", len(r.Hits), n+1)
				}
			}
		})
	}
}
