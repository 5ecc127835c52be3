package subgraph

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph/apoc"
)

// TestWholeGraphML: a graph of two nodes and one relationship, the document
// written by hand. The keys come in the order they are met, nodes first
// (labels, then each node's properties by key), then edges (label, then
// properties): labels d0, id d1, n d2, label d3, w d4. n holds an integer
// on one node and a float on the other, so its type is double; w is a
// boolean; a property whose value is nil gets neither key nor data; a
// node without labels has an empty labels datum. The elements are numbered
// by their place in the graph (n0, n1, e0), the edge pointing at them.
func TestWholeGraphML(t *testing.T) {
	g := &apoc.Graph{
		Nodes: []apoc.Node{
			{InternalID: "7", Labels: []string{"A", "B"}, Properties: map[string]any{"id": "a", "n": int64(1)}},
			{InternalID: "9", Properties: map[string]any{"n": 2.5, "id": "b<", "x": nil}},
		},
		Rels: []apoc.Relationship{{InternalID: "3", Type: "KNOWS", Start: "7", End: "9", Properties: map[string]any{"w": true}}},
	}
	want := `<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">
<desc>memoria export</desc>
<key id="d0" for="node" attr.name="labels" attr.type="string"/>
<key id="d1" for="node" attr.name="id" attr.type="string"><desc>id</desc></key>
<key id="d2" for="node" attr.name="n" attr.type="double"><desc>n</desc></key>
<key id="d3" for="edge" attr.name="label" attr.type="string"/>
<key id="d4" for="edge" attr.name="w" attr.type="boolean"><desc>w</desc></key>
<graph id="G" edgedefault="directed">
<node id="n0"><data key="d0">:A:B</data><data key="d1">a</data><data key="d2">1</data></node>
<node id="n1"><data key="d0"></data><data key="d1">b&lt;</data><data key="d2">2.5</data></node>
<edge id="e0" source="n0" target="n1"><data key="d3">KNOWS</data><data key="d4">true</data></edge>
</graph>
</graphml>
`
	var b bytes.Buffer
	if err := WholeGraphML(&b, g); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}

	// A relationship to a node the graph does not hold: an error, and
	// nothing written.
	g.Rels = append(g.Rels, apoc.Relationship{InternalID: "4\x1b", Type: "KNOWS", Start: "7", End: "8"})
	b.Reset()
	err := WholeGraphML(&b, g)
	if err == nil || err.Error() != `graphml: relationship "4\x1b" joins an unknown node` || b.Len() != 0 {
		t.Errorf("an unknown end: error %v, %d bytes written", err, b.Len())
	}
}

// TestWholeGraphMLWriteError: a writer that fails stops the export with
// its error, once the first 64 KiB are due (a graph of 2,000 nodes whose
// text is 100 bytes each is about 250 KiB).
func TestWholeGraphMLWriteError(t *testing.T) {
	g := &apoc.Graph{}
	for range 2000 {
		g.Nodes = append(g.Nodes, apoc.Node{InternalID: "x", Properties: map[string]any{"text": strings.Repeat("t", 100)}})
	}
	w := &failing{}
	if err := WholeGraphML(w, g); !errors.Is(err, errDiskFull) || w.calls != 1 {
		t.Errorf("error %v after %d writes, want %v after 1", err, w.calls, errDiskFull)
	}
}

var errDiskFull = errors.New("disk full")

type failing struct{ calls int }

func (f *failing) Write([]byte) (int, error) {
	f.calls++
	return 0, errDiskFull
}
