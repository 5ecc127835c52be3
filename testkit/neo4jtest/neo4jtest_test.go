package neo4jtest_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/memoria-graph/memoria/testkit/neo4jtest"
)

func TestMain(m *testing.M) { neo4jtest.Main(m) }

func query(t *testing.T, d neo4j.DriverWithContext, q string, params map[string]any) []*neo4j.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := neo4j.ExecuteQuery(ctx, d, q, params, neo4j.EagerResultTransformer)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return res.Records
}

func single(t *testing.T, d neo4j.DriverWithContext, q string) any {
	t.Helper()
	recs := query(t, d, q, nil)
	if len(recs) != 1 || len(recs[0].Values) != 1 {
		t.Fatalf("%s: want 1 row with 1 column, got %v", q, recs)
	}
	return recs[0].Values[0]
}

func neo4jCode(err error) string {
	var ne *neo4j.Neo4jError
	if errors.As(err, &ne) {
		return ne.Code
	}
	return ""
}

func TestSharedReturn1(t *testing.T) {
	srv := neo4jtest.Shared(t)
	d := srv.Driver(t)
	if got := single(t, d, "RETURN 1"); got != int64(1) {
		t.Fatalf("RETURN 1 = %#v", got)
	}
	if !srv.External() && srv.PID() == 0 {
		t.Fatal("local server has no pid")
	}
}

func TestNoSuchDatabase(t *testing.T) {
	d := neo4jtest.Shared(t).Driver(t)
	ctx := context.Background()
	_, err := neo4j.ExecuteQuery(ctx, d, "RETURN 1", nil, neo4j.EagerResultTransformer,
		neo4j.ExecuteQueryWithDatabase("nosuchdb"))
	if code := neo4jCode(err); code != "Neo.ClientError.Database.DatabaseNotFound" {
		t.Fatalf("query on nosuchdb: want DatabaseNotFound, got code %q, err %v", code, err)
	}
	t.Logf("nosuchdb: %v", err)
	// The named default database works.
	res, err := neo4j.ExecuteQuery(ctx, d, "RETURN 2 AS x", nil, neo4j.EagerResultTransformer,
		neo4j.ExecuteQueryWithDatabase("neo4j"))
	if err != nil || len(res.Records) != 1 {
		t.Fatalf("query on neo4j: %v %v", res, err)
	}
}

func TestWipeAndDropSchema(t *testing.T) {
	srv := neo4jtest.Shared(t)
	d := srv.Driver(t)
	query(t, d, "CREATE INDEX wipe_test_idx IF NOT EXISTS FOR (n:WipeTest) ON (n.k)", nil)
	query(t, d, "UNWIND range(1, 100) AS i CREATE (:WipeTest {k: i})-[:R]->(:WipeTest)", nil)
	srv.Wipe(t)
	if n := single(t, d, "MATCH (n) RETURN count(n)"); n != int64(0) {
		t.Fatalf("after Wipe: %v nodes", n)
	}
	srv.DropSchema(t)
	if n := single(t, d, "SHOW INDEXES YIELD name WHERE name = 'wipe_test_idx' RETURN count(*)"); n != int64(0) {
		t.Fatalf("after DropSchema: index still there")
	}
}

// TestCypherSemantics pins down behaviour other packages rely on (self-loops, COUNT {}).
func TestCypherSemantics(t *testing.T) {
	srv := neo4jtest.Shared(t)
	srv.Wipe(t)
	d := srv.Driver(t)
	query(t, d, "CREATE (a:Loop {id: 1})-[:R]->(a), (a)-[:R]->(:Loop {id: 2})", nil)
	checks := []struct {
		q    string
		want int64
	}{
		// An undirected pattern matches a self-loop once (not once per direction) ...
		{"MATCH (a:Loop {id: 1})-[r]-(b) WHERE a = b RETURN count(r)", 1},
		// ... so the undirected degree of a node with a self-loop counts the loop once.
		{"MATCH (a:Loop {id: 1}) RETURN COUNT { (a)--() }", 2},
		{"MATCH (a:Loop {id: 1}) RETURN COUNT { (a)-->() }", 2},
		{"MATCH (a:Loop {id: 1}) RETURN COUNT { (a)<--() }", 1},
		// Directed patterns: the loop is both outgoing and incoming.
		{"MATCH (a:Loop {id: 1})-[r]->(a) RETURN count(r)", 1},
		// COUNT {} on a node without matches is 0, not null.
		{"MATCH (b:Loop {id: 2}) RETURN COUNT { (b)-->() }", 0},
		// Whole-graph relationship count.
		{"MATCH ()-[r]->() RETURN count(r)", 2},
		{"MATCH ()-[r]-() RETURN count(r)", 3}, // undirected: 2 rows for a->b, 1 for the loop
	}
	for _, c := range checks {
		if got := single(t, d, c.q); got != c.want {
			t.Errorf("%s = %v, want %v", c.q, got, c.want)
		}
	}
	srv.Wipe(t)
}

