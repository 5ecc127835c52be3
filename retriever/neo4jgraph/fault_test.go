package neo4jgraph

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memoria-graph/memoria/internal/neo4jtest"
	"github.com/memoria-graph/memoria/retriever"
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
	src, err := Connect(context.Background(), Settings{URI: uri, Username: "neo4j", Password: "hunter2"})
	elapsed := time.Since(start)
	if err == nil {
		src.Close(context.Background())
		t.Fatal("Connect to a closed port succeeded")
	}
	t.Logf("%v (after %v)", err, elapsed)
	if !strings.HasPrefix(err.Error(), "cannot reach Neo4j at "+uri+": ") || strings.Contains(err.Error(), "hunter2") ||
		IsAuthError(err) || !retriever.IsTransient(err) {
		t.Errorf("error %q", err)
	}
	if elapsed > 2*time.Second {
		t.Errorf("took %v", elapsed)
	}
	check()
}

// blockingBackend wraps a Source so that the first ExpandFrontier of level
// 2 waits until the test has killed the server; it counts the calls.
type blockingBackend struct {
	*Source
	calls   atomic.Int32
	reached chan struct{}
	release chan struct{}
	once    sync.Once
}

func (b *blockingBackend) Open(ctx context.Context, database string) (retriever.Connector, func(context.Context) error, error) {
	c, rel, err := b.Source.Open(ctx, database)
	if err != nil {
		return nil, nil, err
	}
	return &blockingConn{Connector: c, b: b}, rel, nil
}

type blockingConn struct {
	retriever.Connector
	b *blockingBackend
}

