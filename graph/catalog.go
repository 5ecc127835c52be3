package graph

import "context"

// NodeSummary is a node as a picker lists it.
type NodeSummary struct {
	ID     string   `json:"id"`
	Labels []string `json:"labels"`
	// Text is the node's `text` property (or "" when it has none).
	Text string `json:"text"`
	// Props are the node's short string properties other than id
	// (ShortStrings): what a front end can name the node by.
	Props map[string]string `json:"props,omitempty"`
}

// TagCount is an edge tag with the number of RELATES edges that carry it.
type TagCount struct {
	Tag   string `json:"tag"`
	Count int    `json:"count"`
}

// Catalog browses a graph for front ends: it lists nodes page by page and
// the tags that exist on RELATES edges. Implementations must be safe for
// concurrent use and must only read.
type Catalog interface {
	// ListNodes returns up to limit nodes with an id, skipping offset. With
	// an empty (or blank) filter they come ordered by id; a filter keeps the
	// nodes it matches and ranks them (exact, then word-prefix, then
	// substring matches of the id, the text or a short string property:
	// see FilterFields, MatchFields and CompareMatches). More reports
	// whether further nodes match.
	ListNodes(ctx context.Context, filter string, offset, limit int) (nodes []NodeSummary, more bool, err error)
	// NameKeys lists the keys of the string properties (other than id) of
	// the graph's nodes, the most common first, then by key: the
	// properties a front end offers to name nodes by.
	NameKeys(ctx context.Context) ([]string, error)
	// Tags lists every distinct tag on RELATES edges with its count, most
	// frequent first, then by tag.
	Tags(ctx context.Context) ([]TagCount, error)
	// Node fetches one node by id; ok is false when there is none.
	Node(ctx context.Context, id string) (node Node, ok bool, err error)
}

// Source is a graph the whole program can browse: a catalog with a human
// description for status lines (never containing a password) and a Close.
// A retriever reaches the same graph through its own interface (for the
// Activation Energy retriever, activation.Backend).
type Source interface {
	Catalog
	Describe() string
	Close(ctx context.Context) error
}

// NodeScanner lists every node that has an id, with its properties, in an
// order that does not change while the graph does not: what the gather
// stage builds its index of names and texts from (retriever/gather). The
// embedded engine serves it; a Neo4j server answers the gather through its
// fulltext index instead.
type NodeScanner interface {
	EachNode(ctx context.Context, fn func(Node) error) error
}
