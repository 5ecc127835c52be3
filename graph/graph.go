// Package graph is the model every engine, retriever and renderer shares: a
// node, an edge, and the read-only interfaces a front end browses a graph
// through. Engines live below it (graph/inmem, graph/neo4jdb), the APOC file
// format in graph/apoc, and the only writer in graph/neo4jload. It knows no
// retriever (docs/ARCHITECTURE.md).
package graph

import "errors"

// Relates is the relationship type memory graphs use for the associations
// retrievers follow (docs/ALGORITHM.md, rule 1). Other relationship types are
// kept and exported but never traversed.
const Relates = "RELATES"

// MissingRelatesWeight is the weight a RELATES relationship without a
// weight property counts with, in every retriever (docs/ALGORITHM.md,
// rule 1).
const MissingRelatesWeight = 0.01

// Node is a node as a graph returns it. ID is its application id (the `id`
// property), which is what callers address it by.
type Node struct {
	ID         string         `json:"id"`
	Labels     []string       `json:"labels"`
	Properties map[string]any `json:"properties"`
}

// Label returns the node's first label, or "" when it has none.
func (n Node) Label() string {
	if len(n.Labels) == 0 {
		return ""
	}
	return n.Labels[0]
}

// Edge is a directed view of an undirected relationship: SourceID is the node
// a traversal came from, TargetID the node it reached.
type Edge struct {
	SourceID   string         `json:"source_id"`
	TargetID   string         `json:"target_id"`
	Type       string         `json:"type"`
	Properties map[string]any `json:"properties"`
	// Weight is nil when the edge has no numeric weight property.
	Weight *float64 `json:"weight"`
	// Tags is nil when the edge has no tags property.
	Tags []string `json:"tags"`
	// ElementID is the relationship's Neo4j elementId when the edge was
	// read from Neo4j, "" otherwise (an APOC file's relationship ids are
	// another database's). It names the relationship within that database
	// only; the debug Cypher pins the relationship by it.
	ElementID string `json:"element_id,omitempty"`
}

// transientError marks an error worth retrying.
type transientError struct{ err error }

func (e transientError) Error() string { return e.err.Error() }
func (e transientError) Unwrap() error { return e.err }

// Transient wraps err to say the read that returned it may succeed if tried
// again (engines use it for transient server errors and lost connections).
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
