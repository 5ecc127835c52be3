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
// result is collected before the next query. Session.Collect gives each
// query a transaction of its own (the typed neo4j.ExecuteRead);
// Session.Begin opens one (Tx) for queries sent one after another.
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
//
// # Deadlines
//
// Every network step has a deadline, so that a server that accepts TCP and
// never answers (or stops answering) cannot hang memoria: connecting (TCP,
// TLS, the Bolt handshake, the login and a first RETURN 1, together) within
// Settings.ConnectTimeout, and each query, from borrowing a connection to
// its last record, within Settings.QueryTimeout. The deadline is a context
// deadline on purpose: the driver reads the socket in a goroutine it races
// against ctx.Done only when ctx has a deadline (its internal racing
// reader); without one a read, the handshake's included, blocks until the
// server answers and cancelling ctx does nothing. With one, cancelling the
// caller's ctx (ctrl+c) interrupts any step at once, and the driver closes
// the connection it was reading. A step that runs out of time is a
// *TimeoutError (IsTimeout), which is not retried: a server that did not
// answer within the deadline would only make the user wait a multiple of
// it. Closing a session or the Source is bounded by ConnectTimeout too.
package neo4jdb

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
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
	// ConnectTimeout bounds connecting (see the package documentation);
	// zero means DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// QueryTimeout bounds each query; zero means DefaultQueryTimeout.
	QueryTimeout time.Duration
}

// Default deadlines (see the package documentation, "Deadlines").
//
// Connecting to a healthy server takes milliseconds on a LAN and well under
// a second across the world with TLS; the driver's own default for the TCP
// connect alone is 5 s. 10 s leaves room for a loaded server's login while
// a dead or silent one is reported soon.
//
// A query of memoria reads one expansion level, or the catalog: about a
// millisecond on the demo graph, seconds on a large graph (the
// specification's label-less node lookups scan). 30 s is the driver's own
// default budget for retrying a transaction; a query that needs longer is
// better run with a larger --timeout on purpose than waited for by accident.
const (
	DefaultConnectTimeout = 10 * time.Second
	DefaultQueryTimeout   = 30 * time.Second
)

// Source is a Neo4j database as a graph.Source. It is safe for
// concurrent use.
type Source struct {
	driver   neo4j.DriverWithContext
	database string
	desc     string
	ec       errCtx
	// connectTimeout and queryTimeout are the deadlines of Settings.
	connectTimeout, queryTimeout time.Duration
	// sessions counts the read sessions open: Close lets them finish
	// before it closes the driver (see Close).
	sessions sync.WaitGroup

	// nb is the source's Neighbourhood, made on first use (neighbourhood):
	// it keeps the id-index coverage its lookups go through.
	nbOnce sync.Once
	nb     *Neighbourhood

	// schema is the mapping the reads follow (schema.go; the zero value
	// is memoria's own).
	schema graph.Schema

	// kept keeps what Strengths and Arcs read for later reads on the
	// same database (kept.go).
	kept *keptReads
}

var _ graph.Source = (*Source)(nil)

// Connect creates one driver for st (its pool is shared by every user of
// the Source), checks that the server answers and accepts the credentials,
// and that the database exists (a cheap read), all within
// st.ConnectTimeout. The driver's own transaction retry is off (see the
// package documentation).
func Connect(ctx context.Context, st Settings) (*Source, error) {
	if st.ConnectTimeout < 0 || st.QueryTimeout < 0 {
		return nil, fmt.Errorf("negative Neo4j timeout (connect %s, query %s)", st.ConnectTimeout, st.QueryTimeout)
	}
	connectTimeout := cmp.Or(st.ConnectTimeout, DefaultConnectTimeout)
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
		// The TCP connect alone; the context deadlines below bound the rest.
		c.SocketConnectTimeout = connectTimeout
		// A session's wait for a connection, a new one's handshake and
		// login included (the earlier of this and ctx's deadline wins).
		c.ConnectionAcquisitionTimeout = connectTimeout
		// TCP keepalive finds a peer that vanished while a pooled
		// connection was idle (the driver's default, made explicit).
		c.SocketKeepalive = true
		c.UserAgent = "memoria"
	})
	if err != nil {
		return nil, fmt.Errorf("Neo4j URI %q: %w", redact(st.URI), err)
	}
	s := newSource(driver, st.Database, "")
	s.ec.user = user
	s.connectTimeout, s.queryTimeout = connectTimeout, cmp.Or(st.QueryTimeout, DefaultQueryTimeout)
	// VerifyConnectivity borrows a connection with ctx as given (no
	// acquisition timeout applies to it), so the deadline must be on ctx.
	cctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	err = driver.VerifyConnectivity(cctx)
	if err == nil {
		err = s.ping(cctx)
	}
	if err != nil {
		_ = s.Close(context.WithoutCancel(ctx))
		return nil, s.stepError(ctx, cctx, err, phaseConnect, connectTimeout)
	}
	return s, nil
}

