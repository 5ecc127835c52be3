// Package statsview is the explorer's graph-metrics overlay, the one M
// opens (docs/EXPLORER.md, "Graph metrics and hubs"): render.StatsText of
// the source's metrics, scrollable, or where their computation is. It
// reads the metrics through common.Stats, which the root loads.
package statsview

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/keymap"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/tui/common"
)

// Model is the overlay of the metrics (M): render.StatsText of the
// source's metrics, scrollable, or where their computation is.
type Model struct {
	*common.Common
	src string // the source's description
	vp  viewport.Model
}

// New is the overlay of src's metrics (src: the source's description).
func New(c *common.Common, src string) *Model {
	return &Model{Common: c, src: src, vp: common.NewViewport(c.KM)}
}

// Refresh lays the content out again (the metrics arrived, or the size
// changed), keeping the scroll.
func (v *Model) Refresh() { v.vp.SetContent(v.Content()) }

// Content is what the overlay shows.
func (v *Model) Content() string {
	head := v.St.Dim.Render("graph  " + textsafe.Escape(v.src))
	state, m, failure := common.StatsUnsupported, graph.Metrics{}, ""
	if v.Stats != nil {
		state, m, failure = v.Stats.Metrics()
	}
	switch state {
	case common.StatsLoading:
		return head + "\n\n" + v.St.Running.Render("⟳ computing the graph's metrics…")
	case common.StatsFailed:
		return head + "\n\n" + v.St.Error.Render("✗ "+textsafe.Escape(firstLine(failure)))
	case common.StatsUnsupported:
		return head + "\n\n" + v.St.Dim.Render("this source computes no metrics")
	}
	return head + "\n\n" + render.StatsText(m) + "\n" +
		v.St.Dim.Render("hubs are marked "+v.St.HubMark+" in the results; the detail pane gives each node's degree")
}

func (v *Model) Update(msg tea.Msg) (bool, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok && (key.Matches(k, v.KM.Stats) || key.Matches(k, v.KM.Cancel)) {
		return true, nil
	}
	var cmd tea.Cmd
	v.vp, cmd = v.vp.Update(msg)
	return false, cmd
}

func (v *Model) Title() string { return "Graph metrics (M or esc to close, ↑/↓ to scroll)" }

func (v *Model) View() string { return v.vp.View() }

func (v *Model) SetSize(w, h int) {
	v.vp.Width, v.vp.Height = w, h
	v.Refresh()
}

func (v *Model) ShortHelp() []key.Binding {
	return []key.Binding{keymap.CloseHelp("M/esc"), keymap.ScrollHelp}
}

// Close leaves the metrics' computation running: the hub marks need it.
func (v *Model) Close() {}

// Open scrolls the overlay to its start with the content laid out again.
func (v *Model) Open() {
	v.Refresh()
	v.vp.GotoTop()
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
