package tui

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/oninmem"
	"github.com/memoria-graph/memoria/retriever/activation/onneo4j"
	"github.com/memoria-graph/memoria/retriever/expansion"
	"github.com/memoria-graph/memoria/testkit/neo4jfix"
	"github.com/memoria-graph/memoria/testkit/neo4jtest"
	"github.com/memoria-graph/memoria/tui/components/params"
)

func TestMain(m *testing.M) { neo4jtest.Main(m) }

// TestSchemaLightRAGExplorer opens the explorer on the LightRAG fixture
// read through --schema lightrag: the status line names the mapping, the
// node list shows entity_id's values as seeds, the tag list holds the
// keywords split on commas, a seed runs into a tree, and the help overlay
// names the mapping too.
func TestSchemaLightRAGExplorer(t *testing.T) {
	s, _ := graph.Preset(graph.SchemaLightRAG)
	g, err := inmem.LoadFileSchema("../testdata/lightrag.jsonl", s, nil)
	if err != nil {
		t.Fatal(err)
	}
	src := &fakeSource{Source: g, backend: oninmem.New(g), changed: make(chan struct{}, 1)}
	exploreLightRAG(t, src, src, g.Schema())
}

// TestSchemaLightRAGExplorerOnNeo4j is TestSchemaLightRAGExplorer on the
// LightRAG fixture stored in the real Neo4j as it is (not rewritten into
// memoria's shape), read through the preset: the node list, the tag list
// and the snapshot the explorer runs on follow the mapping there too.
func TestSchemaLightRAGExplorerOnNeo4j(t *testing.T) {
	srv := neo4jtest.Shared(t)
	srv.Wipe(t)
	srv.DropSchema(t)
	// A driver of the test's own, left open: the explorer's background
	// reads (node list, tags) may still be borrowing a connection after
	// Quit, and the driver's Close races with a borrow.
	d, err := srv.NewDriver()
	if err != nil {
		t.Fatal(err)
	}
	neo4jfix.StoreAsIs(t, d, "../testdata/lightrag.jsonl")
	s, _ := graph.Preset(graph.SchemaLightRAG)
	src := neo4jdb.NewSource(d, "", srv.URI)
	if err := src.SetSchema(s); err != nil {
		t.Fatal(err)
	}
	if err := src.CheckSchema(context.Background()); err != nil {
		t.Fatal(err)
	}
	exploreLightRAG(t, src, onneo4j.NewSnapshot(src), s)
}

// exploreLightRAG opens the explorer on src, the LightRAG fixture read
// through the preset s, and walks it: the mapping on the status line, the
// seeds, the tags from keywords, a tree, the help overlay's line.
func exploreLightRAG(t *testing.T, src graph.Source, backend activation.Backend, s graph.Schema) {
	t.Helper()
	sw := &switchWriter{}
	m, err := New(context.Background(), Options{Source: src, Backend: backend, Out: sw, NoColor: true, OutDir: t.TempDir(),
		Mapping: s})
	if err != nil {
		t.Fatal(err)
	}
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(160, 40))
	out := tm.Output()
	sw.set(out.(io.Writer))
	re := regexp.MustCompile
	wait := func(what string, res ...*regexp.Regexp) {
		t.Helper()
		t.Logf("waiting for %s", what)
		teatest.WaitFor(t, out, func(b []byte) bool {
			for _, r := range res {
				if !r.Match(b) {
					return false
				}
			}
			return true
		}, teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
	}
	wait("the mapping on the status line, the seeds and the tags from keywords",
		re(`schema lightrag: id entity_id`), re(`Alice`), re(`Leeds DC`), re(`inventory \(3\)`))
	tm.Type("/Alice")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	tm.Type(" ")
	wait("the tree", re(`done in`), re(`Stockout March`))
	tm.Type("?")
	wait("the help overlay's line", re(`This graph is read through the schema lightrag`))
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
}

