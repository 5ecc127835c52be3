package tui

import (
	"bytes"
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/tui/common"
	"github.com/memoria-graph/memoria/tui/components/tree"
)

// Query tags and seed of the demo graph's scenario A (docs/DEMO_GRAPH.md).
var (
	demoTags = []string{"demand_forecasting", "stockout", "safety_stock", "inventory_policy"}
	demoSeed = retriever.Seed{NodeID: "N2006", Score: 0.85}
)

// lockedBuffer is the program output as tests read it: the production
// lockedWriter (commands write OSC 52 through it from their goroutines) over
// a buffer, read under the same lock.
type lockedBuffer struct{ lockedWriter }

func newOutput() *lockedBuffer { return &lockedBuffer{lockedWriter{w: &bytes.Buffer{}}} }

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.(*bytes.Buffer).String()
}

// harness is a small event loop for Update-level tests: commands run in
// goroutines (as Bubble Tea runs them) and their messages are applied on
// the test goroutine, one at a time.
type harness struct {
	t           testing.TB
	m           *Model
	src         *fakeSource
	out         *lockedBuffer
	res         chan tea.Msg
	outstanding int
	quit        bool
}

func newHarness(t testing.TB, src *fakeSource, opts Options) *harness {
	t.Helper()
	out := newOutput()
	if opts.Source == nil {
		opts.Source = src // else a wrapper of src (statsSource)
	}
	opts.Out, opts.NoColor = out, true
	if opts.Backend == nil {
		opts.Backend = src
	}
	if opts.Neighbourhood == nil {
		opts.Neighbourhood, _ = src.Source.(graph.Neighbourhood)
	}
	if opts.OutDir == "" {
		opts.OutDir = t.TempDir()
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if opts.Now == nil {
		opts.Now = func() time.Time { return time.Date(2026, 3, 2, 9, 31, 0, 0, time.UTC) }
	}
	m, err := New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, m: m, src: src, out: out, res: make(chan tea.Msg, 1024)}
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	h.enqueue(m.Init())
	h.settle()
	return h
}

func (h *harness) enqueue(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	h.outstanding++
	go func() { h.res <- cmd() }()
}

// send applies msg (a key, a size...) and starts the commands it returns.
func (h *harness) send(msgs ...tea.Msg) {
	for _, msg := range msgs {
		_, cmd := h.m.Update(msg)
		h.enqueue(cmd)
	}
}

// keys sends each key: names like "enter", "tab", "ctrl+w", or runes.
func (h *harness) keys(ks ...string) {
	for _, k := range ks {
		h.send(keyMsg(k))
	}
}

// typeText sends s one rune at a time.
func (h *harness) typeText(s string) {
	for _, r := range s {
		h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

func keyMsg(k string) tea.KeyMsg {
	names := map[string]tea.KeyType{
		"enter": tea.KeyEnter, "tab": tea.KeyTab, "shift+tab": tea.KeyShiftTab, "esc": tea.KeyEsc,
		"backspace": tea.KeyBackspace, "delete": tea.KeyDelete, "up": tea.KeyUp, "down": tea.KeyDown,
		"left": tea.KeyLeft, "right": tea.KeyRight, "ctrl+w": tea.KeyCtrlW, "ctrl+c": tea.KeyCtrlC, "ctrl+r": tea.KeyCtrlR, "ctrl+t": tea.KeyCtrlT,
		"space": tea.KeySpace, "pgdown": tea.KeyPgDown, "home": tea.KeyHome, "end": tea.KeyEnd,
	}
	if t, ok := names[k]; ok {
		if t == tea.KeySpace {
			return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
		}
		return tea.KeyMsg{Type: t}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// step applies one message from a finished command; false on timeout.
func (h *harness) step(timeout time.Duration) bool {
	select {
	case msg := <-h.res:
		h.apply(msg)
		return true
	case <-time.After(timeout):
		return false
	}
}

// apply applies msg, the result of an outstanding command.
func (h *harness) apply(msg tea.Msg) {
	h.outstanding--
	switch msg := msg.(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			h.enqueue(c)
		}
	case tea.QuitMsg:
		h.quit = true
	default:
		_, cmd := h.m.Update(msg)
		h.enqueue(cmd)
	}
}

// settleTimeout is how long settle waits before failing the test.
const settleTimeout = 10 * time.Second

// settle applies messages until every outstanding command has finished,
// except those known to wait on the fake (blocked). It decides on explicit
// events (a command's message, the fake reporting a change of what it
// holds), never on a quiet period, so a slow machine cannot make it stop
// early; work that never ends fails the test after settleTimeout.
func (h *harness) settle() {
	h.t.Helper()
	deadline := time.NewTimer(settleTimeout)
	defer deadline.Stop()
	for h.outstanding > h.blocked() {
		select {
		case msg := <-h.res:
			h.apply(msg)
		case <-h.src.changed:
		case <-deadline.C:
			h.t.Fatalf("settle: %d commands still running after %s (%d known to wait on the fake)",
				h.outstanding, settleTimeout, h.blocked())
		}
	}
}

// blocked is how many outstanding commands wait on the fake and will not
// finish until the test lets it go on: each filtered ListNodes it holds,
// and the current run's event reader when every open connector is held
// before an expansion (none let through yet) and the model has applied
// every event they sent before it (the seed, and one level per expansion
// run), so no event is in transit.
func (h *harness) blocked() int {
	f := h.src.state()
	n := f.lists
	if h.m.actRun().ch == nil || f.open == 0 || len(f.held) != f.open || f.runTokens > 0 || h.m.actRun().trees == nil {
		return n
	}
	for _, c := range f.held {
		st := seedTreeOf(h.m.actRun().trees, c.seed)
		if st == nil || st.Root == nil || st.Depth != c.depth {
			return n
		}
	}
	return n + 1
}

// waitFor applies messages until cond holds.
func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			h.t.Fatalf("timed out waiting for %s", what)
		}
		h.step(50 * time.Millisecond)
	}
}

