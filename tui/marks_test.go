package tui

import (
	"maps"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/internal/experiment"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/expansion"
	"github.com/memoria-graph/memoria/tui/overlays/sweepview"
)

// judgedText is the judgement as plain lines: the found line, then each
// relevant node not found with its why-not.
func (h *harness) judgedText() string { return strings.Join(h.m.judgement().judgedLines(), "\n") }

// TestMarking: scenario A ranks N2006, N2003, N2004, N2005, N2001, N2008,
// N2010 (activation.Ranking of its run). m on N2003 in the tree marks it
// relevant (grade 1); m twice on N2010 makes it highly relevant (grade 2);
// from the node list m marks N2007 and N2012, which the run lacks. Then
// R = 4 relevant, 2 found (N2003 at rank 2, N2010 at rank 7):
//
//	recall@10 = 2/4 = 0.50
//	DCG@10    = 1/log2 3 + 2/log2 8                    = 0.63093 + 0.66667 = 1.29760
//	IDCG@10   = 2/log2 2 + 1/log2 3 + 1/log2 4 + 1/log2 5 = 2 + 0.63093 + 0.5 + 0.43068 = 3.56161
//	nDCG@10   = 1.29760 / 3.56161 = 0.36433 → 0.36
//
// The two not found are listed with their why-not (N2007 lost on
// MAX_BRANCHES at level 1, N2012's second hop is below MIN_ACTIVATION:
// TestWhyOnALoserRow, TestWhyOnTheNodeList). m a third time unmarks.
func TestMarking(t *testing.T) {
	h := demoHarness(t)
	h.selectTreeNode("N2003")
	h.keys("m")
	h.settle()
	if g := h.m.Marks.Grade("N2003"); g != 1 || !strings.Contains(h.lastStatus().Text, "marked N2003 relevant (grade 1") {
		t.Fatalf("grade %d, status %q", g, h.lastStatus().Text)
	}
	h.selectTreeNode("N2010")
	h.keys("m", "m")
	if g := h.m.Marks.Grade("N2010"); g != 2 {
		t.Fatalf("N2010 grade %d after m twice, want 2", g)
	}
	for _, id := range []string{"N2007", "N2012"} {
		h.selectListNode(id)
		h.keys("m")
	}
	h.settle()
	want := "relevant found 2 of 4 · recall@10 0.50 · nDCG@10 0.36\n" +
		"N2007 · branch_limit: N2006 → N2007 at level 1: N2006 had already kept MAX_BRANCHES 3: N2003 T=0.1016, N2004 T=0.08936, N2005 T=0.06933\n" +
		"N2012 · below_threshold: N2005 → N2012 at level 2: T=0.0001281 is not above MIN_ACTIVATION 0.005 (3% of 0.005)"
	if got := h.judgedText(); got != want {
		t.Fatalf("judgement:\n%s\nwant\n%s", got, want)
	}
	tree := h.treeText()
	for _, row := range []string{"✓ N2003 AgentAnswer", "✓✓ N2010 DataSource"} {
		if !strings.Contains(tree, row) {
			t.Errorf("tree lacks %q:\n%s", row, tree)
		}
	}
	view := h.m.View()
	for _, s := range []string{"relevant found 2 of 4 · recall@10 0.50 · nDCG@10 0.36", "✗ ✓ N2007 not found · branch_limit", "✗ ✓ N2012 not found · below_threshold"} {
		if !strings.Contains(view, s) {
			t.Errorf("view lacks %q:\n%s", s, view)
		}
	}
	if !strings.Contains(view, "N2007 ✓") { // the node list marks it too
		t.Errorf("the node list does not mark N2007:\n%s", view)
	}

	h.keys("m") // N2012 (under the cursor): grade 2, then unmarked
	h.settle()
	h.keys("m")
	h.settle()
	if g := h.m.Marks.Grade("N2012"); g != 0 || !strings.Contains(h.lastStatus().Text, "unmarked N2012") {
		t.Fatalf("N2012 grade %d, status %q", g, h.lastStatus().Text)
	}
	// R = 3: recall 2/3; IDCG = 2 + 1/log2 3 + 1/log2 4 = 3.13093, nDCG = 1.29760 / 3.13093 = 0.41444.
	if got := h.m.judgement().line; got != "relevant found 2 of 3 · recall@10 0.67 · nDCG@10 0.41" {
		t.Fatalf("after unmarking N2012: %q", got)
	}
}

