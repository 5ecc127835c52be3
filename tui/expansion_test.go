package tui

import (
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/expansion"
)

// expSlot is the expansion's run slot.
func (h *harness) expSlot() *runSlot { return h.m.runs.slots[expansion.Name] }

// waitRanking waits for the expansion's current run to answer.
func (h *harness) waitRanking() {
	h.t.Helper()
	h.waitFor("the expansion's ranking", func() bool { s := h.expSlot(); return !s.loading && (s.ranking != nil || s.err != nil) })
	h.settle()
}

// hitDetailText is the detail pane's explanation of the selected hit, wide
// enough that no line wraps.
func hitDetailText(h *harness) string {
	if h.m.detailHit() == nil {
		return ""
	}
	return strings.Join(hitLines(h.m.St, h.m.Names, *h.m.detailHit(), 400, h.m.detail.Validity()), "\n")
}

// selectHit moves the results' cursor to the hit of node id.
func (h *harness) selectHit(id string) {
	h.t.Helper()
	h.focusPane(focusTree)
	h.keys("home")
	for range len(h.m.slot().ranking.Hits) {
		if hit, _ := h.m.ranked.Selected(); hit.NodeID == id {
			h.settle()
			return
		}
		h.keys("down")
	}
	h.t.Fatalf("no hit %s", id)
}

// TestExpansionRankedListAndDetail opens the explorer with the expansion
// chosen on the demo graph, seed N2006 (R 0.85), default parameters (H 1,
// f 0.6, δ 0.8, K 10, RELATES weighs 1). N2006 has four RELATES
// relationships (weights 0.82, 0.58, 0.5, 0.45) and one MENTIONS (not in
// the table: skipped). By hand, f × δ = 0.48:
//
//	#1 N2006 0.85 (initial, its R)
//	#2 N2003 0.85 × 0.82 × 0.6 × 0.8 = 0.33456 → 0.3346
//	#3 N2004 0.85 × 0.58 × 0.48 = 0.23664 → 0.2366
//	#4 N2007 0.85 × 0.5 × 0.48 = 0.204
//	#5 N2005 0.85 × 0.45 × 0.48 = 0.1836
//
// Stats: 1 initial, 5 returned, 4 new, 1 kept, 0 dropped, rate 4 / 1 = 4.
// N2003's 1-hop context (by the other end's id): N2001 (w 0.9), N2004
// (w 0.7), N2006 (w 0.82), all RELATES (type weight 1).
func TestExpansionRankedListAndDetail(t *testing.T) {
	h := newHarness(t, loadDemo(t), Options{Retriever: expansion.Name, Seeds: []retriever.Seed{demoSeed}, Tags: demoTags})
	h.waitRanking()
	if h.m.actRun().started || h.m.actRun().id != 0 {
		t.Fatalf("activation ran (run %d) though the expansion was chosen", h.m.actRun().id)
	}
	want := []string{
		"#1   0.85     N2006 UserRequest  seed N2006  initial",
		"#2   0.3346   N2003 AgentAnswer  seed N2006  from N2006 -[RELATES w=0.82 ×0.82]-> N2003",
		"#3   0.2366   N2004 ",
		"#4   0.204    N2007 ",
		"#5   0.1836   N2005 Event  seed N2006  from N2006 -[RELATES w=0.45 ×0.45]-> N2005",
	}
	hits := h.expSlot().ranking.Hits
	if len(hits) != len(want) {
		t.Fatalf("%d hits, want %d", len(hits), len(want))
	}
	for i, w := range want {
		if got := h.m.ranked.RankRow(hits[i]); !strings.HasPrefix(got, w) {
			t.Errorf("row %d = %q, want %q…", i+1, got, w)
		}
	}
	view := h.m.View()
	for _, w := range []string{"Results · expansion · run 1 · 1/5", "Parameters · expansion",
		"initial_count=1 expanded_count=5 new_results=4 kept_results=1 dropped_results=0 expansion_rate=4"} {
		if !strings.Contains(view, w) {
			t.Errorf("screen lacks %q:\n%s", w, view)
		}
	}

	h.selectHit("N2003")
	got := hitDetailText(h)
	for _, w := range []string{
		"N2003 AgentAnswer · #2 · expanded",
		"score = 0.85 × 0.82 × 0.6 × 0.8 = 0.3346",
		"R(N2006) 0.85 × RELATES 0.82 × f 0.6 × δ^1 0.8 = 0.3346",
		"reached from N2006 -[RELATES w=0.82 ×0.82]-> N2003",
		"– RELATES – N2001 AgentAction  w 0.9 × type 1 = 0.9",
		"– RELATES – N2006 UserRequest  w 0.82 × type 1 = 0.82",
		"w 0.7 × type 1 = 0.7",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("detail lacks %q:\n%s", w, got)
		}
	}
	if i, j := strings.Index(got, "N2001"), strings.Index(got, "– RELATES – N2006"); i < 0 || j < i {
		t.Errorf("context not in the other end's id order:\n%s", got)
	}

	h.keys("y")
	h.settle()
	if s := h.lastStatus().Text; s != "copied Cypher for route N2006→N2003 (2 nodes)" {
		t.Errorf("status %q", s)
	}
	if c := h.lastCopy(); !strings.Contains(c, "RELATES") || !strings.Contains(c, `"N2006"`) || !strings.Contains(c, `"N2003"`) {
		t.Errorf("copied %q", c)
	}
	h.keys("home", "y")
	h.settle()
	if s := h.lastStatus(); !s.IsErr || !strings.Contains(s.Text, "N2006 is an initial hit") {
		t.Errorf("y on an initial hit: %+v", s)
	}
}

