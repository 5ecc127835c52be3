package tui

import (
	"context"
	"io"
	"regexp"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/internal/testkit/neo4jfix"
	"github.com/memoria-graph/memoria/internal/testkit/neo4jtest"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/oninmem"
	"github.com/memoria-graph/memoria/retriever/activation/onneo4j"
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
