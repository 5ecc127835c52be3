package tui

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/tui/components/tree"
)

// TestTreeGrowsLevelByLevel runs scenario A of docs/DEMO_GRAPH.md (seed
// N2006, R 0.85, tags demand_forecasting, stockout, safety_stock,
// inventory_policy) with the backend held before each expansion, so each
// level's event can be seen on its own.
//
// Depth 1 keeps N2003, N2004, N2005 (MAX_BRANCHES 3; N2007 loses to the
// branch limit). Hand check of the first hop: d(N2006) = 4 RELATES edges;
// the edge to N2003 has tags {inventory_policy, recommendation,
// analysis_dependency}, |E∩Q| = 1, |E∪Q| = 6, so tag_sim = 0.15 + 0.85 × 1/6
// = 0.291667 and T = 0.85 × 0.82 / √4 × 0.291667 = 0.101646.
// The final tree is docs/ALGORITHM.md "Worked example"'s diagram: N2006→N2003→N2001→N2010,
// N2006→N2004→N2008, N2006→N2005, every path ending "nothing above
// threshold or all visited".
func TestTreeGrowsLevelByLevel(t *testing.T) {
	src := loadDemo(t)
	src.holdRuns()
	h := newHarness(t, src, Options{Seeds: []retriever.Seed{demoSeed}, Tags: demoTags})
	st := h.m.actRun().trees.Seeds[0]
	h.waitFor("the seed", func() bool { return st.Root != nil })
	if len(st.Root.Children) != 0 {
		t.Fatalf("children before any level: %d", len(st.Root.Children))
	}

	src.stepRun() // level 1
	h.waitFor("depth 1", func() bool { return st.Depth == 1 })
	if got := childIDs(st.Root); got != "N2003 N2004 N2005" {
		t.Fatalf("depth 1 children = %q, want N2003 N2004 N2005", got)
	}
	if st.State != tree.SeedRunning || !strings.Contains(h.treeText(), "running at depth 1") {
		t.Fatalf("want running at depth 1, got:\n%s", h.treeText())
	}
	if _, ok := st.Nodes["N2001"]; ok {
		t.Fatal("depth 2 node visible after only one level")
	}
	n2003 := st.Nodes["N2003"]
	if !near(n2003.Step.TransferEnergy, 0.85*0.82/2*(0.15+0.85/6)) {
		t.Fatalf("T(N2006→N2003) = %v", n2003.Step.TransferEnergy)
	}

	for range 3 { // levels 2, 3 and 4 (level 4 finds nothing above threshold)
		src.stepRun()
	}
	h.waitFor("the result", func() bool { return st.State == tree.SeedDone })
	got := h.treeText()
	for _, want := range []string{
		"▼ N2006 UserRequest",
		"R=0.85 · done in",
		"├─ ▼ N2003 AgentAnswer",
		"T=0.1016 w=0.82 tag_sim=0.2917 d=4",
		"│  └─ ▼ N2001 AgentAction",
		"│     └─ · N2010",
		"■ below threshold: best N2011 T=0.001233, 25% of 0.005",
		"└─ · N2005 Event",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("tree lacks %q:\n%s", want, got)
		}
	}
	if paths := len(st.Result.Paths); paths != 3 {
		t.Errorf("paths = %d, want 3", paths)
	}
	// Each path ends below the threshold (its near miss is worked out in
	// TestGoldenDemoTree).
	for _, id := range []string{"N2010", "N2008", "N2005"} {
		if e := st.Nodes[id].End; e != activation.EndBelowThreshold {
			t.Errorf("%s end = %q, want below_threshold", id, e)
		}
	}
}

func childIDs(n *tree.Node) string {
	var ids []string
	for _, c := range n.Children {
		ids = append(ids, c.Node.ID)
	}
	return strings.Join(ids, " ")
}

// ctxRecorder wraps the fake to remember the context of every Open: one
// per seed exploration.
type ctxRecorder struct {
	*fakeSource
	mu   sync.Mutex
	on   bool // recording
	ctxs []context.Context
}

func (c *ctxRecorder) Open(ctx context.Context) (activation.Expander, func(context.Context) error, error) {
	c.mu.Lock()
	if c.on {
		c.ctxs = append(c.ctxs, ctx)
	}
	c.mu.Unlock()
	return c.fakeSource.Open(ctx)
}

// record starts recording the contexts of the runs that open from now on.
func (c *ctxRecorder) record() {
	c.mu.Lock()
	c.on = true
	c.mu.Unlock()
}

func (c *ctxRecorder) first() context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.ctxs) == 0 {
		return nil
	}
	return c.ctxs[0]
}

