package onneo4j

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/graph/neo4jload"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/testkit/neo4jfix"
	"github.com/memoria-graph/memoria/testkit/neo4jtest"
)

// TestConnectServerDown: Connect to a closed port on 127.0.0.1 fails within
// a second with "cannot reach Neo4j at bolt://127.0.0.1:PORT: ..." (marked
// transient: a later attempt may work), never naming the password, and
// leaves no goroutine behind.
func TestConnectServerDown(t *testing.T) {
	check := goroutineBaseline(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	uri := fmt.Sprintf("bolt://127.0.0.1:%d", ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	start := time.Now()
	src, err := neo4jdb.Connect(context.Background(), neo4jdb.Settings{URI: uri, Username: "neo4j", Password: "hunter2"})
	elapsed := time.Since(start)
	if err == nil {
		src.Close(context.Background())
		t.Fatal("Connect to a closed port succeeded")
	}
	t.Logf("%v (after %v)", err, elapsed)
	if !strings.HasPrefix(err.Error(), "cannot reach Neo4j at "+uri+": ") || strings.Contains(err.Error(), "hunter2") ||
		neo4jdb.IsAuthError(err) || !graph.IsTransient(err) {
		t.Errorf("error %q", err)
	}
	if elapsed > 2*time.Second {
		t.Errorf("took %v", elapsed)
	}
	check()
}

// blockingBackend wraps the Neo4j expansion so that the first
// ExpandFrontier of level 2 waits until the test has killed the server; it
// counts the calls.
type blockingBackend struct {
	*Neo4j
	calls   atomic.Int32
	reached chan struct{}
	release chan struct{}
	once    sync.Once
}

func (b *blockingBackend) Open(ctx context.Context) (activation.Expander, func(context.Context) error, error) {
	c, rel, err := b.Neo4j.Open(ctx)
	if err != nil {
		return nil, nil, err
	}
	return &blockingConn{Expander: c, b: b}, rel, nil
}

type blockingConn struct {
	activation.Expander
	b *blockingBackend
}

func (c *blockingConn) ExpandFrontier(ctx context.Context, req activation.ExpandRequest) ([]activation.Candidate, error) {
	if c.b.calls.Add(1) == 2 {
		c.b.once.Do(func() { close(c.b.reached) })
		<-c.b.release
	}
	return c.Expander.ExpandFrontier(ctx, req)
}

// TestConnectionLostMidExploration: on a server of its own holding the demo
// graph, scenario A (seed N2006) runs level 1, then the server is killed
// (SIGKILL) before level 2's query. With MaxRetries 2 the level-2 query is
// tried 3 times (each a lost connection, retried by the orchestrator after
// 0.05 s and 0.1 s; the driver's own retry is off), and the result ends with
// terminated_reason "error" and a message saying the connection to the
// server was lost, within seconds. Closing the source leaves no goroutine.
func TestConnectionLostMidExploration(t *testing.T) {
	check := goroutineBaseline(t)
	srv := neo4jtest.New(t, neo4jtest.Own())
	d, err := srv.NewDriver()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := neo4jload.Load(ctx, neo4jdb.NewSource(d, "", ""), neo4jfix.DemoGraph(t), neo4jload.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	d.Close(ctx)
	src, err := neo4jdb.Connect(ctx, neo4jdb.Settings{URI: srv.URI})
	if err != nil {
		t.Fatal(err)
	}
	b := &blockingBackend{Neo4j: New(src), reached: make(chan struct{}), release: make(chan struct{})}
	opts := activation.Options{MaxRetries: 2} // Backoff nil: retry.Backoff, 0.05 s × 2^attempt
	rt, err := activation.New(b, activation.DefaultParams(), opts)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan []activation.Result, 1)
	go func() {
		res, _ := rt.ExploreAll(ctx, []retriever.Seed{{NodeID: "N2006", Score: 0.85}}, tagsA)
		done <- res
	}()
	select {
	case <-b.reached:
	case <-time.After(30 * time.Second):
		t.Fatal("level 2 never reached")
	}
	if err := srv.Kill(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	close(b.release)
	var res activation.Result
	select {
	case r := <-done:
		res = r[0]
	case <-time.After(60 * time.Second):
		t.Fatal("exploration did not end after the server was killed")
	}
	t.Logf("ended after %v: %s: %s", time.Since(start), res.TerminatedReason, res.Error)
	if res.TerminatedReason != activation.TerminatedError || !strings.HasPrefix(res.Error, "lost the connection to Neo4j at "+srv.URI+": ") {
		t.Errorf("result %s %q", res.TerminatedReason, res.Error)
	}
	if attempts := b.calls.Load() - 1; attempts != int32(opts.MaxRetries)+1 {
		t.Errorf("level 2 tried %d times, want %d", attempts, opts.MaxRetries+1)
	}
	if err := src.Close(ctx); err != nil {
		t.Errorf("Close: %v", err)
	}
	check()
}

// TestWrongPassword: a server requiring neo4j/secret refuses "wrong":
// Connect returns an error for which IsAuthError is true, not transient, and
// reading exactly "Neo4j at bolt://127.0.0.1:PORT refused the credentials of
// user "neo4j" (Neo.ClientError.Security.Unauthorized)" (the user, never a
// password). The right password connects, and Describe holds no password.
func TestWrongPassword(t *testing.T) {
	check := goroutineBaseline(t)
	srv := neo4jtest.New(t, neo4jtest.WithAuth("neo4j", "secret"))
	ctx := context.Background()
	_, err := neo4jdb.Connect(ctx, neo4jdb.Settings{URI: srv.URI, Username: "neo4j", Password: "wrong"})
	want := fmt.Sprintf(`Neo4j at %s refused the credentials of user "neo4j" (Neo.ClientError.Security.Unauthorized)`, srv.URI)
	if err == nil || err.Error() != want || !neo4jdb.IsAuthError(err) || graph.IsTransient(err) {
		t.Errorf("wrong password: %v (auth error %v), want %s", err, neo4jdb.IsAuthError(err), want)
	}
	src, err := neo4jdb.Connect(ctx, neo4jdb.Settings{URI: srv.URI, Username: "neo4j", Password: "secret", Database: "neo4j"})
	if err != nil {
		t.Fatal(err)
	}
	if d := src.Describe(); d != "Neo4j "+srv.URI+" (database neo4j)" || strings.Contains(d, "secret") {
		t.Errorf("Describe() = %q", d)
	}
	src.Close(ctx)
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	check()
}

// countingBackend counts FetchSeed calls.
type countingBackend struct {
	*Neo4j
	fetches atomic.Int32
}

func (b *countingBackend) Open(ctx context.Context) (activation.Expander, func(context.Context) error, error) {
	c, rel, err := b.Neo4j.Open(ctx)
	return &countingConn{Expander: c, b: b}, rel, err
}

type countingConn struct {
	activation.Expander
	b *countingBackend
}

func (c *countingConn) FetchSeed(ctx context.Context, id string) (graph.Node, bool, error) {
	c.b.fetches.Add(1)
	return c.Expander.FetchSeed(ctx, id)
}

// TestMissingDatabase: Connect to database "nosuchdb" fails with exactly
// `Neo4j database "nosuchdb" does not exist` (IsDatabaseNotFound, not
// transient). An exploration on a source for that database ends in error
// with the same sentence after a single FetchSeed: not retried.
func TestMissingDatabase(t *testing.T) {
	srv := neo4jtest.Shared(t)
	check := goroutineBaseline(t)
	ctx := context.Background()
	_, err := neo4jdb.Connect(ctx, neo4jdb.Settings{URI: srv.URI, Username: srv.Username, Password: srv.Password, Database: "nosuchdb"})
	if err == nil || err.Error() != `Neo4j database "nosuchdb" does not exist` || !neo4jdb.IsDatabaseNotFound(err) || graph.IsTransient(err) {
		t.Errorf("Connect: %v", err)
	}
	d, err := srv.NewDriver()
	if err != nil {
		t.Fatal(err)
	}
	src := neo4jdb.NewSource(d, "nosuchdb", "")
	b := &countingBackend{Neo4j: New(src)}
	cfg := activation.DefaultParams()
	res, _ := mustRetriever(t, b, cfg).ExploreAll(ctx, []retriever.Seed{{NodeID: "N2006", Score: 0.85}}, nil)
	if res[0].TerminatedReason != activation.TerminatedError || res[0].Error != `Neo4j database "nosuchdb" does not exist` || b.fetches.Load() != 1 {
		t.Errorf("exploration: %s %q after %d fetches", res[0].TerminatedReason, res[0].Error, b.fetches.Load())
	}
	src.Close(ctx)
	check()
}

// TestConfigDatabaseSelectsSession: the Source's database chooses the
// database each exploration's session opens on (it was
// activation.Params.Database before the database moved to the source): a
// source for "nosuchdb" on the driver of the demo graph's server fails with
// the missing-database sentence, and one for "" (the default database) on
// the same driver explores the demo graph (seed N2006 found, 3 paths as in
// docs/DEMO_GRAPH.md scenario A).
func TestConfigDatabaseSelectsSession(t *testing.T) {
	d := fx.Demo(t).Driver()
	ctx := context.Background()
	seed := []retriever.Seed{{NodeID: "N2006", Score: 0.85}}
	tags := []string{"demand_forecasting", "stockout", "safety_stock", "inventory_policy"}
	cfg := activation.DefaultParams()
	res, _ := mustRetriever(t, New(neo4jdb.NewSource(d, "nosuchdb", "")), cfg).ExploreAll(ctx, seed, tags)
	if res[0].TerminatedReason != activation.TerminatedError || res[0].Error != `Neo4j database "nosuchdb" does not exist` {
		t.Errorf("database nosuchdb: %s %q", res[0].TerminatedReason, res[0].Error)
	}
	res, _ = mustRetriever(t, New(neo4jdb.NewSource(d, "", "")), cfg).ExploreAll(ctx, seed, tags)
	if res[0].TerminatedReason != activation.TerminatedFrontierExhausted || len(res[0].Paths) != 3 {
		t.Errorf("default database: %s, %d paths", res[0].TerminatedReason, len(res[0].Paths))
	}
}

// TestQueryRejected: a Cypher error is reported as "Neo4j rejected the
// query: ..." with Neo4j's code, and not marked transient (not retried).
func TestQueryRejected(t *testing.T) {
	c := openConn(t, fx.Demo(t))
	bad := &neo4jExpander{sess: c.sess, expandQuery: "RETURN nonsense(", extras: true}
	_, err := bad.ExpandFrontier(context.Background(), neo4jfix.ExpandReq(map[string]float64{"N2006": 1}, nil, nil, 0, 0.15))
	if err == nil || !strings.HasPrefix(err.Error(), "Neo4j rejected the query: ") || !strings.Contains(err.Error(), "Neo.ClientError.Statement.SyntaxError") || graph.IsTransient(err) {
		t.Errorf("err = %v", err)
	}
}
