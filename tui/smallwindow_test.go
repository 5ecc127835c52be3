package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// TestTooSmallWindow: below 80×24 (minWidth × minHeight) the explorer shows
// one screen saying the size needed and the size there is, filling the
// window exactly (50×15: 15 lines of 50 cells). Keys other than q do
// nothing there (typed blind, they would change what cannot be seen): j on
// the focused tree leaves the selection where it was. Growing the window
// back to 80×24 brings the panes back; q quits from the small screen.
func TestTooSmallWindow(t *testing.T) {
	h := goldenHarness(t, 120, 40)
	h.focusPane(focusTree)
	before, _ := h.m.tree.SelectedKey()

	h.send(tea.WindowSizeMsg{Width: 50, Height: 15})
	v := h.m.View()
	checkSize(t, v, 50, 15)
	golden(t, "too_small_50x15", v)
	for _, want := range []string{"memoria needs 80×24", "this one is 50×15"} {
		if !strings.Contains(v, want) {
			t.Errorf("the small screen does not say %q:\n%s", want, v)
		}
	}
	h.keys("j", "j")
	if after, _ := h.m.tree.SelectedKey(); after != before {
		t.Errorf("j moved the selection from %v to %v behind the small screen", before, after)
	}

	// 79×24 and 80×23 are one cell short: still the small screen.
	for _, sz := range [][2]int{{79, 24}, {80, 23}} {
		h.send(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		if v := h.m.View(); !strings.Contains(v, "Window too small") {
			t.Errorf("%d×%d: no small-window screen", sz[0], sz[1])
		}
	}

	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	v = h.m.View()
	checkSize(t, v, 80, 24)
	if strings.Contains(v, "Window too small") || !strings.Contains(v, "Results") {
		t.Errorf("at 80×24 the panes did not come back:\n%s", v)
	}

	h.send(tea.WindowSizeMsg{Width: 50, Height: 15})
	h.keys("q")
	h.settle()
	if !h.quit {
		t.Error("q did not quit from the small-window screen")
	}
}

// TestNarrowTreeKeepsNumbers: at 80×24 the tree pane is 80 − 34 = 46
// cells, 42 inside its frame, and a row gets 40 of them (2 are for the
// selection glyph); and the annotation of N2010 (depth 3 of scenario A, docs/DEMO_GRAPH.md)
// is `T=0.006873 w=0.8 tag_sim=0.575 d=3` (34 cells) after an 11-cell guide:
// 45 cells, more than 40. The guide (text) gives way, cut from the left to "…", and every
// number stays whole; the status line likewise cuts the backend's
// description, not the seed's "done in 3 ms, 3 paths".
func TestNarrowTreeKeepsNumbers(t *testing.T) {
	h := goldenHarness(t, 80, 24)
	tree := h.treeText()
	if !strings.Contains(tree, "T=0.006873 w=0.8 tag_sim=0.575 d=3\n") {
		t.Errorf("N2010's annotation is cut at 80×24:\n%s", tree)
	}
	for _, r := range h.m.tree.Rows() {
		if w := len([]rune(r.Plain)); w > 40 {
			t.Errorf("row %q is %d cells, the rows have 40", r.Plain, w)
		}
	}
	if s := h.m.statusView(); !strings.Contains(s, "✓ N2006 done in 3 ms, 3 paths") {
		t.Errorf("the status line cut the seed's numbers: %q", strings.SplitN(s, "\n", 2)[0])
	}
}

// TestSeedColumnWidens: the seed column is a quarter of the window, from 34
// to 64 cells: 34 at 80 and 120 columns (120/4 = 30 < 34), 40 at 160, 50
// at 200, 64 at 300 (75 > 64). At 200 the picker's rows have 50 − 4 = 46
// cells (the frame and padding take 4), so N2000's row shows "Before Q2
// planning," where 80 columns showed "Befo…".
func TestSeedColumnWidens(t *testing.T) {
	h := goldenHarness(t, 80, 24)
	for _, c := range []struct{ w, want int }{{80, 34}, {120, 34}, {160, 40}, {200, 50}, {300, 64}} {
		h.send(tea.WindowSizeMsg{Width: c.w, Height: 40})
		if got := h.m.lay.seeds.w; got != c.want {
			t.Errorf("at %d columns the seed column is %d, want %d", c.w, got, c.want)
		}
		checkSize(t, h.m.View(), c.w, 40)
	}
	h.send(tea.WindowSizeMsg{Width: 200, Height: 40})
	if v := h.m.View(); !strings.Contains(v, "[ ] N2000 UserRequest  Before Q2 planning,") {
		t.Errorf("at 200 columns the seed row of N2000 is still cut short:\n%s", v)
	}
}
