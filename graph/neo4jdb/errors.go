package neo4jdb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/memoria-graph/memoria/graph"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Error is a failure of a Neo4j operation, phrased for the user. It wraps
// the driver's error (errors.As reaches *neo4j.Neo4jError and the like).
type Error struct {
	msg string
	err error
}

func (e *Error) Error() string { return e.msg }
func (e *Error) Unwrap() error { return e.err }

// AuthError is Neo4j refusing the credentials. The CLI prompts for a
// password and tries again when it sees one (IsAuthError).
type AuthError struct {
	URI, User string
	// Code is Neo4j's status code, e.g. Neo.ClientError.Security.Unauthorized.
	Code string
	err  error
}

func (e *AuthError) Error() string {
	if e.User == "" {
		return fmt.Sprintf("Neo4j at %s requires credentials (%s)", e.URI, e.Code)
	}
	return fmt.Sprintf("Neo4j at %s refused the credentials of user %q (%s)", e.URI, e.User, e.Code)
}
func (e *AuthError) Unwrap() error { return e.err }

// IsAuthError reports whether err, or an error it wraps, is Neo4j refusing
// the user's credentials.
func IsAuthError(err error) bool {
	var a *AuthError
	return errors.As(err, &a)
}

// DatabaseNotFoundError is Neo4j reporting that the database does not exist.
type DatabaseNotFoundError struct {
	Database string
	err      error
}

func (e *DatabaseNotFoundError) Error() string {
	return fmt.Sprintf("Neo4j database %q does not exist", e.Database)
}
func (e *DatabaseNotFoundError) Unwrap() error { return e.err }

// IsDatabaseNotFound reports whether err, or an error it wraps, is a missing
// database.
func IsDatabaseNotFound(err error) bool {
	var d *DatabaseNotFoundError
	return errors.As(err, &d)
}

// authCodes are the Neo4j codes that mean "these credentials will not do".
var authCodes = map[string]bool{
	"Neo.ClientError.Security.Unauthorized":       true,
	"Neo.ClientError.Security.CredentialsExpired": true,
}

// errCtx is what an error message names: the server, user and database.
type errCtx struct {
	uri, user, database string
}

// phase tells classify whether the error came from connecting (the server
// was never reached) or from a query on a working connection.
type phase int

const (
	phaseQuery phase = iota
	phaseConnect
)

// classify turns a driver error into one clear sentence and marks transient
// and connectivity failures graph.Transient, so the orchestrator retries
// them. Authentication failures, missing databases and rejected queries are
// returned unmarked: retrying cannot help. An error of ctx itself is
// returned as is.
func (c errCtx) classify(ctx context.Context, err error, ph phase) error {
	if err == nil {
		return nil
	}
	if ctx != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var ne *neo4j.Neo4jError
	if errors.As(err, &ne) && !isLimit(err) {
		switch {
		case authCodes[ne.Code]:
			return &AuthError{URI: c.uri, User: c.user, Code: ne.Code, err: err}
		case ne.Code == "Neo.ClientError.Database.DatabaseNotFound":
			db := c.database
			if db == "" {
				db = "(default)"
			}
			return &DatabaseNotFoundError{Database: db, err: err}
		case ne.IsRetriable():
			return graph.Transient(&Error{msg: fmt.Sprintf("Neo4j at %s reported a transient error: %s (%s)", c.uri, firstLine(ne.Msg), ne.Code), err: err})
		case strings.HasPrefix(ne.Code, "Neo.ClientError.Security."):
			return &Error{msg: fmt.Sprintf("Neo4j at %s denied user %q: %s (%s)", c.uri, c.user, firstLine(ne.Msg), ne.Code), err: err}
		case strings.HasPrefix(ne.Code, "Neo.ClientError."):
			return &Error{msg: fmt.Sprintf("Neo4j rejected the query: %s (%s)", firstLine(ne.Msg), ne.Code), err: err}
		default:
			return &Error{msg: fmt.Sprintf("Neo4j at %s failed: %s (%s)", c.uri, firstLine(ne.Msg), ne.Code), err: err}
		}
	}
	if isConnectivity(err) || isLimit(err) {
		if lim := limitOf(err); lim != nil && !limitLostConnection(lim) {
			// The driver gave up on a transient server error.
			return graph.Transient(&Error{msg: fmt.Sprintf("Neo4j at %s reported a transient error: %s", c.uri, rootCause(err)), err: err})
		}
		if ph == phaseConnect {
			return graph.Transient(&Error{msg: fmt.Sprintf("cannot reach Neo4j at %s: %s", c.uri, rootCause(err)), err: err})
		}
		return graph.Transient(&Error{msg: fmt.Sprintf("lost the connection to Neo4j at %s: %s", c.uri, rootCause(err)), err: err})
	}
	var ue *neo4j.UsageError
	if errors.As(err, &ue) {
		return &Error{msg: fmt.Sprintf("Neo4j driver: %s", ue.Message), err: err}
	}
	return &Error{msg: fmt.Sprintf("Neo4j at %s: %v", c.uri, err), err: err}
}

