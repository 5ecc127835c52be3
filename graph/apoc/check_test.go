package apoc

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"
)

// TestCheckGoGraph: a graph built in Go meets the same rules as a file,
// including what JSON cannot even express (NaN, infinities, invalid UTF-8
// in Go strings, Go types no writer handles); each problem names its
// element by internal id. Expected, one problem per element (the first by
// key where several properties are bad):
//
//   - node 1: property "f" is NaN; node 2: "g" is +Inf (a float32);
//   - node 3: a label with invalid UTF-8; node 4: a key with NUL; node 5:
//     a string value with invalid UTF-8 (Describe quotes it, \xff); node 6:
//     a uint64, which no writer writes; node 7: a list inside a list of
//     strings; node 8: an empty string id;
//   - relationship r1: a type with invalid UTF-8; r2: a []string of tags
//     with invalid UTF-8; r3: a weight -Inf.
func TestCheckGoGraph(t *testing.T) {
	node := func(iid string, labels []string, props map[string]any) Node {
		return Node{InternalID: iid, Labels: labels, Properties: props}
	}
	g := &Graph{
		Nodes: []Node{
			node("0", nil, map[string]any{"id": "N0"}),
			node("1", nil, map[string]any{"id": "N1", "f": math.NaN()}),
			node("2", nil, map[string]any{"id": "N2", "g": float32(math.Inf(1))}),
			node("3", []string{"A\xffB"}, map[string]any{"id": "N3"}),
			node("4", nil, map[string]any{"id": "N4", "a\x00b": 1}),
			node("5", nil, map[string]any{"id": "N5", "s": "x\xff"}),
			node("6", nil, map[string]any{"id": "N6", "u": uint64(7)}),
			node("7", nil, map[string]any{"id": "N7", "l": []any{[]string{"a"}}}),
			node("8", nil, map[string]any{"id": ""}),
		},
		Rels: []Relationship{
			{InternalID: "r1", Type: "R\xff", Start: "0", End: "0"},
			{InternalID: "r2", Type: RelatesType, Start: "0", End: "0", Properties: map[string]any{"tags": []string{"ok", "\xfe"}}},
			{InternalID: "r3", Type: RelatesType, Start: "0", End: "0", Properties: map[string]any{"weight": math.Inf(-1)}},
		},
	}
	want := `node 1: property "f": NaN is not a finite number
node 2: property "g": +Inf is not a finite number
node 3: label "A\xffB" is not valid UTF-8
node 4: property key "a\x00b" contains NUL, which Neo4j refuses in a name
node 5: property "s": string "x\xff" is not valid UTF-8
node 6: property "u": a value of type uint64, which cannot be stored
node 7: property "l": a list cannot contain lists
node 8: property id is empty: every node needs a non-empty string id
relationship r1: relationship type "R\xff" is not valid UTF-8
relationship r2: property "tags": string "\xfe" is not valid UTF-8
relationship r3: property "weight": -Inf is not a finite number`
	if _, err := Check(g, GraphRules); err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}

// TestCheckRules: GraphRules let a node lack an id and a graph be empty
// (a database may hold such nodes, and the Cypher script writer handles
// them); FileRules, the rules of a file and of memoria load, refuse both.
func TestCheckRules(t *testing.T) {
	g := &Graph{Nodes: []Node{{InternalID: "0", Properties: map[string]any{"id": "A"}}, {InternalID: "7", Labels: []string{"Event"}}}}
	if _, err := Check(g, GraphRules); err != nil {
		t.Errorf("GraphRules, node without id: %v", err)
	}
	_, err := Check(g, FileRules)
	if want := "node 7: no id property: every node needs a string id (the retriever finds nodes by it, memoria load merges them on it)"; err == nil || err.Error() != want {
		t.Errorf("FileRules, node without id: %v, want %s", err, want)
	}
	if _, err := Check(&Graph{}, GraphRules); err != nil {
		t.Errorf("GraphRules, empty graph: %v", err)
	}
	if _, err := Check(&Graph{}, FileRules); err == nil || err.Error() != "the graph is empty: no nodes" {
		t.Errorf("FileRules, empty graph: %v", err)
	}
	if _, err := Check(nil, FileRules); err == nil {
		t.Error("nil graph accepted")
	}
}

