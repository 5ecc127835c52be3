package graphml

import (
	"encoding/xml"
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph/apoc"
)

const lightragFile = "../../testdata/graphml/lightrag-lollms.graphml"

// decodeAll reads doc whole by rules and options.
func decodeAll(doc string, rules apoc.Rules, opt Options) (*apoc.Graph, apoc.Report, error) {
	g := &apoc.Graph{}
	rep, err := Decode(strings.NewReader(doc), rules, opt,
		func(n apoc.Node) error { g.Nodes = append(g.Nodes, n); return nil },
		func(r apoc.Relationship) error { g.Rels = append(g.Rels, r); return nil })
	return g, rep, err
}

// independent is the test's own reading of a NetworkX GraphML file with
// encoding/xml's Unmarshal (not the Token loop Decode is): node ids and
// their data by attr.name, edges' ends and data.
type xmlDoc struct {
	Keys []struct {
		ID   string `xml:"id,attr"`
		Name string `xml:"attr.name,attr"`
	} `xml:"key"`
	Graph struct {
		Nodes []struct {
			ID   string    `xml:"id,attr"`
			Data []xmlData `xml:"data"`
		} `xml:"node"`
		Edges []struct {
			Source string    `xml:"source,attr"`
			Target string    `xml:"target,attr"`
			Data   []xmlData `xml:"data"`
		} `xml:"edge"`
	} `xml:"graph"`
}

type xmlData struct {
	Key  string `xml:"key,attr"`
	Text string `xml:",chardata"`
}

// TestLightRAGFile reads LightRAG's own file (testdata/graphml/README.md)
// and checks every node and edge against the test's Unmarshal reading:
// 66 nodes and 32 edges (counted by grep too), each node's internal id and
// entity_id its GraphML id with the literal quotes ("\"LOLLMS\""), its
// entity_type and description as written (<SEP> kept), each edge's ends
// and weight (a float64, parsed from the text). Values by hand: the edge
// "LOLLMS" - "PARISNEO" weighs 35 (<data key="d3">35.0</data>), the node
// "LOLLMS" has six descriptions joined by <SEP> (five separators), and
// the file's one `&amp;` is read as "&".
func TestLightRAGFile(t *testing.T) {
	raw, err := os.ReadFile(lightragFile)
	if err != nil {
		t.Fatal(err)
	}
	var want xmlDoc
	if err := xml.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, k := range want.Keys {
		names[k.ID] = k.Name
	}
	g, rep, err := decodeAll(string(raw), apoc.MappedRules, Options{IDProperty: "entity_id"})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Nodes) != 66 || len(g.Rels) != 32 || rep.Nodes != 66 || rep.Relationships != 32 {
		t.Fatalf("%d nodes, %d relationships (report %+v), want 66 and 32", len(g.Nodes), len(g.Rels), rep)
	}
	if len(want.Graph.Nodes) != 66 || len(want.Graph.Edges) != 32 {
		t.Fatalf("the independent reading has %d nodes, %d edges", len(want.Graph.Nodes), len(want.Graph.Edges))
	}
	for i, wn := range want.Graph.Nodes {
		n := g.Nodes[i]
		if n.InternalID != wn.ID || n.Properties["entity_id"] != wn.ID || len(n.Labels) != 0 {
			t.Errorf("node %d: %q %v %v, want id %q", i, n.InternalID, n.Properties["entity_id"], n.Labels, wn.ID)
		}
		if len(n.Properties) != len(wn.Data)+1 {
			t.Errorf("node %q: %d properties, want %d", wn.ID, len(n.Properties), len(wn.Data)+1)
		}
		for _, d := range wn.Data {
			if n.Properties[names[d.Key]] != d.Text {
				t.Errorf("node %q: %s = %q, want %q", wn.ID, names[d.Key], n.Properties[names[d.Key]], d.Text)
			}
		}
	}
	for i, we := range want.Graph.Edges {
		r := g.Rels[i]
		if r.Start != we.Source || r.End != we.Target || r.Type != "RELATES" || r.InternalID != strconv.Itoa(i) {
			t.Errorf("edge %d: %+v, want %q -> %q", i, r, we.Source, we.Target)
		}
		for _, d := range we.Data {
			var v any = d.Text
			if names[d.Key] == "weight" {
				f, err := strconv.ParseFloat(d.Text, 64)
				if err != nil {
					t.Fatal(err)
				}
				v = f
			}
			if r.Properties[names[d.Key]] != v {
				t.Errorf("edge %d: %s = %#v, want %#v", i, names[d.Key], r.Properties[names[d.Key]], v)
			}
		}
	}
	// By hand.
	for _, r := range g.Rels {
		if r.Start == `"LOLLMS"` && r.End == `"PARISNEO"` && r.Properties["weight"] != 35.0 {
			t.Errorf("LOLLMS - PARISNEO weighs %v, want 35", r.Properties["weight"])
		}
	}
	for _, n := range g.Nodes {
		if n.InternalID == `"LOLLMS"` {
			d := n.Properties["description"].(string)
			if strings.Count(d, "<SEP>") != 5 || !strings.Contains(d, "Language & Multimodal") {
				t.Errorf("LOLLMS's description: %q", d)
			}
		}
	}
}