// fakeClock stands in for tea.Tick (seeds.Picker.tick): a timer asked for at
// the clock's time now with duration d fires at now+d, that is its message
// is returned by advance once the test has moved the clock that far, never
// before, and never by the wall clock.
type fakeClock struct {
	now    time.Duration // since the clock started
	timers []*fakeTimer  // in the order asked for
}

type fakeTimer struct {
	d, at time.Duration
	fn    func(time.Time) tea.Msg
	fired bool
}

// tick records the timer and returns no command: nothing runs until
// advance.
func (c *fakeClock) tick(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
	c.timers = append(c.timers, &fakeTimer{d: d, at: c.now + d, fn: fn})
	return nil
}

// advance moves the clock on by d and returns the messages of the timers
// that fire, earliest first.
func (c *fakeClock) advance(d time.Duration) []tea.Msg {
	c.now += d
	due := []*fakeTimer{}
	for _, t := range c.timers {
		if !t.fired && t.at <= c.now {
			t.fired = true
			due = append(due, t)
		}
	}
	sort.SliceStable(due, func(i, j int) bool { return due[i].at < due[j].at })
	msgs := make([]tea.Msg, len(due))
	epoch := time.Date(2026, 3, 2, 9, 31, 0, 0, time.UTC)
	for i, t := range due {
		msgs[i] = t.fn(epoch.Add(t.at))
	}
	return msgs
}

// seedTreeOf returns the tree of seed id, nil when the run has none.
func seedTreeOf(rt *tree.Trees, id string) *tree.SeedTree {
	for _, st := range rt.Seeds {
		if st.Seed.NodeID == id {
			return st
		}
	}
	return nil
}

// focusPane tabs to pane f.
func (h *harness) focusPane(f focus) {
	for h.m.focus != f {
		h.keys("tab")
	}
	h.settle()
}

// lastStatus is the status line's message.
func (h *harness) lastStatus() common.StatusMsg { return h.m.status.Msg() }

// treeText is the tree's rows as plain text, one per line.
func (h *harness) treeText() string {
	var b strings.Builder
	for _, r := range h.m.tree.Rows() {
		b.WriteString(strings.TrimRight(r.Plain, " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// selectTreeNode moves the tree cursor to the row of node id (not a loser).
func (h *harness) selectTreeNode(id string) {
	h.t.Helper()
	h.focusPane(focusTree)
	h.keys("home")
	for range len(h.m.tree.Selectable()) {
		if k, _ := h.m.tree.SelectedKey(); k.ID == id && k.Loser < 0 {
			return
		}
		h.keys("down")
	}
	h.t.Fatalf("node %s not in the tree:\n%s", id, h.treeText())
}

// selectListNode moves the node list's cursor to node id (among the first
// 100 rows).
func (h *harness) selectListNode(id string) {
	h.t.Helper()
	h.focusPane(focusSeeds)
	h.keys("home")
	for range 100 {
		if n, ok := h.m.seeds.Current(); ok && n.ID == id {
			return
		}
		h.keys("down")
		h.settle()
	}
	n, _ := h.m.seeds.Current()
	h.t.Fatalf("%s not found in the node list (at %q)", id, n.ID)
}

// demoHarness opens the demo graph with scenario A's seed and tags and
// waits for the run to finish.
func demoHarness(t testing.TB) *harness {
	h := newHarness(t, loadDemo(t), Options{Seeds: []retriever.Seed{demoSeed}, Tags: demoTags})
	h.waitFor("the run to finish", func() bool { return h.m.actRun().ch == nil && !h.m.running() })
	return h
}
