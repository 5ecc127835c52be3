package scale1m

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/graph/neo4jload"
	"github.com/memoria-graph/memoria/testkit/neo4jtest"
	"github.com/memoria-graph/memoria/testkit/randgraph"
)

// Neo4j starts a Neo4j server with `make neo4j`'s settings (1 GB page
// cache, 2 GB heap, full JIT) holding the graph Graph holds, loaded by
// `memoria load` (with its id indexes), and returns a source over it. The
// database lives under $MEMORIA_BENCH_DATA/typed when that is set, so a
// later run finds it loaded; else in a temporary directory.
func Neo4j(b testing.TB) *neo4jdb.Source {
	const n, m, typed = 100_000, 1_000_000, 200_000
	_, src := Server(b, "typed", n, m+typed, func() []byte { return randgraph.ScaleTyped(n, m, typed, 2.5, 1) })
	return src
}

// Server starts the benchmark server of graph name (in
// $MEMORIA_BENCH_DATA/name, else a temporary directory), loading the
// graph gen makes unless the database already holds n nodes and m
// relationships, and returns it and a source on it.
func Server(b testing.TB, name string, n, m int64, gen func() []byte) (*neo4jtest.Server, *neo4jdb.Source) {
	dir := os.Getenv("MEMORIA_BENCH_DATA")
	if dir == "" {
		dir = b.TempDir()
	}
	srv := neo4jtest.New(b, neo4jtest.WithDataDir(filepath.Join(dir, name)), neo4jtest.WithPageCache("1g"),
		neo4jtest.WithHeap("2g"), neo4jtest.WithPersonSettings(), neo4jtest.WithStartTimeout(10*time.Minute))
	ctx := context.Background()
	// A minute to connect: a server just started on a busy machine (other
	// builds on its two cores) has missed the default 10 s.
	src, err := neo4jdb.Connect(ctx, neo4jdb.Settings{URI: srv.URI, Username: srv.Username, Password: srv.Password,
		ConnectTimeout: time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { src.Close(ctx) })
	if nodes, rels, err := src.Counts(ctx); err != nil || nodes != n || rels != m {
		g, err := apoc.Parse(bytes.NewReader(gen()))
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		if _, err := neo4jload.Load(ctx, src, g, neo4jload.LoadOptions{Wipe: true}); err != nil {
			b.Fatal(err)
		}
		b.Logf("%s: loaded %d nodes and %d relationships in %v", name, n, m, time.Since(t0).Round(time.Second))
	}
	return srv, src
}
