package tui

import (
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/expansion"
	"github.com/memoria-graph/memoria/retriever/fusion"
	"github.com/memoria-graph/memoria/tui/components/cmptable"
	"github.com/memoria-graph/memoria/tui/overlays/whypanel"
)

// waitCompared waits until every column of the compare table is in.
func (h *harness) waitCompared() {
	h.t.Helper()
	h.waitFor("every column of the compare table", func() bool {
		for _, c := range h.m.cmp.Cols() {
			if c.State != cmptable.ColIn {
				return false
			}
		}
		return len(h.m.cmp.Cols()) >= 2
	})
	h.settle()
}

// cmpTable is the table's rows as "id act exp …" with the ranks ("·"
// where a column lacks the node) and "◇" for a node one retriever found.
func cmpTable(h *harness) []string {
	var out []string
	for _, r := range h.m.cmp.TableRows() {
		line := r.ID
		for c := range r.Ranks {
			line += " " + h.m.cmp.Cell(r, c, false)
		}
		if r.Only {
			line += " " + cmptable.GlyphOnly
		}
		out = append(out, line)
	}
	return out
}

// selectRow moves the table's cursor to node id.
func (h *harness) selectRow(id string) {
	h.t.Helper()
	h.focusPane(focusTree)
	h.keys("home")
	for range h.m.cmp.TableRows() {
		if r, _ := h.m.cmp.Selected(); r.ID == id {
			h.settle()
			return
		}
		h.keys("down")
	}
	h.t.Fatalf("no row %s", id)
}

// compareDemo opens the compare view of Activation Energy and the typed
// expansion on the demo graph, seed N2006 (R 0.85) and scenario A's tags,
// both at their defaults, the expansion's parameters shown.
func compareDemo(t *testing.T) *harness {
	h := newHarness(t, loadDemo(t), Options{Compare: []string{activation.Name, expansion.Name}, Retriever: expansion.Name,
		Seeds: []retriever.Seed{demoSeed}, Tags: demoTags})
	h.waitCompared()
	return h
}

// TestCompareTwoRetrievers: both retrievers run at once and the table is
// their union with each one's rank. The two rankings (checked by hand in
// TestExpansionRankedListAndDetail and the tree tests):
//
//	activation: N2006 0.85, N2003, N2004, N2005 (0.85 × 0.45 × 0.5 ×
//	            0.3625 = 0.06933), N2001, N2008, N2010
//	expansion:  N2006 0.85, N2003 0.3346, N2004 0.2366, N2007 0.204,
//	            N2005 0.1836
//
// The table's K is the expansion's 10 (activation has none), which cuts
// neither. The union order is best rank, then more lists, then id: N2006
// (1), N2003 (2), N2004 (3), then N2005 and N2007 both best at 4, N2005
// first (two lists), then N2001 (5), N2008 (6), N2010 (7). N2007 is the
// expansion's alone, N2001, N2008 and N2010 Activation Energy's: 4 marked.
// The selected row shows each score; the detail has both columns.
func TestCompareTwoRetrievers(t *testing.T) {
	h := compareDemo(t)
	want := []string{
		"N2006 #1 #1", "N2003 #2 #2", "N2004 #3 #3", "N2005 #4 #5", "N2007 · #4 ◇",
		"N2001 #5 · ◇", "N2008 #6 · ◇", "N2010 #7 · ◇",
	}
	if got := cmpTable(h); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("table:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if h.m.cmp.K() != 10 {
		t.Errorf("table K %d, want 10", h.m.cmp.K())
	}
	h.selectRow("N2005")
	r, _ := h.m.cmp.Selected()
	if a, e := h.m.cmp.Cell(r, 0, true), h.m.cmp.Cell(r, 1, true); a != "#4 0.06933" || e != "#5 0.1836" {
		t.Errorf("selected cells %q %q, want #4 0.06933 and #5 0.1836", a, e)
	}
	view := h.m.View()
	for _, w := range []string{"Results · compare · top 10 · 4/8", "activation expansion", "8 nodes · 4 found by one only (◇)"} {
		if !strings.Contains(view, w) {
			t.Errorf("screen lacks %q:\n%s", w, view)
		}
	}
	detail := strings.Join(compareLines(h.m.St, h.m.Names, *h.m.detailCmp(), 120), "\n")
	for _, w := range []string{"#4 · 0.06933", "#5 · 0.1836", "score = 0.85 × 0.45 × 0.5 × 0.3625 = 0.06933", "score = 0.85 × 0.45 × 0.6 × 0.8 = 0.1836"} {
		if !strings.Contains(detail, w) {
			t.Errorf("detail lacks %q:\n%s", w, detail)
		}
	}
	// Side by side: both scores on one line of the detail.
	side := false
	for _, l := range strings.Split(detail, "\n") {
		side = side || (strings.Contains(l, "#4 · 0.06933") && strings.Contains(l, "#5 · 0.1836"))
	}
	if !side {
		t.Errorf("the two columns are not side by side:\n%s", detail)
	}
}

