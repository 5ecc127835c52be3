package neo4jdb_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/testkit/neo4jtest"
)

// hang bounds a call that must return by itself: far above any deadline
// the tests set, so that a call that hangs fails the test instead of
// blocking it.
const hang = 20 * time.Second

// within runs f in a goroutine and fails the test if it has not returned
// after hang.
func within[T any](t *testing.T, what string, f func() T) T {
	t.Helper()
	got := make(chan T, 1)
	go func() { got <- f() }()
	select {
	case v := <-got:
		return v
	case <-time.After(hang):
		t.Fatalf("%s did not return within %s", what, hang)
		panic("unreachable")
	}
}

// TestConnectSilentServerTimesOut: a server that accepts TCP and never
// answers (neo4jtest.Silent) makes Connect fail once ConnectTimeout (0.3 s)
// has run out, after the client sent its Bolt handshake (so the deadline
// covered the handshake read, not only the TCP connect): a *TimeoutError
// whose message names the server and the deadline, not marked transient
// (package documentation, "Deadlines").
func TestConnectSilentServerTimesOut(t *testing.T) {
	srv := neo4jtest.NewSilent(t)
	start := time.Now()
	err := within(t, "Connect", func() error {
		src, err := neo4jdb.Connect(context.Background(), neo4jdb.Settings{URI: srv.URI, ConnectTimeout: 300 * time.Millisecond})
		if err == nil {
			src.Close(context.Background())
		}
		return err
	})
	elapsed := time.Since(start)
	select {
	case <-srv.Handshake():
	default:
		t.Error("the server never received a Bolt handshake")
	}
	want := fmt.Sprintf("no answer from Neo4j at %s within 300ms of connecting: is the server up, and is this its Bolt port?", srv.URI)
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
	var te *neo4jdb.TimeoutError
	if !errors.As(err, &te) || !te.Connecting || te.After != 300*time.Millisecond || graph.IsTransient(err) {
		t.Errorf("error %#v: want a *TimeoutError of connecting after 300ms, not transient", err)
	}
	if elapsed < 300*time.Millisecond {
		t.Errorf("failed after %v, before its deadline", elapsed)
	}
}

// TestConnectSilentServerCancel: with a deadline of an hour, cancelling
// the context while Connect waits for the silent server's handshake answer
// makes it return the context's error at once (the driver's racing reader
// watches ctx.Done because ctx has a deadline).
func TestConnectSilentServerCancel(t *testing.T) {
	srv := neo4jtest.NewSilent(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		src, err := neo4jdb.Connect(ctx, neo4jdb.Settings{URI: srv.URI, ConnectTimeout: time.Hour})
		if err == nil {
			src.Close(context.Background())
		}
		done <- err
	}()
	select {
	case <-srv.Handshake():
	case <-time.After(hang):
		t.Fatal("no handshake reached the silent server")
	}
	cancel()
	err := within(t, "Connect after cancel", func() error { return <-done })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}

