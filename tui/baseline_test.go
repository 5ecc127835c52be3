package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/internal/experiment"
	"github.com/memoria-graph/memoria/retriever"
)

// runDone waits for the current run to finish.
func (h *harness) runDone() {
	h.t.Helper()
	h.waitFor("the run to finish", func() bool { return h.m.actRun().ch == nil && !h.m.running() })
}

// TestDiffAfterThresholdStep: scenario A (docs/DEMO_GRAPH.md: seed N2006,
// R 0.85, the four demo tags) at MIN_ACTIVATION 0.005 reaches 6 nodes:
// N2003, N2004, N2005, N2001, N2008 and, under N2001 at depth 3, N2010 with
// T = 0.85 × 0.008086 = 0.006873. Stepping MIN_ACTIVATION to 0.01 drops
// N2010 (0.006873 ≤ 0.01): the path N2006→N2003→N2001→N2010 leaves and
// N2006→N2003→N2001 enters (it now ends at N2001), nothing moves, nodes
// 6 → 5, Jaccard = 5 / 6 = 0.83. N2010 stays on screen as a dimmed ghost
// under N2001, the change keys land on it, and the detail pane says it
// left. Stepping back, N2010 is marked as entered.
func TestDiffAfterThresholdStep(t *testing.T) {
	h := demoHarness(t)
	if h.m.actRun().trees.Summary != "" {
		t.Fatalf("first run has a summary: %q", h.m.actRun().trees.Summary)
	}
	h.focusPane(focusParams)
	h.keys("j", "+") // MIN_ACTIVATION 0.005 → 0.01
	h.runDone()
	if got, want := h.m.actRun().trees.Summary, "vs previous: +1 paths −1 · 0 moved · nodes 6 → 5 (Jaccard 0.83)"; got != want {
		t.Fatalf("summary = %q, want %q", got, want)
	}
	txt := h.treeText()
	if !strings.Contains(txt, "└╌ − N2010 DataSource  left · was T=0.006873 at depth 3") {
		t.Fatalf("no ghost row for N2010:\n%s", txt)
	}
	if !strings.Contains(h.m.View(), "vs previous: +1 paths −1") {
		t.Fatalf("summary not on screen:\n%s", h.m.View())
	}
	h.focusPane(focusTree)
	h.keys(">")
	if k, _ := h.m.tree.SelectedKey(); !k.Ghost || k.ID != "N2010" {
		t.Fatalf("> selected %+v, want the ghost N2010", k)
	}
	if d := h.m.detail.View(); !strings.Contains(d, "− left: the previous run reached it here; this run did not") || !strings.Contains(d, "T = ") {
		t.Fatalf("detail of the ghost:\n%s", d)
	}
	if id, ok := h.m.whyTarget(); !ok || id != "N2010" {
		t.Fatalf("w on the ghost asks about %q (%v), want N2010", id, ok)
	}
	h.keys("<") // the only change: wraps onto itself
	if k, _ := h.m.tree.SelectedKey(); !k.Ghost {
		t.Fatalf("< left the only change: %+v", k)
	}

	h.focusPane(focusParams)
	h.keys("-") // back to 0.005
	h.runDone()
	if got, want := h.m.actRun().trees.Summary, "vs previous: +1 paths −1 · 0 moved · nodes 5 → 6 (Jaccard 0.83)"; got != want {
		t.Fatalf("summary = %q, want %q", got, want)
	}
	if txt := h.treeText(); !strings.Contains(txt, "└─ · + N2010 DataSource") || strings.Contains(txt, "left · was") {
		t.Fatalf("N2010 not marked as entered:\n%s", txt)
	}
}

