package tui

import (
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/retriever/activation/why"
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
	if !h.m.why.open || h.m.why.node != "N2007" {
		t.Fatalf("panel open %v for %q, want open for N2007", h.m.why.open, h.m.why.node)
	}
	h.settle()
	a := h.m.why.answer
	if a == nil || a.Verdict != why.BranchLimit || len(a.Siblings) != 3 {
		t.Fatalf("answer %+v, err %v", a, h.m.why.err)
	}
	view := h.m.View()
	for _, want := range []string{"Why (not) N2007", "N2007: not in the result (branch_limit)", "N2006 had already kept MAX_BRANCHES 3"} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q:\n%s", want, view)
		}
	}
	h.keys("esc")
	if h.m.why.open || strings.Contains(h.m.View(), "Why (not)") {
		t.Fatal("esc did not close the panel")
	}
	h.keys("down") // the tree has the keyboard again
	if o, ok := h.m.tree.selectedLoser(); ok && o.Candidate.NeighborNode.ID == "N2007" {
		t.Error("the tree did not move after the panel closed")
	}
}

// TestWhyOnTheNodeList: w on the node list asks about the node under the
// cursor. N2012 is not in scenario A's result: its best route N2006 →
// N2005 (0.06933) → N2012 (0.06933 × 0.01 / √3 × 0.32 = 0.0001281) is
// below 0.005 at its second hop.
func TestWhyOnTheNodeList(t *testing.T) {
	h := demoHarness(t)
	h.focusPane(focusSeeds)
	h.keys("home")
	for range 100 {
		if n, ok := h.m.seeds.current(); ok && n.ID == "N2012" {
			break
		}
		h.keys("down")
		h.settle()
	}
	if n, _ := h.m.seeds.current(); n.ID != "N2012" {
		t.Fatalf("N2012 not found in the node list (at %q)", n.ID)
	}
	h.keys("w")
	h.settle()
	a := h.m.why.answer
	if a == nil || a.Verdict != why.BelowThreshold || a.Blocking != 1 {
		t.Fatalf("answer %+v, err %v", a, h.m.why.err)
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
	first := h.m.why.seq
	h.keys("esc", "w") // close, and ask again on the same row
	if h.m.why.seq != first+1 {
		t.Fatalf("question id %d, want %d", h.m.why.seq, first+1)
	}
	h.send(whyDoneMsg{id: first, answer: why.Answer{NodeID: "stale", Verdict: why.Unreachable}})
	if a := h.m.why.answer; a != nil && a.NodeID == "stale" {
		t.Fatal("an answer to a superseded question was shown")
	}
	h.settle()
	if a := h.m.why.answer; a == nil || a.NodeID != "N2010" || a.Verdict != why.Kept {
		t.Fatalf("answer %+v, want N2010 kept", a)
	}
	h.keys("esc")
	h.send(whyDoneMsg{id: h.m.why.seq, answer: why.Answer{NodeID: "late"}})
	if h.m.why.open || (h.m.why.answer != nil && h.m.why.answer.NodeID == "late") {
		t.Fatal("an answer arriving after the panel closed reopened or changed it")
	}
}
