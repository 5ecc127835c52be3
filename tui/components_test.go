package tui

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/retriever"
)

// TestStepLog checks the MIN_ACTIVATION 1-2-5 grid: one step from a grid
// value goes to its neighbour (0.005 → 0.01 / 0.002; 0.001 → 0.0005), and
// from a value between grid points to the nearest grid value in that
// direction (0.003 → 0.005 / 0.002; 0.0015 → 0.002 / 0.001). The ends
// stay put (1 up, 1e-6 down).
func TestStepLog(t *testing.T) {
	for _, c := range []struct{ v, up, down float64 }{
		{0.005, 0.01, 0.002},
		{0.0001, 0.0002, 0.00005},
		{0.0002, 0.0005, 0.0001},
		{0.001, 0.002, 0.0005},
		{0.05, 0.1, 0.02},
		{0.003, 0.005, 0.002},
		{0.0015, 0.002, 0.001},
		{1, 1, 0.5},
		{1e-6, 2e-6, 1e-6},
	} {
		if got := stepLog(c.v, 1); got != c.up {
			t.Errorf("stepLog(%v, +1) = %v, want %v", c.v, got, c.up)
		}
		if got := stepLog(c.v, -1); got != c.down {
			t.Errorf("stepLog(%v, -1) = %v, want %v", c.v, got, c.down)
		}
	}
}

// TestStepLinear checks TAG_SIM_FLOOR's 0.05 steps in [0, 1]: 0.15 → 0.2 /
// 0.1, off-grid 0.17 → 0.2 / 0.15, and clamping at both ends.
func TestStepLinear(t *testing.T) {
	for _, c := range []struct{ v, up, down float64 }{
		{0.15, 0.2, 0.1}, {0.17, 0.2, 0.15}, {0, 0.05, 0}, {1, 1, 0.95}, {0.95, 1, 0.9},
	} {
		if got := stepLinear(c.v, 0.05, 1, 0, 1); got != c.up {
			t.Errorf("up from %v = %v, want %v", c.v, got, c.up)
		}
		if got := stepLinear(c.v, 0.05, -1, 0, 1); got != c.down {
			t.Errorf("down from %v = %v, want %v", c.v, got, c.down)
		}
	}
}

// TestParamsKeys steps each parameter with keys from the defaults (5,
// 0.005, 0.15, 3) and checks the bounds MAX_DEPTH 1..12 and MAX_BRANCHES
// 1..20; each change starts a new run.
func TestParamsKeys(t *testing.T) {
	h := demoHarness(t)
	h.focusPane(focusParams)
	run := h.m.runID
	h.keys("+")           // MAX_DEPTH 6
	h.keys("j", "-", "-") // MIN_ACTIVATION 0.002, 0.001
	h.keys("j", "l")      // TAG_SIM_FLOOR 0.2
	h.keys("j", "h", "h") // MAX_BRANCHES 1
	cfg := h.m.params.Config()
	if cfg.MaxDepth != 6 || cfg.MinActivation != 0.001 || cfg.TagSimFloor != 0.2 || cfg.MaxBranches != 2-1 {
		t.Fatalf("config = %+v", cfg)
	}
	if h.m.runID != run+6 {
		t.Fatalf("runs started = %d, want 6", h.m.runID-run)
	}
	h.keys("h") // MAX_BRANCHES stays 1: no new run
	if h.m.params.Config().MaxBranches != 1 || h.m.runID != run+6 {
		t.Fatalf("MAX_BRANCHES below 1 or a run for no change")
	}
	h.keys("k", "k", "k") // back to MAX_DEPTH
	for range 10 {
		h.keys("+")
	}
	if d := h.m.params.Config().MaxDepth; d != 12 {
		t.Fatalf("MAX_DEPTH = %d, want 12", d)
	}
	h.settle()
}

// pickerTo moves the seed picker's cursor to node id.
func (h *harness) pickerTo(id string) {
	h.t.Helper()
	h.focusPane(focusSeeds)
	for i, n := range h.m.seeds.visible {
		if n.ID == id {
			h.m.seeds.moveTo(i)
			return
		}
	}
	h.t.Fatalf("%s not listed", id)
}

