// Package seeds is the explorer's seed picker (docs/EXPLORER.md): the graph's
// nodes, listed page by page, filtered and ranked as the catalog ranks them,
// and the seeds chosen among them with their scores R. It answers the root
// through its methods (Seeds, Version) and the status messages of
// tui/common; its pages and ticks are its own messages.
package seeds

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/tui/common"
	"github.com/memoria-graph/memoria/tui/theme"
)

const (
	// NodePageSize is how many nodes one ListNodes page holds.
	NodePageSize  = 50
	loadAheadRows = 10
	// defaultSeedScore is a new seed's R: 1, as `memoria explore --seed ID`
	// takes it (docs/EXPLORER.md), so the two front ends agree.
	defaultSeedScore = 1.0
	scoreStep        = 0.05
	// seedTextWidth is the most runes of a node's text in a picker row.
	seedTextWidth = 120
)

// Picker lists the graph's nodes (filtered and ranked: graph/filter.go) and holds the seeds
// with their scores R.
type Picker struct {
	*common.Common
	cat      graph.Catalog
	maxSeeds int

	all, match nodeStream // the unfiltered list; server matches of the filter
	known      map[string]graph.NodeSummary
	visible    []graph.NodeSummary
	cursor     int
	offset     int // first visible row

	// seq numbers node streams (NodesLoadedMsg.seq): a page whose stream
	// was replaced is dropped. edits numbers filter edits: only the last
	// edit's tick starts a server search (FilterTickMsg).
	seq, edits int
	// debounce is how long the filter rests before the server is searched
	// (FilterDebounce); tick starts that timer (tea.Tick). Tests set both.
	debounce time.Duration
	tick     TickFunc

	filter  textinput.Model
	editing bool   // typing a score
	editID  string // the seed whose score is being typed
	score   textinput.Model

	seeds   []retriever.Seed
	version int // bumped whenever the seeds change
	focused bool
	w, h    int
}

func New(c *common.Common, cat graph.Catalog, maxSeeds int, seeds []retriever.Seed) *Picker {
	st := c.St
	f := st.NewInput("/ ", "filter nodes")
	sc := st.NewInput("R = ", "")
	sc.CharLimit = 12
	return &Picker{Common: c, cat: cat, maxSeeds: maxSeeds,
		known: map[string]graph.NodeSummary{}, filter: f, score: sc,
		debounce: FilterDebounce, tick: tea.Tick,
		seeds: append([]retriever.Seed(nil), seeds...)}
}

// Init loads the first page of nodes.
func (p *Picker) Init() tea.Cmd {
	return p.startStream(&p.all, "")
}

// Focus gives the picker the keyboard (the list; / opens the filter).
func (p *Picker) Focus() tea.Cmd {
	p.focused = true
	return nil
}

// Blur takes the keyboard away. The filter input loses focus (its text
// stays and keeps filtering). A score being typed is applied to its seed
// when it is valid; otherwise the edit is abandoned and the status line
// says so: nothing typed is dropped silently.
func (p *Picker) Blur() tea.Cmd {
	p.focused = false
	p.filter.Blur()
	if !p.editing {
		return nil
	}
	raw, id := strings.TrimSpace(p.score.Value()), p.editID
	p.endEdit()
	v, err := parseScore(raw)
	if err != nil {
		return common.NotifyErr(fmt.Errorf("score edit for %s abandoned, R stays %s: %w", id, p.scoreOf(id), err))
	}
	return p.applyScore(id, v)
}

// SetSize sets the inner size.
func (p *Picker) SetSize(w, h int) {
	p.w, p.h = w, h
	p.filter.Width = max(1, w-4)
	p.clampOffset()
}

// Seeds returns a copy of the chosen seeds.
func (p *Picker) Seeds() []retriever.Seed {
	return append([]retriever.Seed(nil), p.seeds...)
}

// Version changes whenever the seeds or their scores change.
func (p *Picker) Version() int { return p.version }

