// Package picker is the explorer's retriever picker, the overlay X opens:
// every retriever with a tick box; space ticks, enter applies (one ticked:
// that retriever alone, as x chooses; two or more: the compare view with
// them, in this order), esc leaves everything as it was. It is its own
// package so that the root reaches it only through its methods and its
// messages: it applies through PickedMsg and refuses through RefusedMsg,
// which the root turns into the view and the status line in its own
// Update.
package picker

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/keymap"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/tui/theme"
)

// Retriever is one row of the picker: a retriever's name, and for one
// that combines the others ticked (fusion) its one-line purpose.
type Retriever struct {
	Name string
	// Combining is set for a retriever that combines the others compared
	// (it has no view of its own: compare view only, with two others).
	Combining bool
	Purpose   string
}

// PickedMsg is the picker's choice, in the order of its rows.
type PickedMsg struct{ Names []string }

// RefusedMsg says why a key of the picker changed nothing.
type RefusedMsg struct{ Err error }

// Model is the picker's state.
type Model struct {
	km     keymap.KeyMap
	st     *theme.Styles
	rows   []Retriever
	ticked []bool // by row
	cursor int
	// rankersOff is why only Activation Energy can be ticked (nil: every
	// retriever can).
	rankersOff error
	w, h       int
}

// New is the picker over rows (every retriever, in the order shown).
func New(km keymap.KeyMap, st *theme.Styles, rows []Retriever) *Model {
	return &Model{km: km, st: st, rows: rows, ticked: make([]bool, len(rows))}
}

// Open ticks the retrievers shown now; rankersOff (nil: none) is the
// refusal of a tick of any retriever but Activation Energy, on a source
// that serves only that one.
func (p *Model) Open(shown []string, rankersOff error) {
	p.rankersOff = rankersOff
	p.ticked = make([]bool, len(p.rows))
	for i, r := range p.rows {
		p.ticked[i] = slices.Contains(shown, r.Name)
	}
}

func refuse(err error) tea.Cmd { return func() tea.Msg { return RefusedMsg{err} } }

// Update takes a key while the picker is on top; done closes it.
func (p *Model) Update(msg tea.Msg) (done bool, cmd tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return false, nil
	}
	switch {
	case key.Matches(k, p.km.Cancel) || key.Matches(k, p.km.PickRetrievers):
		return true, nil
	case key.Matches(k, p.km.Up):
		p.cursor = max(0, p.cursor-1)
	case key.Matches(k, p.km.Down):
		p.cursor = min(len(p.rows)-1, p.cursor+1)
	case key.Matches(k, p.km.PickToggle):
		if p.rows[p.cursor].Name != activation.Name && p.rankersOff != nil {
			return false, refuse(p.rankersOff)
		}
		p.ticked[p.cursor] = !p.ticked[p.cursor]
	case key.Matches(k, p.km.Submit):
		return p.submit()
	}
	return false, nil
}

// submit applies the retrievers ticked, or says why it cannot.
func (p *Model) submit() (bool, tea.Cmd) {
	var names []string
	for i, on := range p.ticked {
		if on {
			names = append(names, p.rows[i].Name)
		}
	}
	if len(names) == 0 {
		return false, refuse(errors.New("tick at least one retriever (space), then enter"))
	}
	for i, on := range p.ticked {
		if on && p.rows[i].Combining && len(names) < 3 {
			return false, refuse(fmt.Errorf("%s fuses the other retrievers ticked: tick two or more besides it", p.rows[i].Name))
		}
	}
	return true, func() tea.Msg { return PickedMsg{Names: names} }
}

// Title is the overlay frame's title.
func (p *Model) Title() string {
	return "Retrievers · space ticks, enter applies (two or more: compare view), esc leaves"
}

// View is the rows with their tick boxes, the cursor's selected.
func (p *Model) View() string {
	lines := []string{p.st.Dim.Render("Tick one to show it alone, or several to compare their rankings side by side."), ""}
	for i, r := range p.rows {
		box := "[ ]"
		if i < len(p.ticked) && p.ticked[i] {
			box = "[x]"
		}
		row := fmt.Sprintf("%s %s", box, textsafe.Escape(r.Name))
		if r.Combining {
			row += p.st.Dim.Render("  (" + r.Purpose + " of the others ticked; compare view only)")
		}
		if i == p.cursor {
			lines = append(lines, p.st.Selected.Render(theme.Fit(theme.GlyphSelected+" "+row, p.w)))
			continue
		}
		lines = append(lines, "  "+row)
	}
	return strings.Join(lines, "\n")
}

// SetSize sets the inner size.
func (p *Model) SetSize(w, h int) { p.w, p.h = w, h }

// ShortHelp is the help line's keys while the picker is on top.
func (p *Model) ShortHelp() []key.Binding {
	return []key.Binding{p.km.Up, p.km.Down, p.km.PickToggle, p.km.Submit, keymap.CloseHelp("esc/X")}
}

// Close does nothing: the picker has no work in flight.
func (p *Model) Close() {}
