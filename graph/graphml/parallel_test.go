package graphml

import (
	"fmt"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph/apoc"
)

// serial reads doc in one goroutine, the reading before the body was read
// in parts (reader.body): the reference the parts must equal.
func serial(doc string, opt Options) (*apoc.Graph, error) {
	g := &apoc.Graph{}
	rd := newReader(strings.NewReader(doc))
	rd.opt = opt
	rd.check = apoc.NewChecker(apoc.MappedRules)
	if err := rd.head(); err != nil {
		return nil, err
	}
	rd.fillID = opt.IDProperty != "" && !rd.h.NodeKey(opt.IDProperty)
	if err := rd.body(func(n apoc.Node) error { g.Nodes = append(g.Nodes, n); return nil },
		func(r apoc.Relationship) error { g.Rels = append(g.Rels, r); return nil }); err != nil {
		return nil, err
	}
	if _, err := rd.check.Finish(); err != nil {
		return nil, err
	}
	return g, nil
}

// tricky is a body of n nodes and n edges whose markup holds, at every
// place a part could be cut, what a cut must not fall into: a comment and
// a processing instruction holding "</node>", a CDATA section holding
// "</node></graph>", an attribute value holding '>' and "/>", a
// self-closing node, elements of another kind (<desc>) at the graph's
// level, and text between elements.
func tricky(n int) string {
	var b strings.Builder
	b.WriteString(keys)
	for i := range n {
		fmt.Fprintf(&b, "<node id=\"n%d>x/>\"><!-- it's </node> --><data key=\"t\"><![CDATA[</node></graph>]]>t%d</data></node>\n", i, i)
		fmt.Fprintf(&b, "<?pi </node> ?> text <node id=\"m%d\"/><desc>d</desc>\n", i)
		fmt.Fprintf(&b, "<edge source=\"n%d>x/>\" target='m%d'>\n<data key=\"w\">0.%d</data></edge>\n", i, i, i%10)
	}
	b.WriteString("</graph>\n<!-- after --></graphml>\n")
	return b.String()
}

// TestPartsEqualOneReading: the body read in parts of every size, from 1
// byte (each element a part of its own) to larger than the document (one
// part), hands over exactly the nodes and edges, in the same order with
// the same edge numbers, as the one-goroutine reading; and a problem in
// the middle of a long body (a value not a number on line 3·500+5 = 1505,
// the edge after it never handed over; an edge to a node not declared; a
// second <graph> after the graph) is refused with the same message and
// line.
func TestPartsEqualOneReading(t *testing.T) {
	defer func(s int) { partSize = s }(partSize)
	opt := Options{IDProperty: "entity_id"}
	doc := tricky(1000)
	want, err := serial(doc, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Nodes) != 2000 || len(want.Rels) != 1000 || want.Nodes[0].Properties["type"] != "</node></graph>t0" {
		t.Fatalf("the one reading: %d nodes, %d edges, %v", len(want.Nodes), len(want.Rels), want.Nodes[0].Properties)
	}
	lines := strings.Split(doc, "\n")
	// Line 1505 (index 1504) is an edge's <data> line of the 500th triple.
	bad := strings.Join(append(append(append([]string{}, lines[:1504]...), `<data key="w">heavy</data></edge>`), lines[1505:]...), "\n")
	undeclared := strings.Replace(doc, `target='m700'`, `target='zz'`, 1)
	second := strings.Replace(doc, "<!-- after -->", "<graph/>", 1)
	for _, size := range []int{1, 7, 100, 4096, 1 << 30} {
		partSize = size
		g, _, err := decodeAll(doc, apoc.MappedRules, opt)
		if err != nil {
			t.Fatalf("parts of %d bytes: %v", size, err)
		}
		if fmt.Sprint(g) != fmt.Sprint(want) {
			t.Fatalf("parts of %d bytes differ from the one reading", size)
		}
		for _, d := range []string{bad, undeclared, second} {
			_, werr := serial(d, opt)
			_, _, err := decodeAll(d, apoc.MappedRules, opt)
			if werr == nil || err == nil || err.Error() != werr.Error() {
				t.Errorf("parts of %d bytes: %v; the one reading: %v", size, err, werr)
			}
		}
	}
	_, werr := serial(bad, opt)
	if !strings.Contains(werr.Error(), "line 1505") {
		t.Errorf("the bad value is refused as %v", werr)
	}
}