// Title is the pane's title: the seeds chosen out of the most allowed.
func (p *Picker) Title() string { return fmt.Sprintf("Seeds %d/%d", len(p.seeds), p.maxSeeds) }

// Typing reports whether a text input of the picker has the keyboard.
func (p *Picker) Typing() bool { return p.filter.Focused() || p.editing }

// listHeight is the number of node rows shown.
func (p *Picker) listHeight() int { return max(1, p.h-2) }

// Update handles keys when focused and loaded pages at any time.
func (p *Picker) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case NodesLoadedMsg:
		return p.loaded(msg)
	case FilterTickMsg:
		return p.filterTick(msg)
	case tea.MouseMsg:
		if msg.Action != tea.MouseActionPress {
			return nil
		}
		switch msg.Button {
		case tea.MouseButtonWheelUp:
			p.MoveTo(p.cursor - 3)
		case tea.MouseButtonWheelDown:
			p.MoveTo(p.cursor + 3)
			return p.maybeLoad()
		}
		return nil
	case tea.KeyMsg:
		if !p.focused {
			return nil
		}
		if p.editing {
			return p.updateScoreInput(msg)
		}
		if p.filter.Focused() {
			return p.updateFilter(msg)
		}
		return p.updateList(msg)
	}
	return nil
}

func (p *Picker) updateFilter(msg tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(msg, p.KM.Cancel):
		p.filter.SetValue("")
		p.filter.Blur()
	case key.Matches(msg, p.KM.Submit):
		p.filter.Blur()
		return nil
	case key.Matches(msg, p.KM.Reload):
		return p.reload()
	case msg.Type == tea.KeyUp || msg.Type == tea.KeyDown:
		return p.updateList(msg)
	default:
		var cmd tea.Cmd
		p.filter, cmd = p.filter.Update(msg)
		return tea.Batch(cmd, p.filterChanged())
	}
	return p.filterChanged()
}

func (p *Picker) updateList(msg tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(msg, p.KM.Filter):
		return p.filter.Focus()
	case key.Matches(msg, p.KM.Cancel):
		if p.filter.Value() != "" {
			p.filter.SetValue("")
			return p.filterChanged()
		}
	case key.Matches(msg, p.KM.Up):
		p.MoveTo(p.cursor - 1)
	case key.Matches(msg, p.KM.Down):
		p.MoveTo(p.cursor + 1)
	case key.Matches(msg, p.KM.PageUp):
		p.MoveTo(p.cursor - p.listHeight())
	case key.Matches(msg, p.KM.PageDown):
		p.MoveTo(p.cursor + p.listHeight())
	case key.Matches(msg, p.KM.Top):
		p.MoveTo(0)
	case key.Matches(msg, p.KM.Bottom):
		p.MoveTo(len(p.visible) - 1)
	case key.Matches(msg, p.KM.ToggleSeed):
		return p.toggle()
	case key.Matches(msg, p.KM.ScoreUp):
		return p.stepScore(+1)
	case key.Matches(msg, p.KM.ScoreDown):
		return p.stepScore(-1)
	case key.Matches(msg, p.KM.EditScore):
		return p.startEdit()
	case key.Matches(msg, p.KM.Reload):
		return p.reload()
	}
	return p.maybeLoad()
}

func (p *Picker) MoveTo(i int) {
	p.cursor = max(0, min(len(p.visible)-1, i))
	p.clampOffset()
}

func (p *Picker) clampOffset() {
	h := p.listHeight()
	if p.cursor < p.offset {
		p.offset = p.cursor
	}
	if p.cursor >= p.offset+h {
		p.offset = p.cursor - h + 1
	}
	p.offset = max(0, min(p.offset, len(p.visible)-h))
}

// Current returns the node under the cursor.
func (p *Picker) Current() (graph.NodeSummary, bool) {
	if p.cursor < 0 || p.cursor >= len(p.visible) {
		return graph.NodeSummary{}, false
	}
	return p.visible[p.cursor], true
}

func (p *Picker) seedIndex(id string) int {
	for i, s := range p.seeds {
		if s.NodeID == id {
			return i
		}
	}
	return -1
}