// TestSeedToggleAndScore toggles N2006 as a seed (default R 0.85), steps R
// with + and - by 0.05 (0.85 → 0.9 → 0.95 → 1 → 1, clamped), and types
// 0.42.
func TestSeedToggleAndScore(t *testing.T) {
	h := newHarness(t, loadDemo(t), Options{})
	if h.m.trees != nil {
		t.Fatal("a run without seeds")
	}
	h.pickerTo("N2006")
	h.keys("space")
	h.settle()
	if s := h.m.seeds.Seeds(); len(s) != 1 || s[0] != demoSeed {
		t.Fatalf("seeds = %+v", s)
	}
	if h.m.trees == nil || h.m.trees.seeds[0].state != seedDone {
		t.Fatal("toggling a seed did not run it")
	}
	h.keys("+", "+", "+", "+")
	if s := h.m.seeds.seeds[0].Score; s != 1 {
		t.Fatalf("R = %v, want 1", s)
	}
	h.keys("-")
	if s := h.m.seeds.seeds[0].Score; s != 0.95 {
		t.Fatalf("R = %v, want 0.95", s)
	}
	h.keys("r", "backspace", "backspace", "backspace", "backspace")
	h.typeText("0.42")
	h.keys("enter")
	h.settle()
	if s := h.m.seeds.seeds[0].Score; s != 0.42 || h.m.seeds.editing {
		t.Fatalf("R = %v (editing %v), want 0.42", s, h.m.seeds.editing)
	}
	if h.m.trees.seeds[0].seed.Score != 0.42 {
		t.Fatal("the run does not use the typed score")
	}
	h.keys("enter") // toggles N2006 off: no seeds, no run
	h.settle()
	if len(h.m.seeds.seeds) != 0 || h.m.trees != nil {
		t.Fatal("seed not removed")
	}
}

// TestInvalidScoreRefused types values outside (0, 1] and a non-number: each
// is refused with a message naming it, the score stays 0.85 and the input
// stays open.
func TestInvalidScoreRefused(t *testing.T) {
	h := newHarness(t, loadDemo(t), Options{Seeds: []retriever.SeedInput{demoSeed}})
	h.pickerTo("N2006")
	for _, bad := range []string{"1.5", "0", "-0.2", "abc", "NaN"} {
		h.keys("r")
		for range 8 {
			h.keys("backspace")
		}
		h.typeText(bad)
		h.keys("enter")
		h.settle()
		st := h.lastStatus()
		if !st.isErr || !strings.Contains(st.text, `"`+bad+`"`) {
			t.Errorf("%s: status %+v", bad, st)
		}
		if s := h.m.seeds.seeds[0].Score; s != 0.85 {
			t.Errorf("%s: R = %v", bad, s)
		}
		if !h.m.seeds.editing {
			t.Errorf("%s: input closed", bad)
		}
		h.keys("esc")
	}
}

// TestSeedLimit allows two seeds with MaxSeeds 2 and refuses a third with a
// message naming the limit and the node.
func TestSeedLimit(t *testing.T) {
	h := newHarness(t, loadDemo(t), Options{MaxSeeds: 2})
	for _, id := range []string{"N2000", "N2001", "N2002"} {
		h.pickerTo(id)
		h.keys("space")
		h.settle()
	}
	if n := len(h.m.seeds.seeds); n != 2 {
		t.Fatalf("seeds = %d, want 2", n)
	}
	if st := h.lastStatus(); !st.isErr || !strings.Contains(st.text, "at most 2 seeds") || !strings.Contains(st.text, "N2002") {
		t.Fatalf("status = %+v", st)
	}
}

