package tui

import (
	"context"
	"errors"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/retriever/activation/why"
)

// TestHelpOverARunningSweep: ? while a sweep runs opens the help over it;
// the sweep's updates, arriving while the help is on top, still reach the
// sweep (it finishes, and its chart is there), but only the help is drawn.
// esc closes the help and shows the finished sweep; esc again closes the
// sweep and the panes are back.
func TestHelpOverARunningSweep(t *testing.T) {
	h := demoHarness(t)
	h.focusPane(focusParams)
	h.keys("j", "s", "?") // the sweep's first update is not applied yet
	if !h.m.ov.sweep.Running() || h.m.top() != overlay(h.m.ov.helpView) || !h.m.isOpen(h.m.ov.sweep) {
		t.Fatalf("running %v, stack %v: want the help over the running sweep", h.m.ov.sweep.Running(), h.m.overlays)
	}
	h.settle()
	if h.m.ov.sweep.Running() || !strings.Contains(h.m.ov.sweep.Text(), "^ min-activation 0.005") {
		t.Fatalf("the sweep under the help did not finish: running %v, text:\n%s", h.m.ov.sweep.Running(), h.m.ov.sweep.Text())
	}
	if st := h.lastStatus().Text; !strings.HasPrefix(st, "swept ") {
		t.Fatalf("status %q", st)
	}
	v := h.m.View()
	if !strings.Contains(v, "Keys (? or esc to close") || strings.Contains(v, "Sweep min-activation") {
		t.Fatalf("want the help drawn, not the sweep:\n%s", v)
	}
	h.keys("esc")
	v = h.m.View()
	if !strings.Contains(v, "Sweep min-activation") || !strings.Contains(v, "sweep min-activation:") || strings.Contains(v, "Keys (") {
		t.Fatalf("esc on the help: want the sweep back with its chart:\n%s", v)
	}
	h.keys("esc")
	if len(h.m.overlays) != 0 || !strings.Contains(h.m.View(), "Thresholds") {
		t.Fatalf("esc on the sweep: stack %v, view:\n%s", h.m.overlays, h.m.View())
	}
}

// TestWhyAnswerUnderTheHelp: the answer to a question arrives while the
// help covers the why panel; it reaches the panel (not dropped as stale),
// and esc on the help shows it.
func TestWhyAnswerUnderTheHelp(t *testing.T) {
	h := demoHarness(t)
	h.selectTreeNode("N2010")
	h.keys("w", "?")
	if h.m.top() != overlay(h.m.ov.helpView) || !h.m.ov.why.Running() {
		t.Fatalf("stack %v, running %v: want the help over the running question", h.m.overlays, h.m.ov.why.Running())
	}
	h.settle()
	if a := h.m.ov.why.Answer(); a == nil || a.NodeID != "N2010" || a.Verdict != why.Kept {
		t.Fatalf("answer %+v, err %v: want N2010 kept", a, h.m.ov.why.Err())
	}
	if v := h.m.View(); strings.Contains(v, "Why (not) N2010") {
		t.Fatalf("the panel is drawn over the help:\n%s", v)
	}
	h.keys("?") // ? closes the help too
	if v := h.m.View(); !strings.Contains(v, "Why (not) N2010") || !strings.Contains(v, "N2010") || strings.Contains(v, "Keys (") {
		t.Fatalf("closing the help: want the answer:\n%s", v)
	}
	h.keys("esc")
	if len(h.m.overlays) != 0 {
		t.Fatalf("stack %v after esc, want empty", h.m.overlays)
	}
}

// TestOverlayKeysGoToTheTop: only the top overlay takes keys: esc closes
// the help over the why panel, not the panel; w (the panel's own close
// key) does nothing to a panel under the help; the help line offers the
// top overlay's keys, not the panes'.
func TestOverlayKeysGoToTheTop(t *testing.T) {
	h := demoHarness(t)
	h.selectTreeNode("N2010")
	h.keys("w")
	h.settle()
	if !strings.Contains(h.m.View(), "esc/w close") {
		t.Fatalf("help line lacks the panel's keys:\n%s", h.m.View())
	}
	h.keys("?", "w")
	if h.m.top() != overlay(h.m.ov.helpView) || !h.m.isOpen(h.m.ov.why) {
		t.Fatalf("w under the help changed the stack: %v", h.m.overlays)
	}
	if v := h.m.View(); !strings.Contains(v, "?/esc close") || strings.Contains(v, "esc/w close") {
		t.Fatalf("help line is not the help's:\n%s", v)
	}
	h.keys("esc")
	if h.m.top() != overlay(h.m.ov.why) {
		t.Fatalf("esc closed %v, want only the help", h.m.overlays)
	}
}

// TestQuitFromAnOverlay: q under the help over a running question quits,
// and cancels the question's context on the way.
func TestQuitFromAnOverlay(t *testing.T) {
	h := demoHarness(t)
	h.selectTreeNode("N2010")
	before := len(h.src.openContexts())
	h.src.holdRuns()
	h.keys("w", "?")
	h.waitFor("the question's run to be held", func() bool { return len(h.src.state().held) > 0 })
	opens := h.src.openContexts()
	if len(opens) <= before {
		t.Fatal("the question opened no expander")
	}
	_, cmd := h.m.Update(keyMsg("q"))
	if cmd == nil || cmd() != tea.Quit() {
		t.Fatal("q under the help did not quit")
	}
	if !errors.Is(opens[before].Err(), context.Canceled) || len(h.m.overlays) != 0 {
		t.Fatalf("after q: question context %v, stack %v; want cancelled and empty", opens[before].Err(), h.m.overlays)
	}
}

// TestWheelScrollsTheTopOverlay: the wheel over an open overlay scrolls
// the overlay, not the pane hidden under the pointer (the node list).
func TestWheelScrollsTheTopOverlay(t *testing.T) {
	h := demoHarness(t)
	list := h.m.seeds.View()
	h.keys("?")
	x, y := h.m.lay.seeds.x+2, h.m.lay.seeds.y+2 // over the node list
	h.send(tea.MouseMsg{X: x, Y: y, Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
	if h.m.ov.helpView.Offset() == 0 {
		t.Fatal("the wheel did not scroll the help")
	}
	h.keys("esc")
	if h.m.seeds.View() != list {
		t.Fatal("the wheel under the help scrolled the node list")
	}
	h.send(tea.MouseMsg{X: x, Y: y, Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
	if h.m.seeds.View() == list {
		t.Fatal("the wheel does not scroll the node list at all: this test proves nothing")
	}
}
