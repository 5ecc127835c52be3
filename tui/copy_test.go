package tui

import (
	"encoding/base64"
	"regexp"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/tui/components/tree"
)

// lastCopy decodes the last OSC 52 sequence the program wrote.
func (h *harness) lastCopy() string {
	h.t.Helper()
	ms := regexp.MustCompile("\x1b]52;c;([A-Za-z0-9+/=]*)\a").FindAllStringSubmatch(h.out.String(), -1)
	if len(ms) == 0 {
		h.t.Fatal("nothing copied")
	}
	b, err := base64.StdEncoding.DecodeString(ms[len(ms)-1][1])
	if err != nil {
		h.t.Fatal(err)
	}
	return string(b)
}

// selectLoser puts the tree's cursor on the losing candidate (or near miss)
// neighbour under parent.
func (h *harness) selectLoser(parent, neighbour string) {
	h.t.Helper()
	h.focusPane(focusTree)
	for i, r := range h.m.tree.Selectable() {
		if k := r.Key; k.ID == parent && k.Loser >= 0 {
			h.m.tree.Select(i)
			if o, ok := h.m.tree.SelectedLoser(); ok && o.Candidate.NeighborNode.ID == neighbour {
				h.m.syncDetail()
				return
			}
		}
	}
	h.t.Fatalf("no loser %s under %s", neighbour, parent)
}

// TestCopyLoserPathAndCheck: on a near-miss row, y copies the parent's
// path plus the edge the candidate lost on (it copied every path of the
// seed before); F switches the copy form to cypher-shell's, and K copies the
// check query of the same path in that form.
//
// Scenario A (docs/DEMO_GRAPH.md): N2005, reached from N2006, has the near
// miss N2007 (T = 0.002402 ≤ 0.005, docs/ALGORITHM.md's example), so the
// path is N2006 → N2005 → N2007, 3 nodes, and its Browser form sets id0..id2
// and r0, r1 with `:params`. The cypher-shell form sets them with `:param`
// (cypher-shell's command for a map of parameters), and the check query
// carries $R = 0.85, the run's tags, the floor 0.15 and memoria's T per hop
// (0.069328125 to N2005, docs/ALGORITHM.md's example, then 0.002402 to N2007).
func TestCopyLoserPathAndCheck(t *testing.T) {
	h := demoHarness(t)
	h.focusPane(focusTree)
	h.keys("e")
	h.selectLoser("N2005", "N2007")
	h.keys("y")
	h.settle()
	got := h.lastCopy()
	if !strings.HasPrefix(got, `:params {id0: "N2006", id1: "N2005", id2: "N2007", r0: {`) || !strings.HasSuffix(got, "RETURN p;") {
		t.Fatalf("copied:\n%s", got)
	}
	if st := h.lastStatus().Text; !strings.HasPrefix(st, "copied Cypher for path N2006→N2005→N2007, below threshold (") || !strings.HasSuffix(st, "(3 nodes)") {
		t.Fatalf("status = %q", st)
	}
	h.keys("F")
	h.settle()
	if st := h.lastStatus().Text; st != "copies are now in the shell form" {
		t.Fatalf("status = %q", st)
	}
	h.keys("K")
	h.settle()
	got = h.lastCopy()
	for _, want := range []string{`:param {id0: "N2006", id1: "N2005", id2: "N2007", r0: {`, `R: 0.85`, `tag_sim_floor: 0.15`,
		`query_tags: ["demand_forecasting", "stockout", "safety_stock", "inventory_policy"]`, `memoria_t: [0.069328125, 0.002401596697869722]`, "memoria_t: [", "AS same"} {
		if !strings.Contains(got, want) {
			t.Fatalf("check query lacks %q:\n%s", want, got)
		}
	}
	if st := h.lastStatus().Text; !strings.Contains(st, "check query for path N2006→N2005→N2007") || !strings.Contains(st, "shell form") {
		t.Fatalf("status = %q", st)
	}
}

// TestGhostCheckUsesTheBaselineSettings: a node that left carries the
// baseline run's numbers, so its check query must carry that run's seed
// score, tags and floor, not the current run's. The baseline here (built
// by hand) reached N2007 straight from N2006 with R 0.5, tags [x] and floor
// 0.3; the current run (R 0.85, the four demo tags, floor 0.15) does not
// reach N2007, so it is a ghost row under N2006.
func TestGhostCheckUsesTheBaselineSettings(t *testing.T) {
	h := demoHarness(t)
	st := h.m.actRun().trees.Seeds[0]
	w := 0.5
	hop := activation.Step{FromNode: st.Root.Node, ToNode: graph.Node{ID: "N2007", Labels: []string{"DataSource"}}, TransferEnergy: 0.0625,
		Edge: graph.Edge{SourceID: "N2006", TargetID: "N2007", Type: "RELATES", Weight: &w, Properties: map[string]any{"weight": 0.5}}}
	var p activation.Path
	p = p.Extend(hop)
	cfg := h.m.actRun().cfg
	cfg.TagSimFloor = 0.3
	h.m.actRun().trees.SetBase(&tree.Baseline{Label: "pinned", Cfg: cfg, Tags: []string{"x"},
		Results: map[string]activation.Result{"N2006": {Seed: retriever.Seed{NodeID: "N2006", Score: 0.5}, Paths: []activation.Path{p}}}})
	h.m.afterTreeChange(false)
	h.focusPane(focusTree)
	for range 10 { // the nodes this run reached entered: step over them
		if k, _ := h.m.tree.SelectedKey(); k.Ghost {
			break
		}
		h.keys(">")
	}
	if k, _ := h.m.tree.SelectedKey(); !k.Ghost || k.ID != "N2007" {
		t.Fatalf("selected %+v, want the ghost N2007", k)
	}
	h.keys("K")
	h.settle()
	got := h.lastCopy()
	for _, want := range []string{"R: 0.5,", `query_tags: ["x"]`, "tag_sim_floor: 0.3}", "memoria_t: [0.0625]"} {
		if !strings.Contains(got, want) {
			t.Errorf("check query lacks %q:\n%s", want, got)
		}
	}
	if d := h.m.detail.View(); !strings.Contains(d, "tag_sim = 0.3 + (1 − 0.3)") && !strings.Contains(d, "floor = 0.3") {
		t.Errorf("the detail pane works tag_sim with the current floor:\n%s", d)
	}
}