// TestPickerPagingAndFilter: the demo graph has 57 nodes; the first page
// holds 50 and the rest loads when the cursor nears the end. Typing a filter
// fuzzy-filters at once and asks the catalog for matches (server-side).
func TestPickerPagingAndFilter(t *testing.T) {
	h := newHarness(t, loadDemo(t), Options{})
	p := h.m.seeds
	if len(p.all.nodes) != 50 || !p.all.more {
		t.Fatalf("first page: %d nodes, more %v", len(p.all.nodes), p.all.more)
	}
	h.keys("G")
	h.settle()
	if len(p.visible) != 57 || p.all.more {
		t.Fatalf("after scrolling: %d nodes, more %v", len(p.visible), p.all.more)
	}
	calls := h.src.listCalls.Load()
	h.keys("/")
	h.typeText("q")
	if h.quit {
		t.Fatal("q quit while typing a filter")
	}
	h.typeText("2017")
	h.settle()
	if got := p.filter.Value(); got != "q2017" {
		t.Fatalf("filter = %q", got)
	}
	h.keys("backspace", "backspace", "backspace", "backspace", "backspace")
	h.typeText("N2017")
	h.settle()
	if len(p.visible) == 0 || p.visible[0].ID != "N2017" {
		t.Fatalf("visible = %v", p.visible)
	}
	if h.src.listCalls.Load() <= calls {
		t.Fatal("no server-side search for the filter")
	}
	h.keys("enter", "space") // leave the filter, pick N2017
	h.settle()
	if len(p.seeds) != 1 || p.seeds[0].NodeID != "N2017" {
		t.Fatalf("seeds = %+v", p.seeds)
	}
}

// TestTagInput completes "dem" to demand_forecasting (the only tag starting
// with it), adds stockout, removes one with backspace on the empty input,
// one via a selected chip and delete, and checks that q types instead of
// quitting.
func TestTagInput(t *testing.T) {
	h := newHarness(t, loadDemo(t), Options{Seeds: []retriever.SeedInput{demoSeed}})
	h.focusPane(focusTags)
	run := h.m.runID
	h.typeText("dem")
	// 7 RELATES edges of the demo graph carry demand_forecasting (counted
	// in testdata/demo.jsonl); it is the only tag starting with "dem".
	if v := h.m.tags.View(); !strings.Contains(v, "▸demand_forecasting (7)") {
		t.Fatalf("suggestions:\n%s", v)
	}
	h.keys("enter")
	h.typeText("stockout")
	h.keys("enter")
	h.settle()
	if got := strings.Join(h.m.tags.Tags(), ","); got != "demand_forecasting,stockout" {
		t.Fatalf("tags = %q", got)
	}
	if h.m.runID != run+2 || strings.Join(h.m.runTags, ",") != "demand_forecasting,stockout" {
		t.Fatalf("runs: %d, tags %v", h.m.runID-run, h.m.runTags)
	}
	if v := h.m.tags.View(); !strings.Contains(v, "[demand_forecasting]") || !strings.Contains(v, "[stockout]") {
		t.Fatalf("chips:\n%s", v)
	}
	h.keys("backspace")
	if got := strings.Join(h.m.tags.Tags(), ","); got != "demand_forecasting" {
		t.Fatalf("after backspace: %q", got)
	}
	h.typeText("safety_stock")
	h.keys("enter", "left", "left", "delete")
	if got := strings.Join(h.m.tags.Tags(), ","); got != "safety_stock" {
		t.Fatalf("after deleting the first chip: %q", got)
	}
	h.keys("esc", "ctrl+w")
	if len(h.m.tags.Tags()) != 0 {
		t.Fatalf("ctrl+w left %v", h.m.tags.Tags())
	}
	h.typeText("q")
	if h.quit || h.m.tags.input.Value() != "q" {
		t.Fatalf("q did not type (quit %v)", h.quit)
	}
	h.settle()
}

// TestQuit: q quits outside text inputs, ctrl+c anywhere.
func TestQuit(t *testing.T) {
	h := newHarness(t, loadDemo(t), Options{})
	_, cmd := h.m.Update(keyMsg("q"))
	if cmd == nil || cmd() != tea.Quit() {
		t.Fatal("q did not quit")
	}
	h.focusPane(focusTags)
	_, cmd = h.m.Update(keyMsg("ctrl+c"))
	if cmd == nil || cmd() != tea.Quit() {
		t.Fatal("ctrl+c did not quit from the tag input")
	}
}

// TestFoldAndNavigate folds N2003 (hiding N2001 and N2010: "(+2)"), moves
// to the parent with h, and unfolds with l.
func TestFoldAndNavigate(t *testing.T) {
	h := demoHarness(t)
	h.selectTreeNode("N2003")
	h.keys("enter")
	if txt := h.treeText(); strings.Contains(txt, "N2001") || !strings.Contains(txt, "▶ N2003 AgentAnswer") || !strings.Contains(txt, "(+2)") {
		t.Fatalf("fold:\n%s", txt)
	}
	h.keys("h") // folded: go to the parent
	if k, _ := h.m.tree.selectedKey(); k.id != "N2006" {
		t.Fatalf("selected %s, want N2006", k.id)
	}
	h.selectTreeNode("N2003")
	h.keys("l")
	if !strings.Contains(h.treeText(), "N2010") {
		t.Fatal("unfold failed")
	}
}