// TestGraphitiDetailShowsValidity opens the explorer on the Graphiti
// fixture read through the preset at 2026-06-01 (Alice's move to
// Sheffield, invalid since 2026-02-01, is left out; the Leeds DC stocks
// FAST-200 until 2027) with one relationship's valid_at made hostile, and
// reads the detail pane: for FAST-200, reached Alice → Leeds DC → FAST-200,
// each hop's valid_at and invalid_at on lines of their own ("not set" for
// a fact still open); for Bob, reached one hop further over a relationship
// whose valid_at holds a terminal escape, that value escaped on screen;
// the typed expansion's hit Leeds DC shows the same for its route; a graph
// read in memoria's own shape shows no such lines.
func TestGraphitiDetailShowsValidity(t *testing.T) {
	text, err := os.ReadFile("../testdata/graphiti.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	hostile := strings.Replace(string(text), `"fact":"Bob supplies FAST-200.","episodes":[],"group_id":"g1",`,
		`"fact":"Bob supplies FAST-200.","episodes":[],"group_id":"g1","valid_at":"2026\u001b[2J-03",`, 1)
	if hostile == string(text) {
		t.Fatal("the fixture's Bob relationship is not where the test expects it")
	}
	h := graphitiHarness(t, hostile, gAlice)

	h.selectTreeNode(gFAST)
	want := strings.Join([]string{
		"When the facts on its route held",
		"Alice → Leeds DC",
		"  valid_at: 2026-02-01T00:00:00Z",
		"  invalid_at: not set",
		"Leeds DC → FAST-200",
		"  valid_at: 2026-02-01T00:00:00Z",
		"  invalid_at: 2027-01-01T00:00:00.000000000Z[UTC]",
	}, "\n")
	if d := trimLines(detailText(h)); !strings.Contains(d, want) {
		t.Fatalf("FAST-200's detail lacks\n%s\n---\n%s", want, d)
	}
	// On screen: the pane scrolled down to the section.
	h.focusPane(focusDetail)
	for range 20 {
		if strings.Contains(ansi.Strip(h.m.View()), "invalid_at: 2027-01-01T00:00:00.000000000Z[UTC]") {
			break
		}
		h.keys("down")
	}
	if v := ansi.Strip(h.m.View()); !strings.Contains(v, "Leeds DC → FAST-200") || !strings.Contains(v, "invalid_at: 2027-01-01T00:00:00.000000000Z[UTC]") {
		t.Fatalf("the screen lacks FAST-200's validity:\n%s", v)
	}

	h.selectTreeNode(gBob)
	assertCleanView(t, h, "Bob's detail", trimLines(detailText(h)), "FAST-200 → Bob `) DETACH DELETE n //\n  valid_at: 2026\\x1b[2J-03\n  invalid_at: not set")

	h.pickRetriever(expansion.Name)
	h.waitRanking()
	h.selectHit(gLeeds)
	if d := trimLines(hitDetailText(h)); !strings.Contains(d, "When the fact that reached it held\n"+gAlice+" → "+gLeeds+"\n  valid_at: 2026-02-01T00:00:00Z\n  invalid_at: not set") {
		t.Fatalf("the expansion's Leeds DC lacks its route's validity:\n%s", d)
	}

	demo := demoHarness(t)
	demo.selectTreeNode("N2003")
	if d := detailText(demo); strings.Contains(d, "When the fact") || strings.Contains(d, "valid_at") {
		t.Fatalf("memoria's own shape shows validity lines:\n%s", d)
	}
}

// trimLines drops the spaces that pad each line of a pane's text.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// assertValidity checks that detail text d, shown with what selected, has
// want as its validity section (validitySection) and that the screen
// shows it cleanly, with each of escaped in it (assertCleanView).
func assertValidity(t *testing.T, h *harness, what, d, want string, escaped ...string) {
	t.Helper()
	if got := validitySection(d); got != want {
		t.Fatalf("the validity with %s:\n%s\nwant:\n%s\n---\n%s", what, got, want, d)
	}
	assertCleanView(t, h, what, d, escaped...)
}

// Node ids of the Graphiti fixture (testdata/graphiti.jsonl) in the tests
// of its validity lines.
const (
	gAlice   = "a1f0c6e2-0000-4000-8000-000000000001"
	gLeeds   = "a1f0c6e2-0000-4000-8000-000000000002"
	gFAST    = "a1f0c6e2-0000-4000-8000-000000000003"
	gBob     = "a1f0c6e2-0000-4000-8000-000000000005"
	gCarol   = "a1f0c6e2-0000-4000-8000-000000000006"
	gHamburg = "a1f0c6e2-0000-4000-8000-000000000007"
)

