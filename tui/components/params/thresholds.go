// Package params is the explorer's parameter panels (docs/EXPLORER.md):
// Activation Energy's thresholds (Thresholds) and a ranking retriever's table
// (Table, over a Set such as SpecSet, made from the retriever's own table),
// each stepped with keys or typed. The root reads them through their
// methods (Config, Selected, Params, Version).
package params

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/tui/common"
	"github.com/memoria-graph/memoria/tui/theme"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// Parameter rows of the panel.
const (
	RowDepth = iota
	RowMinAct
	RowFloor
	RowBranches
	RowCount
)

// Bounds of the stepped parameters.
const (
	maxBranchesLimit = 20
	minActLow        = 1e-6
	minActHigh       = 1.0
)

// Thresholds shows the four thresholds and steps them with keys.
type Thresholds struct {
	*common.Common
	cfg     activation.Params
	cursor  int
	focused bool
	w, h    int
	valueEdit
}

func NewThresholds(c *common.Common, cfg activation.Params) *Thresholds {
	return &Thresholds{Common: c, cfg: cfg, valueEdit: newValueEdit(c)}
}

// valueEdit is the typing of a parameter panel's selected value: while
// editing, input takes the keys.
type valueEdit struct {
	*common.Common
	editing bool
	input   textinput.Model
}

func newValueEdit(c *common.Common) valueEdit {
	return valueEdit{Common: c, input: c.St.NewInput("", "")}
}

// Typing reports whether a value is being typed.
func (v *valueEdit) Typing() bool { return v.editing }

// begin opens the input on value.
func (v *valueEdit) begin(value string) tea.Cmd {
	v.editing = true
	v.input.SetValue(value)
	v.input.CursorEnd()
	return v.input.Focus()
}

func (v *valueEdit) endEdit() {
	v.editing = false
	v.input.Blur()
}

// drop ends the typing when the panel loses the keyboard: the value typed
// is dropped, and said so (name: the row's).
func (v *valueEdit) drop(name string) tea.Cmd {
	if !v.editing {
		return nil
	}
	raw := v.input.Value()
	v.endEdit()
	return common.Notify(fmt.Sprintf("%s not changed: %q was not confirmed with %s", name, raw, v.KM.Submit.Help().Key))
}

// editKey handles a key while a value is typed: enter gives the trimmed
// text to apply and ends the typing, unless apply says why not (then it
// stays in the input so the value can be fixed); esc drops it.
func (v *valueEdit) editKey(k tea.KeyMsg, name string, apply func(raw string) error) tea.Cmd {
	switch {
	case key.Matches(k, v.KM.Cancel):
		v.endEdit()
		return nil
	case key.Matches(k, v.KM.Submit):
		if err := apply(strings.TrimSpace(v.input.Value())); err != nil {
			return common.NotifyErr(fmt.Errorf("%s: %w", name, err))
		}
		v.endEdit()
		return nil
	}
	var cmd tea.Cmd
	v.input, cmd = v.input.Update(k)
	return cmd
}

// rowKey handles a panel's key outside typing: up and down move the
// cursor over n rows (wrapping), increase and decrease step the selected
// row, and the edit key opens the input on its value.
func (v *valueEdit) rowKey(k tea.KeyMsg, cursor *int, n int, value func() string, step func(dir int)) tea.Cmd {
	switch {
	case key.Matches(k, v.KM.EditParam):
		return v.begin(value())
	case key.Matches(k, v.KM.Up):
		*cursor = (*cursor + n - 1) % n
	case key.Matches(k, v.KM.Down):
		*cursor = (*cursor + 1) % n
	case key.Matches(k, v.KM.Increase):
		step(+1)
	case key.Matches(k, v.KM.Decrease):
		step(-1)
	}
	return nil
}

// SetSize sets the inner size.
func (p *Thresholds) SetSize(w, h int) { p.w, p.h = w, h }

// Focus gives the panel the keyboard.
func (p *Thresholds) Focus() tea.Cmd {
	p.focused = true
	return nil
}

// Blur takes the keyboard away; a value being typed is dropped (and said
// so), as the threshold keeps the value it had.
func (p *Thresholds) Blur() tea.Cmd {
	p.focused = false
	return p.drop(paramNames[p.cursor])
}

// Selected is the row under the cursor (RowDepth … RowBranches).
func (p *Thresholds) Selected() int { return p.cursor }

// Config returns the current configuration.
func (p *Thresholds) Config() activation.Params { return p.cfg }

// SetConfig sets the configuration (the sweep's chosen value), when it is
// valid (activation.Params.Validate).
func (p *Thresholds) SetConfig(cfg activation.Params) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	p.cfg = cfg
	return nil
}

// Update steps the selected parameter; the root compares Config before and
// after to start a new run.
func (p *Thresholds) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyMsg)
	if !ok || !p.focused {
		return nil
	}
	if p.editing {
		// enter applies a value that parses and is in range
		// (activation.Params.Validate).
		return p.editKey(k, paramNames[p.cursor], func(raw string) error {
			cfg, err := p.parsed(raw)
			if err == nil {
				p.cfg = cfg
			}
			return err
		})
	}
	return p.rowKey(k, &p.cursor, RowCount, func() string { return p.valueText(p.cursor) }, p.step)
}

