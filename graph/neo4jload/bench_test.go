package neo4jload

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/testkit/neo4jtest"
	"github.com/memoria-graph/memoria/testkit/peakmem"
	"github.com/memoria-graph/memoria/testkit/randgraph"
)

// EnvBenchData is the variable BenchmarkNeo4jScale of
// retriever/activation/onneo4j reads (MEMORIA_BENCH_DATA): a directory
// kept between runs. BenchmarkLoadFile keeps its generated file there
// (load-scale.jsonl), so a run does not generate it again; the database
// it loads into is emptied before every load either way.
const EnvBenchData = "MEMORIA_BENCH_DATA"

// BenchmarkLoadFile is `memoria load` of the generated 100k-node /
// 1M-relationship APOC file (testkit/randgraph.Scale(100_000, 1_000_000,
// 2.5, 1), the graph of BenchmarkNeo4jScale) into an empty database of a
// server with `make neo4j`'s settings (1 GB page cache, 2 GB heap, full
// JIT): PrepareFile (the check pass), then Plan.Load (the file read again
// and sent in batches by DefaultWriters writers). It reports entities/s
// (nodes plus relationships over the wall time of check and load) and
// peak-heap-MB, the largest live heap above the heap before it, sampled
// every millisecond (runtime/metrics); docs/PERFORMANCE.md's table
// gives the process's peak RSS as /usr/bin/time -v measures `memoria load`.
// To compare settings, MEMORIA_BENCH_BATCH sets LoadOptions.BatchSize and
// MEMORIA_BENCH_WRITERS=1,2,3 runs one load per number of writers, in that
// order, on one server (the first also warms the server's JIT);
// MEMORIA_BENCH_LOAD_SIZE=NODES,RELATIONSHIPS loads a smaller graph.
func BenchmarkLoadFile(b *testing.B) {
	n, m := 100_000, 1_000_000
	dir := os.Getenv(EnvBenchData)
	if dir == "" {
		dir = b.TempDir()
	}
	path := filepath.Join(dir, "load-scale.jsonl")
	if size := os.Getenv("MEMORIA_BENCH_LOAD_SIZE"); size != "" {
		// A smaller graph, to try the benchmark out: "NODES,RELATIONSHIPS".
		if _, err := fmt.Sscanf(size, "%d,%d", &n, &m); err != nil {
			b.Fatalf("MEMORIA_BENCH_LOAD_SIZE=%q: %v", size, err)
		}
		path = filepath.Join(dir, fmt.Sprintf("load-scale-%d-%d.jsonl", n, m))
	}
	if _, err := os.Stat(path); err != nil {
		if err := os.WriteFile(path, randgraph.Scale(n, m, 2.5, 1), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	srv := neo4jtest.New(b, neo4jtest.WithPageCache("1g"), neo4jtest.WithHeap("2g"), neo4jtest.WithPersonSettings(),
		neo4jtest.WithStartTimeout(10*time.Minute))
	ctx := context.Background()
	src, err := neo4jdb.Connect(ctx, neo4jdb.Settings{URI: srv.URI, Username: srv.Username, Password: srv.Password, QueryTimeout: 10 * time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close(ctx)
	var opt LoadOptions
	if k, err := strconv.Atoi(os.Getenv("MEMORIA_BENCH_BATCH")); err == nil {
		opt.BatchSize = k
	}
	writers := []int{0}
	if list := os.Getenv("MEMORIA_BENCH_WRITERS"); list != "" {
		writers = writers[:0]
		for _, f := range strings.Split(list, ",") {
			k, err := strconv.Atoi(f)
			if err != nil {
				b.Fatalf("MEMORIA_BENCH_WRITERS: %v", err)
			}
			writers = append(writers, k)
		}
	}
	for _, w := range writers {
		name := "stream"
		if w > 0 {
			name = fmt.Sprintf("stream/writers=%d", w)
		}
		opt.Writers = w
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				emptyDatabase(b, src)
				runtime.GC()
				base := peakmem.HeapObjects()
				b.StartTimer()
				peak := peakmem.Start()
				t0 := time.Now()
				p, err := PrepareFile(path, 0)
				var st LoadStats
				if err == nil {
					st, err = p.Load(ctx, src, opt)
				}
				took := time.Since(t0)
				top := peak.End()
				if err != nil {
					b.Fatal(err)
				}
				if st.NodesCreated != int64(n) || st.RelsCreated != int64(m) {
					b.Fatalf("loaded %+v", st)
				}
				b.ReportMetric(float64(n+m)/took.Seconds(), "entities/s")
				b.ReportMetric(float64(top-min(top, base))/(1<<20), "peak-heap-MB")
				b.Logf("%s: %v, %d batches, %d retried (writers %d, batch %d)", name, took.Round(time.Second),
					st.Batches, st.Retries, cmp.Or(opt.Writers, DefaultWriters), cmp.Or(opt.BatchSize, p.batch))
			}
		})
	}
}

// emptyDatabase deletes every node and relationship, 10,000 nodes per
// transaction (one transaction for a million relationships would need
// more heap than the server has).
func emptyDatabase(b *testing.B, src *neo4jdb.Source) {
	ctx := context.Background()
	sess := src.Driver().NewSession(ctx, neo4j.SessionConfig{AccessMode: neo4j.AccessModeWrite})
	defer sess.Close(ctx)
	res, err := sess.Run(ctx, "MATCH (n) CALL { WITH n DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS", nil)
	if err == nil {
		_, err = res.Consume(ctx)
	}
	if err != nil {
		b.Fatal(err)
	}
}