// TestWeightWarning: RELATES weights outside [0.25, 1.0] (the
// specification's range, docs/EXPORTS.md) are loaded and counted. In the
// file below the weights are 0.1 (line 3, the first), 0.25 and 1.0 (the
// bounds: inside), 1.5 (line 6), the integer 2 (line 7), none (line 8)
// and 5 on a MENTIONS relationship (line 9, not RELATES): 3 outside, the
// first on line 3. Parse returns the graph (all 7 relationships) with the
// report; the same graph checked in Go gives the count without a line.
func TestWeightWarning(t *testing.T) {
	rel := func(id, typ, props string) string {
		return `{"type":"relationship","id":"` + id + `","label":"` + typ + `","properties":{` + props + `},"start":{"id":"0"},"end":{"id":"5"}}`
	}
	in := lines(nodeA, nodeB,
		rel("1", "RELATES", `"weight":0.1`), rel("2", "RELATES", `"weight":0.25`), rel("3", "RELATES", `"weight":1.0`),
		rel("4", "RELATES", `"weight":1.5`), rel("5", "RELATES", `"weight":2`), rel("6", "RELATES", ``),
		rel("7", "MENTIONS", `"weight":5`))
	g, rep, err := ParseReport(strings.NewReader(in), FileRules)
	if err != nil {
		t.Fatal(err)
	}
	want := []Warning{{What: "RELATES weights outside [0.25, 1.0], the range of the specification", Count: 3, Line: 3, Example: "relationship 1 has weight 0.1"}}
	if len(g.Rels) != 7 || rep.Nodes != 2 || rep.Relationships != 7 || !reflect.DeepEqual(rep.Warnings, want) {
		t.Fatalf("%d relationships, report %+v; want 7 and %+v", len(g.Rels), rep, want)
	}
	if got, want := rep.Warnings[0].String(), "3 RELATES weights outside [0.25, 1.0], the range of the specification (kept as they are); the first on line 3: relationship 1 has weight 0.1"; got != want {
		t.Errorf("String() = %q\nwant %q", got, want)
	}
	rep, err = Check(g, FileRules)
	if err != nil || len(rep.Warnings) != 1 || rep.Warnings[0].Count != 3 || rep.Warnings[0].Line != 0 ||
		rep.Warnings[0].String() != "3 RELATES weights outside [0.25, 1.0], the range of the specification (kept as they are); the first: relationship 1 has weight 0.1" {
		t.Errorf("Check: %+v, %v", rep, err)
	}
	if _, rep, _ := ParseReport(strings.NewReader(lines(nodeA, nodeB, relAB)), FileRules); len(rep.Warnings) != 0 {
		t.Errorf("weight 0.82 warned: %+v", rep.Warnings)
	}
}

// TestCheckAcceptsWhatWriteWrites: for every Go type a property value may
// have, what the checker accepts both writers write, and what Write cannot
// write the checker refuses. WriteCypher checks first, so it fails exactly
// when the checker does; Write writes some values the checker refuses (a
// list of a string and a number, invalid UTF-8, which it replaces): JSON
// can hold them, Neo4j cannot.
func TestCheckAcceptsWhatWriteWrites(t *testing.T) {
	values := []any{
		"s", true, int64(-1), 7, int32(1), int16(1), int8(1), uint32(1), uint16(1), uint8(1), 1.5, float32(2.5),
		[]string{"a"}, []int64{1}, []int{1}, []float64{1.5}, []bool{true}, []any{"a"}, []any{int64(1), 2.5}, []any{},
		uint64(1), uint(1), map[string]any{}, []any{nil}, []any{[]any{}}, []any{[]int{1}}, []any{"a", int64(1)},
		math.NaN(), []float64{math.Inf(1)}, []any{math.NaN()}, struct{}{}, []any{struct{}{}}, "\xff", []any{"\xff"},
	}
	accepted := 0
	for _, v := range values {
		g := &Graph{Nodes: []Node{{InternalID: "0", Properties: map[string]any{"id": "A", "v": v}}}}
		_, checkErr := Check(g, FileRules)
		if checkErr == nil {
			accepted++
		}
		writeErr := Write(&bytes.Buffer{}, g)
		cypherErr := WriteCypher(&bytes.Buffer{}, g)
		if checkErr == nil && (writeErr != nil || cypherErr != nil) || writeErr != nil && checkErr == nil || (cypherErr == nil) != (checkErr == nil) {
			t.Errorf("%T %#v: Check %v, Write %v, WriteCypher %v", v, v, checkErr, writeErr, cypherErr)
		}
	}
	// The first 20 values (12 scalars, 8 lists) are fine, the other 14 not.
	if accepted != 20 {
		t.Errorf("%d values accepted, want 20", accepted)
	}
}
