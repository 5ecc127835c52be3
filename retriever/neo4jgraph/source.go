// Package neo4jgraph is the retriever's connector to a Neo4j 5 database: it
// runs seed 000's Cypher (§6.1 and §6.2, with the two deliberate changes
// documented on ExpandQuery), browses the graph for front ends (Catalog),
// and loads and reads whole graphs in the APOC JSON-lines model (Load,
// ReadGraph) for `memoria load` and `memoria export`.
//
// A *Source holds one driver, whose connection pool the whole program
// shares. Each seed exploration gets its own session (Backend.Open), opened
// in read mode on the configured database; every query of the retriever and
// the catalog runs in a read transaction (session.ExecuteRead) and its
// result is collected before the next query. Load is the only writer.
//
// # Retries
//
// The retriever's orchestrator retries an exploration's query up to
// Config.MaxRetries times with 0.05 s × 2^attempt backoff when the error is
// marked retriever.Transient; this package marks transient server errors
// and lost connections so, and nothing else. Connect configures the driver
// with MaxTransactionRetryTime 0, which turns the driver's own retry loop of
// managed transactions off (by default it retries for up to 30 s, sleeping
// 1 s, 2 s, 4 s ... in between, which would stack on top of the
// orchestrator's retries: minutes of waiting before a dead server is
// reported). A failed transaction therefore returns at once and the
// orchestrator is the one place that decides how often to try again. The
// driver reports a retryable failure it did not retry as a
// TransactionExecutionLimit; it is classified like the error it wraps.
// Catalog calls, which have no orchestrator, retry once themselves; Load
// retries each (idempotent) batch up to loadRetries times.
//
// Authentication failures (IsAuthError), a missing database
// (IsDatabaseNotFound) and errors in a query are not retried: each reaches
// the user as one sentence naming the server, user or database, never the
// password.
package neo4jgraph

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/config"

	"github.com/memoria-graph/memoria/retriever"
)

// Settings is how to reach a Neo4j database. An empty Username and Password
// mean no authentication; an empty Database means the server's default.
type Settings struct {
	URI, Username, Password, Database string
}

// Source is a Neo4j database as a retriever.Source. It is safe for
// concurrent use.
type Source struct {
	driver   neo4j.DriverWithContext
	database string
	desc     string
	ec       errCtx
}

var _ retriever.Source = (*Source)(nil)

// Driver timeouts set by Connect.
const (
	connectTimeout = 5 * time.Second
	acquireTimeout = 30 * time.Second
)

// Connect creates one driver for st (its pool is shared by every user of
// the Source), checks that the server answers and accepts the credentials,
// and that the database exists (a cheap read). The driver's own transaction
// retry is off (see the package documentation).
func Connect(ctx context.Context, st Settings) (*Source, error) {
	auth := neo4j.NoAuth()
	user := st.Username
	if st.Username != "" || st.Password != "" {
		if user == "" {
			user = "neo4j"
		}
		auth = neo4j.BasicAuth(user, st.Password, "")
	}
	driver, err := neo4j.NewDriverWithContext(st.URI, auth, func(c *config.Config) {
		c.MaxTransactionRetryTime = 0
		c.SocketConnectTimeout = connectTimeout
		c.ConnectionAcquisitionTimeout = acquireTimeout
		c.UserAgent = "memoria"
	})
	if err != nil {
		return nil, fmt.Errorf("Neo4j URI %q: %w", redact(st.URI), err)
	}
	s := newSource(driver, st.Database, "")
	s.ec.user = user
	if err := driver.VerifyConnectivity(ctx); err != nil {
		_ = driver.Close(context.WithoutCancel(ctx))
		return nil, s.ec.classify(ctx, err, phaseConnect)
	}
	if err := s.ping(ctx); err != nil {
		_ = driver.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	return s, nil
}

// NewSource wraps an existing driver (tests). description is what Describe
// returns; "" derives it from the driver's target and database. The
// driver's configuration is used as it is (see the package documentation
// for the retry setting Connect chooses). Close closes the driver.
func NewSource(driver neo4j.DriverWithContext, database, description string) *Source {
	return newSource(driver, database, description)
}

func newSource(driver neo4j.DriverWithContext, database, description string) *Source {
	target := driver.Target()
	target.User = nil
	uri := target.String()
	if description == "" {
		db := "default database"
		if database != "" {
			db = "database " + database
		}
		description = fmt.Sprintf("Neo4j %s (%s)", uri, db)
	}
	return &Source{driver: driver, database: database, desc: description, ec: errCtx{uri: uri, database: database}}
}

func redact(uri string) string {
	u, err := url.Parse(uri)
	if err != nil {
		return "(unparsable URI)"
	}
	u.User = nil
	return u.String()
}

// Driver returns the driver (for Load, ReadGraph and CountGraph).
func (s *Source) Driver() neo4j.DriverWithContext { return s.driver }

// Database is the database name ("" for the server's default).
func (s *Source) Database() string { return s.database }

// Describe names the server and database, e.g.
// "Neo4j bolt://127.0.0.1:7687 (database neo4j)". It never contains a
// password.
func (s *Source) Describe() string { return s.desc }

// Close closes the driver and its pool.
func (s *Source) Close(ctx context.Context) error { return s.driver.Close(ctx) }

// ping checks the database with a trivial read.
func (s *Source) ping(ctx context.Context) error {
	_, err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) (any, error) {
		res, err := tx.Run(ctx, "RETURN 1 AS ok", nil)
		if err != nil {
			return nil, err
		}
		return res.Consume(ctx)
	})
	return err
}

func (s *Source) readSession(ctx context.Context, database string) neo4j.SessionWithContext {
	return s.driver.NewSession(ctx, neo4j.SessionConfig{AccessMode: neo4j.AccessModeRead, DatabaseName: database})
}

// read runs work in a read transaction of a new session, classifying errors.
func (s *Source) read(ctx context.Context, work func(context.Context, neo4j.ManagedTransaction) (any, error)) (any, error) {
	sess := s.readSession(ctx, s.database)
	defer sess.Close(context.WithoutCancel(ctx))
	out, err := sess.ExecuteRead(ctx, func(tx neo4j.ManagedTransaction) (any, error) { return work(ctx, tx) })
	return out, s.ec.classify(ctx, err, phaseQuery)
}

// readRetry is read, tried once more after a transient failure (for the
// catalog, which has no orchestrator above it; reads are idempotent).
func (s *Source) readRetry(ctx context.Context, work func(context.Context, neo4j.ManagedTransaction) (any, error)) (any, error) {
	out, err := s.read(ctx, work)
	if err != nil && retriever.IsTransient(err) && ctx.Err() == nil {
		t := time.NewTimer(retriever.DefaultBackoff(0))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		out, err = s.read(ctx, work)
	}
	return out, err
}

// Open returns a connector holding one read session, for one seed
// exploration, on database (the Source's own when ""); release closes the
// session.
func (s *Source) Open(ctx context.Context, database string) (retriever.Connector, func(context.Context) error, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if database == "" {
		database = s.database
	}
	ec := s.ec
	ec.database = database
	c := &connector{s: s, sess: s.readSession(ctx, database), ec: ec}
	release := func(ctx context.Context) error {
		err := c.sess.Close(ctx)
		if err != nil && (isConnectivity(err) || errors.Is(err, context.Canceled)) {
			// A lost connection has nothing left to release.
			return nil
		}
		return err
	}
	return c, release, nil
}
