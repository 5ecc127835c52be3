// Package query is the explorer's query line, the overlay a opens
// (docs/EXPLORER.md, "Asking a question"): the analyst types the agent's
// question and, as it is typed, the gather stage (retriever/gather,
// docs/RETRIEVERS.md "Gather") fills the list of candidates with their
// matcher scores, R and which would be the seeds; enter takes the ticked
// ones (the first --seed-k at first) as the seeds, space ticks or unticks
// one, and the tags `--tags auto` would pick are offered (ctrl+t takes or
// leaves them).
//
// The work is never done in Update or View: the gather's index is built
// once per graph, in a command; each gather runs in a command of its own
// under a run id and a cancellable context, on values that are the
// command's own (the query text, a copy of the settings, the index, which
// nothing writes once built); a reply of a superseded run is dropped, and
// typing is debounced (Debounce) so a word typed quickly costs one gather.
// It answers the root only through AppliedMsg and the status messages of
// tui/common, so the compiler keeps the root out of its fields.
package query

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/keymap"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/gather"
	"github.com/memoria-graph/memoria/tui/common"
	"github.com/memoria-graph/memoria/tui/theme"
)

// Debounce is how long the question must rest before it is gathered: a
// word typed quickly costs one gather, not one per keystroke.
const Debounce = 150 * time.Millisecond

// Msg is every message of the query line's own work (the index built, a
// debounce tick, a gather's reply): the root hands each to the overlay,
// with no case per type.
type Msg interface{ queryMsg() }

// indexMsg is the index build number seq's end.
type indexMsg struct {
	seq int
	ix  *gather.Index
	err error
}

// tickMsg ends the debounce of edit number edit.
type tickMsg struct{ edit int }

// resultMsg is the reply of gather run number run, for query.
type resultMsg struct {
	run   int
	query string
	res   gather.Result
	err   error
}

func (indexMsg) queryMsg()  {}
func (tickMsg) queryMsg()   {}
func (resultMsg) queryMsg() {}

// AppliedMsg is what enter took: the seeds (the ticked candidates, in
// their order, each with its R) and the tags the question names when
// they were taken (none otherwise).
type AppliedMsg struct {
	Seeds []retriever.Seed
	Tags  []string
	// Gathered says whether a node was gathered by the question taken,
	// as `why --query` says it first (render.GatheredText): a pure
	// computation over the index in memory, for the why panel's command.
	Gathered func(nodeID string) string
}

// TickFunc starts a timer: tea.Tick, or a fake clock in tests.
type TickFunc func(time.Duration, func(time.Time) tea.Msg) tea.Cmd

// Config is what the line gathers on: the graph read once to build the
// index (nil: the line cannot open, see Unavailable), the fields matched
// and the gather's settings (docs/RETRIEVERS.md, "Gather").
type Config struct {
	Ctx     context.Context
	Scan    graph.NodeScanner
	Fields  gather.Fields
	Options gather.Options
}

// Unavailable is why the line cannot open on this source ("" when it
// can): the gather stage reads the embedded engine's graph.
func (c Config) Unavailable(b key.Binding) string {
	if c.Scan == nil {
		return b.Help().Key + " (" + b.Help().Desc + ") gathers seeds on the embedded engine's graph (--graph or the demo " +
			"graph); on Neo4j the gather stage is not built yet (docs/EXPLORER.md, \"Asking a question\")"
	}
	return ""
}

// Model is the query line's state.
type Model struct {
	km  keymap.KeyMap
	st  *theme.Styles
	cfg Config

	input textinput.Model
	// The index: built once (building while its command runs, buildSeq
	// numbering the builds: a build cancelled by Close and started again
	// is told apart), or its failure.
	ix          *gather.Index
	ixErr       error
	building    bool
	buildSeq    int
	buildCancel context.CancelFunc
	// edits numbers the edits of the question (a tick of another is
	// dropped); asked is the text last gathered or waiting for the index.
	edits    int
	asked    string
	debounce time.Duration
	tick     TickFunc
	// run numbers the gathers (a reply of another is dropped); cancel
	// stops the one in flight.
	run     int
	running bool
	cancel  context.CancelFunc
	// The result shown: its query, candidates, the ticked ones, its
	// failure; the graph's tags and those the question names.
	query    string
	res      gather.Result
	err      error
	ticked   map[string]bool
	tags     []string
	auto     []string
	takeTags bool
	// inList: the keys move in the candidate list (space ticks) rather
	// than edit the question.
	inList         bool
	cursor, offset int
	w, h           int
}