func (p *Picker) toggle() tea.Cmd {
	n, ok := p.Current()
	if !ok {
		return nil
	}
	if i := p.seedIndex(n.ID); i >= 0 {
		p.seeds = append(p.seeds[:i], p.seeds[i+1:]...)
		p.version++
		return common.Notify(fmt.Sprintf("removed seed %s", n.ID))
	}
	if len(p.seeds) >= p.maxSeeds {
		return common.NotifyErr(fmt.Errorf("at most %d seeds: unselect one before adding %s", p.maxSeeds, n.ID))
	}
	p.seeds = append(p.seeds, retriever.Seed{NodeID: n.ID, Score: defaultSeedScore})
	p.version++
	return common.Notify(fmt.Sprintf("added seed %s with R %s (+/- to change, r to type)", n.ID, render.Num(defaultSeedScore)))
}

// currentSeed returns the row under the cursor and its index among the
// seeds, or a command that says why there is none to act on.
func (p *Picker) currentSeed() (graph.NodeSummary, int, tea.Cmd) {
	n, ok := p.Current()
	if !ok {
		return n, -1, nil
	}
	i := p.seedIndex(n.ID)
	if i < 0 {
		return n, -1, common.NotifyErr(fmt.Errorf("%s is not a seed: press space to choose it first", n.ID))
	}
	return n, i, nil
}

func (p *Picker) stepScore(dir int) tea.Cmd {
	_, i, cmd := p.currentSeed()
	if i < 0 {
		return cmd
	}
	v := retriever.StepLinear(p.seeds[i].Score, scoreStep, dir, scoreStep, 1)
	id := p.seeds[i].NodeID
	if v == p.seeds[i].Score {
		// Say so: the status line otherwise kept an older message
		// ("added seed … with R 1") that no longer held.
		return common.Notify(fmt.Sprintf("%s: R stays %s (R is in [%s, 1] by + and -)", id, render.Num(v), render.Num(scoreStep)))
	}
	p.seeds[i].Score = v
	p.version++
	return common.Notify(fmt.Sprintf("%s: R = %s", id, render.Num(v)))
}

func (p *Picker) startEdit() tea.Cmd {
	n, i, cmd := p.currentSeed()
	if i < 0 {
		return cmd
	}
	p.editing, p.editID = true, n.ID
	p.score.SetValue(strconv.FormatFloat(p.seeds[i].Score, 'f', -1, 64))
	p.score.CursorEnd()
	return p.score.Focus()
}

// updateScoreInput edits the score of the seed the edit started on
// (editID): pages arriving meanwhile may re-rank the list and move the
// cursor to another row, so the row under the cursor is not used.
func (p *Picker) updateScoreInput(msg tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(msg, p.KM.Cancel):
		p.endEdit()
		return nil
	case key.Matches(msg, p.KM.Submit):
		raw := strings.TrimSpace(p.score.Value())
		v, err := parseScore(raw)
		if err != nil {
			return common.NotifyErr(err) // stay in the input so the value can be fixed
		}
		id := p.editID
		p.endEdit()
		return p.applyScore(id, v)
	}
	var cmd tea.Cmd
	p.score, cmd = p.score.Update(msg)
	return cmd
}

func (p *Picker) endEdit() {
	p.editing, p.editID = false, ""
	p.score.Blur()
}

// applyScore sets seed id's score R to v.
func (p *Picker) applyScore(id string, v float64) tea.Cmd {
	i := p.seedIndex(id)
	if i < 0 {
		return common.NotifyErr(fmt.Errorf("%s is no longer a seed: R %s not applied", id, common.ExactNum(v)))
	}
	if p.seeds[i].Score != v {
		p.seeds[i].Score = v
		p.version++
	}
	return common.Notify(fmt.Sprintf("%s: R = %s", id, common.ExactNum(v)))
}