// pickRetriever presses x until name is the chosen retriever (x cycles
// through Retrievers), letting each run settle.
func (h *harness) pickRetriever(name string) {
	h.t.Helper()
	for range Retrievers() {
		if h.m.retriever == name {
			return
		}
		h.keys("x")
		h.settle()
	}
	if h.m.retriever != name {
		h.t.Fatalf("x never chose %s", name)
	}
}

// TestSwitchRetriever: x switches from Activation Energy's tree to the
// expansion's ranking (which runs then, for the seeds the tree ran with)
// and back; the activation run is neither repeated nor lost, since its
// inputs did not change.
func TestSwitchRetriever(t *testing.T) {
	h := demoHarness(t)
	act := h.m.actRun().id
	trees := h.m.actRun().trees
	if h.expSlot().started {
		t.Fatal("the expansion ran before it was chosen")
	}
	h.keys("x")
	h.waitRanking()
	if h.m.retriever != expansion.Name || h.expSlot().id != 1 || len(h.expSlot().ranking.Hits) != 5 {
		t.Fatalf("after x: retriever %s, expansion run %d", h.m.retriever, h.expSlot().id)
	}
	if h.m.actRun().id != act {
		t.Fatalf("switching re-ran activation (run %d → %d)", act, h.m.actRun().id)
	}
	// Both panes were sized while hidden: all four parameters and all
	// five hits show (they used to get one row each).
	if v := h.m.View(); !strings.Contains(v, "Parameters · expansion") || !strings.Contains(v, "TOP_K K") || !strings.Contains(v, "#5   0.1836   N2005") {
		t.Fatalf("the expansion's panes are not shown whole:\n%s", v)
	}
	h.pickRetriever(activation.Name) // through spreading activation
	if h.m.retriever != activation.Name || h.m.actRun().id != act || h.m.actRun().trees != trees || h.expSlot().id != 1 {
		t.Fatalf("back: retriever %s, runs %d/%d", h.m.retriever, h.m.actRun().id, h.expSlot().id)
	}
	if v := h.m.View(); !strings.Contains(v, "Thresholds") || !strings.Contains(v, "├─ ▼ N2003 AgentAnswer") {
		t.Fatalf("activation's panes are not back:\n%s", v)
	}
}

