package tui

import (
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/retriever/activation"
)

// Scenario A's tree (docs/DEMO_GRAPH.md) has seven node rows, in this
// order: N2006 (seed), N2003, N2001, N2010, N2004, N2008, N2005. Paths end
// at N2010, N2008 and N2005; N2010 and N2008 are the two DataSource nodes.
const scenarioARows = "N2006 N2003 N2001 N2010 N2004 N2008 N2005"

func selectedID(h *harness) string {
	k, _ := h.m.tree.SelectedKey()
	return k.ID
}

// TestTreeSearch: / opens a search in the results; typing "data" moves to
// the first match at or after the selection (N2006 → N2010, the first
// DataSource), the title says "row 4 of 7 · /data 1 of 2", n goes to
// N2008 (2 of 2) and wraps back to N2010, N goes back. While the search
// input is open q types itself (it does not quit); esc drops the query.
// Matching rows carry the » glyph (seen without colour; the Match style's
// reverse video is checked in TestStylesColourOnLightAndDark).
func TestTreeSearch(t *testing.T) {
	h := goldenHarness(t, 120, 40)
	h.focusPane(focusTree)
	if got := h.m.tree.Position(); got != "row 1 of 7" {
		t.Errorf("position %q, want row 1 of 7", got)
	}
	h.keys("/")
	h.typeText("data")
	if id := selectedID(h); id != "N2010" {
		t.Errorf("typing data selected %s, want N2010", id)
	}
	if got := h.m.tree.Position(); got != "row 4 of 7 · /data 1 of 2" {
		t.Errorf("position %q", got)
	}
	if v := h.m.tree.View(); strings.Count(v, "» ") != 1 || !strings.Contains(v, "» │  └─ · N2008 DataSource") {
		t.Errorf("the other match, N2008, is not marked with »:\n%s", v)
	}
	h.keys("enter")
	for _, want := range []string{"N2008", "N2010"} {
		h.keys("n")
		if id := selectedID(h); id != want {
			t.Errorf("n selected %s, want %s", id, want)
		}
	}
	h.keys("N")
	if id := selectedID(h); id != "N2008" {
		t.Errorf("N selected %s, want N2008", id)
	}
	if got := h.m.tree.Position(); got != "row 6 of 7 · /data 2 of 2" {
		t.Errorf("position %q", got)
	}
	if !strings.Contains(h.m.View(), "row 6 of 7 · /data 2 of 2") {
		t.Error("the tree's title does not show the position")
	}

	h.keys("/")
	h.typeText("q")
	if h.quit {
		t.Fatal("q in the search input quit the explorer")
	}
	if h.m.tree.Query() != "dataq" {
		t.Errorf("query %q, want dataq", h.m.tree.Query())
	}
	h.keys("esc")
	if h.m.tree.Query() != "" || h.m.tree.Typing() {
		t.Errorf("esc left query %q, typing %v", h.m.tree.Query(), h.m.tree.Typing())
	}
	h.keys("n")
	h.settle()
	if s := h.lastStatus().Text; !strings.Contains(s, "no search") {
		t.Errorf("n without a query: status %q", s)
	}
}

// TestTreeFoldAllAndJumps: C folds every node (one row: the seed, "(+6)"
// below it), E unfolds all seven again; ] visits the path ends N2010,
// N2008, N2005 and wraps, [ goes back; } says losers are hidden until e
// shows them, and then jumps to the first loser row: N2004's candidate
// N2001, claimed by N2003 (docs/ALGORITHM.md rule 4's example), the
// first loser in row order since N2006's own loser (N2007, branch_limit)
// comes after all its children.
func TestTreeFoldAllAndJumps(t *testing.T) {
	h := goldenHarness(t, 120, 40)
	h.focusPane(focusTree)
	var ids []string
	for _, r := range h.m.tree.Selectable() {
		ids = append(ids, r.Key.ID)
	}
	if got := strings.Join(ids, " "); got != scenarioARows {
		t.Fatalf("rows %q, want %q", got, scenarioARows)
	}
	h.keys("j", "C")
	if n := len(h.m.tree.Selectable()); n != 1 || selectedID(h) != "N2006" {
		t.Errorf("after C: %d rows, selected %s; want 1 row, N2006", n, selectedID(h))
	}
	if !strings.Contains(h.treeText(), "(+6)") {
		t.Errorf("the folded seed does not count the six rows below it:\n%s", h.treeText())
	}
	h.keys("E")
	if n := len(h.m.tree.Selectable()); n != 7 {
		t.Errorf("after E: %d rows, want 7", n)
	}
	for _, want := range []string{"N2010", "N2008", "N2005", "N2010"} {
		h.keys("]")
		if id := selectedID(h); id != want {
			t.Errorf("] selected %s, want %s", id, want)
		}
	}
	h.keys("[")
	if id := selectedID(h); id != "N2005" {
		t.Errorf("[ selected %s, want N2005", id)
	}
	h.keys("}")
	h.settle()
	if s := h.lastStatus().Text; !strings.Contains(s, "no losers shown") {
		t.Errorf("} without explain: status %q", s)
	}
	// In the explain view the losers in row order are N2010's near miss
	// N2011, N2008's near miss N2009, then N2004's N2001 claimed by N2003
	// (the near misses are worked out in TestGoldenDemoTree).
	h.keys("g", "e")
	for _, want := range []struct{ parent, id string }{{"N2010", "N2011"}, {"N2008", "N2009"}, {"N2004", "N2001"}} {
		h.keys("}")
		lo, ok := h.m.tree.SelectedLoser()
		if k, _ := h.m.tree.SelectedKey(); !ok || k.ID != want.parent || lo.Candidate.NeighborNode.ID != want.id {
			t.Errorf("} selected %+v (loser %v: %s), want %s's %s", k, ok, lo.Candidate.NeighborNode.ID, want.parent, want.id)
		}
	}
	if lo, _ := h.m.tree.SelectedLoser(); lo.Fate != activation.FateClaimed || lo.ClaimedBy != "N2003" {
		t.Errorf("N2004's N2001: %s by %s, want claimed by N2003", lo.Fate, lo.ClaimedBy)
	}
}
