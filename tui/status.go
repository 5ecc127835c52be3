package tui

import (
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/tui/components/status"
)

// activationStatus is the status line's words for Activation Energy's run,
// for the current run's trees (nil: no seeds) and whether losing candidates
// are shown: each seed's run state, then "explain". Every text here may
// quote the graph (seed ids, errors naming nodes), so all of it is escaped
// (textsafe.Escape).
func activationStatus(st *Styles, trees *resultTrees, explain bool) []string {
	var parts []string
	if trees != nil {
		for _, t := range trees.seeds {
			parts = append(parts, seedBadge(st, t))
		}
	} else {
		parts = append(parts, st.Dim.Render("no seeds"))
	}
	if explain {
		parts = append(parts, st.End.Render("explain"))
	}
	return parts
}

// seedBadge is one seed's run state: running at depth k, done in N ms with
// P paths, or the error.
func seedBadge(st *Styles, t *seedTree) string {
	id := textsafe.Escape(t.seed.NodeID)
	switch t.state {
	case seedRunning:
		return st.Running.Render("⟳ " + id + " " + seedStatus(t))
	case seedDone:
		return st.OK.Render("✓ " + id + " " + seedStatus(t))
	case seedFailed:
		return st.Error.Render("✗ " + id + " error: " + textsafe.Escape(status.OneLine(t.err)))
	case seedNotFound:
		return st.Error.Render("✗ " + id + " not found")
	}
	return st.Dim.Render(id + " " + seedStatus(t))
}
