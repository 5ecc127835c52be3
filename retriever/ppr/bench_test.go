package ppr_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/ppr"
	"github.com/memoria-graph/memoria/testkit/peakmem"
	"github.com/memoria-graph/memoria/testkit/scale1m"
)

// BenchmarkPPR1M is personalized PageRank as `explore --retriever ppr`
// runs it by default (d 0.5, ε 1e-6, K 10) from the five benchmark seeds
// on the embedded engine's 1M graph (testkit/scale1m), and with ε 1e-4 and 1e-5 for comparison. It
// reports the relationships read, pushes, rounds, reads, nodes weighed
// and nodes read per run, the residual mass (the error bound), and one
// more run's peak heap above the heap before it (peakmem.Report: base-MB
// is the graph's own).
func BenchmarkPPR1M(b *testing.B) {
	g := scale1m.Graph(b)
	for _, eps := range []float64{1e-6, 1e-5, 1e-4} {
		b.Run(fmt.Sprintf("eps=%g", eps), func(b *testing.B) {
			p := ppr.DefaultParams()
			p.Epsilon = eps
			var r retriever.Ranking
			for b.Loop() {
				var err error
				r, err = ppr.Retrieve(context.Background(), g, retriever.Query{Seeds: scale1m.Seeds}, p)
				if err != nil {
					b.Fatal(err)
				}
			}
			for _, s := range []string{"relationships_read", "pushes", "rounds", "reads", "nodes_weighed", "nodes_read"} {
				v, _ := r.Stats.Get(s)
				b.ReportMetric(float64(v.(int)), s+"/op")
			}
			m, _ := r.Stats.Get("residual_mass")
			b.ReportMetric(m.(float64), "residual")
			peakmem.Report(b, func() {
				if _, err := ppr.Retrieve(context.Background(), g, retriever.Query{Seeds: scale1m.Seeds}, p); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkPPRFiltered1M is BenchmarkPPR1M (the default ε) without a
// filter and with `--rel-where weight>=0.5`, in one run.
func BenchmarkPPRFiltered1M(b *testing.B) {
	scale1m.BenchFiltered(b, func(ctx context.Context, nb graph.Neighbourhood, q retriever.Query) (retriever.Ranking, error) {
		return ppr.Retrieve(ctx, nb, q, ppr.DefaultParams())
	})
}