func isLimit(err error) bool { return limitOf(err) != nil }

func limitOf(err error) *neo4j.TransactionExecutionLimit {
	var lim *neo4j.TransactionExecutionLimit
	if errors.As(err, &lim) {
		return lim
	}
	return nil
}

// limitLostConnection reports whether the driver gave up (a
// TransactionExecutionLimit, which the driver only produces for retryable
// failures) because of the connection rather than a transient server error.
func limitLostConnection(lim *neo4j.TransactionExecutionLimit) bool {
	if len(lim.Errors) == 0 {
		return true
	}
	for _, e := range lim.Errors {
		var ne *neo4j.Neo4jError
		if !errors.As(e, &ne) {
			return true
		}
	}
	return false
}

// isConnectivity reports whether err means the connection failed or was lost.
func isConnectivity(err error) bool {
	var ce *neo4j.ConnectivityError
	if errors.As(err, &ce) {
		return true
	}
	var nerr net.Error
	if errors.As(err, &nerr) {
		return true
	}
	for _, target := range []error{io.EOF, io.ErrUnexpectedEOF, io.ErrClosedPipe, net.ErrClosed,
		syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.EPIPE, syscall.ECONNABORTED, syscall.EHOSTUNREACH, syscall.ENETUNREACH} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// rootCause is the innermost useful message of a driver error: the last
// attempt of a TransactionExecutionLimit, the inner error of a
// ConnectivityError.
func rootCause(err error) string {
	for {
		if lim := limitOf(err); lim != nil && len(lim.Errors) > 0 {
			err = lim.Errors[len(lim.Errors)-1]
			continue
		}
		var ce *neo4j.ConnectivityError
		if errors.As(err, &ce) && ce.Inner != nil {
			err = ce.Inner
			continue
		}
		break
	}
	var ne *neo4j.Neo4jError
	if errors.As(err, &ne) {
		return fmt.Sprintf("%s (%s)", firstLine(ne.Msg), ne.Code)
	}
	return firstLine(err.Error())
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}

// TimeoutError is a network step on a Neo4j server that ran out of its
// deadline (see the package documentation, "Deadlines"): connecting, or a
// query. It is not marked transient.
type TimeoutError struct {
	URI string
	// Connecting is true for the connect step, false for a query.
	Connecting bool
	// After is the deadline that ran out.
	After time.Duration
	err   error
}

func (e *TimeoutError) Error() string {
	if e.Connecting {
		return fmt.Sprintf("no answer from Neo4j at %s within %s of connecting: is the server up, and is this its Bolt port?", e.URI, e.After)
	}
	return fmt.Sprintf("Neo4j at %s did not answer a query within %s", e.URI, e.After)
}

func (e *TimeoutError) Unwrap() error { return e.err }

// IsTimeout reports whether err, or an error it wraps, is a *TimeoutError.
func IsTimeout(err error) bool {
	var t *TimeoutError
	return errors.As(err, &t)
}
