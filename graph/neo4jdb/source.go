// Package neo4jdb is memoria's read access to a Neo4j 5 database: the
// driver, read sessions (the typed neo4j.ExecuteRead), typed record readers
// (Column over neo4j.GetRecordValue), error classification, the catalog a
// front end browses (graph.Catalog) and whole-graph reads in the APOC model
// (ReadAPOC, Counts) for `memoria export` and `memoria load`. It writes
// nothing: the loader is graph/neo4jload, and the Activation Energy
// retriever's Cypher is in retriever/activation/onneo4j.
//
// A *Source holds one driver, whose connection pool the whole program
// shares, and the database it reads. Each seed exploration opens its own
// Session (OpenSession); every query runs in a read transaction and its
// result is collected before the next query.
//
// # Retries
//
// Connect configures the driver with MaxTransactionRetryTime 0, which turns
// the driver's own retry loop of managed transactions off (by default it
// retries for up to 30 s, which would stack on top of memoria's). Errors are
// classified instead: transient server errors and lost connections are
// marked graph.Transient, and the caller's internal/retry loop decides how
// often to try again (the retriever's orchestrator up to its MaxRetries,
// the catalog once, the loader up to three times). The driver reports a
// retryable failure it did not retry as a TransactionExecutionLimit; it is
// classified like the error it wraps.
//
// Authentication failures (IsAuthError), a missing database
// (IsDatabaseNotFound) and errors in a query are not retried: each reaches
// the user as one sentence naming the server, user or database, never the
// password.
package neo4jdb

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/config"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/retry"
)

// Settings is how to reach a Neo4j database. An empty Username and Password
// mean no authentication; an empty Database means the server's default.
type Settings struct {
	URI, Username, Password, Database string
}

// Source is a Neo4j database as a graph.Source. It is safe for
// concurrent use.
type Source struct {
	driver   neo4j.DriverWithContext
	database string
	desc     string
	ec       errCtx
}

var _ graph.Source = (*Source)(nil)

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

// Driver returns the driver (for the loader, graph/neo4jload).
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
	_, err := Read(ctx, s, func(ctx context.Context, tx neo4j.ManagedTransaction) (struct{}, error) {
		res, err := tx.Run(ctx, "RETURN 1 AS ok", nil)
		if err != nil {
			return struct{}{}, err
		}
		_, err = res.Consume(ctx)
		return struct{}{}, err
	})
	return err
}

func (s *Source) readSession(ctx context.Context) neo4j.SessionWithContext {
	return s.driver.NewSession(ctx, neo4j.SessionConfig{AccessMode: neo4j.AccessModeRead, DatabaseName: s.database})
}

// Read runs work in a read transaction of a new session on the source's
// database (the driver's typed neo4j.ExecuteRead), classifying its errors
// (see the package documentation).
func Read[T any](ctx context.Context, s *Source, work func(context.Context, neo4j.ManagedTransaction) (T, error)) (T, error) {
	sess := s.readSession(ctx)
	defer sess.Close(context.WithoutCancel(ctx))
	out, err := neo4j.ExecuteRead(ctx, sess, func(tx neo4j.ManagedTransaction) (T, error) { return work(ctx, tx) })
	return out, s.ec.classify(ctx, err, phaseQuery)
}

// collect runs query in tx and returns all its records.
func collect(ctx context.Context, tx neo4j.ManagedTransaction, query string, params map[string]any) ([]*neo4j.Record, error) {
	res, err := tx.Run(ctx, query, params)
	if err != nil {
		return nil, err
	}
	return res.Collect(ctx)
}

// Query runs one query in a read transaction, tried once more after
// a transient failure (the catalog has no retrying caller above it; reads
// are idempotent), and returns its records.
func (s *Source) Query(ctx context.Context, query string, params map[string]any) ([]*neo4j.Record, error) {
	var recs []*neo4j.Record
	err := retry.Do(ctx, 1, nil, func() (err error) {
		recs, err = Read(ctx, s, func(ctx context.Context, tx neo4j.ManagedTransaction) ([]*neo4j.Record, error) {
			return collect(ctx, tx, query, params)
		})
		return err
	})
	return recs, err
}

// Session is one read session on the source's database, for a sequence of
// queries that belong together (one seed exploration). It is not safe for
// concurrent use.
type Session struct {
	sess neo4j.SessionWithContext
	ec   errCtx
}

// OpenSession opens a read session.
func (s *Source) OpenSession(ctx context.Context) *Session {
	return &Session{sess: s.readSession(ctx), ec: s.ec}
}

// Collect runs query in a read transaction of the session and returns all
// its records (the result is consumed before anything else runs). Errors
// are classified: transient ones are marked graph.Transient.
func (s *Session) Collect(ctx context.Context, query string, params map[string]any) ([]*neo4j.Record, error) {
	recs, err := neo4j.ExecuteRead(ctx, s.sess, func(tx neo4j.ManagedTransaction) ([]*neo4j.Record, error) {
		return collect(ctx, tx, query, params)
	})
	if err != nil {
		return nil, s.ec.classify(ctx, err, phaseQuery)
	}
	return recs, nil
}

// Close closes the session. A lost connection has nothing left to release
// and is not an error.
func (s *Session) Close(ctx context.Context) error {
	err := s.sess.Close(ctx)
	if err != nil && (isConnectivity(err) || errors.Is(err, context.Canceled)) {
		return nil
	}
	return err
}