// TestCompareSort: o sorts by the node id, then by each retriever's rank
// (the nodes it lacks last, in the union order), then back to the union
// order; the cursor stays on its node.
func TestCompareSort(t *testing.T) {
	h := compareDemo(t)
	h.selectRow("N2007")
	ids := func() string {
		var out []string
		for _, r := range h.m.cmp.TableRows() {
			out = append(out, r.ID)
		}
		return strings.Join(out, " ")
	}
	for _, want := range []string{
		"N2001 N2003 N2004 N2005 N2006 N2007 N2008 N2010", // node id
		"N2006 N2003 N2004 N2005 N2001 N2008 N2010 N2007", // activation's rank
		"N2006 N2003 N2004 N2007 N2005 N2001 N2008 N2010", // expansion's rank
		"N2006 N2003 N2004 N2005 N2007 N2001 N2008 N2010", // union order
	} {
		h.keys("O")
		if got := ids(); got != want {
			t.Errorf("sorted by %s: %s, want %s", h.m.cmp.SortName(), got, want)
		}
		if r, _ := h.m.cmp.Selected(); r.ID != "N2007" {
			t.Errorf("sorted by %s: cursor on %s, want N2007", h.m.cmp.SortName(), r.ID)
		}
	}
}

// TestCompareParamChangeRerunsOneColumn: with the expansion's parameters
// shown, FACTOR f 0.6 → 0.55 re-runs the expansion only (its run id moves
// by one, Activation Energy's stays) and its column follows: N2003's
// score becomes 0.85 × 0.82 × 0.55 × 0.8 = 0.30668 → 0.3067, while
// Activation Energy's cell is as it was.
func TestCompareParamChangeRerunsOneColumn(t *testing.T) {
	h := compareDemo(t)
	actID, expID := h.m.actRun().id, h.expSlot().id
	h.selectRow("N2003")
	r, _ := h.m.cmp.Selected()
	actCell := h.m.cmp.Cell(r, 0, true)
	h.focusPane(focusParams)
	h.keys("home", "j", "-") // FACTOR f
	h.waitCompared()
	if h.m.actRun().id != actID || h.expSlot().id != expID+1 {
		t.Fatalf("run ids: activation %d → %d, expansion %d → %d; want activation unchanged, expansion +1",
			actID, h.m.actRun().id, expID, h.expSlot().id)
	}
	r, _ = h.m.cmp.Selected()
	if got := h.m.cmp.Cell(r, 1, true); got != "#2 0.3067" {
		t.Errorf("expansion's N2003 cell %q, want #2 0.3067", got)
	}
	if got := h.m.cmp.Cell(r, 0, true); got != actCell {
		t.Errorf("activation's N2003 cell %q, want %q as before", got, actCell)
	}
}

// TestCompareWhyNot: w on N2001, which Activation Energy ranks 5th and the
// expansion lacks, asks the expansion only: N2001 is two RELATES hops from
// N2006 (N2006 → N2003 → N2001), beyond its MAX_HOPS 1, so it is
// unreached with no route within 1 hop. On N2007, which only the
// expansion ranks, it asks Activation Energy, whose answer is its why-not
// (as w answers in the tree).
func TestCompareWhyNot(t *testing.T) {
	h := compareDemo(t)
	h.selectRow("N2001")
	h.keys("w")
	h.waitFor("the answer", func() bool { return h.m.ov.why.Ranked() != nil || h.m.ov.why.Err() != nil })
	if h.m.ov.why.Err() != nil {
		t.Fatal(h.m.ov.why.Err())
	}
	if len(h.m.ov.why.Ranked()) != 1 || h.m.ov.why.Ranked()[0].Retriever != expansion.Name {
		t.Fatalf("answers %+v, want the expansion's alone", h.m.ov.why.Ranked())
	}
	text := whypanel.RankedText("N2001", h.m.ov.why.Ranked())
	if !strings.HasPrefix(text, "N2001: unreached by expansion (no_route)") {
		t.Errorf("answer:\n%s", text)
	}
	h.keys("esc")
	h.selectRow("N2007")
	h.keys("w")
	h.waitFor("the answer", func() bool { return h.m.ov.why.Ranked() != nil || h.m.ov.why.Err() != nil })
	if h.m.ov.why.Err() != nil {
		t.Fatal(h.m.ov.why.Err())
	}
	if len(h.m.ov.why.Ranked()) != 1 || h.m.ov.why.Ranked()[0].Retriever != activation.Name || h.m.ov.why.Ranked()[0].Why == nil {
		t.Fatalf("answers %+v, want Activation Energy's why-not alone", h.m.ov.why.Ranked())
	}
	// MAX_BRANCHES 3: N2006 kept N2003, N2004 and N2005 (T 0.1016,
	// 0.08936, 0.06933 in the tree tests) before N2007.
	text = whypanel.RankedText("N2007", h.m.ov.why.Ranked())
	if !strings.HasPrefix(text, "N2007: unreached by activation (branch_limit)\nN2006 → N2007 at level 1: N2006 had already kept MAX_BRANCHES 3") {
		t.Errorf("answer:\n%s", text)
	}
	if !strings.Contains(h.m.View(), "N2007: unreached by activation (branch_limit)") {
		t.Errorf("the why panel does not show the answer:\n%s", h.m.View())
	}
}

