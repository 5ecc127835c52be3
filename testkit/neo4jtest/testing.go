package neo4jtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

var (
	sharedOpts    []Option
	sharedOnce    sync.Once
	sharedMu      sync.Mutex
	sharedSrv     *Server
	sharedErr     error
	sharedRelease func() // releases the external-server lock Shared took
)

// Main runs a package's tests (use it as the whole body of TestMain) with one shared
// server per package: started on the first Shared call (so `go test -run` of tests that do
// not need Neo4j starts nothing), stopped after the tests. opts apply to that server.
func Main(m *testing.M, opts ...Option) {
	os.Exit(runMain(m, opts...))
}

func runMain(m *testing.M, opts ...Option) int {
	sharedMu.Lock()
	sharedOpts = opts
	sharedMu.Unlock()
	code := m.Run()
	sharedMu.Lock()
	srv, release := sharedSrv, sharedRelease
	sharedMu.Unlock()
	if srv != nil {
		if err := srv.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "neo4jtest: stopping the shared server: %v\n", err)
		}
	}
	if release != nil {
		release()
	}
	return code
}

// Shared returns the package's shared server, starting it on first use. If it cannot be
// started or reached, the test is skipped with the reason — or, when CI=true, fails.
// Tests sharing it see each other's data: call Wipe first and do not run them in parallel.
//
// When the shared server is the external NEO4J_URI one, Shared takes the cross-process
// lock of LockExternal before returning it, and holds it until Main's tests have finished
// (without Main, until the process exits): `go test ./...` runs packages in parallel, and
// packages that wipe and load one database must take turns. The wait counts against the
// waiting package's -timeout.
func Shared(t testing.TB) *Server {
	t.Helper()
	sharedOnce.Do(func() {
		sharedMu.Lock()
		opts := sharedOpts
		sharedMu.Unlock()
		srv, err := Start(context.Background(), opts...)
		var release func()
		if err == nil && srv.External() {
			if release, err = LockExternal(context.Background(), srv.URI); err != nil {
				srv = nil
			}
		}
		sharedMu.Lock()
		sharedSrv, sharedErr, sharedRelease = srv, err, release
		sharedMu.Unlock()
	})
	sharedMu.Lock()
	srv, err := sharedSrv, sharedErr
	sharedMu.Unlock()
	if err != nil {
		Unavailable(t, err)
	}
	return srv
}

// New starts a server for this test alone (stopped in t.Cleanup); the Shared rules for
// skipping/failing apply. With NEO4J_URI set and no Own-implying option it returns the
// external server instead, holding the lock of LockExternal until the test ends.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	srv, err := Start(context.Background(), opts...)
	if err != nil {
		Unavailable(t, err)
	}
	if srv.External() {
		release, err := LockExternal(context.Background(), srv.URI)
		if err != nil {
			Unavailable(t, err)
		}
		t.Cleanup(release)
	}
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Errorf("%v", err)
		}
	})
	return srv
}

// EnvLockFile names the file LockExternal locks (default: memoria-neo4jtest-external.lock
// in os.TempDir()).
const EnvLockFile = "NEO4JTEST_LOCK_FILE"

var (
	extMu    sync.Mutex // guards extFile and extCount
	extFile  *os.File   // the locked file while extCount > 0
	extCount int
)

// ExternalLockPath is the file LockExternal locks: $NEO4JTEST_LOCK_FILE, or
// memoria-neo4jtest-external.lock in os.TempDir(). It does not depend on the checkout or
// the URI, so test processes of every checkout on the machine take turns on an external
// server, however they spell its address.
func ExternalLockPath() string {
	if p := os.Getenv(EnvLockFile); p != "" {
		return p
	}
	return filepath.Join(os.TempDir(), "memoria-neo4jtest-external.lock")
}

// LockExternal takes an exclusive flock on ExternalLockPath, waiting (and saying so on
// stderr, naming uri) while another process holds it, and returns its release. Within one
// process it is counted: nested calls return at once and the last release unlocks. The
// operating system drops the lock when the process dies.
func LockExternal(ctx context.Context, uri string) (release func(), err error) {
	extMu.Lock()
	defer extMu.Unlock()
	if extCount == 0 {
		path := ExternalLockPath()
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
		if err != nil {
			return nil, fmt.Errorf("neo4jtest: lock for the external server: %w", err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			fmt.Fprintf(os.Stderr, "neo4jtest: waiting for another test process to finish with %s (lock %s)\n", uri, path)
			if err := flock(ctx, f); err != nil {
				f.Close()
				return nil, fmt.Errorf("neo4jtest: locking %s: %w", path, err)
			}
		}
		extFile = f
	}
	extCount++
	var once sync.Once
	return func() {
		once.Do(func() {
			extMu.Lock()
			defer extMu.Unlock()
			if extCount--; extCount == 0 {
				_ = syscall.Flock(int(extFile.Fd()), syscall.LOCK_UN)
				_ = extFile.Close()
				extFile = nil
			}
		})
	}, nil
}

// InCI reports whether the CI environment variable is set to true (or 1/yes).
func InCI() bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv("CI"))) {
	case "true", "1", "yes":
		return true
	}
	return false
}

