package tui

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/spinner"
	"github.com/memoria-graph/memoria/retriever/activation/why"
	"github.com/memoria-graph/memoria/tui/overlays/whypanel"
)

// TestWhyOnALoserRow: in scenario A with explain on, N2007 is N2006's
// losing candidate (branch_limit at level 1: T = 0.85 × 0.5 / √4 × 0.15 =
// 0.03188 after N2003 0.1016, N2004 0.08936, N2005 0.06933; docs/ALGORITHM.md
// "Why not X"). w on its row opens the panel, which shows the answer once
// the command returns; esc closes it and the tree has the keys again.
func TestWhyOnALoserRow(t *testing.T) {
	h := demoHarness(t)
	h.focusPane(focusTree)
	h.keys("e")
	h.selectLoser("N2005", "N2007") // its near-miss row under N2005 (N2012 follows it)
	h.keys("w")
	if !h.m.isOpen(h.m.ov.why) || h.m.ov.why.Node() != "N2007" {
		t.Fatalf("panel open %v for %q, want open for N2007", h.m.isOpen(h.m.ov.why), h.m.ov.why.Node())
	}
	h.settle()
	a := h.m.ov.why.Answer()
	if a == nil || a.Verdict != why.BranchLimit || len(a.Siblings) != 3 {
		t.Fatalf("answer %+v, err %v", a, h.m.ov.why.Err())
	}
	view := h.m.View()
	for _, want := range []string{"Why (not) N2007", "N2007: not in the result (branch_limit)", "N2006 had already kept MAX_BRANCHES 3"} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q:\n%s", want, view)
		}
	}
	h.keys("esc")
	if h.m.isOpen(h.m.ov.why) || strings.Contains(h.m.View(), "Why (not)") {
		t.Fatal("esc did not close the panel")
	}
	h.keys("down") // the tree has the keyboard again
	if o, ok := h.m.tree.SelectedLoser(); ok && o.Candidate.NeighborNode.ID == "N2007" {
		t.Error("the tree did not move after the panel closed")
	}
}

// TestWhyOnTheNodeList: w on the node list asks about the node under the
// cursor. N2012 is not in scenario A's result: its best route N2006 →
// N2005 (0.06933) → N2012 (0.06933 × 0.01 / √3 × 0.32 = 0.0001281) is
// below 0.005 at its second hop.
func TestWhyOnTheNodeList(t *testing.T) {
	h := demoHarness(t)
	h.selectListNode("N2012")
	h.keys("w")
	h.settle()
	a := h.m.ov.why.Answer()
	if a == nil || a.Verdict != why.BelowThreshold || a.Blocking != 1 {
		t.Fatalf("answer %+v, err %v", a, h.m.ov.why.Err())
	}
	if v := h.m.View(); !strings.Contains(v, "T=0.0001281 is not above MIN_ACTIVATION 0.005") {
		t.Errorf("view:\n%s", v)
	}
}

// TestWhyDropsStaleAnswers: an answer to a question asked before the
// current one, or after the panel closed, is never shown.
func TestWhyDropsStaleAnswers(t *testing.T) {
	h := demoHarness(t)
	h.selectTreeNode("N2010")
	h.keys("w")
	first := h.m.ov.why.Seq()
	h.keys("esc", "w") // close, and ask again on the same row
	if h.m.ov.why.Seq() != first+1 {
		t.Fatalf("question id %d, want %d", h.m.ov.why.Seq(), first+1)
	}
	h.send(whypanel.DoneMsg{ID: first, Answer: why.Answer{NodeID: "stale", Verdict: why.Unreachable}})
	if a := h.m.ov.why.Answer(); a != nil && a.NodeID == "stale" {
		t.Fatal("an answer to a superseded question was shown")
	}
	h.settle()
	if a := h.m.ov.why.Answer(); a == nil || a.NodeID != "N2010" || a.Verdict != why.Kept {
		t.Fatalf("answer %+v, want N2010 kept", a)
	}
	h.keys("esc")
	h.send(whypanel.DoneMsg{ID: h.m.ov.why.Seq(), Answer: why.Answer{NodeID: "late"}})
	if h.m.isOpen(h.m.ov.why) || (h.m.ov.why.Answer() != nil && h.m.ov.why.Answer().NodeID == "late") {
		t.Fatal("an answer arriving after the panel closed reopened or changed it")
	}
}