// TestPickerOpensAndLeavesTheCompareView: X opens the picker with the
// retriever shown ticked; ticking the expansion and enter opens the
// compare view with both (Retrievers order), which runs the expansion;
// X, unticking activation and enter shows the expansion alone.
func TestPickerOpensAndLeavesTheCompareView(t *testing.T) {
	h := demoHarness(t)
	h.focusPane(focusTree)
	h.keys("X")
	if h.m.top() != overlay(h.m.ov.picker) {
		t.Fatal("X did not open the picker")
	}
	h.keys("down", " ", "enter")
	h.settle()
	if !h.m.comparing() || strings.Join(h.m.compared, ",") != "activation,expansion" {
		t.Fatalf("compare %v, want activation,expansion", h.m.compared)
	}
	h.waitCompared()
	if got := len(h.m.cmp.TableRows()); got != 8 {
		t.Errorf("%d rows, want the 8 of TestCompareTwoRetrievers", got)
	}
	h.keys("X", "up", " ", "enter")
	h.settle()
	if h.m.comparing() || h.m.retriever != expansion.Name {
		t.Fatalf("compare %v, retriever %s; want the expansion alone", h.m.compared, h.m.retriever)
	}
	if hit, ok := h.m.ranked.Selected(); !ok || hit.NodeID != "N2006" {
		t.Errorf("results pane: %+v %v, want the expansion's ranking", hit, ok)
	}
}

// TestHostileCompareView: testdata/hostile.jsonl in the compare view of
// Activation Energy and the expansion from H0 (R 1): the table, the
// side-by-side detail and the why panel show the ids and labels escaped
// (TestHostileGraphShownEscaped has the attacks), and nothing on screen is
// unsafe for a terminal. Activation Energy reaches H2 through H1 (two
// hops: TestHostileGraphShownEscaped works it out); the expansion, at
// MAX_HOPS 1, does not, so w on H2 asks the expansion alone, which finds
// no route within one hop.
func TestHostileCompareView(t *testing.T) {
	h := newHarness(t, loadHostile(t), Options{Compare: []string{activation.Name, expansion.Name},
		Seeds: []retriever.Seed{{NodeID: hostileH0, Score: 1}}})
	h.waitCompared()
	var table []string
	for _, r := range h.m.cmp.TableRows() {
		table = append(table, h.m.cmp.RowText(r, true))
	}
	assertCleanView(t, h, "compare table", strings.Join(table, "\n"),
		`H0`+shownOSC52+` Req\x1b]0;PWNED\a`, `H1\r\x1b[2J Ev\u202eent`, `H2\u202ecod.exe Data\x1b[2J`)
	h.selectRow("H2\u202ecod.exe")
	assertCleanView(t, h, "compare detail", strings.Join(compareLines(h.m.St, h.m.Names, *h.m.detailCmp(), 200), "\n"),
		`H2\u202ecod.exe Data\x1b[2J`, `reached from "H0`+shownOSC52+`"`)
	h.keys("w")
	h.waitFor("the answer", func() bool { return h.m.ov.why.Ranked() != nil || h.m.ov.why.Err() != nil })
	if h.m.ov.why.Err() != nil {
		t.Fatal(h.m.ov.why.Err())
	}
	assertCleanView(t, h, "why panel", h.m.View(), `cod.exe`, `unreached by expansion (no_route)`)
}