// TestParamChangeRerunsOnlyItsRetriever: with both retrievers run, H 1 → 2
// in the expansion's panel re-runs the expansion (its run 2) and leaves
// activation's run id where it was; MAX_DEPTH in activation's panel does
// the reverse. With H = 2 the seed's two-hop neighbours come in: N2001 via
// N2003 = 0.85 × 0.82 × 0.9 × 0.6 × 0.8² = 0.2410… (over the one-hop
// 0.85 × 0.82 × 0.48 route it has none), so there are more than 5 hits.
func TestParamChangeRerunsOnlyItsRetriever(t *testing.T) {
	h := demoHarness(t)
	h.keys("x")
	h.waitRanking()
	act, exp := h.m.actRun().id, h.expSlot().id
	h.focusPane(focusParams)
	h.keys("+") // MAX_HOPS 1 → 2
	if h.expSlot().id != exp+1 || h.m.actRun().id != act {
		t.Fatalf("runs: expansion %d → %d, activation %d → %d", exp, h.expSlot().id, act, h.m.actRun().id)
	}
	h.waitRanking()
	if p := h.expSlot().params.Settings().Raw().(expansion.Params); p.MaxHops != 2 {
		t.Fatalf("ran with H %d", p.MaxHops)
	}
	var n2001 float64
	for _, hit := range h.expSlot().ranking.Hits {
		if hit.NodeID == "N2001" {
			n2001 = hit.Score
		}
	}
	if !near(n2001, 0.85*0.82*0.9*0.6*0.8*0.8) {
		t.Fatalf("N2001 = %v, want 0.85 × 0.82 × 0.9 × 0.6 × 0.64", n2001)
	}

	h.pickRetriever(activation.Name) // focus still on the parameters
	exp = h.expSlot().id
	h.keys("-") // MAX_DEPTH 5 → 4
	if h.m.actRun().id != act+1 || h.expSlot().id != exp {
		t.Fatalf("runs: activation %d → %d, expansion %d → %d", act, h.m.actRun().id, exp, h.expSlot().id)
	}
	h.settle()
}

// TestStaleResultsDropped: an answer of a superseded run of either
// retriever, and a context read for a hit no longer selected, are never
// shown.
func TestStaleResultsDropped(t *testing.T) {
	h := demoHarness(t)
	h.keys("x")
	h.waitRanking()
	old := h.expSlot().ref()
	h.focusPane(focusParams)
	h.keys("+") // a new expansion run
	bogus := retriever.Ranking{Retriever: expansion.Name, Hits: []retriever.Hit{{Rank: 1, NodeID: "BOGUS", Score: 1}}}
	h.send(rankingMsg{ref: old, ranking: bogus})
	// Activation's current id under the expansion's name, or the reverse,
	// is no run of either.
	h.send(rankingMsg{ref: runRef{activation.Name, h.m.actRun().id}, ranking: bogus})
	h.waitRanking()
	for _, hit := range h.expSlot().ranking.Hits {
		if hit.NodeID == "BOGUS" {
			t.Fatal("a stale ranking was shown")
		}
	}

	// A late event of activation's superseded run.
	h.pickRetriever(activation.Name)
	h.focusPane(focusParams)
	h.keys("-")
	h.settle()
	trees, v := h.m.actRun().trees, h.m.actRun().trees.Version
	h.send(runEventMsg{id: runRef{activation.Name, h.m.actRun().id - 1}, ev: activation.Event{Kind: activation.EventLevel, Level: &activation.LevelEvent{Depth: 1}}})
	h.send(runEventMsg{id: runRef{expansion.Name, h.m.actRun().id}, ev: activation.Event{Kind: activation.EventLevel, Level: &activation.LevelEvent{Depth: 1}}})
	if trees.Version != v {
		t.Fatal("a stale activation event was applied")
	}

	// A context answer of an earlier read.
	h.pickRetriever(expansion.Name)
	h.selectHit("N2003")
	seq := h.m.runs.hitCtx.seq
	h.send(hitContextMsg{seq: seq - 1, node: "N2003", found: true, hops: []expansion.ContextHop{{Type: "BOGUS"}}})
	if strings.Contains(hitDetailText(h), "BOGUS") {
		t.Fatal("a stale context was shown")
	}
}

// TestHostileExpansionShownEscaped: the expansion over
// testdata/hostile.jsonl from H0 (R 1). H0 has two RELATES to H1 (w 0.9
// and 0.2): the best gives H1 = 1 × 0.9 × 0.6 × 0.8 = 0.432. The ranked
// list, the stats line and H1's detail (its formula names the seed with
// render.DisplayID, quoted as it holds escapes; its context names the
// other ends) show every id escaped.
func TestHostileExpansionShownEscaped(t *testing.T) {
	h := newHarness(t, loadHostile(t), Options{Retriever: expansion.Name, Seeds: []retriever.Seed{{NodeID: hostileH0, Score: 1}}})
	h.waitRanking()
	assertCleanView(t, h, "ranked list", h.m.ranked.View()+"\n"+h.m.View(), `H0`+shownOSC52, `0.432`, `H1\r\x1b[2J`)
	h.selectHit("H1\r\x1b[2J")
	assertCleanView(t, h, "hit detail", hitDetailText(h), `R("H0`+shownOSC52+`") 1 × RELATES 0.9 × f 0.6 × δ^1 0.8 = 0.432`,
		`– RELATES – H0`+shownOSC52)
}