// The tests below start servers of their own (New with an Own-implying option). They do
// not call t.Parallel: with the package's shared server (and those of other packages
// under `go test ./...`) parallel starts would put several JVMs (~250 MB each) on a small
// CI machine at once. One server at a time plus the shared one; the built-in user's auth
// is checked on TestDataDirPersistsWithAuth's server rather than on a server of its own.

// TestAuthOtherUser: a user other than neo4j (alice/pw) is created by --auth; wrong
// password, unknown user and no auth are refused with Unauthorized, the right
// credentials work.
func TestAuthOtherUser(t *testing.T) {
	checkAuth(t, neo4jtest.New(t, neo4jtest.WithAuth("alice", "pw")))
}

func checkAuth(t *testing.T, srv *neo4jtest.Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for name, tok := range map[string]neo4j.AuthToken{
		"wrong password": neo4j.BasicAuth(srv.Username, "wrong", ""),
		"unknown user":   neo4j.BasicAuth("nobody", srv.Password, ""),
		"no auth":        neo4j.NoAuth(),
	} {
		d, err := neo4j.NewDriverWithContext(srv.URI, tok)
		if err != nil {
			t.Fatal(err)
		}
		err = d.VerifyConnectivity(ctx)
		_ = d.Close(ctx)
		if code := neo4jCode(err); code != "Neo.ClientError.Security.Unauthorized" {
			t.Errorf("%s: want Neo.ClientError.Security.Unauthorized, got code %q err %v", name, code, err)
		}
		t.Logf("%s: %v", name, err)
	}
	d := srv.Driver(t) // right credentials
	if got := single(t, d, "RETURN 1"); got != int64(1) {
		t.Fatalf("RETURN 1 = %v", got)
	}
}

func processGone(t *testing.T, srv *neo4jtest.Server, pid int) {
	t.Helper()
	select {
	case <-srv.Done():
	default:
		t.Fatal("Done not closed after Stop/Kill")
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("process %d still exists (kill 0: %v)", pid, err)
	}
}

func TestStopCutsConnection(t *testing.T) {
	srv := neo4jtest.New(t, neo4jtest.Own())
	if srv.External() {
		t.Fatal("Own() returned the external server")
	}
	pid := srv.PID()
	d := srv.Driver(t)
	single(t, d, "RETURN 1")
	start := time.Now()
	if err := srv.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	t.Logf("Stop took %v", time.Since(start))
	processGone(t, srv, pid)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if _, err := neo4j.ExecuteQuery(ctx, d, "RETURN 1", nil, neo4j.EagerResultTransformer); err == nil {
		t.Fatal("query after Stop succeeded")
	} else {
		t.Logf("query after Stop: %v (connectivity error: %v)", err, neo4j.IsConnectivityError(err))
	}
	if err := srv.Stop(); err != nil { // idempotent
		t.Fatalf("second Stop: %v", err)
	}
}

func TestKill(t *testing.T) {
	srv := neo4jtest.New(t, neo4jtest.Own())
	pid := srv.PID()
	if err := srv.Kill(); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	processGone(t, srv, pid)
}

// TestDataDirPersistsWithAuth: a server with a data dir and auth neo4j/secret has those
// credentials and refuses wrong ones (checkAuth); a node it created is there after a
// restart on the same dir with the same password.
func TestDataDirPersistsWithAuth(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	opts := []neo4jtest.Option{neo4jtest.WithDataDir(dir), neo4jtest.WithAuth("neo4j", "secret")}
	srv := neo4jtest.New(t, opts...)
	if srv.Username != "neo4j" || srv.Password != "secret" {
		t.Fatalf("credentials: %q/%q", srv.Username, srv.Password)
	}
	checkAuth(t, srv)
	query(t, srv.Driver(t), "CREATE (:Persisted {v: 42})", nil)
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "databases", "neo4j")); err != nil {
		t.Fatalf("data dir not used: %v", err)
	}
	// Same data dir, same password again (Neo4j refuses "changing" to the same password;
	// the launcher must cope).
	srv2 := neo4jtest.New(t, opts...)
	if got := single(t, srv2.Driver(t), "MATCH (n:Persisted) RETURN n.v"); got != int64(42) {
		t.Fatalf("after restart: %v", got)
	}
}
