package expansion_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/expansion"
	"github.com/memoria-graph/memoria/testkit/peakmem"
	"github.com/memoria-graph/memoria/testkit/scale1m"
)

// BenchmarkExpansion1M is the expansion as `explore --retriever expansion`
// runs it by default (f 0.6, δ 0.8, K 10, the default table) from the five
// benchmark seeds on the embedded engine, at H = 1, 2 and 3. It reports
// the relationships read per run, and one more run's peak heap above the
// heap before it (peakmem.Report: base-MB is the graph's own).
func BenchmarkExpansion1M(b *testing.B) {
	g := scale1m.Graph(b)
	for _, h := range []int{1, 2, 3} {
		b.Run(fmt.Sprintf("H=%d", h), func(b *testing.B) {
			p := expansion.DefaultParams()
			p.MaxHops = h
			var read any
			for b.Loop() {
				r, err := expansion.Retrieve(context.Background(), g, retriever.Query{Seeds: scale1m.Seeds}, p)
				if err != nil {
					b.Fatal(err)
				}
				read, _ = r.Stats.Get("relationships_read")
			}
			b.ReportMetric(float64(read.(int)), "rels/op")
			peakmem.Report(b, func() {
				if _, err := expansion.Retrieve(context.Background(), g, retriever.Query{Seeds: scale1m.Seeds}, p); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}