// TestPinKeepsBaseline: p pins the finished run; it is then compared with
// itself (no change: +0 −0, nodes 6 → 6, Jaccard 1), and every later run is
// compared with it until p unpins, after which runs compare with the
// previous one again.
func TestPinKeepsBaseline(t *testing.T) {
	h := demoHarness(t)
	h.focusPane(focusTree)
	h.keys("p")
	if got, want := h.m.actRun().trees.Summary, "vs pinned: +0 paths −0 · 0 moved · nodes 6 → 6 (Jaccard 1)"; got != want {
		t.Fatalf("summary after pinning = %q, want %q", got, want)
	}
	h.settle()
	if s := h.lastStatus(); !strings.Contains(s.Text, "pinned run 1: later runs are compared with it") {
		t.Fatalf("status = %q", s.Text)
	}
	h.focusPane(focusParams)
	h.keys("j", "+") // 0.01: 5 nodes
	h.runDone()
	h.keys("+") // 0.02: still compared with the pinned 6-node run
	h.runDone()
	if got := h.m.actRun().trees.Summary; !strings.HasPrefix(got, "vs pinned: ") || !strings.Contains(got, "nodes 6 → ") {
		t.Fatalf("summary = %q, want it against the pinned run of 6 nodes", got)
	}
	h.focusPane(focusTree)
	h.keys("p") // unpin: the previous run (0.01, 5 nodes) is the baseline
	if got := h.m.actRun().trees.Summary; !strings.HasPrefix(got, "vs previous: ") || !strings.Contains(got, "nodes 5 → ") {
		t.Fatalf("summary after unpinning = %q", got)
	}
}

// TestDiffMovedInExplorer: seed T3000 (R 0.9, tag campaign), MAX_BRANCHES 3
// then 2 (docs/DEMO_GRAPH.md scenario B): with two branches T3001 (T 0.1560,
// third at level 1) loses to the branch limit and is reached at level 2
// under T3002 instead, so its row is marked as moved and says where it was.
func TestDiffMovedInExplorer(t *testing.T) {
	h := newHarness(t, loadDemo(t), Options{Seeds: []retriever.Seed{{NodeID: "T3000", Score: 0.9}}, Tags: []string{"campaign"}})
	h.runDone()
	h.focusPane(focusParams)
	h.keys("j", "j", "j", "h") // MAX_BRANCHES 3 → 2
	h.runDone()
	if h.m.params.Config().MaxBranches != 2 {
		t.Fatalf("MAX_BRANCHES = %d", h.m.params.Config().MaxBranches)
	}
	txt := h.treeText()
	if !strings.Contains(txt, "~ T3001 ") || !strings.Contains(txt, "(was under T3000 at depth 1)") {
		t.Fatalf("T3001 not marked as moved:\n%s", txt)
	}
	if !strings.Contains(h.m.actRun().trees.Summary, "1 moved") {
		t.Fatalf("summary = %q", h.m.actRun().trees.Summary)
	}
}

// TestTypedThreshold: MIN_ACTIVATION 0.0034 is not on the 1-2-5 grid of
// the +/- steps, so it can only be typed: enter opens the input on the
// selected row, enter applies the value and starts a run, and the steps go
// on from it (up to the grid's 0.005, down to 0.002). A value that is not a
// number, or out of range (MAX_DEPTH 13 > 12), is refused with a message
// naming the threshold, the input stays open, and esc leaves the value as
// it was.
func TestTypedThreshold(t *testing.T) {
	h := demoHarness(t)
	h.focusPane(focusParams)
	h.keys("j", "enter")
	if !h.m.params.Typing() {
		t.Fatal("enter did not open the input")
	}
	for range len("0.005") {
		h.keys("backspace")
	}
	run := h.m.actRun().id
	h.typeText("0.0034")
	h.keys("enter")
	h.runDone()
	if got := h.m.params.Config().MinActivation; got != 0.0034 || h.m.params.Typing() {
		t.Fatalf("MIN_ACTIVATION = %v (typing %v), want 0.0034", got, h.m.params.Typing())
	}
	if h.m.actRun().id != run+1 || !strings.Contains(h.m.View(), "MIN_ACTIVATION ‹ 0.0034 ›") {
		t.Fatalf("run %d → %d; screen:\n%s", run, h.m.actRun().id, h.m.View())
	}
	h.keys("+")
	if got := h.m.params.Config().MinActivation; got != 0.005 {
		t.Fatalf("+ from 0.0034 gave %v, want 0.005", got)
	}
	h.keys("k", "enter") // MAX_DEPTH
	h.keys("backspace")
	h.typeText("13")
	h.keys("enter")
	h.settle()
	if !h.m.params.Typing() || !strings.Contains(h.lastStatus().Text, "MAX_DEPTH: max_depth must be between 1 and 12, got 13") {
		t.Fatalf("13 accepted or not explained: typing %v, status %q", h.m.params.Typing(), h.lastStatus().Text)
	}
	h.keys("backspace", "backspace")
	h.typeText("x")
	h.keys("enter")
	h.settle()
	if !strings.Contains(h.lastStatus().Text, `MAX_DEPTH: "x" is not a whole number`) {
		t.Fatalf("status %q", h.lastStatus().Text)
	}
	h.keys("esc")
	if h.m.params.Typing() || h.m.params.Config().MaxDepth != 5 {
		t.Fatalf("esc: typing %v, MAX_DEPTH %d", h.m.params.Typing(), h.m.params.Config().MaxDepth)
	}
}

