package tui

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// updating reports whether -update was given. The flag itself is
// registered by charmbracelet/x/exp/golden (imported through teatest).
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// golden compares got with testdata/name.golden (rewritten with -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	// trailing spaces are kept: they are part of the layout
	if updating() {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tui -run %s -update)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file:\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

// fixTimes replaces the run times shown (they vary) with 3 ms.
func fixTimes(h *harness) {
	for _, st := range h.m.trees.seeds {
		st.elapsed = 3 * time.Millisecond
	}
	h.m.trees.version++
	h.m.afterTreeChange(false)
}

func goldenHarness(t *testing.T, w, ht int) *harness {
	h := demoHarness(t)
	h.send(tea.WindowSizeMsg{Width: w, Height: ht})
	fixTimes(h)
	h.m.status.msg = statusMsg{}
	return h
}

func checkSize(t *testing.T, view string, w, h int) {
	t.Helper()
	lines := strings.Split(view, "\n")
	if len(lines) != h {
		t.Errorf("view has %d lines, want %d", len(lines), h)
	}
}

// TestGoldenDemoTree is scenario A's tree at 120×40: the seed N2006 with
// R=0.85 and seed 000 §5's three paths, each hop annotated with T, w,
// tag_sim and d (T(N2006→N2003) = 0.85 × 0.82 / √4 × 0.2917 = 0.1016), each
// path's end reason, and the detail of the selected seed.
func TestGoldenDemoTree(t *testing.T) {
	h := goldenHarness(t, 120, 40)
	h.focusPane(focusTree)
	v := h.m.View()
	checkSize(t, v, 120, 40)
	golden(t, "demo_tree_120x40", v)
}

// TestGoldenExplain adds the losing candidates: at depth 1 N2007
// (T = 0.85 × 0.5 / √4 × 0.15 = 0.03188) loses to the branch limit, at
// depth 2 N2004's candidate N2001 (T = 0.006367) is claimed by N2003.
func TestGoldenExplain(t *testing.T) {
	h := goldenHarness(t, 120, 40)
	h.focusPane(focusTree)
	h.keys("e")
	v := h.m.View()
	for _, want := range []string{"✗ N2007 DataSource  T=0.03188  branch_limit", "✗ N2001 AgentAction  T=0.006367  claimed by N2003"} {
		if !strings.Contains(v, want) {
			t.Errorf("explain view lacks %q", want)
		}
	}
	golden(t, "demo_explain_120x40", v)
}

// TestGoldenDetail selects N2003 and shows its detail: the worked transfer
// energy T = 0.85 × 0.82 / √4 × 0.292 = 0.1016 and tag_sim = 0.15 + (1 −
// 0.15) × 1/6 = 0.292 with E∩Q = {inventory_policy} and E∪Q of 6 tags.
func TestGoldenDetail(t *testing.T) {
	h := goldenHarness(t, 160, 40)
	h.selectTreeNode("N2003")
	v := h.m.View()
	checkSize(t, v, 160, 40)
	for _, want := range []string{
		"T = 0.85 × 0.82 / √4 × 0.292 = 0.1016",
		"tag_sim = 0.15 + (1 − 0.15) × 1/6 = 0.292",
		"E∩Q (1): inventory_policy",
		"E∪Q (6): analysis_dependency,",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("detail lacks %q", want)
		}
	}
	golden(t, "demo_detail_160x40", v)
}

// TestGoldenNarrow is the 80×24 layout: all panes present, the detail under
// the tree.
func TestGoldenNarrow(t *testing.T) {
	h := goldenHarness(t, 80, 24)
	h.focusPane(focusTree)
	h.keys("down")
	v := h.m.View()
	checkSize(t, v, 80, 24)
	golden(t, "demo_narrow_80x24", v)
}