// New is the query line over cfg (options completed by the caller).
func New(km keymap.KeyMap, st *theme.Styles, cfg Config) *Model {
	in := st.NewInput("? ", "type the agent's question")
	in.CharLimit = 1000
	return &Model{km: km, st: st, cfg: cfg, input: in, debounce: Debounce, tick: tea.Tick, takeTags: true, ticked: map[string]bool{}}
}

// SetClock sets the debounce and what starts its timer (tests run it on a
// fake clock).
func (m *Model) SetClock(d time.Duration, tick TickFunc) { m.debounce, m.tick = d, tick }

// Open gives the line the keyboard, with tags the graph's tags (for the
// tags the question names), and starts building the index if it is not
// built.
func (m *Model) Open(tags []string) tea.Cmd {
	m.tags, m.inList = slices.Clone(tags), false
	m.auto = m.autoTags(m.query)
	return tea.Batch(m.input.Focus(), m.build())
}

// Typing reports that the line takes text (q and ? are letters here).
func (m *Model) Typing() bool { return !m.inList }

// build starts the index's build in a command, unless it is built or
// being built.
func (m *Model) build() tea.Cmd {
	if m.ix != nil || m.building {
		return nil
	}
	m.building, m.ixErr = true, nil
	m.buildSeq++
	ctx, cancel := context.WithCancel(m.cfg.Ctx)
	m.buildCancel = cancel
	seq, scan, fields := m.buildSeq, m.cfg.Scan, m.cfg.Fields
	return common.SafeCmd(func() tea.Msg {
		ix, err := gather.Build(ctx, scan, fields)
		return indexMsg{seq: seq, ix: ix, err: err}
	})
}

// Update takes a key while the line is on top, or a message of its own
// work; done asks the root to close it.
func (m *Model) Update(msg tea.Msg) (bool, tea.Cmd) {
	switch msg := msg.(type) {
	case indexMsg:
		if msg.seq != m.buildSeq || !m.building {
			return false, nil
		}
		m.building, m.buildCancel = false, nil
		if msg.err != nil {
			m.ixErr = msg.err
			return false, nil
		}
		m.ix = msg.ix
		if m.asked != "" {
			return false, m.gather(m.asked)
		}
	case tickMsg:
		if msg.edit != m.edits {
			return false, nil // a later edit's tick will come
		}
		return false, m.gather(strings.TrimSpace(m.input.Value()))
	case resultMsg:
		if msg.run != m.run {
			return false, nil // a superseded gather's reply
		}
		m.apply(msg)
	case tea.KeyMsg:
		return m.key(msg)
	}
	return false, nil
}

// gather starts the gather of q in a command (or waits for the index).
func (m *Model) gather(q string) tea.Cmd {
	m.asked = q
	if m.cancel != nil {
		m.cancel()
		m.cancel = nil
	}
	m.run++
	m.running = false
	if q == "" {
		m.query, m.res, m.err, m.auto = "", gather.Result{}, nil, nil
		m.ticked = map[string]bool{}
		return nil
	}
	if m.ix == nil {
		return m.build() // the gather follows the index (indexMsg)
	}
	ctx, cancel := context.WithCancel(m.cfg.Ctx)
	m.cancel, m.running = cancel, true
	run, ix, opt := m.run, m.ix, m.cfg.Options
	opt.Matchers = slices.Clone(opt.Matchers)
	return common.SafeCmd(func() tea.Msg {
		res, err := ix.Gather(ctx, []string{q}, nil, opt)
		return resultMsg{run: run, query: q, res: res, err: err}
	})
}

// apply shows the reply of the gather in flight: its candidates, the
// seeds ticked, the tags the question names.
func (m *Model) apply(msg resultMsg) {
	m.running, m.cancel = false, nil
	m.query, m.res, m.err = msg.query, msg.res, msg.err
	m.ticked = map[string]bool{}
	for _, c := range m.res.Candidates {
		if c.Seed {
			m.ticked[c.NodeID] = true
		}
	}
	m.auto = m.autoTags(msg.query)
	m.cursor, m.offset = 0, 0
	if len(m.res.Candidates) == 0 {
		m.inList = false
	}
}

func (m *Model) autoTags(q string) []string {
	if q == "" {
		return nil
	}
	return gather.AutoTags(m.tags, []string{q})
}

