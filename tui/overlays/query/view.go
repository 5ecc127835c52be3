package query

import (
	"fmt"
	"strings"

	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever/gather"
	"github.com/memoria-graph/memoria/tui/theme"
)

// headLines is how many lines come before the candidate rows: the
// question, the state, the tags, the column heads.
const headLines = 4

// idWidth is the most cells of a node id in a row.
const idWidth = 24

// View is the question, what the gather is doing or found, the tags the
// question names and the candidates, one a row: ticked or not, rank, id,
// R, the fused score and each matcher's score (- for none). Every id and
// tag is graph text, escaped (textsafe).
func (m *Model) View() string {
	lines := []string{m.input.View(), m.state(), m.tagLine(), m.st.Dim.Render(theme.Fit(m.header(), m.w))}
	rows := m.rowsShown()
	for i := m.offset; i < min(len(m.res.Candidates), m.offset+rows); i++ {
		lines = append(lines, m.row(i))
	}
	return strings.Join(lines, "\n")
}

// state is the second line: the index's or the gather's progress, its
// failure, or what was found and what the keys do with it.
func (m *Model) state() string {
	switch {
	case m.ixErr != nil:
		return m.st.Error.Render(theme.Fit("✗ building the gather's index: "+textsafe.Escape(m.ixErr.Error()), m.w))
	case m.building:
		return m.st.Running.Render("⟳ indexing the graph's names and texts…")
	case m.running:
		return m.st.Running.Render("⟳ gathering…")
	case m.err != nil:
		return m.st.Error.Render(theme.Fit("✗ "+textsafe.Escape(m.err.Error()), m.w))
	case m.query == "":
		return m.st.Dim.Render("the candidates fill in as you type")
	}
	n := 0
	for _, on := range m.ticked {
		if on {
			n++
		}
	}
	where := "↓ to the list, space ticks"
	if m.inList {
		where = "space ticks, ↑ at the top back to the question"
	}
	return m.st.Info.Render(theme.Fit(fmt.Sprintf("%d candidates, %d ticked · enter takes them as the seeds · %s",
		len(m.res.Candidates), n, where), m.w))
}

// tagLine offers the tags the question names (`--tags auto`).
func (m *Model) tagLine() string {
	if len(m.auto) == 0 {
		return m.st.Dim.Render("tags the question names: none")
	}
	esc := make([]string, len(m.auto))
	for i, t := range m.auto {
		esc[i] = textsafe.Escape(t)
	}
	take := "taken with enter (ctrl+t leaves them)"
	if !m.takeTags {
		take = "left (ctrl+t takes them)"
	}
	return m.st.Info.Render(theme.Fit("tags the question names: "+strings.Join(esc, ", ")+" · "+take, m.w))
}

func (m *Model) matchers() []string {
	if len(m.cfg.Options.Matchers) > 0 {
		return m.cfg.Options.Matchers
	}
	return gather.DefaultMatchers
}

func (m *Model) header() string {
	h := fmt.Sprintf("       %3s  %-*s  %-6s  %-8s", "#", idWidth, "node", "R", "rrf")
	for _, mt := range m.matchers() {
		h += fmt.Sprintf("  %-6s", mt)
	}
	return h
}

// row is candidate i.
func (m *Model) row(i int) string {
	c := m.res.Candidates[i]
	box := "[ ]"
	if m.ticked[c.NodeID] {
		box = "[x]"
	}
	id := theme.Fit(textsafe.Escape(c.NodeID), idWidth)
	line := fmt.Sprintf("%s  %3d  %s  %-6s  %-8s", box, c.Rank, id, render.Num(c.R), render.Num(c.RRF))
	for _, mt := range m.matchers() {
		score := "-"
		for _, x := range c.Matches {
			if x.Matcher == mt {
				score = render.Num(x.Score)
			}
		}
		line += fmt.Sprintf("  %-6s", score)
	}
	if m.inList && i == m.cursor {
		return m.st.Selected.Render(theme.Fit(theme.GlyphSelected+" "+line, m.w))
	}
	return theme.Fit("  "+line, m.w)
}

// rowsShown is how many candidate rows fit.
func (m *Model) rowsShown() int { return max(1, m.h-headLines) }

func (m *Model) clampOffset() {
	rows := m.rowsShown()
	if m.cursor < m.offset {
		m.offset = m.cursor
	}
	if m.cursor >= m.offset+rows {
		m.offset = m.cursor - rows + 1
	}
	m.offset = max(0, min(m.offset, len(m.res.Candidates)-rows))
}