func (c *blockingConn) ExpandFrontier(ctx context.Context, req retriever.ExpandRequest) ([]retriever.ExpansionCandidate, error) {
	if c.b.calls.Add(1) == 2 {
		c.b.once.Do(func() { close(c.b.reached) })
		<-c.b.release
	}
	return c.Connector.ExpandFrontier(ctx, req)
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
	if _, err := Load(ctx, d, "", demoGraph(t), LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	d.Close(ctx)
	src, err := Connect(ctx, Settings{URI: srv.URI})
	if err != nil {
		t.Fatal(err)
	}
	b := &blockingBackend{Source: src, reached: make(chan struct{}), release: make(chan struct{})}
	cfg := retriever.DefaultConfig()
	cfg.MaxRetries = 2
	done := make(chan []retriever.RetrievalResult, 1)
	go func() {
		res, _ := mustRetriever(t, b, cfg).ExploreAll(ctx, []retriever.SeedInput{{NodeID: "N2006", Score: 0.85}}, tagsA)
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
	var res retriever.RetrievalResult
	select {
	case r := <-done:
		res = r[0]
	case <-time.After(60 * time.Second):
		t.Fatal("exploration did not end after the server was killed")
	}
	t.Logf("ended after %v: %s: %s", time.Since(start), res.TerminatedReason, res.Error)
	if res.TerminatedReason != retriever.TerminatedError || !strings.HasPrefix(res.Error, "lost the connection to Neo4j at "+srv.URI+": ") {
		t.Errorf("result %s %q", res.TerminatedReason, res.Error)
	}
	if attempts := b.calls.Load() - 1; attempts != int32(cfg.MaxRetries)+1 {
		t.Errorf("level 2 tried %d times, want %d", attempts, cfg.MaxRetries+1)
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
	_, err := Connect(ctx, Settings{URI: srv.URI, Username: "neo4j", Password: "wrong"})
	want := fmt.Sprintf(`Neo4j at %s refused the credentials of user "neo4j" (Neo.ClientError.Security.Unauthorized)`, srv.URI)
	if err == nil || err.Error() != want || !IsAuthError(err) || retriever.IsTransient(err) {
		t.Errorf("wrong password: %v (auth error %v), want %s", err, IsAuthError(err), want)
	}
	src, err := Connect(ctx, Settings{URI: srv.URI, Username: "neo4j", Password: "secret", Database: "neo4j"})
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
	*Source
	fetches atomic.Int32
}

func (b *countingBackend) Open(ctx context.Context, database string) (retriever.Connector, func(context.Context) error, error) {
	c, rel, err := b.Source.Open(ctx, database)
	return &countingConn{Connector: c, b: b}, rel, err
}

type countingConn struct {
	retriever.Connector
	b *countingBackend
}

func (c *countingConn) FetchSeed(ctx context.Context, id string) (retriever.SeedFetchResult, error) {
	c.b.fetches.Add(1)
	return c.Connector.FetchSeed(ctx, id)
}

// TestMissingDatabase: Connect to database "nosuchdb" fails with exactly
// `Neo4j database "nosuchdb" does not exist` (IsDatabaseNotFound, not
// transient). An exploration on a source for that database ends in error
// with the same sentence after a single FetchSeed: not retried.
func TestMissingDatabase(t *testing.T) {
	srv := neo4jtest.Shared(t)
	check := goroutineBaseline(t)
	ctx := context.Background()
	_, err := Connect(ctx, Settings{URI: srv.URI, Username: srv.Username, Password: srv.Password, Database: "nosuchdb"})
	if err == nil || err.Error() != `Neo4j database "nosuchdb" does not exist` || !IsDatabaseNotFound(err) || retriever.IsTransient(err) {
		t.Errorf("Connect: %v", err)
	}
	d, err := srv.NewDriver()
	if err != nil {
		t.Fatal(err)
	}
	b := &countingBackend{Source: NewSource(d, "nosuchdb", "")}
	cfg := retriever.DefaultConfig()
	res, _ := mustRetriever(t, b, cfg).ExploreAll(ctx, []retriever.SeedInput{{NodeID: "N2006", Score: 0.85}}, nil)
	if res[0].TerminatedReason != retriever.TerminatedError || res[0].Error != `Neo4j database "nosuchdb" does not exist` || b.fetches.Load() != 1 {
		t.Errorf("exploration: %s %q after %d fetches", res[0].TerminatedReason, res[0].Error, b.fetches.Load())
	}
	b.Close(ctx)
	check()
}

// TestConfigDatabaseSelectsSession: retriever.Config.Database chooses the
// database each exploration's session opens on, over the Source's own: a
// source on the default database with Config.Database "nosuchdb" fails
// with the missing-database sentence, and with "" it explores the demo
// graph (seed N2006 found, 3 paths as in docs/DEMO_GRAPH.md scenario A).
func TestConfigDatabaseSelectsSession(t *testing.T) {
	src := demoSource(t)
	ctx := context.Background()
	seed := []retriever.SeedInput{{NodeID: "N2006", Score: 0.85}}
	tags := []string{"demand_forecasting", "stockout", "safety_stock", "inventory_policy"}
	cfg := retriever.DefaultConfig()
	cfg.Database = "nosuchdb"
	res, _ := mustRetriever(t, src, cfg).ExploreAll(ctx, seed, tags)
	if res[0].TerminatedReason != retriever.TerminatedError || res[0].Error != `Neo4j database "nosuchdb" does not exist` {
		t.Errorf("Config.Database nosuchdb: %s %q", res[0].TerminatedReason, res[0].Error)
	}
	cfg.Database = ""
	res, _ = mustRetriever(t, src, cfg).ExploreAll(ctx, seed, tags)
	if res[0].TerminatedReason != retriever.TerminatedFrontierExhausted || len(res[0].Paths) != 3 {
		t.Errorf("default database: %s, %d paths", res[0].TerminatedReason, len(res[0].Paths))
	}
}

// TestQueryRejected: a Cypher error is reported as "Neo4j rejected the
// query: ..." with Neo4j's code, and not marked transient (not retried).
func TestQueryRejected(t *testing.T) {
	c := openConn(t, demoSource(t))
	_, err := c.expand(context.Background(), "RETURN nonsense(", expandReq(map[string]float64{"N2006": 1}, nil, nil, 0, 0.15), true)
	if err == nil || !strings.HasPrefix(err.Error(), "Neo4j rejected the query: ") || !strings.Contains(err.Error(), "Neo.ClientError.Statement.SyntaxError") || retriever.IsTransient(err) {
		t.Errorf("err = %v", err)
	}
}