// TestCompareFusionColumn: fusion beside Activation Energy and the
// expansion fuses those two, each run at the fuse depth 100 (which cuts
// neither: 7 and 5 hits, as in TestCompareTwoRetrievers), by RRF with
// k = 60:
//
//	N2006 2/61 = 0.03279   N2003 2/62 = 0.03226   N2004 2/63 = 0.03175
//	N2005 1/64 + 1/65 = 0.015625 + 0.015385 = 0.03101
//	N2007 1/64 = 0.015625  N2001 1/65 = 0.015385
//	N2008 1/66 = 0.01515   N2010 1/67 = 0.01493
//
// so fusion ranks them 1 to 8 in that order, and no node is one
// retriever's alone any more. The union order puts N2005 (best 4, three
// lists) before N2007 (best 4, two). A change of the expansion's FACTOR
// re-runs the expansion and fusion, not Activation Energy.
func TestCompareFusionColumn(t *testing.T) {
	h := newHarness(t, loadDemo(t), Options{Compare: []string{activation.Name, expansion.Name, fusion.Name}, Retriever: expansion.Name,
		Seeds: []retriever.Seed{demoSeed}, Tags: demoTags})
	h.waitCompared()
	want := []string{
		"N2006 #1 #1 #1", "N2003 #2 #2 #2", "N2004 #3 #3 #3", "N2005 #4 #5 #4", "N2007 · #4 #5",
		"N2001 #5 · #6", "N2008 #6 · #7", "N2010 #7 · #8",
	}
	if got := cmpTable(h); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("table:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	h.selectRow("N2005")
	r, _ := h.m.cmp.Selected()
	if got := h.m.cmp.Cell(r, 2, true); got != "#4 0.03101" {
		t.Errorf("fusion's N2005 cell %q, want #4 0.03101", got)
	}
	actID, fuseID := h.m.actRun().id, h.m.runs.slots[fusion.Name].id
	h.focusPane(focusParams)
	h.keys("home", "j", "-") // the expansion's FACTOR f
	h.waitCompared()
	if h.m.actRun().id != actID || h.m.runs.slots[fusion.Name].id != fuseID+1 {
		t.Errorf("run ids: activation %d → %d, fusion %d → %d; want activation unchanged, fusion +1",
			actID, h.m.actRun().id, fuseID, h.m.runs.slots[fusion.Name].id)
	}
	// x steps through the retrievers with parameters only.
	h.keys("x")
	if h.m.retriever != activation.Name {
		t.Errorf("x from the expansion chose %s, want activation (fusion has no parameters panel)", h.m.retriever)
	}
}

// TestCompareWhyFiltered: under a relationship filter the expansion's
// column answers "filtered" for a node it could reach only through
// relationships the filter removed, and the status line names the filter.
// N2006–N2003 has weight 0.82; with weight<0.8 the expansion (H = 1) no
// longer reaches N2003, which Activation Energy (whose backend here is the
// unfiltered demo graph) still ranks, so the row is there to ask about.
func TestCompareWhyFiltered(t *testing.T) {
	src := loadDemo(t)
	g := src.Source.(*inmem.Graph)
	lt, err := graph.ParseRelCond("weight<0.8")
	if err != nil {
		t.Fatal(err)
	}
	f := graph.RelFilter{Where: []graph.RelCond{lt}}
	h := newHarness(t, src, Options{Compare: []string{activation.Name, expansion.Name}, Retriever: expansion.Name,
		Seeds: []retriever.Seed{demoSeed}, Tags: demoTags, Neighbourhood: g.Filtered(f), Unfiltered: g, Filter: f.String()})
	h.waitCompared()
	if v := h.m.View(); !strings.Contains(v, "filter weight<0.8 (d counts all)") {
		t.Errorf("the status line does not name the filter:\n%s", v)
	}
	h.selectRow("N2003")
	h.keys("w")
	h.waitFor("the answer", func() bool { return h.m.ov.why.Ranked() != nil || h.m.ov.why.Err() != nil })
	if h.m.ov.why.Err() != nil {
		t.Fatal(h.m.ov.why.Err())
	}
	text := whypanel.RankedText("N2003", h.m.ov.why.Ranked())
	if !strings.HasPrefix(text, "N2003: filtered by expansion (by the relationship filter)\nN2003 is 1 hop from the nearest seed through followed types, but only through relationships the filter (weight<0.8) removes") {
		t.Errorf("answer:\n%s", text)
	}
}
