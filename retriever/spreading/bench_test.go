package spreading_test

import (
	"context"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/testkit/peakmem"
	"github.com/memoria-graph/memoria/internal/testkit/scale1m"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/spreading"
)

// BenchmarkSpreading1M is spreading activation as `explore --retriever
// spreading` runs it by default (P 2, D 0.7, θ 0.05, α 0.7, E 20, K 10,
// no query vector) from the five benchmark seeds on the embedded engine's
// 1M graph (internal/testkit/scale1m). It reports the relationships read
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