// TestQueryTimeoutFrozenServer: through a proxy to the test server, a
// Source with QueryTimeout 0.4 s answers RETURN 1; once the proxy freezes
// (the server stops answering mid-session), Source.Query and a Session's
// Collect each fail with "Neo4j at <proxy URI> did not answer a query
// within 400ms" (a *TimeoutError, not transient, so the catalog's one
// retry does not double the wait), and so does a query in a read
// transaction begun before the freeze (Tx), whose Close then returns; a
// query under a cancelled context returns context.Canceled at once; and
// closing the Source returns.
func TestQueryTimeoutFrozenServer(t *testing.T) {
	srv := neo4jtest.Shared(t)
	proxy := neo4jtest.NewProxy(t, srv.URI)
	ctx := context.Background()
	src, err := neo4jdb.Connect(ctx, neo4jdb.Settings{URI: proxy.URI, Username: srv.Username, Password: srv.Password,
		ConnectTimeout: 10 * time.Second, QueryTimeout: 400 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if recs, err := src.Query(ctx, "RETURN 1 AS one", nil); err != nil || len(recs) != 1 {
		t.Fatalf("before freezing: %d records, %v", len(recs), err)
	}
	sess := src.OpenSession(ctx)
	if _, err := sess.Collect(ctx, "RETURN 1 AS one", nil); err != nil {
		t.Fatalf("session before freezing: %v", err)
	}
	txSess := src.OpenSession(ctx)
	tx, err := txSess.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Collect(ctx, "RETURN 1 AS one", nil); err != nil {
		t.Fatalf("transaction before freezing: %v", err)
	}
	proxy.Freeze()

	want := fmt.Sprintf("Neo4j at %s did not answer a query within 400ms", proxy.URI)
	check := func(what string, err error) {
		t.Helper()
		var te *neo4jdb.TimeoutError
		if err == nil || err.Error() != want || !errors.As(err, &te) || te.Connecting || graph.IsTransient(err) {
			t.Errorf("%s: error %v, want %q (a *TimeoutError, not transient)", what, err, want)
		}
	}
	check("Query", within(t, "Query", func() error { _, err := src.Query(ctx, "RETURN 1 AS one", nil); return err }))
	check("Collect", within(t, "Collect", func() error { _, err := sess.Collect(ctx, "RETURN 1 AS one", nil); return err }))
	check("Tx.Collect", within(t, "Tx.Collect", func() error { _, err := tx.Collect(ctx, "RETURN 1 AS one", nil); return err }))
	within(t, "Tx.Close", func() error { return tx.Close(ctx) })
	within(t, "Session.Close", func() error { return txSess.Close(ctx) })

	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { _, err := src.Query(cctx, "RETURN 1 AS one", nil); done <- err }()
	cancel()
	if err := within(t, "Query after cancel", func() error { return <-done }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Query: %v, want context.Canceled", err)
	}
	// Closing must return (its error, if any, is the frozen connection's).
	within(t, "Session.Close", func() error { return sess.Close(ctx) })
	within(t, "Source.Close", func() error { return src.Close(ctx) })
}

// TestTxReadsInOneTransaction: a Tx runs several queries (RETURN 1, then
// RETURN 2) and gives each its rows; it is a read transaction, so a CREATE
// in it is refused (Neo4j's write-in-read-access error) and nothing is
// written; after that failure Close returns nil, and the same session
// begins a new transaction that works. The graph holds no :TxProbe node
// afterwards.
func TestTxReadsInOneTransaction(t *testing.T) {
	srv := neo4jtest.Shared(t)
	ctx := context.Background()
	src, err := neo4jdb.Connect(ctx, neo4jdb.Settings{URI: srv.URI, Username: srv.Username, Password: srv.Password})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close(ctx)
	sess := src.OpenSession(ctx)
	defer sess.Close(ctx)
	tx, err := sess.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for want := int64(1); want <= 2; want++ {
		recs, err := tx.Collect(ctx, "RETURN $n AS n", map[string]any{"n": want})
		if err != nil || len(recs) != 1 {
			t.Fatalf("RETURN %d: %d records, %v", want, len(recs), err)
		}
		if got, _ := recs[0].Get("n"); got != want {
			t.Errorf("RETURN %d gave %v", want, got)
		}
	}
	if _, err := tx.Collect(ctx, "CREATE (:TxProbe) RETURN 1 AS one", nil); err == nil || !strings.Contains(err.Error(), "read") {
		t.Errorf("a CREATE in the read transaction: %v, want a refusal to write in read access mode", err)
	}
	if err := tx.Close(ctx); err != nil {
		t.Errorf("Close after a failed query: %v", err)
	}
	tx, err = sess.Begin(ctx)
	if err != nil {
		t.Fatalf("a new transaction after a failed one: %v", err)
	}
	recs, err := tx.Collect(ctx, "MATCH (n:TxProbe) RETURN count(n) AS c", nil)
	if err != nil || len(recs) != 1 {
		t.Fatalf("count: %v", err)
	}
	if c, _ := recs[0].Get("c"); c != int64(0) {
		t.Errorf("%v :TxProbe nodes were written", c)
	}
	if err := tx.Close(ctx); err != nil {
		t.Error(err)
	}
}
