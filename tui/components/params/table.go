package params

import (
	"context"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/tui/common"
	"github.com/memoria-graph/memoria/tui/theme"
)

// Set is a ranking retriever as the explorer runs it: its parameters
// as rows of a panel, and a run with them. Every method leaves the set as
// it is: Step and Parse return changed copies. Each ranking retriever has
// one, made from its table (specset.go); the panel, the run slot and the results pane are
// the same for all.
type Set interface {
	// Rows is how many parameters the panel lists.
	Rows() int
	// Name, Range and Value are row i's name (escaped), range and value
	// as the panel shows them.
	Name(i int) string
	Range(i int) string
	Value(i int) string
	// Step moves row i one step within its range (dir ±1).
	Step(i, dir int) Set
	// Parse sets row i to a typed value, checked against its range.
	Parse(i int, raw string) (Set, error)
	// Equal reports whether o holds the same parameters.
	Equal(o Set) bool
	// Settings are the retriever's parameters (a value the set never
	// changes in place).
	Settings() retriever.Settings
	// Run runs the retriever with these parameters (inside a command).
	Run(ctx context.Context, nb graph.Neighbourhood, q retriever.Query) (retriever.Ranking, error)
}

// Table shows a ranking retriever's parameters with their ranges
// and steps or types them, as the thresholds panel does Activation
// Energy's. The root re-runs that retriever when Version moves.
type Table struct {
	*common.Common
	p       Set
	version int
	cursor  int
	off     int // the first row on screen
	focused bool
	w, h    int
	valueEdit
}

func NewTable(c *common.Common, p Set) *Table {
	return &Table{Common: c, p: p, valueEdit: newValueEdit(c)}
}

// Params returns the current parameters (a value never changed in place).
func (e *Table) Params() Set { return e.p }

// Version changes whenever a parameter changes.
func (e *Table) Version() int { return e.version }

// Selected is the selected row.
func (e *Table) Selected() int { return e.cursor }

// Replace sets the parameters to p (the value a held-out curve chose),
// moving Version when they differ.
func (e *Table) Replace(p Set) {
	if !e.p.Equal(p) {
		e.p = p
		e.version++
	}
}

// SetSize sets the inner size.
func (e *Table) SetSize(w, h int) { e.w, e.h = w, h }

// Focus gives the panel the keyboard.
func (e *Table) Focus() tea.Cmd {
	e.focused = true
	return nil
}

// Blur takes the keyboard away; a value being typed is dropped, and said
// so.
func (e *Table) Blur() tea.Cmd {
	e.focused = false
	return e.drop(e.p.Name(e.cursor))
}

// Update steps or types the selected parameter.
func (e *Table) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyMsg)
	if !ok || !e.focused {
		return nil
	}
	if e.editing {
		// enter applies a value that parses and is in range.
		return e.editKey(k, e.p.Name(e.cursor), func(raw string) error {
			p, err := e.p.Parse(e.cursor, raw)
			if err == nil {
				e.apply(p)
			}
			return err
		})
	}
	return e.rowKey(k, &e.cursor, e.p.Rows(), func() string { return e.p.Value(e.cursor) },
		func(dir int) { e.apply(e.p.Step(e.cursor, dir)) })
}

// apply takes p when it differs from the current parameters.
func (e *Table) apply(p Set) {
	if p.Equal(e.p) {
		return
	}
	e.p = p
	e.version++
}

// View renders the rows that fit, the selected one kept on screen and
// marked with its range.
func (e *Table) View() string {
	n, h := e.p.Rows(), max(1, e.h)
	if e.cursor < e.off {
		e.off = e.cursor
	} else if e.cursor >= e.off+h {
		e.off = e.cursor - h + 1
	}
	e.off = max(0, min(e.off, n-h))
	var lines []string
	for i := e.off; i < min(n, e.off+h); i++ {
		name, val := fmt.Sprintf("%-14s", e.p.Name(i)), e.p.Value(i)
		switch {
		case i == e.cursor && e.focused && e.editing:
			lines = append(lines, theme.GlyphSelected+" "+name+" "+e.input.View())
		case i == e.cursor && e.focused:
			lines = append(lines, e.St.Selected.Render(fmt.Sprintf("%s %s ‹ %s › %s", theme.GlyphSelected, name, val, e.p.Range(i))))
		default:
			lines = append(lines, "  "+e.St.Key.Render(name)+"   "+e.St.Value.Render(val))
		}
	}
	if e.off+h < n && len(lines) > 0 {
		lines[len(lines)-1] += e.St.Dim.Render(fmt.Sprintf("  ↓ %d more", n-e.off-h))
	}
	return strings.Join(lines, "\n")
}

// ShortHelp lists the panel's main keys.
func (e *Table) ShortHelp() []key.Binding {
	if e.editing {
		return []key.Binding{e.KM.Submit, e.KM.Cancel}
	}
	return []key.Binding{e.KM.Up, e.KM.Down, e.KM.Increase, e.KM.Decrease, e.KM.EditParam}
}