// scoreOf is seed id's score as shown, "?" when id is not a seed.
func (p *Picker) scoreOf(id string) string {
	if i := p.seedIndex(id); i >= 0 {
		return common.ExactNum(p.seeds[i].Score)
	}
	return "?"
}

// parseScore accepts what retriever.ValidateScore accepts: a finite number
// in (0, 1].
func parseScore(raw string) (float64, error) {
	v, err := strconv.ParseFloat(raw, 64)
	if err == nil {
		err = retriever.ValidateScore(v)
	}
	if err != nil {
		return 0, fmt.Errorf("score %q refused: R must be a number in (0, 1]", raw)
	}
	return v, nil
}

// View renders the filter line and the visible rows.
func (p *Picker) View() string {
	var lines []string
	switch {
	case p.editing:
		lines = append(lines, p.score.View())
	case p.filter.Focused() || p.filter.Value() != "":
		lines = append(lines, p.filter.View())
	default:
		lines = append(lines, p.St.Dim.Render(fmt.Sprintf("/ filter · seeds %d/%d", len(p.seeds), p.maxSeeds)))
	}
	h := p.listHeight()
	end := min(len(p.visible), p.offset+h)
	for i := p.offset; i < end; i++ {
		lines = append(lines, p.row(p.visible[i], i == p.cursor))
	}
	if len(p.visible) == 0 {
		msg := "no nodes"
		switch s := p.shown(); {
		case p.all.loading || p.match.loading:
			msg = "loading…"
		case s.err != nil:
			msg = "could not list nodes: " + p.KM.Reload.Help().Key + " retries"
		}
		lines = append(lines, p.St.Dim.Render(msg))
	}
	lines = append(lines, make([]string, max(0, h+1-len(lines)))...)
	lines = append(lines, p.footer())
	return strings.Join(lines, "\n")
}

func (p *Picker) footer() string {
	s := p.shown()
	more := ""
	switch {
	case s.loading:
		more = " · loading…"
	case s.err != nil:
		more = " · failed: " + p.KM.Reload.Help().Key + " retries"
	case s.more:
		more = " · more ↓"
	}
	return p.St.Dim.Render(fmt.Sprintf("%d/%d%s", min(p.cursor+1, len(p.visible)), len(p.visible), more))
}

// row draws one node of the list: its name (naming.go: the id unless a
// property names it), label and text, which come from the graph and are
// escaped (textsafe.Escape).
func (p *Picker) row(n graph.NodeSummary, selected bool) string {
	box, r := "[ ]", ""
	if i := p.seedIndex(n.ID); i >= 0 {
		box, r = "[x]", " R="+render.Num(p.seeds[i].Score)
	}
	id, label := textsafe.Escape(p.Names.SummaryLead(n)), ""
	if g := p.Marks.Grade(n.ID); g > 0 {
		id += " " + common.MarkGlyph(g)
	}
	if len(n.Labels) > 0 {
		label = " " + textsafe.Escape(n.Labels[0])
	}
	text := textsafe.Escape(render.Truncate(strings.Join(strings.Fields(n.Text), " "), seedTextWidth))
	if selected && p.focused {
		return p.St.Selected.Render(theme.Fit(theme.GlyphSelected+" "+box+" "+id+r+label+"  "+text, p.w))
	}
	mark := "  "
	if selected {
		mark = theme.GlyphSelected + " "
	}
	return mark + box + " " + p.St.ID.Render(id) + p.St.Metric.Render(r) + p.St.Label.Render(label) + "  " + p.St.Dim.Render(text)
}

// ShortHelp lists the picker's main keys.
func (p *Picker) ShortHelp() []key.Binding {
	var keys []key.Binding
	if p.Typing() {
		keys = []key.Binding{p.KM.Submit, p.KM.Cancel}
	} else {
		keys = []key.Binding{p.KM.Filter, p.KM.ToggleSeed, p.KM.ScoreUp, p.KM.ScoreDown, p.KM.EditScore}
	}
	if p.shown().err != nil && !p.editing {
		keys = append(keys, p.KM.Reload)
	}
	return keys
}