// TestHead: the head of LightRAG's file declares node keys entity_type,
// description and source_id, no entity_id, edges without a type;
// edgedefault undirected.
func TestHead(t *testing.T) {
	f, err := os.Open(lightragFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := ReadHead(f)
	if err != nil {
		t.Fatal(err)
	}
	if !h.NodeKey("source_id") || !h.NodeKey("entity_type") || h.NodeKey("entity_id") || h.NodeKey("weight") ||
		h.EdgeTypes() || h.EdgeDefault != "undirected" || len(h.Keys) != 7 || h.Memoria {
		t.Errorf("head %+v", h)
	}
}

// TestTypes: each attr.type gives its Go value; a node without a <data>
// for a key lacks the property; a declared id key is not filled.
func TestTypes(t *testing.T) {
	doc := `<graphml>
<key id="s" for="node" attr.name="id" attr.type="string"/>
<key id="i" for="node" attr.name="i" attr.type="int"/>
<key id="l" for="node" attr.name="l" attr.type="long"/>
<key id="f" for="node" attr.name="f" attr.type="float"/>
<key id="d" for="node" attr.name="d" attr.type="double"/>
<key id="b" for="node" attr.name="b" attr.type="boolean"/>
<key id="n" for="node" attr.name="untyped"/>
<graph edgedefault="directed">
<node id="x"><data key="s">X</data><data key="i"> 7 </data><data key="l">-9000000000</data><data key="f">0.5</data><data key="d">1e-3</data><data key="b">true</data><data key="n">[1]</data></node>
<node id="y"><data key="s">Y</data></node>
</graph></graphml>`
	g, _, err := decodeAll(doc, apoc.FileRules, Options{IDProperty: "id"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"id": "X", "i": int64(7), "l": int64(-9000000000), "f": 0.5, "d": 0.001, "b": true, "untyped": "[1]"}
	if len(g.Nodes[0].Properties) != len(want) {
		t.Errorf("x: %v", g.Nodes[0].Properties)
	}
	for k, v := range want {
		if g.Nodes[0].Properties[k] != v {
			t.Errorf("x.%s = %#v, want %#v", k, g.Nodes[0].Properties[k], v)
		}
	}
	if len(g.Nodes[1].Properties) != 1 || g.Nodes[1].Properties["id"] != "Y" {
		t.Errorf("y: %v", g.Nodes[1].Properties)
	}
}

// refusal checks that doc is refused with an error holding every one of
// parts.
func refusal(t *testing.T, doc string, parts ...string) {
	t.Helper()
	_, _, err := decodeAll(doc, apoc.FileRules, Options{IDProperty: "id"})
	if err == nil {
		t.Fatalf("accepted:\n%s", doc)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q lacks %q", err, p)
		}
	}
}

const keys = `<graphml>
<key id="w" for="edge" attr.name="weight" attr.type="double"/>
<key id="t" for="node" attr.name="type" attr.type="string"/>
<graph edgedefault="undirected">
`

// TestRefusals: each bad document is refused with its line and what was
// wrong.
func TestRefusals(t *testing.T) {
	t.Run("edge to an undeclared node", func(t *testing.T) {
		refusal(t, keys+`<node id="a"/>
<edge source="a" target="b"/>
</graph></graphml>`, "line 6", `relationship 0 ends at unknown node b`)
	})
	t.Run("data with an undeclared key", func(t *testing.T) {
		refusal(t, keys+`<node id="a">
<data key="zz">1</data></node>
</graph></graphml>`, "line 6", `<data key="zz"> names a key not declared`, `<node id="a">`)
	})
	t.Run("data with a key of the other domain", func(t *testing.T) {
		refusal(t, keys+`<node id="a"><data key="w">1</data></node></graph></graphml>`, "line 5", "declared for edge")
	})
	t.Run("value not of its type", func(t *testing.T) {
		refusal(t, keys+`<node id="a"/><node id="b"/>
<edge source="a" target="b"><data key="w">heavy</data></edge>
</graph></graphml>`, "line 6", `"heavy" is not a number`, `"weight", double`)
	})
	t.Run("unknown attr.type", func(t *testing.T) {
		refusal(t, `<graphml><key id="k" for="node" attr.name="v" attr.type="vector"/><graph/></graphml>`, "line 1", `attr.type "vector"`)
	})
	t.Run("malformed XML", func(t *testing.T) {
		refusal(t, keys+"<node id=\"a\">\n</edge>", "line 6", "malformed XML")
	})
	t.Run("not GraphML", func(t *testing.T) {
		refusal(t, `{"type":"node"}`, "line 1")
		refusal(t, `<html/>`, "line 1", "not <graphml>")
	})
	t.Run("unknown entity", func(t *testing.T) {
		refusal(t, keys+`<node id="&lol;"/></graph></graphml>`, "line 5", "malformed XML")
	})
	t.Run("empty graph", func(t *testing.T) {
		refusal(t, keys+`</graph></graphml>`, "empty")
	})
	t.Run("duplicate node", func(t *testing.T) {
		refusal(t, keys+"<node id=\"a\"/>\n<node id=\"a\"/></graph></graphml>", "line 6", "duplicate internal node id")
	})
	t.Run("hyperedge", func(t *testing.T) {
		refusal(t, keys+`<node id="a"/><hyperedge/></graph></graphml>`, "hyperedge")
	})
	t.Run("nested graph", func(t *testing.T) {
		refusal(t, keys+`<node id="a"><graph/></node></graph></graphml>`, "nested <graph>")
	})
	t.Run("too deep", func(t *testing.T) {
		refusal(t, keys+`<node id="a">`+strings.Repeat("<x>", MaxDepth)+`</node></graph></graphml>`, "graphml.MaxDepth")
	})
}

// billionLaughs is the classic: ten entities, each ten of the one
// before, 10^9 "lol"s if expanded.
func billionLaughs() string {
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n <!ENTITY lol \"lol\">\n")
	for i := 1; i <= 9; i++ {
		b.WriteString(" <!ENTITY lol" + strconv.Itoa(i) + " \"")
		for j := 0; j < 10; j++ {
			prev := "lol"
			if i > 1 {
				prev += strconv.Itoa(i - 1)
			}
			b.WriteString("&" + prev + ";")
		}
		b.WriteString("\">\n")
	}
	b.WriteString("]>\n<graphml><graph><node id=\"&lol9;\"/></graph></graphml>\n")
	return b.String()
}

