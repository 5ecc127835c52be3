package neo4jload

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/testkit/neo4jtest"
)

// fileOf writes g as an APOC file in a temporary directory; with relsFirst
// its relationship lines come before its node lines (a file APOC would not
// write, but one the format allows).
func fileOf(t *testing.T, g *apoc.Graph, relsFirst bool) string {
	t.Helper()
	var buf bytes.Buffer
	if err := apoc.Write(&buf, g); err != nil {
		t.Fatal(err)
	}
	data := buf.String()
	if relsFirst {
		var nodes, rels []string
		for _, l := range strings.SplitAfter(data, "\n") {
			switch {
			case strings.Contains(l, `"type":"node"`):
				nodes = append(nodes, l)
			case l != "":
				rels = append(rels, l)
			}
		}
		data = strings.Join(rels, "") + strings.Join(nodes, "")
	}
	p := filepath.Join(t.TempDir(), "g.jsonl")
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLoadFileIdempotent: multiGraph (4 nodes, 10 relationships, with
// three identical A→B edges, two identical self-loops on C and the weights
// 1 and 1.0) written as a file, once as APOC writes it (nodes first: one
// pass writes everything) and once with its relationships first (a pass for
// the nodes, one for the relationships), is streamed from the file into an
// emptied database by 3 writers, 2 rows per batch. Each time the database
// then holds exactly the graph (its dump); loading the same file again
// creates nothing, matches 4 nodes and 10 relationships (the counts stay
// 4 and 10) and leaves the same dump.
func TestLoadFileIdempotent(t *testing.T) {
	d := fx.Driver(t)
	src := neo4jdb.NewSource(d, "", "")
	ctx := context.Background()
	want := fileDump(multiGraph())
	for _, relsFirst := range []bool{false, true} {
		fx.Changed()
		neo4jtest.Shared(t).Wipe(t)
		path := fileOf(t, multiGraph(), relsFirst)
		for i := range 2 {
			p, err := PrepareFile(path, 2)
			if err != nil {
				t.Fatal(err)
			}
			if p.nodesFirst == relsFirst || p.Nodes != 4 || p.Rels != 10 {
				t.Fatalf("relationships first %v: plan of %d nodes, %d relationships, nodes first %v", relsFirst, p.Nodes, p.Rels, p.nodesFirst)
			}
			st, err := p.Load(ctx, src, LoadOptions{Writers: 3})
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 && (st.NodesCreated != 4 || st.RelsCreated != 10 || st.NodesMatched+st.RelsMatched != 0) ||
				i == 1 && (st.NodesMatched != 4 || st.RelsMatched != 10 || st.NodesCreated+st.RelsCreated != 0) {
				t.Errorf("relationships first %v, load %d: %+v", relsFirst, i+1, st)
			}
			if n, r := counts(t, src); n != 4 || r != 10 {
				t.Errorf("relationships first %v, load %d: %d nodes, %d relationships", relsFirst, i+1, n, r)
			}
			if got := neo4jtest.Dump(t, d); got != want {
				t.Fatalf("relationships first %v, load %d:\n%s\nwant:\n%s", relsFirst, i+1, got, want)
			}
		}
	}
}

// TestDuplicatedBatchMerges: a batch that committed but whose answer was
// lost (committedHook turns every commit that created something into a
// transient error) is sent again, which is what happens when a connection
// drops after the commit. Into an emptied database the first attempt of a
// batch creates without looking (CREATE of labelled nodes, no scan for
// unlabelled ones, relsCreateQuery); the second must merge and look, or it
// would create everything twice (8 nodes, 20 relationships). Loading
// multiGraph, 2 rows per batch, with 3 writers: 7 batches (nodes: [A],
// [B], [C, D] by label list; RELATES: 6 groups of identical relationships
// in 3 batches; MENTIONS: 1), each retried once (Retries 7); the database
// holds exactly the graph (its dump), and as every batch's counted attempt
// is the second, everything counts as matched (4 nodes, 10 relationships).
func TestDuplicatedBatchMerges(t *testing.T) {
	d := fx.Driver(t)
	fx.Changed()
	neo4jtest.Shared(t).Wipe(t)
	src := neo4jdb.NewSource(d, "", "")
	var mu sync.Mutex
	lost := 0
	committedHook = func(out *txResult) error {
		if out.sum(neo4j.Counters.NodesCreated)+out.sum(neo4j.Counters.RelationshipsCreated) == 0 {
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		lost++
		return graph.Transient(errors.New("injected: the answer to a committed batch was lost"))
	}
	defer func() { committedHook = nil }()
	p, err := PrepareFile(fileOf(t, multiGraph(), false), 2)
	if err != nil {
		t.Fatal(err)
	}
	st, err := p.Load(context.Background(), src, LoadOptions{Writers: 3})
	if err != nil {
		t.Fatal(err)
	}
	if st.Batches != 7 || st.Retries != 7 || lost != 7 || st.NodesMatched != 4 || st.RelsMatched != 10 || st.NodesCreated+st.RelsCreated != 0 {
		t.Errorf("stats %+v, %d answers lost", st, lost)
	}
	if got, want := neo4jtest.Dump(t, d), fileDump(multiGraph()); got != want {
		t.Fatalf("database:\n%s\nwant:\n%s", got, want)
	}
}

// TestLoadFileChanged: a file that changes between the check and the load
// (a node's id edited, then a relationship added at the end) makes the
// load stop with an error saying so, and never load what was not checked:
// with the id edited no node is written (node 0 is the first read, before
// any batch is full); with a relationship added at the end, the 4 nodes
// are written, and at most the 10 planned relationships, never the new
// one (refused when read). The new relationship's id holds ESC [2J (a
// terminal's clear-screen), which the error quotes ("9\x1b[2J9").
func TestLoadFileChanged(t *testing.T) {
	d := fx.Driver(t)
	src := neo4jdb.NewSource(d, "", "")
	ctx := context.Background()
	path := fileOf(t, multiGraph(), false)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name         string
		edit         func(string) string
		nodes, rels  int64
		wantInErrMsg string
	}{
		{"id edited", func(s string) string { return strings.Replace(s, `"id":"A"`, `"id":"Z"`, 1) }, 0, 0, `node "0" is not the node it was`},
		{"relationship added", func(s string) string {
			return s + `{"type":"relationship","id":"9\u001b[2J9","label":"RELATES","properties":{"weight":0.9},"start":{"id":"0"},"end":{"id":"3"}}` + "\n"
		}, 4, 10, `relationship "9\x1b[2J9" is new`},
	} {
		fx.Changed()
		neo4jtest.Shared(t).Wipe(t)
		if err := os.WriteFile(path, orig, 0o600); err != nil {
			t.Fatal(err)
		}
		p, err := PrepareFile(path, 10)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(c.edit(string(orig))), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err = p.Load(ctx, src, LoadOptions{})
		if !errors.Is(err, errChanged) || !strings.Contains(err.Error(), c.wantInErrMsg) {
			t.Errorf("%s: err = %v", c.name, err)
		}
		if n, r := counts(t, src); n != c.nodes || r > c.rels {
			t.Errorf("%s: %d nodes, %d relationships written; want %d and at most %d", c.name, n, r, c.nodes, c.rels)
		}
	}
}