// Unavailable ends the test because no Neo4j server is available: t.Fatalf when CI=true
// (a missing server must never silently skip in CI), t.Skipf otherwise.
func Unavailable(t testing.TB, err error) {
	t.Helper()
	if InCI() {
		t.Fatalf("Neo4j test server unavailable (CI=true, so this is a failure, not a skip): %v", err)
	}
	t.Skipf("skipping: Neo4j test server unavailable (set %s to use a running server; with CI=true this fails): %v", EnvURI, err)
}

// AuthToken returns the driver credentials for s (NoAuth when auth is disabled).
func (s *Server) AuthToken() neo4j.AuthToken {
	if s.Username == "" {
		return neo4j.NoAuth()
	}
	return neo4j.BasicAuth(s.Username, s.Password, "")
}

// NewDriver returns a driver for s with its credentials. The caller closes it.
func (s *Server) NewDriver() (neo4j.DriverWithContext, error) {
	return neo4j.NewDriverWithContext(s.URI, s.AuthToken())
}

// Driver returns a connected driver for s, closed in t.Cleanup.
func (s *Server) Driver(t testing.TB) neo4j.DriverWithContext {
	t.Helper()
	d, err := s.NewDriver()
	if err != nil {
		t.Fatalf("neo4jtest: driver for %s: %v", s.URI, err)
	}
	t.Cleanup(func() { _ = d.Close(context.Background()) })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := d.VerifyConnectivity(ctx); err != nil {
		t.Fatalf("neo4jtest: connecting to %s: %v", s.URI, err)
	}
	return d
}

func (s *Server) verify(ctx context.Context) error {
	d, err := s.NewDriver()
	if err != nil {
		return err
	}
	defer d.Close(ctx)
	return d.VerifyConnectivity(ctx)
}

// EnvAllowWipe must be "1" for tests to wipe (or drop the schema of) the external
// NEO4J_URI server, which may hold real data.
const EnvAllowWipe = "MEMORIA_TEST_ALLOW_WIPE"

// WipeAllowed returns nil when tests may delete everything in s: always for a server this
// package started, and for the external NEO4J_URI server only with
// MEMORIA_TEST_ALLOW_WIPE=1. Tests that delete data by other means (e.g. a loader's own
// wipe) must check it first.
func (s *Server) WipeAllowed() error {
	if !s.external || os.Getenv(EnvAllowWipe) == "1" {
		return nil
	}
	return fmt.Errorf("neo4jtest: refusing to delete the data of the external server %s (%s is set): "+
		"it may hold real data; set %s=1 to let the tests wipe it, or unset %s to test on a server of their own",
		s.URI, EnvURI, EnvAllowWipe, EnvURI)
}

// Wipe deletes every node and relationship of the default database (MATCH (n) DETACH
// DELETE n, in a write transaction). On the external NEO4J_URI server it fails the test
// unless MEMORIA_TEST_ALLOW_WIPE=1 (see WipeAllowed).
func (s *Server) Wipe(t testing.TB) {
	t.Helper()
	if err := s.WipeAllowed(); err != nil {
		t.Fatal(err)
	}
	if err := s.run(context.Background(), "MATCH (n) DETACH DELETE n"); err != nil {
		t.Fatalf("neo4jtest: wiping %s: %v", s.URI, err)
	}
}

// DropSchema drops every constraint and every index (except the built-in token lookup
// indexes) of the default database. Test-only.
// Like Wipe, it refuses the external server unless MEMORIA_TEST_ALLOW_WIPE=1.
func (s *Server) DropSchema(t testing.TB) {
	t.Helper()
	if err := s.WipeAllowed(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	d, err := s.NewDriver()
	if err != nil {
		t.Fatalf("neo4jtest: %v", err)
	}
	defer d.Close(ctx)
	drop := func(show, stmt string) {
		res, err := neo4j.ExecuteQuery(ctx, d, show, nil, neo4j.EagerResultTransformer)
		if err != nil {
			t.Fatalf("neo4jtest: %s: %v", show, err)
		}
		for _, rec := range res.Records {
			name, _ := rec.Get("name")
			q := fmt.Sprintf(stmt, strings.ReplaceAll(fmt.Sprint(name), "`", "``"))
			if _, err := neo4j.ExecuteQuery(ctx, d, q, nil, neo4j.EagerResultTransformer); err != nil {
				t.Fatalf("neo4jtest: %s: %v", q, err)
			}
		}
	}
	drop("SHOW CONSTRAINTS YIELD name RETURN name", "DROP CONSTRAINT `%s` IF EXISTS")
	drop("SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN name", "DROP INDEX `%s` IF EXISTS")
}

func (s *Server) run(ctx context.Context, query string) error {
	d, err := s.NewDriver()
	if err != nil {
		return err
	}
	defer d.Close(ctx)
	sess := d.NewSession(ctx, neo4j.SessionConfig{AccessMode: neo4j.AccessModeWrite})
	defer sess.Close(ctx)
	_, err = sess.ExecuteWrite(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		res, err := tx.Run(ctx, query, nil)
		if err != nil {
			return nil, err
		}
		return res.Consume(ctx)
	})
	return err
}