// TestBillionLaughs: the DOCTYPE is refused on the line it starts, before
// the root element (nothing handed over, nothing expanded); the reading
// allocates next to nothing, where the expansion would be 3 GB.
func TestBillionLaughs(t *testing.T) {
	doc := billionLaughs()
	nodes := 0
	_, err := Decode(strings.NewReader(doc), apoc.FileRules, Options{}, func(apoc.Node) error { nodes++; return nil }, func(apoc.Relationship) error { return nil })
	var pe *apoc.ParseError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "a DOCTYPE: refused before anything is expanded") || nodes != 0 {
		t.Fatalf("err %v, %d nodes", err, nodes)
	}
	if pe.Line > 13 {
		t.Errorf("refused on line %d, after the DOCTYPE", pe.Line)
	}
	allocs := testing.AllocsPerRun(3, func() {
		_, _ = Decode(strings.NewReader(doc), apoc.FileRules, Options{}, func(apoc.Node) error { return nil }, func(apoc.Relationship) error { return nil })
	})
	if allocs > 200 {
		t.Errorf("%v allocations refusing it", allocs)
	}
}

// endless is an endless text: "<graphml><graph><node id="a"><data
// key="k">" then 'a' without end; read counts the bytes it gave.
type endless struct {
	head string
	read int64
}

