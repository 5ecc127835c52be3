package tui

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/tui/common"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// Parameter rows of the panel.
const (
	paramDepth = iota
	paramMinAct
	paramFloor
	paramBranches
	paramCount
)

// Bounds of the stepped parameters.
const (
	maxBranchesLimit = 20
	minActLow        = 1e-6
	minActHigh       = 1.0
)

// paramsPanel shows the four thresholds and steps them with keys.
type paramsPanel struct {
	*Common
	cfg     activation.Params
	cursor  int
	focused bool
	w, h    int
	valueEdit
}

func newParamsPanel(c *Common, cfg activation.Params) *paramsPanel {
	return &paramsPanel{Common: c, cfg: cfg, valueEdit: newValueEdit(c)}
}

// valueEdit is the typing of a parameter panel's selected value: while
// editing, input takes the keys.
type valueEdit struct {
	*Common
	editing bool
	input   textinput.Model
}

func newValueEdit(c *Common) valueEdit {
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
func (p *paramsPanel) SetSize(w, h int) { p.w, p.h = w, h }

// Focus gives the panel the keyboard.
func (p *paramsPanel) Focus() tea.Cmd {
	p.focused = true
	return nil
}

// Blur takes the keyboard away; a value being typed is dropped (and said
// so), as the threshold keeps the value it had.
func (p *paramsPanel) Blur() tea.Cmd {
	p.focused = false
	return p.drop(paramNames[p.cursor])
}

// Selected is the row under the cursor (paramDepth … paramBranches).
func (p *paramsPanel) Selected() int { return p.cursor }

// Config returns the current configuration.
func (p *paramsPanel) Config() activation.Params { return p.cfg }

// Update steps the selected parameter; the root compares Config before and
// after to start a new run.
func (p *paramsPanel) Update(msg tea.Msg) tea.Cmd {
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
	return p.rowKey(k, &p.cursor, paramCount, func() string { return p.valueText(p.cursor) }, p.step)
}

func (p *paramsPanel) step(dir int) {
	c := &p.cfg
	switch p.cursor {
	case paramDepth:
		c.MaxDepth = clampInt(c.MaxDepth+dir, activation.MinMaxDepth, activation.MaxMaxDepth)
	case paramMinAct:
		c.MinActivation = stepLog(c.MinActivation, dir)
	case paramFloor:
		c.TagSimFloor = retriever.StepLinear(c.TagSimFloor, 0.05, dir, 0, 1)
	case paramBranches:
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
var paramNames = [paramCount]string{"MAX_DEPTH", "MIN_ACTIVATION", "TAG_SIM_FLOOR", "MAX_BRANCHES"}

// valueText writes row i's value as the panel shows it.
func (p *paramsPanel) valueText(i int) string {
	switch i {
	case paramDepth:
		return strconv.Itoa(p.cfg.MaxDepth)
	case paramMinAct:
		return strconv.FormatFloat(p.cfg.MinActivation, 'g', -1, 64)
	case paramFloor:
		return strconv.FormatFloat(p.cfg.TagSimFloor, 'f', -1, 64)
	}
	return strconv.Itoa(p.cfg.MaxBranches)
}

// parsed is the configuration with the selected row set to raw.
func (p *paramsPanel) parsed(raw string) (activation.Params, error) {
	cfg := p.cfg
	switch p.cursor {
	case paramDepth, paramBranches:
		n, err := strconv.Atoi(raw)
		if err != nil {
			return cfg, fmt.Errorf("%q is not a whole number", raw)
		}
		if p.cursor == paramDepth {
			cfg.MaxDepth = n
		} else {
			cfg.MaxBranches = n
		}
	default:
		v, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			return cfg, fmt.Errorf("%q is not a number", raw)
		}
		if p.cursor == paramMinAct {
			cfg.MinActivation = v
		} else {
			cfg.TagSimFloor = v
		}
	}
	return cfg, cfg.Validate()
}

// View renders the four parameters, the selected one marked.
func (p *paramsPanel) View() string {
	names := paramNames
	var vals [paramCount]string
	for i := range paramCount {
		vals[i] = p.valueText(i)
	}
	vals[paramFloor] = strconv.FormatFloat(p.cfg.TagSimFloor, 'f', 2, 64)
	if p.cfg.TagSimFloor != math.Round(p.cfg.TagSimFloor*100)/100 {
		vals[paramFloor] = p.valueText(paramFloor) // a typed value with more digits
	}
	var lines []string
	for i := range paramCount {
		mark, name := "  ", p.St.Key.Render(fmt.Sprintf("%-14s", names[i]))
		val := p.St.Value.Render(vals[i])
		if i == p.cursor && p.focused && p.editing {
			lines = append(lines, glyphSelected+" "+fmt.Sprintf("%-14s ", names[i])+p.input.View())
			continue
		}
		if i == p.cursor && p.focused {
			mark = glyphSelected + " "
			line := fmt.Sprintf("%s%-14s ‹ %s ›", mark, names[i], vals[i])
			lines = append(lines, p.St.Selected.Render(line))
			continue
		}
		lines = append(lines, mark+name+" "+"  "+val)
	}
	return strings.Join(lines, "\n")
}

// ShortHelp lists the panel's main keys.
func (p *paramsPanel) ShortHelp() []key.Binding {
	if p.editing {
		return []key.Binding{p.KM.Submit, p.KM.Cancel}
	}
	return []key.Binding{p.KM.Up, p.KM.Down, p.KM.Increase, p.KM.Decrease, p.KM.EditParam}
}