// stepError classifies err, the failure of a step run under sctx (ctx with
// a deadline of d): a *TimeoutError when that deadline ran out while ctx
// itself is still live, else what classify says.
func (s *Source) stepError(ctx, sctx context.Context, err error, ph phase, d time.Duration) error {
	if ctx.Err() == nil && errors.Is(sctx.Err(), context.DeadlineExceeded) {
		return &TimeoutError{URI: s.ec.uri, Connecting: ph == phaseConnect, After: d, err: err}
	}
	return s.ec.classify(ctx, err, ph)
}

// cleanupContext is the context of a cleanup (closing a session or the
// driver): not cancelled with ctx, so that a cancelled command still says
// goodbye to the server, but bounded, so that a silent server cannot hold
// it.
func (s *Source) cleanupContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), s.connectTimeout)
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
	return &Source{driver: driver, database: database, desc: description, ec: errCtx{uri: uri, database: database},
		connectTimeout: DefaultConnectTimeout, queryTimeout: DefaultQueryTimeout, kept: newKeptReads()}
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

// QueryTimeout is the deadline of each query (Settings.QueryTimeout).
func (s *Source) QueryTimeout() time.Duration { return s.queryTimeout }

// Close closes the driver and its pool, within the connect timeout even
// when ctx has no deadline.
func (s *Source) Close(ctx context.Context) error {
	s.drain(ctx)
	cctx, cancel := context.WithTimeout(ctx, s.connectTimeout)
	defer cancel()
	return s.driver.Close(cctx)
}

// closeGrace bounds how long Close waits for sessions still open.
const closeGrace = 5 * time.Second

// drain waits, up to closeGrace or ctx's end, for the read sessions still
// open to close. A program that ends while a query is in flight (the
// explorer quit while a command still reads) would otherwise close the
// driver under a session returning its connection to the pool, which the
// driver does not guard against. Callers cancel their queries first (the
// explorer cancels its context when it ends), so the wait is short.
func (s *Source) drain(ctx context.Context) {
	done := make(chan struct{})
	go func() {
		s.sessions.Wait()
		close(done)
	}()
	t := time.NewTimer(closeGrace)
	defer t.Stop()
	select {
	case <-done:
	case <-ctx.Done():
	case <-t.C:
	}
}

// ping checks the database with a trivial read, under ctx's deadline; its
// error is the driver's, unclassified.
func (s *Source) ping(ctx context.Context) error {
	sess := s.readSession(ctx)
	cctx, cancel := s.cleanupContext(ctx)
	defer cancel()
	defer sess.Close(cctx)
	_, err := neo4j.ExecuteRead(ctx, sess, func(tx neo4j.ManagedTransaction) (struct{}, error) {
		res, err := tx.Run(ctx, "RETURN 1 AS ok", nil)
		if err != nil {
			return struct{}{}, err
		}
		_, err = res.Consume(ctx)
		return struct{}{}, err
	})
	return err
}

// Bounded runs step, one query or transaction on the source's driver,
// under the query deadline and classifies its error like every read of the
// package (a *TimeoutError when the deadline ran out). The loader
// (graph/neo4jload) runs its write transactions through it.
func (s *Source) Bounded(ctx context.Context, step func(ctx context.Context) error) error {
	qctx, cancel := context.WithTimeout(ctx, s.queryTimeout)
	defer cancel()
	if err := step(qctx); err != nil {
		return s.stepError(ctx, qctx, err, phaseQuery, s.queryTimeout)
	}
	return nil
}

func (s *Source) readSession(ctx context.Context) neo4j.SessionWithContext {
	s.sessions.Add(1)
	return &countedSession{SessionWithContext: s.driver.NewSession(ctx, neo4j.SessionConfig{AccessMode: neo4j.AccessModeRead, DatabaseName: s.database}),
		done: s.sessions.Done}
}

