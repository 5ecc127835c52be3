// Package detail is the explorer's detail pane (docs/EXPLORER.md,
// "Detail"): the selected node of the results shown, explained by a
// Subject (Activation Energy's node, a ranking's hit, a row of the compare
// table: each result view writes its own lines), with the node's degree
// line under its head, scrollable. The root sets the subject; it reads
// the pane through its methods.
package detail

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/tui/common"
)

// Subject is what the pane explains: the node it is about, and its lines
// at width w (validity: the relationship properties that say when a fact
// held, shown for each hop of the node's route).
type Subject interface {
	ID() string
	Lines(c *common.Common, w int, validity []string) []string
}

// Pane shows the selected node's properties and what brought it into
// the results, worked out in numbers.
type Pane struct {
	*common.Common
	vp      viewport.Model
	subject Subject // nil: nothing selected
	// validity are the relationship properties that say when a fact held
	// (graph.Schema's ValidAt and InvalidAt: Graphiti's valid_at and
	// invalid_at), shown for each hop of the node's route; nil: none.
	validity []string
	w, h     int
	focused  bool
}

// New is the pane; validity are the relationship properties that say
// when a fact held (graph.Schema's ValidAt and InvalidAt).
func New(c *common.Common, validity []string) *Pane {
	km := c.KM
	vp := viewport.New(0, 0)
	vp.MouseWheelEnabled = true
	vp.KeyMap = viewport.KeyMap{
		Up: km.Up, Down: km.Down, PageUp: km.PageUp, PageDown: km.PageDown,
		HalfPageUp: key.NewBinding(key.WithDisabled()), HalfPageDown: key.NewBinding(key.WithDisabled()),
		Left: key.NewBinding(key.WithDisabled()), Right: key.NewBinding(key.WithDisabled()),
	}
	return &Pane{Common: c, vp: vp, validity: validity}
}

// SetSize sets the inner size.
func (d *Pane) SetSize(w, h int) {
	if w == d.w && h == d.h {
		return
	}
	d.w, d.h = w, h
	d.vp.Width, d.vp.Height = w, h
	d.render()
}

// Focus gives the pane the keyboard.
func (d *Pane) Focus() tea.Cmd {
	d.focused = true
	return nil
}

// Blur takes the keyboard away.
func (d *Pane) Blur() tea.Cmd {
	d.focused = false
	return nil
}

// Focused reports whether the pane has the keyboard.
func (d *Pane) Focused() bool { return d.focused }

// Show explains s (nil clears the pane) from the top: a new selection.
func (d *Pane) Show(s Subject) {
	d.subject = s
	d.vp.GotoTop()
	d.render()
}

// Set explains s keeping the scroll position: the same selection, whose
// data changed (a run grew, a hit's context or a column's answer arrived).
func (d *Pane) Set(s Subject) {
	d.subject = s
	d.render()
}

// Subject is what the pane explains (nil: nothing).
func (d *Pane) Subject() Subject { return d.subject }

// Validity are the relationship properties shown for each hop.
func (d *Pane) Validity() []string { return d.validity }

// Redraw renders the node again: the naming or its degree (Common's
// names, stats) changed.
func (d *Pane) Redraw() { d.render() }

// SubjectID is the id of the node shown ("" when none).
func (d *Pane) SubjectID() string {
	if d.subject == nil {
		return ""
	}
	return d.subject.ID()
}

// withDegree puts the degree line (common.Stats' DetailLine) under the
// head.
func (d *Pane) withDegree(lines []string) []string {
	if d.Stats == nil {
		return lines
	}
	l := d.Stats.DetailLine(d.St, d.SubjectID())
	if l == "" || len(lines) == 0 {
		return lines
	}
	return append(lines[:1], append([]string{l}, lines[1:]...)...)
}

// Update scrolls when focused (keys) or under the wheel.
func (d *Pane) Update(msg tea.Msg) tea.Cmd {
	if _, isKey := msg.(tea.KeyMsg); isKey && !d.focused {
		return nil
	}
	var cmd tea.Cmd
	d.vp, cmd = d.vp.Update(msg)
	return cmd
}

// View renders the visible part of the explanation.
func (d *Pane) View() string { return d.vp.View() }

func (d *Pane) render() {
	if d.w <= 0 {
		return
	}
	if d.subject == nil {
		d.vp.SetContent(d.St.Dim.Render("select a node in the results to see its properties and energy"))
		return
	}
	d.vp.SetContent(strings.Join(d.withDegree(d.subject.Lines(d.Common, d.w, d.validity)), "\n"))
}

// ShortHelp lists the pane's keys.
func (d *Pane) ShortHelp() []key.Binding {
	return []key.Binding{d.KM.Up, d.KM.Down, d.KM.PageUp, d.KM.PageDown}
}