// TestWhyRunningShowsASpinner: while a question runs (its real run held
// at its first expansion by the fake) the panel shows the question, "why
// not N2010? reading the graph… (esc cancels)", behind a spinner frame;
// each tick of the spinner (whyTickMsg) moves it to its next frame and
// asks for the next tick. Once the answer is in, a tick changes nothing
// and asks for no other.
func TestWhyRunningShowsASpinner(t *testing.T) {
	h := demoHarness(t)
	h.selectTreeNode("N2010")
	h.src.holdRuns()
	h.keys("w")
	h.waitFor("the question's run to be held", func() bool { return len(h.src.state().held) > 0 })
	if !h.m.ov.why.Running() {
		t.Fatal("the question is not running")
	}
	frames := spinner.MiniDot.Frames
	view := h.m.View()
	if !strings.Contains(view, "why not N2010? reading the graph… (esc cancels)") {
		t.Fatalf("view lacks the question:\n%s", view)
	}
	frame := h.m.ov.why.Spinner().View()
	if !slices.Contains(frames, frame) || !strings.Contains(view, frame+" why not N2010?") {
		t.Fatalf("no spinner frame (%q) before the question:\n%s", frame, view)
	}
	_, cmd := h.m.Update(whypanel.TickMsg{TickMsg: h.m.ov.why.Spinner().Tick().(spinner.TickMsg)})
	if cmd == nil {
		t.Error("a tick while running asked for no next tick")
	}
	next := h.m.ov.why.Spinner().View()
	if next == frame || !strings.Contains(h.m.View(), next+" why not N2010?") {
		t.Errorf("the tick did not move the spinner on: %q, then %q", frame, next)
	}
	h.src.openRuns()
	h.settle()
	if a := h.m.ov.why.Answer(); a == nil || a.Verdict != why.Kept {
		t.Fatalf("answer %+v, err %v", a, h.m.ov.why.Err())
	}
	// The spinner's own ticks, started by w, may have moved it on while
	// the answer was on its way; what counts is that none moves it now.
	done := h.m.ov.why.Spinner().View()
	if _, cmd := h.m.Update(whypanel.TickMsg{TickMsg: h.m.ov.why.Spinner().Tick().(spinner.TickMsg)}); cmd != nil || h.m.ov.why.Spinner().View() != done {
		t.Error("a tick after the answer moved the spinner or asked for another")
	}
}

// TestWhyEscCancelsTheQuestion: esc while a question runs closes the panel
// and cancels the context the question's command runs under (the one
// why.Explain opened the backend with); the command then ends with the
// cancellation, and that late answer is dropped: the panel stays closed
// with no answer and no error.
func TestWhyEscCancelsTheQuestion(t *testing.T) {
	h := demoHarness(t)
	h.selectTreeNode("N2010")
	before := len(h.src.openContexts())
	h.src.holdRuns()
	h.keys("w")
	h.waitFor("the question's run to be held", func() bool { return len(h.src.state().held) > 0 })
	opens := h.src.openContexts()
	if len(opens) <= before {
		t.Fatal("the question opened no expander")
	}
	ctx := opens[before] // why.Explain's own expander, opened first with the question's context
	if ctx.Err() != nil {
		t.Fatal("the question's context ended before esc")
	}
	seq := h.m.ov.why.Seq()
	h.keys("esc")
	if h.m.isOpen(h.m.ov.why) || h.m.ov.why.Running() {
		t.Fatal("esc did not close the panel")
	}
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Fatalf("the question's context: %v, want cancelled", ctx.Err())
	}
	h.settle() // the cancelled command returns, its answer arrives late
	if h.m.ov.why.Seq() != seq || h.m.isOpen(h.m.ov.why) || h.m.ov.why.Answer() != nil || h.m.ov.why.Err() != nil {
		t.Errorf("the late answer was not dropped: open %v, answer %+v, err %v", h.m.isOpen(h.m.ov.why), h.m.ov.why.Answer(), h.m.ov.why.Err())
	}
	if strings.Contains(h.m.View(), "Why (not)") {
		t.Error("the panel is drawn after esc")
	}
}