// TestSaveAndReopenMarks: S saves the marks with the experiment (N2003
// grade 1, N2010 grade 2), and the explorer reopened with the file's
// marks (as `memoria --experiment` passes them) measures its first run
// against them at once: both found, N2003 at rank 2 and N2010 at rank 7,
//
//	recall@10 = 2/2 = 1.00
//	nDCG@10   = (1/log2 3 + 2/log2 8) / (2/log2 2 + 1/log2 3) = 1.29760 / 2.63093 = 0.49321 → 0.49
//
// with ✓ on both in the tree.
func TestSaveAndReopenMarks(t *testing.T) {
	h := demoHarness(t)
	h.selectTreeNode("N2003")
	h.keys("m")
	h.selectTreeNode("N2010")
	h.keys("m", "m", "S")
	h.settle()
	path := filepath.Join(h.m.OutDir, "memoria-experiment-20260302-093100.json")
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("%v (status %+v)", err, h.lastStatus())
	}
	defer f.Close()
	e, err := experiment.Read(f, path)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(e.Marks, map[string]int{"N2003": 1, "N2010": 2}) {
		t.Fatalf("marks saved: %v", e.Marks)
	}
	re := newHarness(t, loadDemo(t), Options{Seeds: e.Seeds, Tags: e.Tags, Params: e.Params, Saved: e.Current, Marks: e.Marks})
	re.runDone()
	if got, want := re.m.judgement().line, "relevant found 2 of 2 · recall@10 1.00 · nDCG@10 0.49"; got != want {
		t.Fatalf("reopened: %q, want %q", got, want)
	}
	tree := re.treeText()
	if !strings.Contains(tree, "✓ N2003") || !strings.Contains(tree, "✓✓ N2010") {
		t.Errorf("reopened tree lacks the marks:\n%s", tree)
	}
}

// TestSweepChartsRecall: with N2003 (grade 1), N2010 (grade 2) and N2012
// (grade 1) marked, s on the MIN_ACTIVATION row sweeps scenario A and,
// once the sweep is done, measures every point's ranking against the
// marks (R = 3, IDCG@10 = 2 + 1/log2 3 + 1/log2 4 = 3.13093):
//
//	0.005 (the current value): N2003 rank 2, N2010 rank 7 (T=0.006873):
//	       recall 2/3 = 0.66667, nDCG (1/log2 3 + 2/log2 8) / 3.13093 = 1.29760 / 3.13093 = 0.41444
//	0.01:  N2010 is out (0.006873 is not above 0.01), N2003 (T=0.1016) still rank 2:
//	       recall 1/3 = 0.33333, nDCG 0.63093 / 3.13093 = 0.20152
//	0.1:   N2003 (0.1016 > 0.1) is the only hit after the seed: the same as at 0.01
//
// At the lowest value, 0.0001, N2012 (T=0.0001281 on its best route) is in
// the result, but at rank 12 (after N2007, N2009, N2011 and N2017), beyond
// the cut: recall@10 stays 2/3 and nDCG@10 0.41444, as at 0.005.
// The overlay charts recall@10 and nDCG@10 after paths, nodes reached and
// energy, each with the current value marked.
func TestSweepChartsRecall(t *testing.T) {
	h := demoHarness(t)
	h.selectTreeNode("N2003")
	h.keys("m")
	h.selectTreeNode("N2010")
	h.keys("m", "m")
	h.selectListNode("N2012")
	h.keys("m")
	h.focusPane(focusParams)
	h.keys("j", "s")
	h.settle()
	v := h.m.ov.sweep
	if len(v.Scores()) < 25 {
		t.Fatalf("%d points scored, want every point of the sweep (25 asked and the breakpoints); line %q", len(v.Scores()), v.Line())
	}
	at := func(value float64) sweepview.Score {
		for _, sc := range v.Scores() {
			if math.Abs(sc.Value-value) < 1e-12 {
				return sc
			}
		}
		t.Fatalf("no point at %g", value)
		return sweepview.Score{}
	}
	for _, c := range []struct{ value, recall, ndcg float64 }{
		{0.005, 0.66667, 0.41444}, {0.01, 0.33333, 0.20152}, {0.1, 0.33333, 0.20152},
	} {
		sc := at(c.value)
		if math.Abs(sc.Recall-c.recall) > 5e-6 || math.Abs(sc.NDCG-c.ndcg) > 5e-6 {
			t.Errorf("at %g: recall %.5f nDCG %.5f, want %.5f and %.5f", c.value, sc.Recall, sc.NDCG, c.recall, c.ndcg)
		}
	}
	low := v.Scores()[0] // 0.0001: N2012 is in, at rank 12, beyond the cut
	if low.Value != 0.0001 || math.Abs(low.Recall-0.66667) > 5e-6 || math.Abs(low.NDCG-0.41444) > 5e-6 {
		t.Errorf("at the lowest value %g: recall %.5f nDCG %.5f, want 0.66667 and 0.41444", low.Value, low.Recall, low.NDCG)
	}
	text := v.Text()
	energy, recall, ndcg := strings.Index(text, "\nsummed energy\n"), strings.Index(text, "\nrecall@10 against 3 marks\n"), strings.Index(text, "\nnDCG@10\n")
	if energy < 0 || recall < energy || ndcg < recall {
		t.Fatalf("want recall@10 and nDCG@10 charted after summed energy:\n%s", text)
	}
	if strings.Count(text, "^ min-activation 0.005") != 5 {
		t.Errorf("want the current value marked under each of the 5 charts:\n%s", text)
	}
	if !strings.Contains(v.Line(), "recall@10 and nDCG@10 against 3 marks charted") || v.Running() {
		t.Errorf("line %q, running %v", v.Line(), v.Running())
	}
}

