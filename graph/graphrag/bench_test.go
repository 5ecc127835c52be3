package graphrag

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/testkit/parquetgraph"
	"github.com/memoria-graph/memoria/testkit/peakmem"
	"github.com/memoria-graph/memoria/testkit/randgraph"
)

// BenchmarkGraphRAGLoad1M: the 1M-relationship benchmark graph
// (randgraph.Scale(100_000, 1_000_000, 2.5, 1)) as an APOC file and as
// GraphRAG's entities.parquet and relationships.parquet
// (parquetgraph.FromAPOC: titles from the ids, types from the labels,
// descriptions from the texts, the weights; GraphRAG has no tags), each
// loaded from its files into the embedded engine as the CLI loads it,
// both in every iteration: the APOC reader (inmem.LoadFileProgress) and
// this reader under the graphrag preset (inmem.LoadRead with Decode).
// Reported: each load's time and peak heap, and the ratios (issue 33's
// targets: ≤ 1.5× the time, ≤ 1.2× the memory). The first iteration
// checks both loads hold the same nodes and relationships.
//
//	go test -run '^$' -bench BenchmarkGraphRAGLoad1M -benchtime 3x -timeout 30m ./graph/graphrag/
func BenchmarkGraphRAGLoad1M(b *testing.B) {
	dir := b.TempDir()
	data := randgraph.Scale(100_000, 1_000_000, 2.5, 1)
	apocPath := filepath.Join(dir, "scale.jsonl")
	if err := os.WriteFile(apocPath, data, 0o600); err != nil {
		b.Fatal(err)
	}
	if err := parquetgraph.FromAPOC(dir, data); err != nil {
		b.Fatal(err)
	}
	apocSize := len(data)
	data = nil
	folder, ok := Find(dir)
	if !ok {
		b.Fatal("no tables written")
	}
	schema, _ := graph.Preset(graph.SchemaGraphRAG)
	loadAPOC := func() (*inmem.Graph, error) { return inmem.LoadFileProgress(apocPath, nil) }
	loadPQ := func() (*inmem.Graph, error) {
		return inmem.LoadRead(dir, folder.Size(), schema, nil, func(rules apoc.Rules, onNode func(apoc.Node) error, onRel func(apoc.Relationship) error, read func(int64)) (apoc.Report, error) {
			_, rep, err := Decode(folder, rules, Options{Weight: schema.WeightProperty}, onNode, onRel, read)
			return rep, err
		})
	}
	measure := func(load func() (*inmem.Graph, error)) (time.Duration, uint64, inmem.Stats) {
		var g *inmem.Graph
		d, peak, err := peakmem.Measure(func() (err error) { g, err = load(); return err })
		if err != nil {
			b.Fatal(err)
		}
		return d, peak, g.Stats()
	}
	var ta, tp time.Duration
	var pa, pp uint64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		da, mA, sa := measure(loadAPOC)
		dp, mP, sp := measure(loadPQ)
		if i == 0 && (sa.Nodes != sp.Nodes || sa.Relationships != sp.Relationships) {
			b.Fatalf("the APOC file loads %+v, the parquet tables %+v", sa, sp)
		}
		ta, tp = ta+da, tp+dp
		pa, pp = max(pa, mA), max(pp, mP)
	}
	b.ReportMetric(ta.Seconds()/float64(b.N), "apoc-s")
	b.ReportMetric(tp.Seconds()/float64(b.N), "parquet-s")
	b.ReportMetric(float64(tp)/float64(ta), "time-ratio")
	b.ReportMetric(float64(pa)/(1<<20), "apoc-peak-MB")
	b.ReportMetric(float64(pp)/(1<<20), "parquet-peak-MB")
	b.ReportMetric(float64(pp)/float64(pa), "mem-ratio")
	b.ReportMetric(float64(apocSize)/1e6, "apoc-file-MB")
	b.ReportMetric(float64(folder.Size())/1e6, "parquet-file-MB")
}