func (m *Model) key(msg tea.KeyMsg) (bool, tea.Cmd) {
	km := m.km
	switch {
	case key.Matches(msg, km.Cancel):
		if m.inList {
			m.inList = false
			return false, m.input.Focus()
		}
		return true, nil
	case key.Matches(msg, km.Submit):
		return m.take()
	case key.Matches(msg, km.QueryTags):
		m.takeTags = !m.takeTags
		return false, nil
	}
	if m.inList {
		return false, m.listKey(msg)
	}
	if msg.Type == tea.KeyDown && len(m.res.Candidates) > 0 {
		m.inList = true
		m.input.Blur()
		return false, nil
	}
	before := strings.TrimSpace(m.input.Value())
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	if strings.TrimSpace(m.input.Value()) == before {
		return false, cmd
	}
	m.edits++
	edit := m.edits
	return false, tea.Batch(cmd, m.tick(m.debounce, func(time.Time) tea.Msg { return tickMsg{edit: edit} }))
}

// listKey moves in the candidate list and ticks; any other key goes back
// to the question.
func (m *Model) listKey(msg tea.KeyMsg) tea.Cmd {
	n := len(m.res.Candidates)
	switch {
	case key.Matches(msg, m.km.QueryToggle):
		if m.cursor < n {
			id := m.res.Candidates[m.cursor].NodeID
			m.ticked[id] = !m.ticked[id]
		}
	case key.Matches(msg, m.km.Up):
		if m.cursor == 0 {
			m.inList = false
			return m.input.Focus()
		}
		m.cursor--
	case key.Matches(msg, m.km.Down):
		m.cursor = min(n-1, m.cursor+1)
	default:
		m.inList = false
		_, cmd := m.key(msg)
		return tea.Batch(m.input.Focus(), cmd)
	}
	m.clampOffset()
	return nil
}

// take answers enter: the ticked candidates as the seeds, the tags when
// taken; refused (the line stays open) while there is nothing to take.
func (m *Model) take() (bool, tea.Cmd) {
	q := strings.TrimSpace(m.input.Value())
	switch {
	case q == "":
		return false, common.NotifyErr(errors.New("type a question first: its text finds the seeds"))
	case q != m.query || m.running || m.building:
		return false, common.NotifyErr(errors.New("the candidates of this question are not in yet: enter again when they are"))
	case m.err != nil:
		return false, common.NotifyErr(fmt.Errorf("the question: %s", textsafe.Escape(m.err.Error())))
	}
	var seeds []retriever.Seed
	for _, c := range m.res.Candidates {
		if m.ticked[c.NodeID] {
			seeds = append(seeds, retriever.Seed{NodeID: c.NodeID, Score: c.R})
		}
	}
	if len(seeds) == 0 {
		return false, common.NotifyErr(errors.New("no candidate is ticked: space ticks one"))
	}
	ix, res, opt := m.ix, m.res, m.cfg.Options
	out := AppliedMsg{Seeds: seeds, Gathered: func(id string) string {
		scores, _ := ix.Scores(id, res.Queries, nil, opt)
		return render.GatheredText(id, res, scores, opt.SeedK, opt.Min)
	}}
	if m.takeTags {
		out.Tags = slices.Clone(m.auto)
	}
	return true, func() tea.Msg { return out }
}

// Close cancels the gather and the build in flight; their replies are
// dropped (a build starts again at the next Open).
func (m *Model) Close() {
	if m.cancel != nil {
		m.cancel()
		m.cancel = nil
	}
	m.run++
	m.running = false
	if m.building {
		m.buildCancel()
		m.building, m.buildCancel = false, nil
	}
	m.input.Blur()
}

// SetSize sets the inner size.
func (m *Model) SetSize(w, h int) {
	m.w, m.h = w, h
	m.input.Width = max(1, w-4)
	m.clampOffset()
}

// Title is the frame's title.
func (m *Model) Title() string { return "Ask a question (esc to close)" }

// ShortHelp is the help line's keys.
func (m *Model) ShortHelp() []key.Binding {
	return []key.Binding{m.km.Submit, m.km.QueryToggle, m.km.QueryTags, keymap.CloseHelp("esc")}
}

// Unavailable is why the line cannot open on this source ("" when it
// can): Config.Unavailable.
func (m *Model) Unavailable(b key.Binding) string { return m.cfg.Unavailable(b) }
