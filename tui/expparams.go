package tui

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/keymap"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever/expansion"
)

// Rows of the expansion's panel: H, f, δ, K, then one per type weight (by
// type).
const (
	expHops = iota
	expFactor
	expDecay
	expTopK
	expTypes // the first type weight's row
)

// Steps and bounds of the expansion's stepped parameters (Validate has the
// ranges; K has no upper bound, the panel stops stepping at topKLimit).
const (
	expUnitStep = 0.05 // f and δ
	expTypeStep = 0.1  // a type weight
	topKLimit   = 1000
)

// expParamsPanel shows the typed expansion's parameters (docs/RETRIEVERS.md,
// "Typed expansion"): H, f, δ, K and each type's weight, with their ranges.
// It steps them with the keys of the thresholds panel, or takes a typed
// value. The root re-runs the expansion when Version moves.
type expParamsPanel struct {
	km      keymap.KeyMap
	st      *Styles
	p       expansion.Params
	types   []string // the table's types, sorted: rows expTypes…
	version int
	cursor  int
	off     int // the first row on screen
	focused bool
	w, h    int
	valueEdit
}

func newExpParamsPanel(km keymap.KeyMap, st *Styles, p expansion.Params) *expParamsPanel {
	e := &expParamsPanel{km: km, st: st, valueEdit: newValueEdit(km, st)}
	e.set(p)
	return e
}

// set takes p (a copy) as the parameters.
func (e *expParamsPanel) set(p expansion.Params) {
	e.p = p.Clone()
	e.types = slices.Sorted(maps.Keys(e.p.TypeWeights))
}

// Params returns a copy of the current parameters.
func (e *expParamsPanel) Params() expansion.Params { return e.p.Clone() }

// Version changes whenever a parameter changes.
func (e *expParamsPanel) Version() int { return e.version }

func (e *expParamsPanel) rows() int { return expTypes + len(e.types) }

// SetSize sets the inner size.
func (e *expParamsPanel) SetSize(w, h int) { e.w, e.h = w, h }

// Focus gives the panel the keyboard.
func (e *expParamsPanel) Focus() tea.Cmd {
	e.focused = true
	return nil
}

// Blur takes the keyboard away; a value being typed is dropped, and said
// so.
func (e *expParamsPanel) Blur() tea.Cmd {
	e.focused = false
	return e.drop(e.name(e.cursor))
}

// name is row i's name as the panel shows it.
func (e *expParamsPanel) name(i int) string {
	switch i {
	case expHops:
		return "MAX_HOPS H"
	case expFactor:
		return "FACTOR f"
	case expDecay:
		return "DECAY δ"
	case expTopK:
		return "TOP_K K"
	}
	return textsafe.Escape(e.types[i-expTypes])
}

// rangeText is row i's range.
func rangeText(i int) string {
	switch i {
	case expHops:
		return fmt.Sprintf("%d–%d", expansion.MinHops, expansion.MaxHops)
	case expFactor, expDecay:
		return "(0,1]"
	case expTopK:
		return "≥1"
	}
	return "[−1,1]"
}

// valueText is row i's value.
func (e *expParamsPanel) valueText(i int) string {
	switch i {
	case expHops:
		return strconv.Itoa(e.p.MaxHops)
	case expFactor:
		return render.Num(e.p.ExpansionFactor)
	case expDecay:
		return render.Num(e.p.DepthDecay)
	case expTopK:
		return strconv.Itoa(e.p.TopK)
	}
	return render.Num(e.p.TypeWeights[e.types[i-expTypes]])
}

// Update steps or types the selected parameter.
func (e *expParamsPanel) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyMsg)
	if !ok || !e.focused {
		return nil
	}
	if e.editing {
		// enter applies a value that parses and is in range
		// (expansion.Params.Validate).
		return e.editKey(k, e.name(e.cursor), func(raw string) error {
			p, err := e.parsed(raw)
			if err == nil {
				e.apply(p)
			}
			return err
		})
	}
	return e.rowKey(k, &e.cursor, e.rows(), func() string { return e.valueText(e.cursor) }, e.step)
}

