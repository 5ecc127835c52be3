// Package common is what every component of the explorer shares, by
// pointer (the way soft-serve's components share theirs): Common, the
// naming of nodes, the relevance marks, the read side of the graph's
// metrics and of the marks' judgement, the status line's messages and the
// safe-command helper. It sits beside tui/theme so that the root (package
// tui) and the panes and overlays in packages of their own
// (docs/ARCHITECTURE.md, "The explorer's components") import one Common.
package common

import (
	"context"
	"io"
	"time"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/keymap"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/tui/theme"
)

// Common is what every component of the explorer shares, by pointer: the
// styles and the keymap, the explorer's size, how nodes are named, the
// relevance marks and their judgement, the graph's metrics, how copies are
// written and where files go. One Common is made by the root; a pane
// embeds it, so p.KM, p.St, p.Names... are the same values in every pane,
// and a change made through one (the naming cycled, a mark toggled) is
// seen by all without the root handing it round. A pane's own size (its
// w, h fields) shadows the explorer's.
type Common struct {
	Ctx    context.Context
	Source graph.Source
	KM     keymap.KeyMap
	St     *theme.Styles
	// W, H is the explorer's size (the terminal's).
	W, H int
	// Names is which property names nodes in every pane (naming.go).
	Names *Naming
	// Marks are the analyst's relevance marks (marks.go), and Judged the
	// judgement of the results shown against them, which only the root
	// makes.
	Marks  *MarkSet
	Judged Judgement
	// Stats is the graph's metrics, loaded once when the explorer opens,
	// and the degrees looked up; only the root's Update changes them.
	Stats Stats
	// Form is how copies are written (Neo4j Browser, cypher-shell,
	// driver); Cypher writes the copied debug and check queries by the
	// graph's schema mapping.
	Form   render.CypherForm
	Cypher render.Cypher
	Out    io.Writer
	OutDir string
	Now    func() time.Time
}

// Judgement is what a results pane draws of the marks' judgement: the
// found line on top and the relevant nodes not found under the results,
// in w cells and at most h lines.
type Judgement interface {
	View(st *theme.Styles, w, h int) (head, foot []string)
}

// Stats is what a pane reads of the graph's metrics: whether a node is a
// hub, the detail pane's degree line of a node, and where the metrics are
// with the metrics themselves (the overlay M opens).
type Stats interface {
	IsHub(id string) bool
	DetailLine(st *theme.Styles, id string) string
	Metrics() (StatsState, graph.Metrics, string)
}

// StatsState is where the graph's metrics are.
type StatsState int

// The states of the metrics' load.
const (
	StatsLoading StatsState = iota
	StatsReady
	StatsFailed
	StatsUnsupported // the source computes no metrics
)
