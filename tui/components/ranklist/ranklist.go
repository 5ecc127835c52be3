// Package ranklist is the results pane of a ranking retriever (docs/EXPLORER.md,
// "Retrievers"): one row per hit in rank order, the marks' judgement above
// and below, and every ranking retriever's parameter panel, by name. The
// root hands it the ranking (SetRanking) and reads the selection and the
// panels through its methods.
package ranklist

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/tui/common"
	"github.com/memoria-graph/memoria/tui/components/params"
	"github.com/memoria-graph/memoria/tui/theme"
)

// List is the results pane of a ranking retriever: one row per hit,
// in rank order (rank, score, name, seed, how it was reached).
type List struct {
	*common.Common
	// panels are the parameters of each ranking retriever, by name.
	panels  map[string]*params.Table
	ranking *retriever.Ranking
	loading bool
	err     string
	cursor  int
	off     int
	w, h    int
	focused bool
}

// New is the list, with no panel yet.
func New(c *common.Common) *List {
	return &List{Common: c, panels: map[string]*params.Table{}}
}

// SetRanking shows r (nil: none yet, loading or failed with err); the
// selection stays on the same node when r has it.
func (p *List) SetRanking(r *retriever.Ranking, loading bool, err string) {
	var was string
	if h, ok := p.Selected(); ok {
		was = h.NodeID
	}
	p.ranking, p.loading, p.err = r, loading, err
	p.cursor = 0
	if r != nil {
		for i, h := range r.Hits {
			if h.NodeID == was {
				p.cursor = i
			}
		}
	}
}

// Selected is the hit under the cursor.
func (p *List) Selected() (retriever.Hit, bool) {
	if p.ranking == nil || len(p.ranking.Hits) == 0 {
		return retriever.Hit{}, false
	}
	return p.ranking.Hits[min(p.cursor, len(p.ranking.Hits)-1)], true
}

// Position is "3/5": the selected hit of how many.
func (p *List) Position() string {
	if p.ranking == nil || len(p.ranking.Hits) == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", p.cursor+1, len(p.ranking.Hits))
}

// SetSize sets the inner size.
func (p *List) SetSize(w, h int) { p.w, p.h = w, h }

// Update moves the selection (keys when focused, the wheel anywhere).
func (p *List) Update(msg tea.Msg) tea.Cmd {
	if p.ranking == nil || len(p.ranking.Hits) == 0 {
		return nil
	}
	common.MoveCursor(p.KM, msg, p.focused, &p.cursor, len(p.ranking.Hits), max(1, p.h-2))
	return nil
}

// RankRow is hit h's row: rank, score, name and label, seed, how reached.
// Graph text is escaped (names and labels with textsafe, ids with
// DisplayID inside render's texts).
func (p *List) RankRow(h retriever.Hit) string {
	name := textsafe.Escape(p.Names.NodeLead(h.Node))
	if p.Stats != nil && p.Stats.IsHub(h.NodeID) {
		name += " " + p.St.HubMark
	}
	if l := h.Node.Label(); l != "" {
		name += " " + textsafe.Escape(l)
	}
	if g := p.Marks.Grade(h.NodeID); g > 0 {
		name = common.MarkGlyph(g) + " " + name
	}
	return fmt.Sprintf("#%-3d %-8s %s  seed %s  %s", h.Rank, render.Num(h.Score), name, render.DisplayID(h.Seed), render.HowReached(h))
}

// View renders the rows that fit, the selected one kept on screen.
func (p *List) View() string {
	switch {
	case p.err != "":
		return p.St.Error.Render(theme.Fit(textsafe.Escape(common.FirstLines(p.err, 1)), p.w))
	case p.loading:
		return p.St.Running.Render("⟳ ranking…")
	case p.ranking == nil:
		return p.St.Dim.Render("pick a seed to rank its neighbourhood")
	case len(p.ranking.Hits) == 0:
		return p.St.Dim.Render("no hits: no seed was found")
	}
	head, foot := p.Judged.View(p.St, p.w, p.h)
	h := max(1, p.h-len(head)-len(foot))
	if p.cursor < p.off {
		p.off = p.cursor
	} else if p.cursor >= p.off+h {
		p.off = p.cursor - h + 1
	}
	p.off = max(0, min(p.off, len(p.ranking.Hits)-h))
	lines := head
	for i := p.off; i < min(len(p.ranking.Hits), p.off+h); i++ {
		row := p.RankRow(p.ranking.Hits[i])
		if i == p.cursor {
			lines = append(lines, p.St.Selected.Render(theme.Fit(theme.GlyphSelected+" "+row, p.w)))
			continue
		}
		lines = append(lines, theme.Fit("  "+row, p.w))
	}
	if len(foot) > 0 {
		for range h - (min(len(p.ranking.Hits), p.off+h) - p.off) {
			lines = append(lines, "") // the list ends early: the footer stays at the bottom
		}
		lines = append(lines, foot...)
	}
	return strings.Join(lines, "\n")
}

// ShortHelp lists the pane's keys.
func (p *List) ShortHelp() []key.Binding {
	return []key.Binding{p.KM.Up, p.KM.Down, p.KM.Mark, p.KM.CopyPath, p.KM.Retriever}
}

// Focus gives the list the keyboard; Blur takes it away.
func (p *List) Focus() tea.Cmd {
	p.focused = true
	return nil
}

func (p *List) Blur() tea.Cmd {
	p.focused = false
	return nil
}

// Panel is ranking retriever name's parameter panel (nil: none);
// SetPanel sets it; Panels are all of them, by name (not to be changed).
func (p *List) Panel(name string) *params.Table       { return p.panels[name] }
func (p *List) SetPanel(name string, t *params.Table) { p.panels[name] = t }
func (p *List) Panels() map[string]*params.Table      { return p.panels }