// step moves the selected parameter one step within its range; a change
// moves the version.
func (e *expParamsPanel) step(dir int) {
	p := e.p.Clone()
	switch e.cursor {
	case expHops:
		p.MaxHops = clampInt(p.MaxHops+dir, expansion.MinHops, expansion.MaxHops)
	case expFactor:
		p.ExpansionFactor = stepLinear(p.ExpansionFactor, expUnitStep, dir, expUnitStep, 1)
	case expDecay:
		p.DepthDecay = stepLinear(p.DepthDecay, expUnitStep, dir, expUnitStep, 1)
	case expTopK:
		p.TopK = clampInt(p.TopK+dir, 1, max(topKLimit, p.TopK))
	default:
		t := e.types[e.cursor-expTypes]
		p.TypeWeights[t] = stepLinear(p.TypeWeights[t], expTypeStep, dir, -1, 1)
	}
	e.apply(p)
}

// apply takes p when it differs from the current parameters.
func (e *expParamsPanel) apply(p expansion.Params) {
	if p.MaxHops == e.p.MaxHops && p.ExpansionFactor == e.p.ExpansionFactor && p.DepthDecay == e.p.DepthDecay &&
		p.TopK == e.p.TopK && maps.Equal(p.TypeWeights, e.p.TypeWeights) {
		return
	}
	e.p = p
	e.version++
}

// parsed is the parameters with the selected row set to raw.
func (e *expParamsPanel) parsed(raw string) (expansion.Params, error) {
	p := e.p.Clone()
	if e.cursor == expHops || e.cursor == expTopK {
		n, err := strconv.Atoi(raw)
		if err != nil {
			return p, fmt.Errorf("%q is not a whole number", raw)
		}
		if e.cursor == expHops {
			p.MaxHops = n
		} else {
			p.TopK = n
		}
		return p, p.Validate()
	}
	v, err := strconv.ParseFloat(raw, 64)
	if err != nil {
		return p, fmt.Errorf("%q is not a number", raw)
	}
	switch e.cursor {
	case expFactor:
		p.ExpansionFactor = v
	case expDecay:
		p.DepthDecay = v
	default:
		p.TypeWeights[e.types[e.cursor-expTypes]] = v
	}
	return p, p.Validate()
}

// View renders the rows that fit, the selected one kept on screen and
// marked with its range.
func (e *expParamsPanel) View() string {
	n, h := e.rows(), max(1, e.h)
	if e.cursor < e.off {
		e.off = e.cursor
	} else if e.cursor >= e.off+h {
		e.off = e.cursor - h + 1
	}
	e.off = max(0, min(e.off, n-h))
	var lines []string
	for i := e.off; i < min(n, e.off+h); i++ {
		name, val := fmt.Sprintf("%-14s", e.name(i)), e.valueText(i)
		switch {
		case i == e.cursor && e.focused && e.editing:
			lines = append(lines, glyphSelected+" "+name+" "+e.input.View())
		case i == e.cursor && e.focused:
			lines = append(lines, e.st.Selected.Render(fmt.Sprintf("%s %s ‹ %s › %s", glyphSelected, name, val, rangeText(i))))
		default:
			lines = append(lines, "  "+e.st.Key.Render(name)+"   "+e.st.Value.Render(val))
		}
	}
	if e.off+h < n && len(lines) > 0 {
		lines[len(lines)-1] += e.st.Dim.Render(fmt.Sprintf("  ↓ %d more", n-e.off-h))
	}
	return strings.Join(lines, "\n")
}

// ShortHelp lists the panel's main keys.
func (e *expParamsPanel) ShortHelp() []key.Binding {
	if e.editing {
		return []key.Binding{e.km.Submit, e.km.Cancel}
	}
	return []key.Binding{e.km.Up, e.km.Down, e.km.Increase, e.km.Decrease, e.km.EditParam}
}
