package tui

import (
	"context"
	"io"
	"time"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/keymap"
	"github.com/memoria-graph/memoria/render"
)

// Common is what every component of the explorer shares, by pointer (the
// way soft-serve's components share theirs): the styles and the keymap,
// the explorer's size, how nodes are named, the relevance marks and their
// judgement, the graph's metrics, how copies are written and where files
// go. One Common is made by newModel; a pane embeds it, so p.km, p.st,
// p.names... are the same values in every pane, and a change made through
// one (the naming cycled, a mark toggled) is seen by all without the root
// handing it round. A pane's own size (its w, h fields) shadows the
// explorer's.
type Common struct {
	Ctx    context.Context
	Source graph.Source
	KM     keymap.KeyMap
	St     *Styles
	// W, H is the explorer's size (the terminal's).
	W, H int
	// Names is which property names nodes in every pane (naming.go).
	Names *naming
	// Marks are the analyst's relevance marks, and Judged the judgement
	// of the results shown against them (marks.go).
	Marks  *markSet
	Judged *judgement
	// Stats is the graph's metrics, loaded once when the explorer opens,
	// and the degrees looked up (stats.go).
	Stats *graphStats
	// Form is how copies are written (Neo4j Browser, cypher-shell,
	// driver); Cypher writes the copied debug and check queries by the
	// graph's schema mapping (Options.Mapping).
	Form   render.CypherForm
	Cypher render.Cypher
	Out    io.Writer
	OutDir string
	Now    func() time.Time
}
