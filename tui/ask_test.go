package tui

import (
	"context"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/gather"
	"github.com/memoria-graph/memoria/tui/overlays/query"
)

// scanSource is a fakeSource the gather can read node by node, as the
// embedded engine's source is (graph.NodeScanner).
type scanSource struct{ *fakeSource }

func (s scanSource) EachNode(ctx context.Context, fn func(graph.Node) error) error {
	return s.fakeSource.Source.(graph.NodeScanner).EachNode(ctx, fn)
}

// askHarness is the explorer on the demo graph with no seed, 120x40, the
// query line's debounce on a fake clock.
func askHarness(t *testing.T) (*harness, *fakeClock) {
	t.Helper()
	src := loadDemo(t)
	h := newHarness(t, src, Options{Source: scanSource{src}})
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	clock := &fakeClock{}
	h.m.ov.query.SetClock(query.Debounce, clock.tick)
	return h, clock
}

// ask opens the query line, types q and lets the debounce end.
func (h *harness) ask(clock *fakeClock, q string) {
	h.t.Helper()
	h.keys("a")
	h.settle()
	h.typeText(q)
	h.settle()
	h.send(clock.advance(query.Debounce)...)
	h.settle()
}

// libraryGather is the gather of q on the demo graph through
// retriever/gather's own API (the index of memoria's preset fields, the
// default settings): the candidates and seeds the query line must show and
// take, computed without the explorer.
func libraryGather(t *testing.T, q string) gather.Result {
	t.Helper()
	src := loadDemo(t)
	f, _ := gather.Preset("")
	ix, err := gather.Build(context.Background(), src.Source.(graph.NodeScanner), f)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ix.Gather(context.Background(), []string{q}, nil, gather.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestAskGolden types "safety stock" on the query line (a) of the demo
// graph. Expected (testdata/ask_120x40.golden): the question, "5
// candidates, 5 ticked", the tag the question names (safety_stock: its
// words "safety" and "stock" are a run of the question's words, the rule
// of --tags auto; stockout is one word, not in the question), and the five
// candidates of `memoria gather --query "safety stock"` in its order, each
// ticked, with its R, fused score and bm25 score (exact and token: "-",
// no name equals or shares a word with the question: the demo's nodes
// have no name). enter then makes exactly those five the seeds with
// their R, in that order (libraryGather computes them through
// retriever/gather without the explorer), adds the tag, closes the line
// and runs Activation Energy from them: the tree has their five seed rows.
func TestAskGolden(t *testing.T) {
	h, clock := askHarness(t)
	h.ask(clock, "safety stock")
	view := h.m.View()
	checkSize(t, view, 120, 40)
	golden(t, "ask_120x40", view)

	want := libraryGather(t, "safety stock").Seeds()
	if len(want) != 5 {
		t.Fatalf("the library gathers %d seeds, want 5 (--seed-k's default)", len(want))
	}
	h.keys("enter")
	h.waitFor("the run from the question's seeds", func() bool {
		return h.m.actRun().trees != nil && h.m.actRun().ch == nil && !h.m.running()
	})
	if got := h.m.seeds.Seeds(); !equalSeeds(got, want) {
		t.Fatalf("seeds %v, want the gather's %v", got, want)
	}
	if got := h.m.tags.Tags(); len(got) != 1 || got[0] != "safety_stock" {
		t.Fatalf("tags %v, want [safety_stock]", got)
	}
	if h.m.top() != nil {
		t.Fatal("the query line is still open after enter")
	}
	tree := h.treeText()
	for _, s := range want {
		if !strings.Contains(tree, s.NodeID) {
			t.Fatalf("the tree lacks seed %s:\n%s", s.NodeID, tree)
		}
	}
	if st := h.lastStatus().Text; !strings.Contains(st, "tags added: safety_stock") {
		t.Fatalf("status %q", st)
	}
}

func equalSeeds(a, b []retriever.Seed) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestAskSpaceTicks: ↓ enters the candidate list, ↓ moves to the second
// candidate, space unticks it, ctrl+t leaves the tags, enter takes the
// four others. Expected: the seeds are the gather's five less its second
// (N2001, libraryGather), and no tag is added.
func TestAskSpaceTicks(t *testing.T) {
	h, clock := askHarness(t)
	h.ask(clock, "safety stock")
	h.keys("down", "down", "space", "ctrl+t")
	if v := h.m.View(); !strings.Contains(v, "5 candidates, 4 ticked") || !strings.Contains(v, "left (ctrl+t takes them)") {
		t.Fatalf("after unticking one and leaving the tags:\n%s", v)
	}
	h.keys("enter")
	h.settle()
	all := libraryGather(t, "safety stock").Seeds()
	want := append([]retriever.Seed{all[0]}, all[2:]...)
	if got := h.m.seeds.Seeds(); !equalSeeds(got, want) {
		t.Fatalf("seeds %v, want %v", got, want)
	}
	if got := h.m.tags.Tags(); len(got) != 0 {
		t.Fatalf("tags %v, want none (left)", got)
	}
}

// TestAskTypesQAndQuestionMark: on the query line q and ? are letters of
// the question, not quit and help.
func TestAskTypesQAndQuestionMark(t *testing.T) {
	h, clock := askHarness(t)
	h.ask(clock, "q?")
	if h.quit || h.m.top() != overlay(h.m.ov.query) {
		t.Fatalf("q or ? left the query line (quit %v)", h.quit)
	}
	if v := h.m.View(); !strings.Contains(v, "? q?") {
		t.Fatalf("the question is not q?:\n%s", v)
	}
}

// TestAskRefusedWithoutScanner: on a source that cannot be read node by
// node (Neo4j's; here the demo graph behind fakeSource, which does not
// pass EachNode on), a is refused with its reason and opens nothing.
func TestAskRefusedWithoutScanner(t *testing.T) {
	h := newHarness(t, loadDemo(t), Options{})
	h.keys("a")
	h.settle()
	st := h.lastStatus()
	if h.m.top() != nil || !st.IsErr || !strings.Contains(st.Text, "on Neo4j the gather stage is not built yet") {
		t.Fatalf("top %v, status %+v", h.m.top(), st)
	}
}

// TestWhySaysGatheredFirst: after the question "safety stock" gives the
// seeds, w on a node first says whether the question gathered it, as `why
// --query` does (render.GatheredText over the same index and result): the
// gather's first candidate "gathered as a seed (candidate #1 of 5, R …)";
// N2012, which no matcher scores at --gather-min, not gathered; then the
// retriever's own answer below it.
func TestWhySaysGatheredFirst(t *testing.T) {
	h, clock := askHarness(t)
	h.ask(clock, "safety stock")
	h.keys("enter")
	h.waitFor("the run from the question's seeds", func() bool {
		return h.m.actRun().trees != nil && h.m.actRun().ch == nil && !h.m.running()
	})
	first := libraryGather(t, "safety stock").Candidates[0]
	h.selectListNode(first.NodeID)
	h.keys("w")
	h.settle()
	if v := h.m.View(); !strings.Contains(v, first.NodeID+": gathered as a seed (candidate #1 of 5") {
		t.Fatalf("view:\n%s", v)
	}
	h.keys("esc")
	h.selectListNode("N2012")
	h.keys("w")
	h.settle()
	if v := h.m.View(); !strings.Contains(v, "N2012: not gathered") || h.m.ov.why.Answer() == nil {
		t.Fatalf("answer %+v, view:\n%s", h.m.ov.why.Answer(), v)
	}
}