// countedSession is a driver session that tells its Source when it is
// closed (once, however often Close is called).
type countedSession struct {
	neo4j.SessionWithContext
	once sync.Once
	done func()
}

func (c *countedSession) Close(ctx context.Context) error {
	err := c.SessionWithContext.Close(ctx)
	c.once.Do(c.done)
	return err
}

// Read runs work in a read transaction of a new session on the source's
// database (the driver's typed neo4j.ExecuteRead) within the query
// deadline, classifying its errors (see the package documentation).
func Read[T any](ctx context.Context, s *Source, work func(context.Context, neo4j.ManagedTransaction) (T, error)) (T, error) {
	var out T
	err := s.Bounded(ctx, func(qctx context.Context) error {
		sess := s.readSession(qctx)
		cctx, cancel := s.cleanupContext(ctx)
		defer cancel()
		defer sess.Close(cctx)
		var err error
		out, err = neo4j.ExecuteRead(qctx, sess, func(tx neo4j.ManagedTransaction) (T, error) { return work(qctx, tx) })
		return err
	})
	return out, err
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
	src  *Source
}

// OpenSession opens a read session.
func (s *Source) OpenSession(ctx context.Context) *Session {
	return &Session{sess: s.readSession(ctx), src: s}
}

// Collect runs query in a read transaction of the session, within the
// query deadline, and returns all its records (the result is consumed
// before anything else runs). Errors are classified: transient ones are
// marked graph.Transient, a deadline that ran out is a *TimeoutError.
func (s *Session) Collect(ctx context.Context, query string, params map[string]any) ([]*neo4j.Record, error) {
	var recs []*neo4j.Record
	err := s.src.Bounded(ctx, func(qctx context.Context) error {
		var err error
		recs, err = neo4j.ExecuteRead(qctx, s.sess, func(tx neo4j.ManagedTransaction) ([]*neo4j.Record, error) {
			return collect(qctx, tx, query, params)
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	return recs, nil
}

// Tx is an explicit read transaction of a Session, for queries sent one
// after another without a BEGIN and a COMMIT round trip each (the fast
// path's batcher sends a whole exploration's levels in one). A query that
// fails leaves the transaction unusable: close it and begin another. It is
// not safe for concurrent use.
type Tx struct {
	tx  neo4j.ExplicitTransaction
	src *Source
}

// Begin starts a read transaction in the session (the session's access
// mode is read), within the query deadline.
func (s *Session) Begin(ctx context.Context) (*Tx, error) {
	var tx neo4j.ExplicitTransaction
	err := s.src.Bounded(ctx, func(qctx context.Context) error {
		var err error
		tx, err = s.sess.BeginTransaction(qctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &Tx{tx: tx, src: s.src}, nil
}

// Collect runs query in the transaction within the query deadline and
// returns all its records, its errors classified as Session.Collect's.
func (t *Tx) Collect(ctx context.Context, query string, params map[string]any) ([]*neo4j.Record, error) {
	var recs []*neo4j.Record
	err := t.src.Bounded(ctx, func(qctx context.Context) error {
		res, err := t.tx.Run(qctx, query, params)
		if err != nil {
			return err
		}
		recs, err = res.Collect(qctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return recs, nil
}

// Close ends the transaction (rolled back: it only read), bounded like
// Session.Close. A transaction a failed query or a lost connection has
// already ended needs nothing more and is not an error.
func (t *Tx) Close(ctx context.Context) error { return t.src.release(ctx, t.tx.Close) }

// Close closes the session, within the connect timeout even when ctx has
// no deadline. A lost connection has nothing left to release and is not an
// error.
func (s *Session) Close(ctx context.Context) error { return s.src.release(ctx, s.sess.Close) }

// release runs a session's or transaction's close within the cleanup
// context; a lost connection, or a cancelled one, has nothing left to
// release and is not an error.
func (s *Source) release(ctx context.Context, close func(context.Context) error) error {
	cctx, cancel := s.cleanupContext(ctx)
	defer cancel()
	err := close(cctx)
	if err != nil && (isConnectivity(err) || errors.Is(err, context.Canceled)) {
		return nil
	}
	return err
}