// TestSaveAndReopenExperiment: scenario A pinned at MIN_ACTIVATION 0.005 (6
// nodes), then run at 0.01 (5 nodes: N2010 left, see
// TestDiffAfterThresholdStep); S writes the experiment, which reads back
// with the seed, the tags, the thresholds, both runs and the demo graph's
// fingerprint (57 nodes, 69 relationships, a content hash). Reopened with
// those (as `memoria --experiment` does), the first run is compared with the
// pinned run at once: the same +1 −1, 6 → 5 as before the save. Without a
// pinned run it is compared with the saved current one: nothing changed.
func TestSaveAndReopenExperiment(t *testing.T) {
	h := demoHarness(t)
	h.focusPane(focusTree)
	h.keys("p")
	h.focusPane(focusParams)
	h.keys("j", "+")
	h.runDone()
	h.keys("S")
	h.settle()
	path := filepath.Join(h.m.OutDir, "memoria-experiment-20260302-093100.json")
	if s := h.lastStatus(); s.IsErr || !strings.Contains(s.Text, "saved the experiment to "+path) {
		t.Fatalf("status %+v", s)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e, err := experiment.Read(f, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Seeds) != 1 || e.Seeds[0] != demoSeed || strings.Join(e.Tags, ",") != strings.Join(retriever.NormalizeTags(demoTags), ",") ||
		e.Params.MinActivation != 0.01 || len(e.Pinned) != 1 || len(e.Current) != 1 {
		t.Fatalf("experiment read back: %+v", e)
	}
	if g := e.Graph; g.Nodes != 57 || g.Relationships != 69 || len(g.ContentSHA256) != 64 {
		t.Fatalf("graph fingerprint %+v", g)
	}

	if e.PinnedParams == nil || e.PinnedParams.MinActivation != 0.005 {
		t.Fatalf("pinned params %+v, want the pinned run's MIN_ACTIVATION 0.005", e.PinnedParams)
	}
	re := newHarness(t, loadDemo(t), Options{Seeds: e.Seeds, Tags: e.Tags, Params: e.Params, Pinned: e.Pinned, Saved: e.Current,
		PinnedParams: *e.PinnedParams, PinnedTags: e.PinnedTags})
	re.runDone()
	if got, want := re.m.actRun().trees.Summary, "vs pinned: +1 paths −1 · 0 moved · nodes 6 → 5 (Jaccard 0.83)"; got != want {
		t.Fatalf("reopened: summary %q, want %q", got, want)
	}
	again := newHarness(t, loadDemo(t), Options{Seeds: e.Seeds, Tags: e.Tags, Params: e.Params, Saved: e.Current})
	again.runDone()
	if got, want := again.m.actRun().trees.Summary, "vs saved: +0 paths −0 · 0 moved · nodes 5 → 5 (Jaccard 1)"; got != want {
		t.Fatalf("reopened without a pin: summary %q, want %q", got, want)
	}
}