func (e *endless) Read(p []byte) (int, error) {
	n := copy(p, e.head)
	e.head = e.head[n:]
	for i := n; i < len(p); i++ {
		p[i] = 'a'
	}
	e.read += int64(len(p))
	return len(p), nil
}

// TestEndlessValue: a value without end is refused once MaxToken bytes of
// it are read (here a smaller limit, 1 MiB, through the reader's own
// field), on its line, in bounded memory: the body's parts are cut after
// whole elements, so the element is refused once it is longer than the
// limit, having read at most the limit, the 4 KiB the head's decoder
// reads ahead, and the last read (up to twice the buffer): under 4 MiB.
func TestEndlessValue(t *testing.T) {
	e := &endless{head: `<graphml><key id="k" for="node" attr.name="v"/><graph><node id="a"><data key="k">`}
	rec := &recorder{r: e, on: true}
	rd := newReader(rec)
	rd.lim.max = 1 << 20
	rd.check = apoc.NewChecker(apoc.FileRules)
	err := rd.decode(rec, func(apoc.Node) error { return nil }, func(apoc.Relationship) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "graphml.MaxToken") || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("err %v", err)
	}
	if e.read > 4<<20 {
		t.Errorf("read %d bytes of the token before refusing it", e.read)
	}
}

// TestMemoriaLists: in a document memoria wrote, a JSON array is a list
// (integers int64, others float64); elsewhere it is the string.
func TestMemoriaLists(t *testing.T) {
	body := `<key id="k" for="node" attr.name="v" attr.type="string"/><key id="i" for="node" attr.name="id"/>
<key id="m" for="node" attr.name="m" attr.type="string"/>
<graph><node id="n0"><data key="i">a</data><data key="k">["x","y"]</data><data key="m">[1,2.5]</data></node></graph></graphml>`
	g, _, err := decodeAll(`<graphml><desc>memoria export</desc>`+body, apoc.FileRules, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, ok := g.Nodes[0].Properties["v"].([]any)
	if !ok || !slices.Equal(got, []any{"x", "y"}) {
		t.Errorf("memoria's: %#v", g.Nodes[0].Properties["v"])
	}
	if got, ok := g.Nodes[0].Properties["m"].([]any); !ok || !slices.Equal(got, []any{int64(1), 2.5}) {
		t.Errorf("memoria's: %#v", g.Nodes[0].Properties["m"])
	}
	g, _, err = decodeAll(`<graphml>`+body, apoc.FileRules, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g.Nodes[0].Properties["v"] != `["x","y"]` {
		t.Errorf("another's: %#v", g.Nodes[0].Properties["v"])
	}
}
