package activation

import (
	"context"

	"github.com/memoria-graph/memoria/graph"
)

// Expander is the Activation Energy retriever's only way to a graph: the
// small interface each engine's expansion implements (oninmem.InMemory
// over graph/inmem, onneo4j's over Neo4j). An Expander serves one seed exploration at a time;
// Backend.Open hands out one per exploration (the Neo4j one holds a session,
// which is not safe for concurrent use).
type Expander interface {
	// FetchSeed returns the node whose id is nodeID; ok is false when there
	// is none.
	FetchSeed(ctx context.Context, nodeID string) (node graph.Node, ok bool, err error)
	// ExpandFrontier returns, for every frontier node, each RELATES edge to
	// an unvisited neighbour whose transfer energy exceeds
	// req.MinActivation, ordered by parent id, then transfer energy
	// descending, then neighbour id, then (parallel edges) EdgeKey: see
	// SortTiedEdges.
	ExpandFrontier(ctx context.Context, req ExpandRequest) ([]Candidate, error)
}

// Backend opens expanders. Implementations must be safe for concurrent use.
type Backend interface {
	// Open returns an Expander for one seed exploration and a function that
	// releases it. It should not wait on I/O: Retriever.Explore opens every
	// seed's expander before it starts any exploration (so that a backend
	// serving one run's explorations together knows how many there are).
	Open(ctx context.Context) (Expander, func(context.Context) error, error)
}
