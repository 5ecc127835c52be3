package tree

import (
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/tui/components/status"
	"github.com/memoria-graph/memoria/tui/theme"
)

// Status is the status line's words for Activation Energy's run,
// for the current run's trees (nil: no seeds) and whether losing candidates
// are shown: each seed's run state, then "explain". Every text here may
// quote the graph (seed ids, errors naming nodes), so all of it is escaped
// (textsafe.Escape).
func Status(st *theme.Styles, trees *Trees, explain bool) []string {
	var parts []string
	if trees != nil {
		for _, t := range trees.Seeds {
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
func seedBadge(st *theme.Styles, t *SeedTree) string {
	id := textsafe.Escape(t.Seed.NodeID)
	switch t.State {
	case SeedRunning:
		return st.Running.Render("⟳ " + id + " " + seedStatus(t))
	case SeedDone:
		return st.OK.Render("✓ " + id + " " + seedStatus(t))
	case SeedFailed:
		return st.Error.Render("✗ " + id + " error: " + textsafe.Escape(status.OneLine(t.Err)))
	case SeedNotFound:
		return st.Error.Render("✗ " + id + " not found")
	}
	return st.Dim.Render(id + " " + seedStatus(t))
}
