package tui

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/internal/testkit/neo4jfix"
	"github.com/memoria-graph/memoria/internal/testkit/neo4jtest"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/oninmem"
	"github.com/memoria-graph/memoria/retriever/activation/onneo4j"
	"github.com/memoria-graph/memoria/retriever/expansion"
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
		Schema: s.Describe(), Mapping: s})
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
	const (
		alice = "a1f0c6e2-0000-4000-8000-000000000001"
		leeds = "a1f0c6e2-0000-4000-8000-000000000002"
		fast  = "a1f0c6e2-0000-4000-8000-000000000003"
		bob   = "a1f0c6e2-0000-4000-8000-000000000005"
	)
	text, err := os.ReadFile("../testdata/graphiti.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	hostile := strings.Replace(string(text), `"fact":"Bob supplies FAST-200.","episodes":[],"group_id":"g1",`,
		`"fact":"Bob supplies FAST-200.","episodes":[],"group_id":"g1","valid_at":"2026\u001b[2J-03",`, 1)
	if hostile == string(text) {
		t.Fatal("the fixture's Bob relationship is not where the test expects it")
	}
	file := filepath.Join(t.TempDir(), "graphiti.jsonl")
	if err := os.WriteFile(file, []byte(hostile), 0o600); err != nil {
		t.Fatal(err)
	}
	s, _ := graph.Preset(graph.SchemaGraphiti)
	s.Now = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	g, err := inmem.LoadFileSchema(file, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	src := &fakeSource{Source: g, backend: oninmem.New(g), changed: make(chan struct{}, 1)}
	h := newHarness(t, src, Options{Seeds: []retriever.Seed{{NodeID: alice, Score: 1}}, Schema: s.Describe(), Mapping: s})
	h.runDone()

	h.selectTreeNode(fast)
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

	h.selectTreeNode(bob)
	assertCleanView(t, h, "Bob's detail", trimLines(detailText(h)), "FAST-200 → Bob `) DETACH DELETE n //\n  valid_at: 2026\\x1b[2J-03\n  invalid_at: not set")

	h.pickRetriever(expansion.Name)
	h.waitRanking()
	h.selectHit(leeds)
	if d := trimLines(hitDetailText(h)); !strings.Contains(d, "When the fact that reached it held\n"+alice+" → "+leeds+"\n  valid_at: 2026-02-01T00:00:00Z\n  invalid_at: not set") {
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
