package tui

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/tui/components/seeds"
	"github.com/memoria-graph/memoria/tui/components/tree"
	"github.com/memoria-graph/memoria/tui/overlays/helpview"
)

// TestStepLinear checks TAG_SIM_FLOOR's 0.05 steps in [0, 1]: 0.15 → 0.2 /
// 0.1, off-grid 0.17 → 0.2 / 0.15, and clamping at both ends.
func TestStepLinear(t *testing.T) {
	for _, c := range []struct{ v, up, down float64 }{
		{0.15, 0.2, 0.1}, {0.17, 0.2, 0.15}, {0, 0.05, 0}, {1, 1, 0.95}, {0.95, 1, 0.9},
	} {
		if got := retriever.StepLinear(c.v, 0.05, 1, 0, 1); got != c.up {
			t.Errorf("up from %v = %v, want %v", c.v, got, c.up)
		}
		if got := retriever.StepLinear(c.v, 0.05, -1, 0, 1); got != c.down {
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
	run := h.m.actRun().id
	h.keys("+")           // MAX_DEPTH 6
	h.keys("j", "-", "-") // MIN_ACTIVATION 0.002, 0.001
	h.keys("j", "l")      // TAG_SIM_FLOOR 0.2
	h.keys("j", "h", "h") // MAX_BRANCHES 1
	cfg := h.m.params.Config()
	if cfg.MaxDepth != 6 || cfg.MinActivation != 0.001 || cfg.TagSimFloor != 0.2 || cfg.MaxBranches != 2-1 {
		t.Fatalf("config = %+v", cfg)
	}
	if h.m.actRun().id != run+6 {
		t.Fatalf("runs started = %d, want 6", h.m.actRun().id-run)
	}
	h.keys("h") // MAX_BRANCHES stays 1: no new run
	if h.m.params.Config().MaxBranches != 1 || h.m.actRun().id != run+6 {
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
	for i, n := range h.m.seeds.Visible() {
		if n.ID == id {
			h.m.seeds.MoveTo(i)
			return
		}
	}
	h.t.Fatalf("%s not listed", id)
}

// TestSeedToggleAndScore toggles N2006 as a seed (default R 1, as
// `memoria explore --seed N2006` takes it), steps R with + and - by 0.05
// (1 → 1, clamped, then 0.95 → 0.9 → 0.95), and types 0.42. The status line
// follows every step: it kept "added seed N2006 with R …" after + had
// changed R (issue 11, item 7).
func TestSeedToggleAndScore(t *testing.T) {
	h := newHarness(t, loadDemo(t), Options{})
	if h.m.actRun().trees != nil {
		t.Fatal("a run without seeds")
	}
	h.pickerTo("N2006")
	h.keys("space")
	h.settle()
	if s := h.m.seeds.Seeds(); len(s) != 1 || s[0] != (retriever.Seed{NodeID: "N2006", Score: 1}) {
		t.Fatalf("seeds = %+v", s)
	}
	if st := h.lastStatus().Text; !strings.Contains(st, "added seed N2006 with R 1 ") {
		t.Errorf("status %q", st)
	}
	if h.m.actRun().trees == nil || h.m.actRun().trees.Seeds[0].State != tree.SeedDone {
		t.Fatal("toggling a seed did not run it")
	}
	for _, c := range []struct {
		key    string
		r      float64
		status string
	}{{"+", 1, "N2006: R stays 1"}, {"-", 0.95, "N2006: R = 0.95"}, {"-", 0.9, "N2006: R = 0.9"}, {"+", 0.95, "N2006: R = 0.95"}} {
		h.keys(c.key)
		h.settle()
		if s := h.m.seeds.Seeds()[0].Score; s != c.r {
			t.Fatalf("%s: R = %v, want %v", c.key, s, c.r)
		}
		if st := h.lastStatus().Text; !strings.HasPrefix(st, c.status) {
			t.Errorf("%s to R %v: status %q, want %q", c.key, c.r, st, c.status)
		}
	}
	h.keys("r", "backspace", "backspace", "backspace", "backspace")
	h.typeText("0.42")
	h.keys("enter")
	h.settle()
	if s := h.m.seeds.Seeds()[0].Score; s != 0.42 || h.m.seeds.Editing() {
		t.Fatalf("R = %v (editing %v), want 0.42", s, h.m.seeds.Editing())
	}
	if h.m.actRun().trees.Seeds[0].Seed.Score != 0.42 {
		t.Fatal("the run does not use the typed score")
	}
	h.keys("enter") // toggles N2006 off: no seeds, no run
	h.settle()
	if len(h.m.seeds.Seeds()) != 0 || h.m.actRun().trees != nil {
		t.Fatal("seed not removed")
	}
}

// TestInvalidScoreRefused types values outside (0, 1] and a non-number: each
// is refused with a message naming it, the score stays 0.85 and the input
// stays open.
func TestInvalidScoreRefused(t *testing.T) {
	h := newHarness(t, loadDemo(t), Options{Seeds: []retriever.Seed{demoSeed}})
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
		if !st.IsErr || !strings.Contains(st.Text, `"`+bad+`"`) {
			t.Errorf("%s: status %+v", bad, st)
		}
		if s := h.m.seeds.Seeds()[0].Score; s != 0.85 {
			t.Errorf("%s: R = %v", bad, s)
		}
		if !h.m.seeds.Editing() {
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
	if n := len(h.m.seeds.Seeds()); n != 2 {
		t.Fatalf("seeds = %d, want 2", n)
	}
	if st := h.lastStatus(); !st.IsErr || !strings.Contains(st.Text, "at most 2 seeds") || !strings.Contains(st.Text, "N2002") {
		t.Fatalf("status = %+v", st)
	}
}

// TestPickerPagingAndFilter: the demo graph has 57 nodes; the first page
// holds 50 and the rest loads when the cursor nears the end. Typing a filter
// filters the loaded nodes at once and asks the catalog for its ranked matches.
func TestPickerPagingAndFilter(t *testing.T) {
	h := newHarness(t, loadDemo(t), Options{})
	p := h.m.seeds
	if len(p.All().Nodes) != 50 || !p.All().More {
		t.Fatalf("first page: %d nodes, more %v", len(p.All().Nodes), p.All().More)
	}
	h.keys("G")
	h.settle()
	if len(p.Visible()) != 57 || p.All().More {
		t.Fatalf("after scrolling: %d nodes, more %v", len(p.Visible()), p.All().More)
	}
	calls := h.src.listCalls.Load()
	h.keys("/")
	h.typeText("q")
	if h.quit {
		t.Fatal("q quit while typing a filter")
	}
	h.typeText("2017")
	h.settle()
	if got := p.FilterText(); got != "q2017" {
		t.Fatalf("filter = %q", got)
	}
	h.keys("backspace", "backspace", "backspace", "backspace", "backspace")
	h.typeText("N2017")
	h.settle()
	if len(p.Visible()) == 0 || p.Visible()[0].ID != "N2017" {
		t.Fatalf("visible = %v", p.Visible())
	}
	if h.src.listCalls.Load() <= calls {
		t.Fatal("no server-side search for the filter")
	}
	h.keys("enter", "space") // leave the filter, pick N2017
	h.settle()
	if len(p.Seeds()) != 1 || p.Seeds()[0].NodeID != "N2017" {
		t.Fatalf("seeds = %+v", p.Seeds())
	}
}

// TestTagInput completes "dem" to demand_forecasting (the only tag starting
// with it), adds stockout, removes one with backspace on the empty input,
// one via a selected chip and delete, and checks that q types instead of
// quitting.
func TestTagInput(t *testing.T) {
	h := newHarness(t, loadDemo(t), Options{Seeds: []retriever.Seed{demoSeed}})
	h.focusPane(focusTags)
	run := h.m.actRun().id
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
	if h.m.actRun().id != run+2 || strings.Join(h.m.actRun().tags, ",") != "demand_forecasting,stockout" {
		t.Fatalf("runs: %d, tags %v", h.m.actRun().id-run, h.m.actRun().tags)
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
	if h.quit || h.m.tags.Value() != "q" {
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
	if k, _ := h.m.tree.SelectedKey(); k.ID != "N2006" {
		t.Fatalf("selected %s, want N2006", k.ID)
	}
	h.selectTreeNode("N2003")
	h.keys("l")
	if !strings.Contains(h.treeText(), "N2010") {
		t.Fatal("unfold failed")
	}
}

// demoPathCypher is the Browser form of scenario A's path N2006 → N2003 →
// N2001 (docs/EXPORTS.md, format 3): each relationship pinned by its
// properties as testdata/demo.jsonl gives them (N2006–N2003 weight 0.82,
// tags inventory_policy, recommendation, analysis_dependency; N2003–N2001
// weight 0.9, tags demand_forecasting, safety_stock, analysis_dependency).
const demoPathCypher = ":params {id0: \"N2006\", id1: \"N2003\", id2: \"N2001\", " +
	"r0: {tags: [\"inventory_policy\", \"recommendation\", \"analysis_dependency\"], weight: 0.82}, " +
	"r1: {tags: [\"demand_forecasting\", \"safety_stock\", \"analysis_dependency\"], weight: 0.9}}\n" +
	"MATCH p = (n0 {id: $id0})-[r0:RELATES]-(n1 {id: $id1})-[r1:RELATES]-(n2 {id: $id2}) WHERE properties(r0) = $r0 AND properties(r1) = $r1 RETURN p;"

// TestCopyPath selects N2001 (inner node) and copies the path from the seed
// to it; the OSC 52 sequence carries the Browser form (demoPathCypher)
// base64-encoded.
func TestCopyPath(t *testing.T) {
	h := demoHarness(t)
	h.selectTreeNode("N2001")
	h.keys("y")
	h.settle()
	want := demoPathCypher
	seq := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(want)) + "\a"
	if !strings.Contains(h.out.String(), seq) {
		t.Fatalf("output lacks the OSC 52 sequence for\n%s\ngot %q", want, h.out.String())
	}
	if st := h.lastStatus().Text; st != "copied Cypher for path N2006→N2003→N2001 (3 nodes)" {
		t.Fatalf("status = %q", st)
	}
	h.keys("Y")
	h.settle()
	if st := h.lastStatus().Text; st != "copied Cypher for all 3 paths" {
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
	dir := h.m.OutDir
	h.keys("d")
	h.settle()
	d3 := filepath.Join(dir, "memoria-d3-20260302-093100.json")
	if st := h.lastStatus(); st.IsErr || !strings.Contains(st.Text, d3) {
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
	if k, _ := h.m.tree.SelectedKey(); k.ID != "N2001" {
		t.Fatalf("selected %s, want N2001 (two rows down from N2006)", k.ID)
	}
}

// TestHelpListsEveryKey opens the full help at 80×24 and checks that its
// content names every binding of the keymap under its pane's heading (the
// heading comes before the key, and no other heading in between), and
// that it closes with esc.
func TestHelpListsEveryKey(t *testing.T) {
	h := newHarness(t, loadDemo(t), Options{})
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.keys("?")
	if !h.m.isOpen(h.m.ov.helpView) {
		t.Fatal("? did not open the help")
	}
	full := helpview.Keys(h.m.KM, h.m.St, h.m.ov.helpView.Width())
	golden(t, "help_80x24", full)
	for _, g := range h.m.KM.All() {
		for _, b := range g {
			if !strings.Contains(full, b.Help().Desc) {
				t.Errorf("help lacks %q", b.Help().Desc)
			}
		}
	}
	// Columns sit side by side, so check each heading's column: the
	// heading's cell column is where its keys' lines start.
	lines := strings.Split(full, "\n")
	for _, g := range h.m.KM.Groups() {
		found := false
		for i, l := range lines {
			at := strings.Index(l, g.Title)
			if at < 0 {
				continue
			}
			found = true
			col := len([]rune(l[:at])) // every rune here is one cell wide
			for j, b := range g.Keys {
				if i+1+j >= len(lines) || !strings.HasPrefix(string([]rune(lines[i+1+j])[col:]), b.Help().Key) {
					t.Errorf("under %q, line %d does not start with %q", g.Title, i+2+j, b.Help().Key)
				}
			}
			break
		}
		if !found {
			t.Errorf("help lacks the heading %q", g.Title)
		}
	}
	if !strings.Contains(h.m.View(), "Keys (? or esc to close") {
		t.Fatal("help not shown")
	}
	h.keys("esc")
	if h.m.isOpen(h.m.ov.helpView) {
		t.Fatal("esc did not close the help")
	}
}

// TestScoreEditFollowsItsSeed: seeds N2006 and T4005; the filter "the" is
// typed and the cursor put on N2006 among the loaded nodes that match, then
// "r" opens its score input. While 0.42 is typed, the
// catalog's ranked matches for "the" arrive and replace the provisional
// list: word-prefix matches by the length of their text (N2011, T4027, …,
// some not loaded before), so the cursor index now points at another node. Expected: enter gives R 0.42 to N2006,
// the seed the edit started on, and T4005 keeps 0.85. Why: the score used
// to go to whatever row was under the cursor at enter.
func TestScoreEditFollowsItsSeed(t *testing.T) {
	src := loadDemo(t)
	other := retriever.Seed{NodeID: "T4005", Score: 0.85}
	h := newHarness(t, src, Options{Seeds: []retriever.Seed{demoSeed, other}})
	p := h.m.seeds
	h.focusPane(focusSeeds)
	h.keys("/")
	h.typeText("the")
	// Leave the filter input (the server search is pending) and put the
	// cursor on N2006 by hand: pickerTo would settle, applying the page.
	h.keys("enter")
	for i, n := range p.Visible() {
		if n.ID == "N2006" {
			p.MoveTo(i)
		}
	}
	if n, _ := p.Current(); n.ID != "N2006" || len(p.Match().Nodes) > 0 {
		t.Fatalf("cursor on %s with %d server matches: want N2006 and none yet", n.ID, len(p.Match().Nodes))
	}
	h.keys("r")
	for range 8 {
		h.keys("backspace")
	}
	h.typeText("0.42")
	h.waitFor("the server's matches", func() bool { return len(p.Match().Nodes) > 0 })
	if n, _ := p.Current(); n.ID == "N2006" {
		t.Fatalf("cursor still on N2006 after the page: the ranking the test relies on changed")
	}
	h.keys("enter")
	h.settle()
	got := map[string]float64{}
	for _, s := range p.Seeds() {
		got[s.NodeID] = s.Score
	}
	if got["N2006"] != 0.42 || got["T4005"] != 0.85 {
		t.Fatalf("scores = %v, want N2006 0.42 and T4005 0.85", got)
	}
	if st := h.lastStatus(); st.IsErr || st.Text != "N2006: R = 0.42" {
		t.Fatalf("status = %+v", st)
	}
}

// TestTabAppliesValidScore: "r" on the seed N2006, 0.6 typed, then tab
// instead of enter. Expected: the score is applied (R 0.6, a new run with
// it) and the status line names it. Why: tab used to drop the typed value
// silently.
func TestTabAppliesValidScore(t *testing.T) {
	h := newHarness(t, loadDemo(t), Options{Seeds: []retriever.Seed{demoSeed}})
	h.pickerTo("N2006")
	run := h.m.actRun().id
	h.keys("r", "backspace", "backspace", "backspace", "backspace")
	h.typeText("0.6")
	h.keys("tab")
	h.settle()
	if s := h.m.seeds.Seeds()[0].Score; s != 0.6 || h.m.seeds.Typing() {
		t.Fatalf("R = %v (typing %v), want 0.6 and the input closed", s, h.m.seeds.Typing())
	}
	if h.m.actRun().id != run+1 || h.m.actRun().trees.Seeds[0].Seed.Score != 0.6 {
		t.Fatalf("no new run with R 0.6 (runs %d)", h.m.actRun().id-run)
	}
	if st := h.lastStatus(); st.IsErr || st.Text != "N2006: R = 0.6" {
		t.Fatalf("status = %+v", st)
	}
}

// TestTabAbandonsInvalidScore: "r" on N2006, "1.5" typed (outside (0, 1]),
// then tab. Expected: R stays 0.85, no new run, and the status line says the
// edit was abandoned and why. Why: the half-typed value used to vanish
// without a word.
func TestTabAbandonsInvalidScore(t *testing.T) {
	h := newHarness(t, loadDemo(t), Options{Seeds: []retriever.Seed{demoSeed}})
	h.pickerTo("N2006")
	run := h.m.actRun().id
	h.keys("r", "backspace", "backspace", "backspace", "backspace")
	h.typeText("1.5")
	h.keys("tab")
	h.settle()
	if s := h.m.seeds.Seeds()[0].Score; s != 0.85 || h.m.actRun().id != run {
		t.Fatalf("R = %v, runs %d: want 0.85 and no new run", s, h.m.actRun().id-run)
	}
	st := h.lastStatus()
	if !st.IsErr || !strings.Contains(st.Text, "score edit for N2006 abandoned, R stays 0.85") || !strings.Contains(st.Text, `"1.5"`) {
		t.Fatalf("status = %+v", st)
	}
}

// TestFilterDebounced: the picker debounces with filterDebounce through
// tea.Tick by default; here its debounce is 200 ms on a fake clock. "N2017"
// is typed as five keystrokes 40 ms apart. Expected: each keystroke asks
// for one timer of exactly 200 ms; 199 ms after the last keystroke the
// timers of the four older edits have fired and started no search; at
// 200 ms the last edit's fires and starts the one server search (ListNodes
// with a filter), for "N2017", whose match is shown. Why: every keystroke
// used to start a ListNodes, each a scan of every node on Neo4j; and a test
// whose timers run on the wall clock cannot tell a 150 ms debounce from
// none.
func TestFilterDebounced(t *testing.T) {
	src := loadDemo(t)
	h := newHarness(t, src, Options{})
	p := h.m.seeds
	if d, tick := p.Clock(); d != seeds.FilterDebounce || reflect.ValueOf(tick).Pointer() != reflect.ValueOf(tea.Tick).Pointer() {
		t.Fatalf("the picker debounces %v with %v, want FilterDebounce (%v) with tea.Tick", d, tick, seeds.FilterDebounce)
	}
	const debounce = 200 * time.Millisecond
	clock := &fakeClock{}
	p.SetClock(debounce, clock.tick)
	h.focusPane(focusSeeds)
	h.keys("/")
	for i, r := range "N2017" {
		if i > 0 {
			if fired := clock.advance(40 * time.Millisecond); len(fired) > 0 {
				t.Fatalf("a timer fired %v after a keystroke: %v", 40*time.Millisecond, fired)
			}
		}
		h.typeText(string(r))
	}
	h.settle()
	if len(clock.timers) != 5 {
		t.Fatalf("%d timers for 5 keystrokes", len(clock.timers))
	}
	for i, tm := range clock.timers {
		if tm.d != debounce {
			t.Fatalf("keystroke %d: timer of %v, want %v", i+1, tm.d, debounce)
		}
	}
	fired := clock.advance(debounce - time.Millisecond)
	if len(fired) != 4 {
		t.Fatalf("%d timers fired 199 ms after the last keystroke, want the 4 older ones", len(fired))
	}
	h.send(fired...)
	h.settle()
	if n := len(src.filteredCalls()); n != 0 {
		t.Fatalf("%d server searches before the last edit's debounce ended", n)
	}
	fired = clock.advance(time.Millisecond)
	if len(fired) != 1 || fired[0] != (seeds.FilterTickMsg{ID: p.Edits()}) {
		t.Fatalf("at 200 ms fired %v, want the last edit's tick (id %d)", fired, p.Edits())
	}
	h.send(fired...)
	h.settle()
	calls := src.filteredCalls()
	if len(calls) != 1 || calls[0].filter != "N2017" {
		var fs []string
		for _, c := range calls {
			fs = append(fs, c.filter)
		}
		t.Fatalf("server searches for %q, want one for \"N2017\"", fs)
	}
	if len(p.Match().Nodes) != 1 || len(p.Visible()) == 0 || p.Visible()[0].ID != "N2017" {
		t.Fatalf("matches %v, visible %v", p.Match().Nodes, p.Visible())
	}
}

// TestFilterNoMatchSearchedOnce types "qqzzxx", which no node matches, and
// lets its search finish; then moves the text cursor (←, →, home, end),
// presses ↑ and ↓, types a trailing space, and in the list presses ↓, ↑,
// end, G and pgdown. Expected: one ListNodes call in all, and "no nodes".
// Why: a search with no match left the stream looking unsearched, so each
// of these keys started the same search again.
func TestFilterNoMatchSearchedOnce(t *testing.T) {
	src := loadDemo(t)
	h := newHarness(t, src, Options{})
	p := h.m.seeds
	h.focusPane(focusSeeds)
	before := src.listCalls.Load()
	h.keys("/")
	h.typeText("qqzzxx")
	h.settle()
	if len(p.Match().Nodes) != 0 || p.Match().Loading || p.Match().Seq == 0 || len(p.Visible()) != 0 {
		t.Fatalf("stream seq %d loading %v with %v, visible %v: want a finished search with no match",
			p.Match().Seq, p.Match().Loading, p.Match().Nodes, p.Visible())
	}
	h.keys("left", "right", "home", "end", "up", "down", "space")
	h.settle()
	h.keys("enter", "down", "up", "end", "G", "pgdown")
	h.settle()
	if p.FilterText() != "qqzzxx " || p.FilterFocused() {
		t.Fatalf("filter %q (focused %v), want \"qqzzxx \" and the list focused", p.FilterText(), p.FilterFocused())
	}
	if n := src.listCalls.Load() - before; n != 1 {
		t.Fatalf("%d ListNodes calls, want 1", n)
	}
	if !strings.Contains(p.View(), "no nodes") {
		t.Fatalf("picker:\n%s", p.View())
	}
}

// TestFirstPageRetried makes the first two ListNodes calls fail: the first
// page of the node list, then its retry by ↓ in the (empty) list. Expected:
// each failure is on the status line (with the retry key) and in the
// picker; ctrl+r then fetches the first page, which is shown. Why: a
// failed first page was never asked for again.
func TestFirstPageRetried(t *testing.T) {
	src := loadDemo(t)
	src.failLists(2)
	h := newHarness(t, src, Options{})
	p := h.m.seeds
	failed := func(when string) {
		t.Helper()
		st := h.lastStatus()
		if !st.IsErr || !strings.Contains(st.Text, "listing nodes: "+errFakeList.Error()) || !strings.Contains(st.Text, "ctrl+r") {
			t.Fatalf("%s: status %+v", when, st)
		}
		if p.All().Err == nil || len(p.All().Nodes) != 0 || !strings.Contains(p.View(), "could not list nodes: ctrl+r retries") {
			t.Fatalf("%s: err %v, %d nodes, picker:\n%s", when, p.All().Err, len(p.All().Nodes), p.View())
		}
	}
	failed("first page")
	h.focusPane(focusSeeds)
	if !slices.ContainsFunc(p.ShortHelp(), func(b key.Binding) bool { return b.Help().Key == "ctrl+r" }) {
		t.Fatal("the help line does not offer ctrl+r")
	}
	calls := src.listCalls.Load()
	h.keys("down")
	h.settle()
	if n := src.listCalls.Load() - calls; n != 1 {
		t.Fatalf("↓ after the failure: %d ListNodes calls, want 1 (a retry)", n)
	}
	failed("retry by ↓")
	h.keys("ctrl+r")
	h.settle()
	if n := src.listCalls.Load() - calls; n != 2 {
		t.Fatalf("ctrl+r: %d ListNodes calls in all, want 2", n)
	}
	if p.All().Err != nil || len(p.All().Nodes) != seeds.NodePageSize || !p.All().More || len(p.Visible()) != seeds.NodePageSize {
		t.Fatalf("after ctrl+r: err %v, %d nodes (more %v), %d visible", p.All().Err, len(p.All().Nodes), p.All().More, len(p.Visible()))
	}
	if strings.Contains(p.View(), "retries") {
		t.Fatalf("the failure is still shown:\n%s", p.View())
	}
}

// TestFilterSearchRetried makes the server search for "N2017" fail twice:
// its first page, then the retry by ↓ in the filter input. A trailing
// space (the same search) is not a retry. Expected: the status line names
// the search; ctrl+r in the input searches again at once and N2017 is
// shown. Why: a failed search was never asked for again.
func TestFilterSearchRetried(t *testing.T) {
	src := loadDemo(t)
	h := newHarness(t, src, Options{})
	p := h.m.seeds
	h.focusPane(focusSeeds)
	h.keys("/")
	h.typeText("N2017")
	src.failLists(2)
	h.settle()
	if st := h.lastStatus(); !st.IsErr || !strings.Contains(st.Text, `searching nodes for "N2017": `+errFakeList.Error()) {
		t.Fatalf("status %+v", st)
	}
	h.keys("space")
	h.settle()
	if n := len(src.filteredCalls()); n != 1 {
		t.Fatalf("a trailing space: %d searches, want still 1", n)
	}
	h.keys("down")
	h.settle()
	if n := len(src.filteredCalls()); n != 2 || p.Match().Err == nil {
		t.Fatalf("↓ after the failure: %d searches (err %v), want a second, failing", n, p.Match().Err)
	}
	h.keys("ctrl+r")
	h.settle()
	calls := src.filteredCalls()
	if len(calls) != 3 || calls[2].filter != "N2017" {
		t.Fatalf("ctrl+r: %d searches, want a third for N2017", len(calls))
	}
	if !p.FilterFocused() || p.Match().Err != nil || len(p.Match().Nodes) != 1 || len(p.Visible()) == 0 || p.Visible()[0].ID != "N2017" {
		t.Fatalf("after ctrl+r: input focused %v, err %v, matches %v, visible %v", p.FilterFocused(), p.Match().Err, p.Match().Nodes, p.Visible())
	}
}

// TestFilterCancelsSupersededSearch holds every server search (holdLists).
// "N20" is typed and its search starts and waits in the fake; then "1" is
// typed. Expected: the "N20" search's context is cancelled at once (before
// the next debounce ends), its failure (context canceled) is dropped
// without an error on the status line, and the "N201" search is the one
// whose page is shown. Why: searches ran under the program's root context
// and were never cancelled, so each superseded one ran to its end.
func TestFilterCancelsSupersededSearch(t *testing.T) {
	src := loadDemo(t)
	src.holdLists()
	h := newHarness(t, src, Options{})
	h.focusPane(focusSeeds)
	h.keys("/")
	h.typeText("N20")
	h.settle() // the debounce ends; the search is held by the fake
	calls := src.filteredCalls()
	if len(calls) != 1 || calls[0].filter != "N20" || calls[0].ctx.Err() != nil {
		t.Fatalf("want one live search for N20, got %d", len(calls))
	}
	h.typeText("1")
	if calls[0].ctx.Err() == nil {
		t.Fatal("the N20 search was not cancelled when the filter changed")
	}
	h.settle() // the N20 search returns its error; N201's waits
	if st := h.lastStatus(); st.IsErr {
		t.Fatalf("the cancelled search's error was shown: %q", st.Text)
	}
	calls = src.filteredCalls()
	if len(calls) != 2 || calls[1].filter != "N201" {
		t.Fatalf("searches: %d, want a second one for N201", len(calls))
	}
	src.openLists()
	h.settle()
	p := h.m.seeds
	if p.Match().Filter != "N201" || len(p.Match().Nodes) != 8 {
		t.Fatalf("match stream %q with %d nodes, want N201 with N2010..N2017", p.Match().Filter, len(p.Match().Nodes))
	}
}

// TestStalePageDropped delivers, after a search for "N20" was replaced by
// one for "N201" and back by a new one for "N20", a page from the first
// "N20" search: same filter, offset 0. Expected: it is dropped (its stream
// sequence number is not the current one) and the current stream stays
// empty until its own page arrives. Why: pages used to be matched by filter
// only, so a late page of a superseded search was taken as the new one's.
func TestStalePageDropped(t *testing.T) {
	src := loadDemo(t)
	h := newHarness(t, src, Options{})
	h.focusPane(focusSeeds)
	p := h.m.seeds
	h.keys("/")
	h.typeText("N20")
	h.settle()
	first := p.Match().Seq
	h.typeText("1")
	h.keys("backspace")
	if p.Match().Filter != "N20" || p.Match().Seq == first {
		t.Fatalf("stream %q seq %d: want a new N20 stream", p.Match().Filter, p.Match().Seq)
	}
	stale := seeds.NodesLoadedMsg{Seq: first, Filter: "N20", Offset: 0,
		Nodes: []graph.NodeSummary{{ID: "N2099", Text: "from the old search"}}}
	h.send(stale)
	if len(p.Match().Nodes) != 0 || p.Known("N2099") {
		t.Fatalf("the stale page was applied: %v", p.Match().Nodes)
	}
	h.settle()
	if len(p.Match().Nodes) != 18 {
		t.Fatalf("the new N20 stream has %d nodes, want 18", len(p.Match().Nodes))
	}
}

// TestExportNeverOverwrites exports the D3 JSON three times within the same
// second (the clock is fixed at 09:31:00), the third time with a file of
// the next free name already in OutDir. Expected: memoria-d3-…-093100.json,
// then …-2.json, then …-4.json (…-3.json, a file the user had, is left
// untouched). Why: names had one-second resolution and the rename replaced
// whatever file had the name.
func TestExportNeverOverwrites(t *testing.T) {
	h := demoHarness(t)
	dir := h.m.OutDir
	mine := filepath.Join(dir, "memoria-d3-20260302-093100-3.json")
	for i, want := range []string{"memoria-d3-20260302-093100.json", "memoria-d3-20260302-093100-2.json", "memoria-d3-20260302-093100-4.json"} {
		if i == 2 {
			if err := os.WriteFile(mine, []byte("keep me"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		h.keys("d")
		h.settle()
		path := filepath.Join(dir, want)
		if st := h.lastStatus(); st.IsErr || !strings.Contains(st.Text, "wrote "+path+" ") {
			t.Fatalf("export %d: status %+v, want %s", i+1, st, path)
		}
		if b, err := os.ReadFile(path); err != nil || !strings.Contains(string(b), `"N2010"`) {
			t.Fatalf("export %d: %v", i+1, err)
		}
	}
	if b, _ := os.ReadFile(mine); string(b) != "keep me" {
		t.Fatalf("the existing file was overwritten: %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 4 {
		t.Fatalf("files in OutDir: %v (a temporary file left?)", entries)
	}
}

// TestShortHelpOnlyWorkingKeys: the help line of each pane lists only keys
// that work there. In the tag input (always typing) and the seed filter,
// q and ? type themselves, so the line offers ctrl+c and tab but not "q
// quit" or "? toggle help"; in the tree both are offered. Why: the line
// advertised q and ? in the Tags pane, where pressing them types text.
func TestShortHelpOnlyWorkingKeys(t *testing.T) {
	h := newHarness(t, loadDemo(t), Options{})
	line := func() string { // every key of the line, untruncated
		var parts []string
		for _, b := range h.m.shortHelp() {
			parts = append(parts, b.Help().Key+" "+b.Help().Desc)
		}
		return strings.Join(parts, " • ")
	}
	h.focusPane(focusTags)
	typing := line()
	h.focusPane(focusSeeds)
	h.keys("/")
	filter := line()
	for what, l := range map[string]string{"tags": typing, "filter": filter} {
		if strings.Contains(l, "q quit") || strings.Contains(l, "? toggle help") {
			t.Errorf("%s help line offers q or ?: %q", what, l)
		}
		if !strings.Contains(l, "ctrl+c quit (anywhere)") || !strings.Contains(l, "tab next pane") {
			t.Errorf("%s help line lacks ctrl+c or tab: %q", what, l)
		}
	}
	h.keys("esc")
	h.focusPane(focusTree)
	if l := line(); !strings.Contains(l, "q quit") || !strings.Contains(l, "? toggle help") {
		t.Errorf("tree help line lacks q or ?: %q", l)
	}
}

// TestFocusMovesWithTab tabs twice around the five panes, starting with the
// seed filter open. Expected: after each tab exactly the pane m.focus names
// takes keys (the others' Update ignores them), and the seed filter input
// lost the keyboard when the picker did. Why: the root used to set the
// panes' focus fields itself; Focus and Blur now own that.
func TestFocusMovesWithTab(t *testing.T) {
	h := newHarness(t, loadDemo(t), Options{})
	h.keys("/")
	for range 2 * int(focusCount) {
		h.keys("tab")
		on := map[focus]bool{focusSeeds: h.m.seeds.Focused(), focusTags: h.m.tags.Focused(),
			focusParams: h.m.params.Focused(), focusTree: h.m.tree.Focused(), focusDetail: h.m.detail.Focused()}
		for f, v := range on {
			if v != (f == h.m.focus) {
				t.Fatalf("focus %d: pane %d focused = %v", h.m.focus, f, v)
			}
		}
		if h.m.focus != focusSeeds && h.m.seeds.Typing() {
			t.Fatal("the seed filter kept the keyboard after tab")
		}
	}
	h.settle()
}
