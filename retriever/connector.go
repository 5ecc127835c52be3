package retriever

import (
	"context"
	"errors"
)

// Connector is the retriever's only way to a graph. A Connector serves one
// seed exploration at a time; Backend.Open hands out one per exploration (the
// Neo4j connector holds a session, which is not safe for concurrent use).
type Connector interface {
	// FetchSeed returns the node whose id is nodeID, or Found false.
	FetchSeed(ctx context.Context, nodeID string) (SeedFetchResult, error)
	// ExpandFrontier returns, for every frontier node, each RELATES edge to
	// an unvisited neighbour whose transfer energy exceeds
	// req.MinActivation, ordered by parent id, then transfer energy
	// descending, then neighbour id, then (parallel edges) EdgeKey: see
	// SortTiedEdges.
	ExpandFrontier(ctx context.Context, req ExpandRequest) ([]ExpansionCandidate, error)
}

// Backend opens connectors. Implementations must be safe for concurrent use.
type Backend interface {
	// Open returns a Connector for one seed exploration on database ("" for
	// the backend's default; Config.Database) and a function that releases
	// it.
	Open(ctx context.Context, database string) (Connector, func(context.Context) error, error)
}

// transientError marks an error worth retrying.
type transientError struct{ err error }

func (e transientError) Error() string { return e.err.Error() }
func (e transientError) Unwrap() error { return e.err }

// Transient wraps err so the orchestrator retries the call that returned it
// (connectors use it for transient and connectivity failures).
func Transient(err error) error {
	if err == nil {
		return nil
	}
	return transientError{err}
}

// IsTransient reports whether err, or an error it wraps, was marked Transient.
func IsTransient(err error) bool {
	var t transientError
	return errors.As(err, &t)
}
