package inmem

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
)

// nd is a node line: internal id, then application id ("" for none).
func nd(internal, id string) string {
	if id == "" {
		return fmt.Sprintf(`{"type":"node","id":"%s","labels":["Orphan"]}`, internal)
	}
	return fmt.Sprintf(`{"type":"node","id":"%s","labels":["Memory"],"properties":{"id":"%s","text":"text of %s"}}`, internal, id, id)
}

// rl is a RELATES line; props is a JSON object body such as `"weight":0.5`.
func rl(internal, start, end, props string) string { return rt(internal, "RELATES", start, end, props) }

// rt is a relationship line of any type.
func rt(internal, typ, start, end, props string) string {
	return fmt.Sprintf(`{"type":"relationship","id":"%s","label":"%s","properties":{%s},"start":{"id":"%s"},"end":{"id":"%s"}}`,
		internal, typ, props, start, end)
}

// loadGo builds the graph of the lines through New, by apoc.GraphRules: a
// file must give every node an id (docs/EXPORTS.md), a graph built in Go
// (as from a database) need not.
func loadGo(t testing.TB, ls ...string) *Graph {
	t.Helper()
	ag, _, err := apoc.ParseReport(strings.NewReader(strings.Join(ls, "\n")), apoc.GraphRules)
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(ag, "test")
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestCatalog covers Node, ListNodes, Tags, Describe and Stats (on a graph
// built in Go, which may hold a node without id).
func TestCatalog(t *testing.T) {
	g := loadGo(t,
		`{"type":"node","id":"0","labels":["UserRequest"],"properties":{"id":"N3","text":"Stockout in BERLIN"}}`,
		`{"type":"node","id":"1","labels":["Event"],"properties":{"id":"N1","text":"Ünïcode Straße"}}`,
		`{"type":"node","id":"2","labels":["Event"],"properties":{"id":"n2"}}`,
		`{"type":"node","id":"3","labels":["Orphan"],"properties":{"text":"berlin too"}}`,
		`{"type":"node","id":"4","labels":["Event"],"properties":{"id":"N10","text":"no match"}}`,
		rl("1", "0", "1", `"tags":["b","a","a"]`),
		rl("2", "0", "2", `"tags":["a"]`),
		rl("3", "1", "2", `"tags":["c","b"]`),
		rt("4", "KNOWS", "1", "2", `"tags":["z"]`),
	)
	ctx := context.Background()
	seed, ok, err := g.Node(ctx, "N3")
	if err != nil || !ok || seed.ID != "N3" || !reflect.DeepEqual(seed.Labels, []string{"UserRequest"}) ||
		seed.Properties["text"] != "Stockout in BERLIN" {
		t.Errorf("Node: %+v %v %v", seed, ok, err)
	}
	if seed, ok, err := g.Node(ctx, "nope"); err != nil || ok || seed.ID != "" {
		t.Errorf("Node(nope): %+v %v %v", seed, ok, err)
	}
	ids := func(ns []graph.NodeSummary) (out []string) {
		for _, n := range ns {
			out = append(out, n.ID)
		}
		return out
	}
	list := func(filter string, offset, limit int) ([]string, bool) {
		ns, more, err := g.ListNodes(ctx, filter, offset, limit)
		if err != nil {
			t.Fatal(err)
		}
		return ids(ns), more
	}
	// Byte order: "N1" < "N10" < "N3" < "n2"; the node without id is never listed.
	if got, more := list("", 0, 0); !reflect.DeepEqual(got, []string{"N1", "N10", "N3", "n2"}) || more {
		t.Errorf("all: %v %v", got, more)
	}
	if got, more := list("", 1, 2); !reflect.DeepEqual(got, []string{"N10", "N3"}) || !more {
		t.Errorf("page: %v %v", got, more)
	}
	if got, more := list("", 2, 2); !reflect.DeepEqual(got, []string{"N3", "n2"}) || more {
		t.Errorf("last page: %v %v", got, more)
	}
	if got, _ := list("berlin", 0, 10); !reflect.DeepEqual(got, []string{"N3"}) {
		t.Errorf("text filter: %v", got)
	}
	if got, _ := list("N1", 0, 10); !reflect.DeepEqual(got, []string{"N1", "N10"}) {
		t.Errorf("id filter: %v", got)
	}
	if got, _ := list("STRASSE", 0, 10); got != nil {
		t.Errorf("ß is not ss: %v", got)
	}
	if got, _ := list("ÜNÏ", 0, 10); !reflect.DeepEqual(got, []string{"N1"}) {
		t.Errorf("unicode filter: %v", got)
	}
	ns, _, _ := g.ListNodes(ctx, "n2", 0, 1)
	if len(ns) != 1 || ns[0].Text != "" || !reflect.DeepEqual(ns[0].Labels, []string{"Event"}) {
		t.Errorf("summary %+v", ns)
	}
	// Edges carrying each tag: a on 1 and 2 (twice on 1, counted once), b on
	// 1 and 3, c on 3; z is on a KNOWS edge.
	tags, err := g.Tags(ctx)
	want := []graph.TagCount{{Tag: "a", Count: 2}, {Tag: "b", Count: 2}, {Tag: "c", Count: 1}}
	if err != nil || !reflect.DeepEqual(tags, want) {
		t.Errorf("Tags: %v %v", tags, err)
	}
	if n, ok, err := g.Node(ctx, "N10"); !ok || err != nil || n.ID != "N10" {
		t.Errorf("Node: %+v %v %v", n, ok, err)
	}
	if _, ok, _ := g.Node(ctx, "N99"); ok {
		t.Errorf("Node(N99) found")
	}
	if d := g.Describe(); d != "test (in memory: 5 nodes, 4 relationships)" {
		t.Errorf("Describe: %q", d)
	}
	if err := g.Close(ctx); err != nil {
		t.Error(err)
	}
}

// TestAPOCRoundTrip: the graph rebuilt by APOC() equals what apoc.Parse
// reads from the same text, through Load and through New: integer and
// float weights, an integer weight too large for a float's 53 bits, tags
// with duplicates, empty tags, extra properties, other relationship types
// and a relationship listed before its nodes.
func TestAPOCRoundTrip(t *testing.T) {
	text := strings.Join([]string{
		rl("r0", "a", "b", `"weight":1,"tags":["x","x","y"],"since":2020`),
		nd("a", "A"), nd("b", "B"), nd("c", "C"),
		rl("r1", "b", "c", `"weight":0.75,"tags":[]`),
		rl("r2", "c", "c", `"weight":9007199254740993`),
		rl("r3", "a", "c", ``),
		rt("r4", "KNOWS", "a", "b", `"weight":"high","tags":"x"`),
	}, "\n")
	want, err := apoc.Parse(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	g1, err := Load(strings.NewReader(text), "x")
	if err != nil {
		t.Fatal(err)
	}
	g2, err := New(want, "x")
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []*Graph{g1, g2} {
		if got := g.APOC(); !reflect.DeepEqual(got, want) {
			t.Errorf("APOC():\n got %#v\nwant %#v", got, want)
		}
	}
	// The big integer weight is used as the float nearest to it.
	if g1.relWeight[2] != 9007199254740992 {
		t.Errorf("weight %v", g1.relWeight[2])
	}
}

// TestLoadErrors: Load and New return no graph on error; New checks a graph
// built in Go with apoc.Validate.
func TestLoadErrors(t *testing.T) {
	g, err := Load(strings.NewReader(nd("0", "A")+"\n"+rl("1", "0", "9", "")), "x")
	if g != nil || err == nil || err.Error() != "line 2: relationship 1 ends at unknown node 9" {
		t.Errorf("Load: %v %v", g, err)
	}
	bad := &apoc.Graph{Nodes: []apoc.Node{{InternalID: "0"}}, Rels: []apoc.Relationship{{InternalID: "1", Type: "RELATES", Start: "0", End: "0", Properties: map[string]any{"tags": []int{1}}}}}
	g, err = New(bad, "x")
	if g != nil || err == nil || err.Error() != "relationship 1: tags must be a list of strings, got a list of integers" {
		t.Errorf("New: %v %v", g, err)
	}
	if _, err := LoadFile("/nonexistent/graph.jsonl"); err == nil {
		t.Error("LoadFile of a missing file")
	}
}

// TestNewGoTypes: a graph built in Go may use []string tags and int or
// float32 weights; the engine reads their values (weight 1 and 0.5, the
// duplicated tag once among the distinct tag ids, twice as stored) and
// APOC() gives them back as they were.
func TestNewGoTypes(t *testing.T) {
	ag := &apoc.Graph{
		Nodes: []apoc.Node{
			{InternalID: "0", Labels: []string{}, Properties: map[string]any{"id": "A"}},
			{InternalID: "1", Labels: []string{"L"}, Properties: map[string]any{"id": "B"}},
		},
		Rels: []apoc.Relationship{
			{InternalID: "0", Type: "RELATES", Start: "0", End: "1", Properties: map[string]any{"weight": 1, "tags": []string{"q", "q"}}},
			{InternalID: "1", Type: "RELATES", Start: "1", End: "0", Properties: map[string]any{"weight": float32(0.5)}},
		},
	}
	g, err := New(ag, "go")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := g.Lookup("A")
	if g.Degree(a) != 2 {
		t.Errorf("d(A) = %d, want 2", g.Degree(a))
	}
	if w, ok := g.RelWeight(0); w != 1 || !ok {
		t.Errorf("weight of int 1 = %v, %v", w, ok)
	}
	if w, ok := g.RelWeight(1); w != 0.5 || !ok {
		t.Errorf("weight of float32 0.5 = %v, %v", w, ok)
	}
	if q, _ := g.TagID("q"); !reflect.DeepEqual(g.RelTagIDs(0), []int32{q}) || len(g.RelTagIDs(1)) != 0 {
		t.Errorf("distinct tag ids %v and %v", g.RelTagIDs(0), g.RelTagIDs(1))
	}
	if e := g.RelatesEdge(0, "A", "B"); !reflect.DeepEqual(e.Tags, []string{"q", "q"}) || *e.Weight != 1 {
		t.Errorf("edge 0 = %+v", e)
	}
	if !reflect.DeepEqual(g.APOC(), ag) {
		t.Errorf("APOC() %#v", g.APOC())
	}
}

// TestUnitWeights: UnitWeights is true when every RELATES weight lies in
// [0, 1], 0 and 1 included, a missing weight counting 0.01
// (graph.MissingRelatesWeight); a RELATES weight of 1.5 or −0.1 makes it
// false; another type's weight, which no retriever reads, does not.
func TestUnitWeights(t *testing.T) {
	node := func(id string) string {
		return `{"type":"node","id":"` + id + `","labels":["X"],"properties":{"id":"` + id + `"}}` + "\n"
	}
	rel := func(id, typ, props string) string {
		return `{"type":"relationship","id":"` + id + `","label":"` + typ + `","properties":{` + props + `},"start":{"id":"a"},"end":{"id":"b"}}` + "\n"
	}
	base := node("a") + node("b") + rel("r1", "RELATES", `"weight":0`) + rel("r2", "RELATES", `"weight":1`) + rel("r3", "RELATES", `"tags":[]`)
	for _, c := range []struct {
		name, extra string
		want        bool
	}{
		{"weights 0, 1 and missing", "", true},
		{"another type weighs 5", rel("r4", "MENTIONS", `"weight":5`), true},
		{"a RELATES weighs 1.5", rel("r4", "RELATES", `"weight":1.5`), false},
		{"a RELATES weighs -0.1", rel("r4", "RELATES", `"weight":-0.1`), false},
	} {
		g, err := Load(strings.NewReader(base+c.extra), c.name)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.UnitWeights(); got != c.want {
			t.Errorf("%s: UnitWeights = %v, want %v", c.name, got, c.want)
		}
	}
}