// TestCopyPath selects N2001 (inner node) and copies the path from the seed
// to it; the OSC 52 sequence carries the Browser form base64-encoded.
func TestCopyPath(t *testing.T) {
	h := demoHarness(t)
	h.selectTreeNode("N2001")
	h.keys("y")
	h.settle()
	want := ":params {id0: \"N2006\", id1: \"N2003\", id2: \"N2001\"}\n" +
		"MATCH p = (n0 {id: $id0})-[:RELATES]-(n1 {id: $id1})-[:RELATES]-(n2 {id: $id2}) RETURN p;"
	seq := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(want)) + "\a"
	if !strings.Contains(h.out.String(), seq) {
		t.Fatalf("output lacks the OSC 52 sequence for\n%s\ngot %q", want, h.out.String())
	}
	if st := h.lastStatus().text; st != "copied Cypher for path N2006→N2003→N2001 (3 nodes)" {
		t.Fatalf("status = %q", st)
	}
	h.keys("Y")
	h.settle()
	if st := h.lastStatus().text; st != "copied Cypher for all 3 paths" {
		t.Fatalf("status = %q", st)
	}
	if !strings.Contains(h.out.String(), base64.StdEncoding.EncodeToString([]byte("// Path 1: N2006 -> N2003 -> N2001 -> N2010\n"))[:40]) {
		t.Fatal("Y did not copy the script")
	}
}

// TestExport writes the D3 JSON and the LLM context to OutDir under
// timestamped names, leaving no temporary files.
func TestExport(t *testing.T) {
	h := demoHarness(t)
	dir := h.m.outDir
	h.keys("d")
	h.settle()
	d3 := filepath.Join(dir, "memoria-d3-20260302-093100.json")
	if st := h.lastStatus(); st.isErr || !strings.Contains(st.text, d3) {
		t.Fatalf("status = %+v", st)
	}
	b, err := os.ReadFile(d3)
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Nodes []map[string]any `json:"nodes"`
	}
	if err := json.Unmarshal(b, &g); err != nil || len(g.Nodes) != 7 {
		t.Fatalf("D3 JSON: %v, %d nodes (want the 7 of scenario A)", err, len(g.Nodes))
	}
	h.keys("L")
	h.settle()
	b, err = os.ReadFile(filepath.Join(dir, "memoria-llm-20260302-093100.txt"))
	if err != nil || !strings.HasPrefix(string(b), "Path 1: ") {
		t.Fatalf("LLM context: %v %q", err, b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("files in OutDir: %v", entries)
	}
}

// TestBatchedKeys: a terminal may deliver "jj" in one read; outside text
// inputs each rune counts as its own key, so the tree cursor moves twice.
func TestBatchedKeys(t *testing.T) {
	h := demoHarness(t)
	h.focusPane(focusTree)
	h.keys("home")
	h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("jj")})
	if k, _ := h.m.tree.selectedKey(); k.id != "N2001" {
		t.Fatalf("selected %s, want N2001 (two rows down from N2006)", k.id)
	}
}

// TestHelpListsEveryKey opens the full help at 80×24 and checks that its
// content names every binding of the keymap, and that it closes with esc.
func TestHelpListsEveryKey(t *testing.T) {
	h := newHarness(t, loadDemo(t), Options{})
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.keys("?")
	if !h.m.showHelp {
		t.Fatal("? did not open the help")
	}
	full := h.m.fullHelp(h.m.helpVP.Width)
	for _, g := range h.m.km.All() {
		for _, b := range g {
			if !strings.Contains(full, b.Help().Desc) {
				t.Errorf("help lacks %q", b.Help().Desc)
			}
		}
	}
	if !strings.Contains(h.m.View(), "Keys (? or esc to close") {
		t.Fatal("help not shown")
	}
	h.keys("esc")
	if h.m.showHelp {
		t.Fatal("esc did not close the help")
	}
}
