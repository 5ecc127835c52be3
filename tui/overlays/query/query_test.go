package query

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/keymap"
	"github.com/memoria-graph/memoria/retriever/gather"
	"github.com/memoria-graph/memoria/tui/theme"
)

// timers records the debounce's timers instead of starting them.
type timers struct{ fns []func(time.Time) tea.Msg }

func (tm *timers) tick(_ time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
	tm.fns = append(tm.fns, fn)
	return nil
}

// newLine is the query line on the demo graph (memoria's preset fields,
// the default settings), its index built, at 100x20.
func newLine(t *testing.T) (*Model, *timers) {
	t.Helper()
	g, err := inmem.LoadFile("../../../testdata/demo.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	st := theme.NewStyles(lipgloss.NewRenderer(io.Discard), true)
	f, _ := gather.Preset("")
	m := New(keymap.Default(), &st, Config{Ctx: context.Background(), Scan: g, Fields: f, Options: gather.DefaultOptions()})
	tm := &timers{}
	m.SetClock(time.Second, tm.tick)
	m.SetSize(100, 20)
	m.Update(m.build()()) // the index, built in its command, run here
	if m.ix == nil {
		t.Fatalf("no index: %v", m.ixErr)
	}
	m.input.Focus()
	return m, tm
}

func typeText(m *Model, s string) {
	for _, r := range s {
		m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

// TestStaleReplyDropped: "safety" is typed and its debounce ends (gather
// run 1 starts), then " stock" and its debounce ends (run 2). Run 2's
// reply comes first, then run 1's, late. Expected: the line shows "safety
// stock"'s candidates (five, N2002 first: the gather's own order), and run
// 1's reply changes nothing: it is a superseded gather's (its run id is
// not the line's). Without the run check the late reply would show
// "safety"'s candidates under the question "safety stock".
func TestStaleReplyDropped(t *testing.T) {
	m, tm := newLine(t)
	typeText(m, "safety")
	_, run1 := m.Update(tm.fns[len(tm.fns)-1](time.Time{}))
	typeText(m, " stock")
	_, run2 := m.Update(tm.fns[len(tm.fns)-1](time.Time{}))
	if run1 == nil || run2 == nil {
		t.Fatal("a debounce's end started no gather")
	}
	reply1, reply2 := run1(), run2()
	if r1 := reply1.(resultMsg); r1.err != nil && r1.err != context.Canceled {
		t.Fatalf("run 1: %v", r1.err)
	}
	m.Update(reply2)
	before := m.View()
	if m.query != "safety stock" || len(m.res.Candidates) != 5 || m.res.Candidates[0].NodeID != "N2002" {
		t.Fatalf("after run 2: query %q, candidates %v", m.query, m.res.Candidates)
	}
	m.Update(reply1)
	if m.query != "safety stock" || m.View() != before {
		t.Fatalf("the stale reply of run 1 was applied: query %q\n%s", m.query, m.View())
	}
}

// TestDebounceTickOfAnEarlierEdit: a tick of an edit a later one followed
// starts no gather (typing quickly costs one gather, the last edit's);
// the last edit's tick starts one.
func TestDebounceTickOfAnEarlierEdit(t *testing.T) {
	m, tm := newLine(t)
	typeText(m, "stock")
	if len(tm.fns) != 5 {
		t.Fatalf("%d timers for 5 keystrokes", len(tm.fns))
	}
	for i, fn := range tm.fns[:4] {
		if _, cmd := m.Update(fn(time.Time{})); cmd != nil || m.running {
			t.Fatalf("the tick of edit %d started a gather", i+1)
		}
	}
	if _, cmd := m.Update(tm.fns[4](time.Time{})); cmd == nil || !m.running {
		t.Fatal("the last edit's tick started no gather")
	}
}

// TestCloseDropsTheRunInFlight: a gather in flight when the line closes
// is cancelled, and its reply, arriving after, changes nothing.
func TestCloseDropsTheRunInFlight(t *testing.T) {
	m, tm := newLine(t)
	typeText(m, "stock")
	_, run := m.Update(tm.fns[len(tm.fns)-1](time.Time{}))
	m.Close()
	m.Update(run())
	if m.query != "" || len(m.res.Candidates) != 0 {
		t.Fatalf("a reply after Close was applied: %q %v", m.query, m.res.Candidates)
	}
}

// TestHostileIDsEscaped: a candidate's id with a terminal escape is shown
// escaped (textsafe), never raw.
func TestHostileIDsEscaped(t *testing.T) {
	m, _ := newLine(t)
	m.query = "x"
	m.input.SetValue("x")
	m.res = gather.Result{Candidates: []gather.Candidate{{NodeID: "N\x1b]52;c;aGk=\x07", Rank: 1, R: 1, RRF: 0.1, Seed: true}}}
	m.auto = []string{"t\x1b[2J"}
	v := m.View()
	if strings.ContainsRune(v, '\x1b') || strings.ContainsRune(v, '\x07') {
		t.Fatalf("raw control characters in the view: %q", v)
	}
}