// graphitiRouteHarness opens the explorer on the Graphiti fixture read
// through the preset at 2026-06-01, seed Alice (R 1), no query tags, the
// default thresholds, with two relationships edited so that the hops a
// candidate loses on (below) read unlike any kept hop: FAST-200–Hamburg DC
// loses its valid_at and gets invalid_at 2026-09-01T00:00:00Z (after the
// preset's now, so it is still followed), and Hamburg DC–Carol's valid_at
// becomes "2026-02-01" followed by an OSC title sequence (ESC ] 0 ; PWNED
// BEL) and a bidi override U+202E, shown escaped as
// `2026-02-01\x1b]0;PWNED\a\u202e`. It waits for the first run.
//
// Worked by hand (docs/ALGORITHM.md, T = R × w × tag_sim / √d; the preset
// follows RELATES_TO only, with default weight 1, so w = 1; no query tags,
// so tag_sim = 1): Alice–Sheffield DC is invalid since 2026-02-01 and left
// out, and the episode's MENTIONS are not followed, so Alice has d = 1 and
// Leeds DC gets T = 1; Leeds DC (d = 2: Alice, FAST-200) gives FAST-200 1/√2 = 0.7071;
// FAST-200 (d = 3: Leeds DC, Bob, Hamburg DC) gives Bob and Hamburg DC
// 0.7071/√3 = 0.4082 each; Hamburg DC (d = 2: FAST-200, Carol) gives Carol
// 0.4082/√2 = 0.2887. At MIN_ACTIVATION 0.005 and MAX_BRANCHES 3 all six
// are kept: Alice → Leeds DC → FAST-200 → {Bob, Hamburg DC → Carol}.
func graphitiRouteHarness(t *testing.T) *harness {
	t.Helper()
	text, err := os.ReadFile("../testdata/graphiti.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	edited := string(text)
	for _, e := range [][2]string{
		{`"valid_at":"2026-02-01T00:00:00Z"},"start":{"id":"7"}`, `"invalid_at":"2026-09-01T00:00:00Z"},"start":{"id":"7"}`},
		{`"valid_at":"2026-02-01T00:00:00Z"},"start":{"id":"6"}`, `"valid_at":"2026-02-01\u001b]0;PWNED\u0007\u202e"},"start":{"id":"6"}`},
	} {
		next := strings.Replace(edited, e[0], e[1], 1)
		if next == edited {
			t.Fatalf("the fixture lacks %s", e[0])
		}
		edited = next
	}
	return graphitiHarness(t, edited, gAlice)
}

// graphitiHarness is the explorer on text (a Graphiti-shaped APOC file,
// written to a temporary file) under the Graphiti preset with now
// 2026-06-01, seeded from seed with R = 1, after its first run.
func graphitiHarness(t *testing.T, text, seed string) *harness {
	t.Helper()
	file := filepath.Join(t.TempDir(), "graphiti.jsonl")
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	s, _ := graph.Preset(graph.SchemaGraphiti)
	s.Now = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	g, err := inmem.LoadFileSchema(file, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	src := &fakeSource{Source: g, backend: oninmem.New(g), changed: make(chan struct{}, 1)}
	h := newHarness(t, src, Options{Seeds: []retriever.Seed{{NodeID: seed, Score: 1}}, Mapping: s})
	h.runDone()
	return h
}

// Validity lines of the edited fixture's hops (graphitiRouteHarness), as
// validityLines writes them: each hop's ends, then valid_at and invalid_at.
var (
	hopAliceLeeds = []string{"Alice → Leeds DC",
		"  valid_at: 2026-02-01T00:00:00Z",
		"  invalid_at: not set"}
	hopLeedsFAST = []string{"Leeds DC → FAST-200",
		"  valid_at: 2026-02-01T00:00:00Z",
		"  invalid_at: 2027-01-01T00:00:00.000000000Z[UTC]"}
	hopFASTHamburg = []string{"FAST-200 → Hamburg DC",
		"  valid_at: not set",
		"  invalid_at: 2026-09-01T00:00:00Z"}
	hopHamburgCarol = []string{"Hamburg DC → Carol",
		`  valid_at: 2026-02-01\x1b]0;PWNED\a\u202e`,
		"  invalid_at: not set"}
)

// routeValidity is the section validityLines writes under title for
// hops, in order.
func routeValidity(title string, hops ...[]string) string {
	lines := []string{title}
	for _, h := range hops {
		lines = append(lines, h...)
	}
	return strings.Join(lines, "\n")
}

// validitySection is the validity section of a detail text: from its
// title to the blank line before the next section ("" when there is none).
func validitySection(d string) string {
	lines := strings.Split(trimLines(d), "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "When the fact") {
			continue
		}
		end := i
		for end < len(lines) && lines[end] != "" {
			end++
		}
		return strings.Join(lines[i:end], "\n")
	}
	return ""
}

// paramRow focuses the thresholds pane and moves its cursor down (the
// rows wrap) to row (params.RowDepth … params.RowBranches).
func (h *harness) paramRow(row int) {
	h.t.Helper()
	h.focusPane(focusParams)
	for range params.RowCount {
		if h.m.params.Selected() == row {
			return
		}
		h.keys("j")
	}
	h.t.Fatalf("the thresholds pane never reached row %d", row)
}

// setMinActivation types v into the thresholds pane's MIN_ACTIVATION
// (replacing the default 0.005) and waits for the run it starts.
func (h *harness) setMinActivation(v string) {
	h.t.Helper()
	h.paramRow(params.RowMinAct)
	h.keys("enter")
	for range len("0.005") {
		h.keys("backspace")
	}
	h.typeText(v)
	h.keys("enter")
	h.runDone()
	if got := strconv.FormatFloat(h.m.params.Config().MinActivation, 'g', -1, 64); got != v {
		h.t.Fatalf("MIN_ACTIVATION = %s, want %s", got, v)
	}
}

// TestGraphitiLoserShowsValidity reads the detail pane of the two kinds of
// losing candidate on the edited Graphiti fixture (graphitiRouteHarness,
// which works out every T): its validity section lists the parent's route
// and then the hop the candidate lost on, with that relationship's own
// values, because the user asks when the facts that would have reached it
// held.
//
// At MIN_ACTIVATION 0.3 Carol's T = 0.2887 ≤ 0.3 (96% of it): Carol is a
// near miss under Hamburg DC (T 0.4082 > 0.3, kept), and the only loser
// (Bob has no neighbour left to try), so `e` then `}` selects her. Her
// route is Alice → Leeds DC → FAST-200 → Hamburg DC (kept) plus Hamburg DC
// → Carol (lost), four hops; the last shows the hostile valid_at escaped.
//
// Then MAX_BRANCHES 3 → 1: FAST-200's two candidates tie at T 0.4082 and
// the claim order (docs/ALGORITHM.md, rule 4: T, then parent id, then
// neighbour id) puts Bob (…0005) before Hamburg DC (…0007), so Hamburg DC
// is the lost candidate (branch_limit), and the only loser (Carol is no
// longer a candidate: Hamburg DC is not expanded). Its route is Alice →
// Leeds DC → FAST-200 plus FAST-200 → Hamburg DC, three hops, the last
// with valid_at not set and invalid_at 2026-09-01T00:00:00Z.
func TestGraphitiLoserShowsValidity(t *testing.T) {
	h := graphitiRouteHarness(t)
	h.setMinActivation("0.3")
	h.focusPane(focusTree)
	h.keys("e", "home", "}")
	o, ok := h.m.tree.SelectedLoser()
	if !ok || o.Candidate.NeighborNode.ID != gCarol || o.Fate != activation.FateBelowThreshold {
		t.Fatalf("} selected %+v (%v), want the near miss Carol:\n%s", o, ok, h.treeText())
	}
	d := detailText(h)
	if !strings.HasPrefix(d, "Carol (id "+gCarol+") Entity · near miss") {
		t.Fatalf("not Carol's near miss:\n%s", d)
	}
	want := routeValidity("When the facts on its route held", hopAliceLeeds, hopLeedsFAST, hopFASTHamburg, hopHamburgCarol)
	assertValidity(t, h, "the near miss selected", d, want, `valid_at: 2026-02-01\x1b]0;PWNED\a\u202e`)

	h.paramRow(params.RowBranches)
	h.keys("h", "h") // MAX_BRANCHES 3 → 1
	h.runDone()
	if got := h.m.params.Config().MaxBranches; got != 1 {
		t.Fatalf("MAX_BRANCHES = %d", got)
	}
	h.focusPane(focusTree)
	h.keys("home", "}")
	o, ok = h.m.tree.SelectedLoser()
	if !ok || o.Candidate.NeighborNode.ID != gHamburg || o.Fate != activation.FateBranchLimit || o.Candidate.ParentID != gFAST {
		t.Fatalf("} selected %+v (%v), want Hamburg DC lost to the branch limit under FAST-200:\n%s", o, ok, h.treeText())
	}
	d = detailText(h)
	if !strings.HasPrefix(d, "Hamburg DC (id "+gHamburg+") Entity · lost candidate") {
		t.Fatalf("not Hamburg DC's lost candidate:\n%s", d)
	}
	want = routeValidity("When the facts on its route held", hopAliceLeeds, hopLeedsFAST, hopFASTHamburg)
	assertValidity(t, h, "the lost candidate selected", d, want)
}

// TestGraphitiLeftNodeShowsValidity reads the detail pane of a node that
// left the result on the edited Graphiti fixture (graphitiRouteHarness,
// which works out every T): its validity section lists the whole route by
// which the baseline run reached it, from the seed, not only the last hop:
// the user asks when the facts that used to reach it held, as for a kept
// node (docs/EXPLORER.md, "Detail").
//
// The first run (MIN_ACTIVATION 0.005) keeps Carol at depth 4 by Alice →
// Leeds DC → FAST-200 → Hamburg DC → Carol. At 0.3 her T = 0.2887 is below
// the threshold, so she left (the only change: Hamburg DC is still kept,
// T 0.4082), and `>` selects her row: four hops, the last with the hostile
// valid_at escaped. Then MAX_BRANCHES 3 → 1, compared with the run at 0.3:
// Hamburg DC loses to Bob on the branch limit (see
// TestGraphitiLoserShowsValidity), so it left (the only change: Carol was
// not in the run at 0.3), and `>` selects it: three hops, the last
// FAST-200 → Hamburg DC with valid_at not set.
func TestGraphitiLeftNodeShowsValidity(t *testing.T) {
	h := graphitiRouteHarness(t)
	h.setMinActivation("0.3")
	h.focusPane(focusTree)
	h.keys("home", ">")
	if k, _ := h.m.tree.SelectedKey(); !k.Ghost || k.ID != gCarol {
		t.Fatalf("> selected %+v, want Carol, who left:\n%s", k, h.treeText())
	}
	d := detailText(h)
	if !strings.HasPrefix(d, "Carol (id "+gCarol+") Entity · depth 4\n− left: the previous run reached it here; this run did not") {
		t.Fatalf("not Carol, who left:\n%s", d)
	}
	want := routeValidity("When the facts on its route held", hopAliceLeeds, hopLeedsFAST, hopFASTHamburg, hopHamburgCarol)
	assertValidity(t, h, "Carol, who left, selected", d, want, `valid_at: 2026-02-01\x1b]0;PWNED\a\u202e`)

	h.paramRow(params.RowBranches)
	h.keys("h", "h") // MAX_BRANCHES 3 → 1
	h.runDone()
	h.focusPane(focusTree)
	h.keys("home", ">")
	if k, _ := h.m.tree.SelectedKey(); !k.Ghost || k.ID != gHamburg {
		t.Fatalf("> selected %+v, want Hamburg DC, which left:\n%s", k, h.treeText())
	}
	d = detailText(h)
	if !strings.HasPrefix(d, "Hamburg DC (id "+gHamburg+") Entity · depth 3\n− left: the previous run reached it here; this run did not") {
		t.Fatalf("not Hamburg DC, which left:\n%s", d)
	}
	want = routeValidity("When the facts on its route held", hopAliceLeeds, hopLeedsFAST, hopFASTHamburg)
	assertValidity(t, h, "Hamburg DC, which left, selected", d, want)
}