// TestMarksOnARanking: the marks measure whichever retriever is shown. The
// typed expansion (MAX_HOPS 1) ranks N2006's neighbours: N2003 at rank 2;
// N2010, three hops away, is not reached. With N2003 grade 1 and N2010
// grade 2 (R = 2):
//
//	recall@10 = 1/2 = 0.50
//	nDCG@10   = (1/log2 3) / (2/log2 2 + 1/log2 3) = 0.63093 / 2.63093 = 0.23981 → 0.24
//
// N2010's why-not is internal/rankwhy's (unreached, no route within H
// hops); the ranked list marks N2003, and so does the compare table.
func TestMarksOnARanking(t *testing.T) {
	h := newHarness(t, loadDemo(t), Options{Retriever: expansion.Name, Seeds: []retriever.Seed{demoSeed}, Tags: demoTags,
		Marks: map[string]int{"N2003": 1, "N2010": 2}})
	h.settle()
	if got, want := h.m.judgement().line, "relevant found 1 of 2 · recall@10 0.50 · nDCG@10 0.24"; got != want {
		t.Fatalf("found line %q, want %q", got, want)
	}
	if len(h.m.judgement().missing) != 1 || !strings.HasPrefix(h.m.judgement().missing[0].why, "unreached (no_route): N2010 is 3 hops from the nearest seed") {
		t.Fatalf("not found: %+v", h.m.judgement().missing)
	}
	if v := h.m.View(); !strings.Contains(v, "✓ N2003 AgentAnswer") || !strings.Contains(v, "✗ ✓✓ N2010 not found · unreached") {
		t.Errorf("view:\n%s", v)
	}
	h.keys("X") // the picker: activation is the first row, expansion ticked
	h.keys("space", "enter")
	h.settle()
	if !h.m.comparing() {
		t.Fatal("the compare view did not open")
	}
	if v := h.m.View(); !strings.Contains(v, "✓ N2003 AgentAnswer") {
		t.Errorf("the compare table does not mark N2003:\n%s", v)
	}
}

// TestMarksWhyDropsStale: a why-not answer of an earlier judgement (the
// marks changed since it was asked) is never shown.
func TestMarksWhyDropsStale(t *testing.T) {
	h := demoHarness(t)
	h.selectListNode("N2007")
	h.keys("m")
	h.settle()
	j := h.m.judgement()
	if len(j.missing) != 1 || !strings.HasPrefix(j.missing[0].why, "branch_limit") {
		t.Fatalf("not found: %+v", j.missing)
	}
	old := j.seq
	h.keys("m") // grade 2: a new judgement, asked again
	h.send(marksWhyMsg{seq: old, i: 0, text: "stale"})
	if j.seq == old || j.missing[0].why != "" {
		t.Fatalf("after the stale answer: seq %d (was %d), why %q, want it still asked", j.seq, old, j.missing[0].why)
	}
	h.settle()
	if j.seq == old || len(j.missing) != 1 || !strings.HasPrefix(j.missing[0].why, "branch_limit") {
		t.Fatalf("seq %d (was %d), not found %+v", j.seq, old, j.missing)
	}
}

// TestMarksEscapeIDs: a mark on an id that no node has, holding a control
// sequence (a hand-edited experiment), is shown escaped, and its why-not
// says no node has it.
func TestMarksEscapeIDs(t *testing.T) {
	h := newHarness(t, loadDemo(t), Options{Seeds: []retriever.Seed{demoSeed}, Tags: demoTags, Marks: map[string]int{"X\x1b[2J": 1}})
	h.runDone()
	h.settle()
	v := h.m.View()
	if strings.Contains(v, "\x1b") || !strings.Contains(v, `"X\x1b[2J" not found · "X\x1b[2J": no node has this id`) {
		t.Fatalf("view:\n%q", v)
	}
}
