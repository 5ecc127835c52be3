// Package helpview is the explorer's full help, the overlay ? opens: every
// key of the keymap under its pane's heading, as many columns side by side
// as fit, scrollable. The root reaches it only through its methods.
package helpview

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/keymap"
	"github.com/memoria-graph/memoria/tui/theme"
)

// Model is the full help: every key of the keymap under its pane's
// heading (Keys), scrollable. ? or esc closes it.
type Model struct {
	km keymap.KeyMap
	st *theme.Styles
	vp viewport.Model
	// schema describes Options.Mapping (mappingNote): a line atop the
	// keys when the graph was read through a mapping.
	schema string
}

// New is the full help of km; schema (Options.Mapping's description, ""
// for none) is a line atop the keys.
func New(km keymap.KeyMap, st *theme.Styles, schema string) *Model {
	vp := viewport.New(0, 0)
	vp.KeyMap = km.ViewportKeys()
	return &Model{km: km, st: st, vp: vp, schema: schema}
}

// content is the keys, after the mapping's line when there is one.
func (v *Model) content(w int) string {
	keys := Keys(v.km, v.st, w)
	if v.schema == "" {
		return keys
	}
	line := ansi.Wrap(textsafe.Escape("This graph is read through the "+v.schema), max(w, 20), "")
	return v.st.Info.Render(line) + "\n\n" + keys
}

// Open lays the keys out for the current width, from the top.
func (v *Model) Open() {
	v.vp.SetContent(v.content(v.vp.Width))
	v.vp.GotoTop()
}

// Update closes on ? or esc and scrolls on the rest.
func (v *Model) Update(msg tea.Msg) (bool, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok && (key.Matches(k, v.km.Help) || key.Matches(k, v.km.Cancel)) {
		return true, nil
	}
	var cmd tea.Cmd
	v.vp, cmd = v.vp.Update(msg) // scroll; other keys wait
	return false, cmd
}

// Title is the frame's title.
func (v *Model) Title() string { return "Keys (? or esc to close, ↑/↓ to scroll)" }

// View is the keys in view.
func (v *Model) View() string { return v.vp.View() }

// SetSize lays the keys out again for the new width.
func (v *Model) SetSize(w, h int) {
	v.vp.Width, v.vp.Height = w, h
	v.vp.SetContent(v.content(w)) // keeps the scroll
}

// ShortHelp is the help line's keys while the help is on top.
func (v *Model) ShortHelp() []key.Binding {
	return []key.Binding{keymap.CloseHelp("?/esc"), keymap.ScrollHelp}
}

// Close does nothing: the help has no work in flight.
func (v *Model) Close() {}

// Width is the width the keys are laid out for.
func (v *Model) Width() int { return v.vp.Width }

// Offset is how far the keys are scrolled.
func (v *Model) Offset() int { return v.vp.YOffset }

// Keys lays out every group of keys (keymap.Groups) as a column under
// its pane's heading, as many columns side by side as fit in width w, the
// rows of columns one under the other.
func Keys(km keymap.KeyMap, st *theme.Styles, w int) string {
	var cols []string
	for _, g := range km.Groups() {
		kw := 0
		for _, b := range g.Keys {
			kw = max(kw, ansi.StringWidth(b.Help().Key))
		}
		lines := []string{st.Title.Render(g.Title)}
		for _, b := range g.Keys {
			k := b.Help().Key
			lines = append(lines, st.Key.Bold(true).Render(k)+strings.Repeat(" ", kw-ansi.StringWidth(k)+1)+st.Dim.Render(b.Help().Desc))
		}
		cols = append(cols, strings.Join(lines, "\n"))
	}
	var rows []string
	var cur []string
	width := 0
	for _, c := range cols {
		cw := lipgloss.Width(c) + 3
		if len(cur) > 0 && width+cw > w {
			rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, cur...))
			cur, width = nil, 0
		}
		cur = append(cur, st.R.NewStyle().PaddingRight(3).Render(c))
		width += cw
	}
	rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, cur...))
	return strings.Join(rows, "\n\n")
}
