package tui

import (
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/oninmem"
	"github.com/memoria-graph/memoria/tui/common"
	"github.com/memoria-graph/memoria/tui/components/seeds"
)

// loadFind is testdata/findnodes.jsonl behind the fake: a lexical graph's
// nodes (ids like n02084071, a name, synonyms; graph/inmem's
// TestListNodesRanked ranks it by hand).
func loadFind(t testing.TB) *fakeSource {
	t.Helper()
	g, err := inmem.LoadFile("../testdata/findnodes.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return &fakeSource{Source: g, backend: oninmem.New(g), changed: make(chan struct{}, 1)}
}

func visibleIDs(p *seeds.Picker) []string {
	var out []string
	for _, n := range p.Visible() {
		out = append(out, n.ID)
	}
	return out
}

// TestFilterRanksByProperties types "dog" on the lexical graph with the
// server search held. Expected while it waits (the debounce over): the
// loaded nodes ranked on the fields a summary has (id, text, short
// strings), graph.CompareMatches' order worked out by hand:
//
//	exact: dog (its id), n02084071 (name "dog"), both 3 runes: by id
//	word-prefix: n01111114 ("🐕 dog", 5), n03218198 ("dogsled", 7),
//	             n02087122, n02103406 ("hunting dog", "working dog": 11, by id)
//	substring: n07697537 ("hotdog", 6), n10023039 ("underdog", 8)
//
// The dalmatian (n02110341) is a "coach dog" only in its synonym list,
// which summaries do not carry. Once the catalog answers, its list
// replaces this one and has the dalmatian fifth (the synonym, 9 runes,
// between "dogsled" and "hunting dog"). The first row shows the node's
// name: the node whose id is "dog", then "dog", the name of n02084071,
// whose id is not shown.
func TestFilterRanksByProperties(t *testing.T) {
	src := loadFind(t)
	h := newHarness(t, src, Options{})
	p := h.m.seeds
	clock := &fakeClock{}
	p.SetClock(time.Millisecond, clock.tick)
	src.holdLists()
	h.focusPane(focusSeeds)
	h.keys("/")
	h.typeText("dog")
	h.send(clock.advance(time.Millisecond)...)
	h.waitFor("the held search", func() bool { return src.state().lists == 1 })
	provisional := []string{"dog", "n02084071", "n01111114", "n03218198", "n02087122", "n02103406", "n07697537", "n10023039"}
	if got := visibleIDs(p); !slices.Equal(got, provisional) {
		t.Fatalf("while the search waits: %q, want %q", got, provisional)
	}
	src.openLists()
	h.waitFor("the catalog's matches", func() bool { return len(p.Match().Nodes) > 0 })
	want := []string{"dog", "n02084071", "n01111114", "n03218198", "n02110341", "n02087122", "n02103406", "n07697537", "n10023039"}
	if got := visibleIDs(p); !slices.Equal(got, want) {
		t.Fatalf("the catalog's ranking: %q, want %q", got, want)
	}
	view := ansi.Strip(h.m.View())
	for _, row := range []string{"[ ] dog Note  a node", "[ ] dog Synset  a memb", "[ ] dalmatian Synset  a"} {
		if !strings.Contains(view, row) {
			t.Errorf("the list lacks %q:\n%s", row, view)
		}
	}
	if strings.Contains(view, "n02084071") {
		t.Errorf("a named node shows its id in the list:\n%s", view)
	}
}

// TestNameByCycles: the lexical graph with the seed n02084071 (name "dog",
// no title) explored. The graph's string properties (NameKeys) are text
// (14 nodes), name (12), description and title (1 each), so p cycles:
// the default (name, title, id) → "name" → "description" → "title" → id →
// the default. Expected: every pane follows. By default the list, the tree
// and the detail pane say "dog", the detail pane with "(id n02084071)";
// on "description" (which n02084071 lacks) and on id they say n02084071;
// the status line names each choice.
func TestNameByCycles(t *testing.T) {
	h := newHarness(t, loadFind(t), Options{Seeds: []retriever.Seed{{NodeID: "n02084071", Score: 1}}})
	h.waitFor("the run to finish", func() bool { return h.m.actRun().ch == nil && !h.m.running() })
	h.selectTreeNode("n02084071")
	named := func(lead string) {
		t.Helper()
		tree := h.treeText()
		if !strings.Contains(tree, "· "+lead+" Synset") && !strings.Contains(tree, "▼ "+lead+" Synset") {
			t.Errorf("tree does not name the seed %q:\n%s", lead, tree)
		}
		view := ansi.Strip(h.m.View())
		if !strings.Contains(view, "[x] "+lead+" R=1 Synset") {
			t.Errorf("list does not name the seed %q:\n%s", lead, view)
		}
		detail := ansi.Strip(h.m.detail.View())
		head := lead + " Synset"
		if lead != "n02084071" {
			head = lead + " (id n02084071) Synset"
		}
		if !strings.HasPrefix(detail, head) {
			t.Errorf("detail head %q, want it to start with %q", strings.SplitN(detail, "\n", 2)[0], head)
		}
	}
	named("dog")
	for _, step := range []struct{ lead, status string }{
		{"dog", `nodes named by "name", else id`},
		{"n02084071", `nodes named by "description", else id`},
		{"n02084071", `nodes named by "title", else id`},
		{"n02084071", "nodes named by id"},
		{"dog", "nodes named by name, else title, else id (the default)"},
	} {
		h.keys("P")
		h.settle()
		if st := h.lastStatus(); st.Text != step.status {
			t.Fatalf("status %q, want %q", st.Text, step.status)
		}
		named(step.lead)
	}
}

// TestNameIsEscaped: a node named by a hostile `name` (an OSC 52 clipboard
// write and a bidi override) shows it escaped in the list, the tree and
// the detail pane, never raw.
func TestNameIsEscaped(t *testing.T) {
	ag := &apoc.Graph{Nodes: []apoc.Node{
		{InternalID: "0", Labels: []string{"X"}, Properties: map[string]any{"id": "a", "name": "evil\x1b]52;c;aGk=\a\u202e"}},
	}}
	g, err := inmem.New(ag, "t")
	if err != nil {
		t.Fatal(err)
	}
	src := &fakeSource{Source: g, backend: oninmem.New(g), changed: make(chan struct{}, 1)}
	h := newHarness(t, src, Options{Seeds: []retriever.Seed{{NodeID: "a", Score: 1}}})
	h.waitFor("the run to finish", func() bool { return h.m.actRun().ch == nil && !h.m.running() })
	h.selectTreeNode("a")
	view := h.m.View()
	if strings.Contains(view, "\x1b]52") || strings.Contains(view, "\u202e") || strings.Contains(view, "\a") {
		t.Fatalf("the name reached the screen raw: %q", view)
	}
	const esc = `evil\x1b]52;c;aGk=\a\u202e`
	plain := ansi.Strip(view)
	if !strings.Contains(h.treeText(), "· "+esc+" X") || !strings.Contains(plain, esc+" (id a) X") || !strings.Contains(plain, "[x] evil\\x1b]52") {
		t.Errorf("the escaped name is not in the list, the tree and the detail pane:\n%s", plain)
	}
}

// TestGoldenNamedFilter is the explorer at 120×40 on the lexical graph
// with the filter "dog" answered and the seed n02084071 explored: rows
// named by their `name`.
func TestGoldenNamedFilter(t *testing.T) {
	h := newHarness(t, loadFind(t), Options{Seeds: []retriever.Seed{{NodeID: "n02084071", Score: 1}}})
	h.waitFor("the run to finish", func() bool { return h.m.actRun().ch == nil && !h.m.running() })
	fixTimes(h)
	p := h.m.seeds
	p.SetClock(time.Millisecond, nil)
	h.focusPane(focusSeeds)
	h.keys("/")
	h.typeText("dog")
	h.waitFor("the catalog's matches", func() bool { return len(p.Match().Nodes) > 0 })
	h.keys("enter")
	h.send(common.StatusMsg{}, tea.WindowSizeMsg{Width: 120, Height: 40})
	v := h.m.View()
	checkSize(t, v, 120, 40)
	golden(t, "named_filter_120x40", ansi.Strip(v))
}

// TestGhostIsNamed: on the lexical graph the seed n02084071 ("dog") has one
// edge, to n02103406 ("working dog", weight 0.5); dog's degree d is 1 and no
// query tags give tag_sim 1, so the hop's T = 1 × 0.5 / √1 × 1 = 0.5. At
// MIN_ACTIVATION 0.2 it is kept; one step up, 0.5, drops it (0.5 is not
// above 0.5), and the row of the node that left names it as every other row
// does: "working dog", not n02103406.
func TestGhostIsNamed(t *testing.T) {
	cfg := activation.DefaultParams()
	cfg.MinActivation = 0.2
	h := newHarness(t, loadFind(t), Options{Seeds: []retriever.Seed{{NodeID: "n02084071", Score: 1}}, Params: cfg})
	h.waitFor("the run to finish", func() bool { return h.m.actRun().ch == nil && !h.m.running() })
	h.focusPane(focusParams)
	h.keys("j", "+") // MIN_ACTIVATION 0.2 → 0.5
	h.waitFor("the run to finish", func() bool { return h.m.actRun().ch == nil && !h.m.running() })
	if txt := h.treeText(); !strings.Contains(txt, "└╌ − working dog Synset  left · was T=0.5 at depth 1") {
		t.Fatalf("no named ghost row for n02103406:\n%s", txt)
	}
}
