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
	"github.com/memoria-graph/memoria/retriever/activation/oninmem"
)

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
	sw := &switchWriter{}
	m, err := New(context.Background(), Options{Source: src, Backend: src, Out: sw, NoColor: true, OutDir: t.TempDir(),
		Schema: g.Schema().Describe()})
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
