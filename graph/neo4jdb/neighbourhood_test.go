package neo4jdb_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/testkit/neo4jtest"
)

// TestNeighbourhoodFrozenServer: the reads every retriever but Activation
// Energy uses have the source's query deadline on every step. Through a
// proxy that stops forwarding (neo4jtest.Proxy.Freeze), a Read whose
// function asks for nodes fails once QueryTimeout (400 ms) has run out,
// with the *TimeoutError every read of the package gives ("did not answer
// a query within 400ms"), not marked transient, and returns well before
// `hang`; the Read before the freeze succeeded. Cancelling the context of
// a Read waiting on the frozen server returns context.Canceled.
func TestNeighbourhoodFrozenServer(t *testing.T) {
	srv := neo4jtest.Shared(t)
	proxy := neo4jtest.NewProxy(t, srv.URI)
	ctx := context.Background()
	src, err := neo4jdb.Connect(ctx, neo4jdb.Settings{URI: proxy.URI, Username: srv.Username, Password: srv.Password,
		ConnectTimeout: 10 * time.Second, QueryTimeout: 400 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer within(t, "Source.Close", func() error { return src.Close(ctx) })
	nb := neo4jdb.NewNeighbourhood(src)
	read := func(ctx context.Context) error {
		return nb.Read(ctx, func(r graph.Reader) error {
			refs, err := r.Nodes(ctx, []string{"N2006", "nope"})
			if err != nil {
				return err
			}
			_, err = r.Around(ctx, refs)
			return err
		})
	}
	// Before freezing, a read must work; the first on a cold server (its
	// query plans not yet compiled, the machine busy) may take longer than
	// the 400 ms this test allows, so it has three tries.
	var err0 error
	for range 3 {
		if err0 = read(ctx); err0 == nil {
			break
		}
	}
	if err0 != nil {
		t.Fatalf("before freezing, three times: %v", err0)
	}
	proxy.Freeze()
	want := fmt.Sprintf("Neo4j at %s did not answer a query within 400ms", proxy.URI)
	err = within(t, "Read", func() error { return read(ctx) })
	var te *neo4jdb.TimeoutError
	if err == nil || err.Error() != want || !errors.As(err, &te) || graph.IsTransient(err) {
		t.Errorf("Read: error %v, want %q (a *TimeoutError, not transient)", err, want)
	}
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- read(cctx) }()
	time.Sleep(50 * time.Millisecond)
	cancel()
	if err := within(t, "Read after cancel", func() error { return <-done }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Read: %v, want context.Canceled", err)
	}
}