// TestParamKeyCancelsRunAndDropsStaleEvents holds run 1 at its first
// expansion, steps MAX_DEPTH with a key, and checks that run 1's context is
// cancelled at once, that run 2 starts, and that an event tagged with run
// 1's id never reaches the trees.
func TestParamKeyCancelsRunAndDropsStaleEvents(t *testing.T) {
	src := loadDemo(t)
	src.holdRuns()
	rec := &ctxRecorder{fakeSource: src}
	h := newHarness(t, src, Options{Backend: rec, Seeds: []retriever.Seed{demoSeed}, Tags: demoTags})
	rec.record() // record contexts from the next run on
	h.focusPane(focusParams)
	h.keys("+") // MAX_DEPTH 5 → 6: run 2 starts (recorded)
	h.waitFor("run 2 to open its connector", func() bool { return rec.first() != nil })
	run2 := h.m.actRun().id
	run2ctx := rec.first()

	h.keys("-") // MAX_DEPTH back to 5: run 3, run 2 must be cancelled now
	if run2ctx.Err() == nil {
		t.Fatal("run 2's context not cancelled by the parameter key")
	}
	if h.m.actRun().id != run2+1 {
		t.Fatalf("run id = %d, want %d", h.m.actRun().id, run2+1)
	}
	trees := h.m.actRun().trees
	v := trees.Version
	// A late event from run 2 (it had fetched its seed) must be dropped.
	stale := activation.Event{Kind: activation.EventLevel, Level: &activation.LevelEvent{Depth: 1}}
	h.send(runEventMsg{id: runRef{activation.Name, run2}, ev: stale})
	if trees.Version != v || trees.Seeds[0].Depth != 0 {
		t.Fatalf("stale run's event was applied (version %d → %d)", v, trees.Version)
	}
	src.openRuns()
	h.waitFor("run 3 to finish", func() bool { return !h.m.running() && h.m.actRun().ch == nil })
	if n := len(h.m.actRun().trees.Seeds[0].Result.Paths); n != 3 {
		t.Fatalf("run 3 paths = %d, want 3", n)
	}
}

// TestMinActivationChangesTree steps MIN_ACTIVATION from 0.005 up to 0.01
// on scenario A: N2001→N2010 (T = 0.006873) falls below the threshold, so
// the long path stops at N2001; every other hop is above 0.01 (the
// smallest kept, N2004→N2008, is 0.01377). N2001's path ends below the
// threshold, its best near miss N2010 at 0.006873.
func TestMinActivationChangesTree(t *testing.T) {
	h := demoHarness(t)
	if _, ok := h.m.actRun().trees.Seeds[0].Nodes["N2010"]; !ok {
		t.Fatal("N2010 missing at the defaults")
	}
	h.focusPane(focusParams)
	h.keys("down", "+")
	if got := h.m.params.Config().MinActivation; got != 0.01 {
		t.Fatalf("MIN_ACTIVATION = %v, want 0.01", got)
	}
	h.waitFor("the new run", func() bool { return !h.m.running() && h.m.actRun().ch == nil })
	st := h.m.actRun().trees.Seeds[0]
	if _, ok := st.Nodes["N2010"]; ok {
		t.Fatalf("N2010 still in the tree:\n%s", h.treeText())
	}
	if n := st.Nodes["N2001"]; n.End != activation.EndBelowThreshold || n.NearMiss == nil || n.NearMiss.ToNode.ID != "N2010" || len(st.Result.Paths) != 3 {
		t.Fatalf("want 3 paths, the first ending at N2001:\n%s", h.treeText())
	}
}

// TestBackendPanicBecomesError makes the fake panic in FetchSeed: the run
// reports an error for that seed instead of crashing the program.
func TestBackendPanicBecomesError(t *testing.T) {
	src := loadDemo(t)
	src.panicOn = "N2006"
	h := newHarness(t, src, Options{Seeds: []retriever.Seed{demoSeed}})
	h.waitFor("the failed result", func() bool { return h.m.actRun().trees.Seeds[0].State == tree.SeedFailed })
	if e := h.m.actRun().trees.Seeds[0].Err; !strings.Contains(e, "backend panic: fake backend exploded") {
		t.Fatalf("error = %q", e)
	}
	if !strings.Contains(h.m.statusView(), "N2006 error: backend panic") {
		t.Fatalf("status bar: %q", h.m.statusView())
	}
}

// TestSeedNotFound shows the state of a seed the graph lacks.
func TestSeedNotFound(t *testing.T) {
	h := newHarness(t, loadDemo(t), Options{Seeds: []retriever.Seed{{NodeID: "NOPE", Score: 0.5}}})
	h.waitFor("the result", func() bool { return h.m.actRun().trees.Seeds[0].State == tree.SeedNotFound })
	if !strings.Contains(h.treeText(), "NOPE  not found") {
		t.Fatalf("tree:\n%s", h.treeText())
	}
}