func (p *Thresholds) step(dir int) {
	c := &p.cfg
	switch p.cursor {
	case RowDepth:
		c.MaxDepth = clampInt(c.MaxDepth+dir, activation.MinMaxDepth, activation.MaxMaxDepth)
	case RowMinAct:
		c.MinActivation = stepLog(c.MinActivation, dir)
	case RowFloor:
		c.TagSimFloor = retriever.StepLinear(c.TagSimFloor, 0.05, dir, 0, 1)
	case RowBranches:
		c.MaxBranches = clampInt(c.MaxBranches+dir, 1, maxBranchesLimit)
	}
}

func clampInt(v, lo, hi int) int { return max(lo, min(hi, v)) }

// logGrid is the 1-2-5 grid of MIN_ACTIVATION values from 1e-6 to 1.
var logGrid = func() []float64 {
	var g []float64
	for e := -6; e <= 0; e++ {
		for _, m := range []int{1, 2, 5} {
			v, _ := strconv.ParseFloat(fmt.Sprintf("%de%d", m, e), 64)
			if v <= minActHigh {
				g = append(g, v)
			}
		}
	}
	return g
}()

// stepLog moves v to the next grid value above (dir > 0) or below it. From
// a value between grid points it goes to the neighbouring grid value, so
// 0.003 steps up to 0.005 and down to 0.002.
func stepLog(v float64, dir int) float64 {
	const eps = 1e-9
	if dir > 0 {
		for _, g := range logGrid {
			if g > v*(1+eps) {
				return g
			}
		}
		return logGrid[len(logGrid)-1]
	}
	for i := len(logGrid) - 1; i >= 0; i-- {
		if logGrid[i] < v*(1-eps) {
			return logGrid[i]
		}
	}
	return logGrid[0]
}

// paramNames are the thresholds' names, by row.
var paramNames = [RowCount]string{"MAX_DEPTH", "MIN_ACTIVATION", "TAG_SIM_FLOOR", "MAX_BRANCHES"}

// valueText writes row i's value as the panel shows it.
func (p *Thresholds) valueText(i int) string {
	switch i {
	case RowDepth:
		return strconv.Itoa(p.cfg.MaxDepth)
	case RowMinAct:
		return strconv.FormatFloat(p.cfg.MinActivation, 'g', -1, 64)
	case RowFloor:
		return strconv.FormatFloat(p.cfg.TagSimFloor, 'f', -1, 64)
	}
	return strconv.Itoa(p.cfg.MaxBranches)
}

// parsed is the configuration with the selected row set to raw.
func (p *Thresholds) parsed(raw string) (activation.Params, error) {
	cfg := p.cfg
	switch p.cursor {
	case RowDepth, RowBranches:
		n, err := strconv.Atoi(raw)
		if err != nil {
			return cfg, fmt.Errorf("%q is not a whole number", raw)
		}
		if p.cursor == RowDepth {
			cfg.MaxDepth = n
		} else {
			cfg.MaxBranches = n
		}
	default:
		v, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			return cfg, fmt.Errorf("%q is not a number", raw)
		}
		if p.cursor == RowMinAct {
			cfg.MinActivation = v
		} else {
			cfg.TagSimFloor = v
		}
	}
	return cfg, cfg.Validate()
}

// View renders the four parameters, the selected one marked.
func (p *Thresholds) View() string {
	names := paramNames
	var vals [RowCount]string
	for i := range RowCount {
		vals[i] = p.valueText(i)
	}
	vals[RowFloor] = strconv.FormatFloat(p.cfg.TagSimFloor, 'f', 2, 64)
	if p.cfg.TagSimFloor != math.Round(p.cfg.TagSimFloor*100)/100 {
		vals[RowFloor] = p.valueText(RowFloor) // a typed value with more digits
	}
	var lines []string
	for i := range RowCount {
		mark, name := "  ", p.St.Key.Render(fmt.Sprintf("%-14s", names[i]))
		val := p.St.Value.Render(vals[i])
		if i == p.cursor && p.focused && p.editing {
			lines = append(lines, theme.GlyphSelected+" "+fmt.Sprintf("%-14s ", names[i])+p.input.View())
			continue
		}
		if i == p.cursor && p.focused {
			mark = theme.GlyphSelected + " "
			line := fmt.Sprintf("%s%-14s ‹ %s ›", mark, names[i], vals[i])
			lines = append(lines, p.St.Selected.Render(line))
			continue
		}
		lines = append(lines, mark+name+" "+"  "+val)
	}
	return strings.Join(lines, "\n")
}

// ShortHelp lists the panel's main keys.
func (p *Thresholds) ShortHelp() []key.Binding {
	if p.editing {
		return []key.Binding{p.KM.Submit, p.KM.Cancel}
	}
	return []key.Binding{p.KM.Up, p.KM.Down, p.KM.Increase, p.KM.Decrease, p.KM.EditParam}
}

// Focused reports whether the panel has the keyboard.
func (p *Thresholds) Focused() bool { return p.focused }
