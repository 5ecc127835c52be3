package apoc_test

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph/apoc"
)

// awkwardGraph has what a Cypher writer gets wrong: ids with quotes,
// backslashes, a newline escape sequence and non-ASCII; labels, types and
// keys that need backticks (a space, a keyword, a backtick, the keyword
// `count`); integral and fractional floats, exponents, ints, booleans,
// lists of each kind including an empty one; a node without an id that has
// a relationship, a node without labels, and a self-loop.
func awkwardGraph() *apoc.Graph {
	return &apoc.Graph{
		Nodes: []apoc.Node{
			{InternalID: "0", Labels: []string{"Event"}, Properties: map[string]any{
				"id": `say "hi"\now`, "text": "café ☕\n2nd line\u2028", "score": 1.0, "ratio": 0.1,
				"count": int64(3), "big": 1e21, "tiny": 1e-7, "neg": -2.5, "ok": true, "tags": []any{"a", `b"c`},
			}},
			{InternalID: "1", Labels: []string{"My Label", "Match"}, Properties: map[string]any{
				"id": "ü-1", "weird key": int64(-7), "floats": []any{1.0, 2.5}, "ints": []any{int64(1), int64(2)}, "empty": []any{},
			}},
			{InternalID: "2", Labels: []string{"back`tick"}, Properties: map[string]any{}},
			{InternalID: "3", Labels: []string{}, Properties: map[string]any{"id": `C:\dir`}},
		},
		Rels: []apoc.Relationship{
			{InternalID: "0", Type: "RELATES", Start: "0", End: "1", Properties: map[string]any{"weight": 1.0, "tags": []any{"x"}}},
			{InternalID: "1", Type: "HAS PART", Start: "1", End: "2", Properties: map[string]any{}},
			{InternalID: "2", Type: "RELATES", Start: "3", End: "3", Properties: map[string]any{"weight": int64(1)}},
		},
	}
}

// awkwardGolden is WriteCypher(awkwardGraph()), checked by hand:
//   - indexes for the six memory labels, then every other label sorted
//     (IndexLabels, as memoria load creates them), names lower-cased with
//     other characters than [a-z0-9_] as '_'; the keyword Match is
//     backticked everywhere;
//   - strings with cypherlit's escapes: \" \\ \n \u2028, ü and ☕
//     as UTF-8;
//   - `id` first, other keys sorted; `count` (a keyword) and `weird key`
//     backticked;
//   - 1.0 stays 1.0 (a float), int 1 stays 1, 1e21 and 1e-07 are float
//     literals without '+', empty list [];
//   - the id-less node 2 gets _memoria_export_id "2" for its relationship,
//     removed by the last statement; the self-loop binds only a.
const awkwardGolden = "// A memoria graph: 4 nodes, 3 relationships.\n" +
	"// Run it on an empty database: paste it into Neo4j Browser or pipe it into cypher-shell.\n" +
	"\n" +
	"// Indexes on the node id of each label (docs/ALGORITHM.md, \"The Cypher\").\n" +
	"CREATE INDEX idx_userrequest_id IF NOT EXISTS FOR (n:UserRequest) ON (n.id);\n" +
	"CREATE INDEX idx_userpreference_id IF NOT EXISTS FOR (n:UserPreference) ON (n.id);\n" +
	"CREATE INDEX idx_agentanswer_id IF NOT EXISTS FOR (n:AgentAnswer) ON (n.id);\n" +
	"CREATE INDEX idx_agentaction_id IF NOT EXISTS FOR (n:AgentAction) ON (n.id);\n" +
	"CREATE INDEX idx_event_id IF NOT EXISTS FOR (n:Event) ON (n.id);\n" +
	"CREATE INDEX idx_datasource_id IF NOT EXISTS FOR (n:DataSource) ON (n.id);\n" +
	"CREATE INDEX idx_match_id IF NOT EXISTS FOR (n:`Match`) ON (n.id);\n" +
	"CREATE INDEX idx_my_label_id IF NOT EXISTS FOR (n:`My Label`) ON (n.id);\n" +
	"CREATE INDEX idx_back_tick_id IF NOT EXISTS FOR (n:`back``tick`) ON (n.id);\n" +
	"CALL db.awaitIndexes();\n" +
	"\n" +
	"// Nodes.\n" +
	`CREATE (:Event {id: "say \"hi\"\\now", big: 1e21, ` + "`count`" + `: 3, neg: -2.5, ok: true, ratio: 0.1, score: 1.0, tags: ["a", "b\"c"], text: "café ☕\n2nd line\u2028", tiny: 1e-07});` + "\n" +
	"CREATE (:`My Label`:`Match` {id: \"ü-1\", empty: [], floats: [1.0, 2.5], ints: [1, 2], `weird key`: -7});\n" +
	"CREATE (:`back``tick` {_memoria_export_id: \"2\"});\n" +
	`CREATE ({id: "C:\\dir"});` + "\n" +
	"\n" +
	"// Relationships.\n" +
	`MATCH (a:Event {id: "say \"hi\"\\now"}), (b:` + "`My Label`" + ` {id: "ü-1"}) CREATE (a)-[:RELATES {tags: ["x"], weight: 1.0}]->(b);` + "\n" +
	"MATCH (a:`My Label` {id: \"ü-1\"}), (b:`back``tick` {_memoria_export_id: \"2\"}) CREATE (a)-[:`HAS PART`]->(b);\n" +
	`MATCH (a {id: "C:\\dir"}) CREATE (a)-[:RELATES {weight: 1}]->(a);` + "\n" +
	"\n" +
	"// Drop the temporary key of nodes without an id.\n" +
	"MATCH (n) WHERE n._memoria_export_id IS NOT NULL REMOVE n._memoria_export_id;\n"

// TestWriteCypherGolden: the script for awkwardGraph is exactly
// awkwardGolden, twice in a row (deterministic despite map iteration).
func TestWriteCypherGolden(t *testing.T) {
	for range 2 {
		var b bytes.Buffer
		if err := apoc.WriteCypher(&b, awkwardGraph()); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); got != awkwardGolden {
			t.Fatalf("got:\n%s\nwant:\n%s", got, awkwardGolden)
		}
	}
}

// TestWriteCypherFloatsRoundTrip: each float is written as a literal that
// strconv.ParseFloat reads back to the same bits and that contains '.' or
// 'e' (so Cypher reads a float, not an integer), and never an exponent '+'
// (not in openCypher's grammar).
func TestWriteCypherFloatsRoundTrip(t *testing.T) {
	for _, f := range []float64{0, 1, -1, 0.1, 1.0 / 3, 2.5, 100, 1e6, 123456789, 1e20, 1e21, 1e-7, 5e-324, math.MaxFloat64, -0.000123, 0.82, 1 << 53} {
		g := &apoc.Graph{Nodes: []apoc.Node{{InternalID: "0", Labels: []string{"L"}, Properties: map[string]any{"id": "x", "f": f}}}}
		var b bytes.Buffer
		if err := apoc.WriteCypher(&b, g); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		i := strings.Index(out, ", f: ") + 2
		j := strings.Index(out[i:], "}")
		lit := out[i+3 : i+j]
		back, err := strconv.ParseFloat(lit, 64)
		if err != nil || math.Float64bits(back) != math.Float64bits(f) || !strings.ContainsAny(lit, ".e") || strings.Contains(lit, "+") {
			t.Errorf("%v written as %q (reads back %v, %v)", f, lit, back, err)
		}
	}
}

// TestWriteCypherErrors: a graph Validate rejects (two nodes with id "A":
// the MATCH by id would be ambiguous) and values Neo4j cannot store (NaN, a
// map) are errors naming the problem, and nothing is promised about w.
func TestWriteCypherErrors(t *testing.T) {
	dup := &apoc.Graph{Nodes: []apoc.Node{
		{InternalID: "0", Properties: map[string]any{"id": "A"}},
		{InternalID: "1", Properties: map[string]any{"id": "A"}},
	}}
	if err := apoc.WriteCypher(&bytes.Buffer{}, dup); err == nil || !strings.Contains(err.Error(), `"A"`) {
		t.Errorf("duplicate id: %v", err)
	}
	nan := &apoc.Graph{Nodes: []apoc.Node{{InternalID: "0", Properties: map[string]any{"id": "A", "x": math.NaN()}}}}
	if err := apoc.WriteCypher(&bytes.Buffer{}, nan); err == nil || !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("NaN: %v", err)
	}
	m := &apoc.Graph{Nodes: []apoc.Node{{InternalID: "0", Properties: map[string]any{"id": "A", "m": map[string]any{}}}}}
	if err := apoc.WriteCypher(&bytes.Buffer{}, m); err == nil || !strings.Contains(err.Error(), `"m"`) {
		t.Errorf("map: %v", err)
	}
	if err := apoc.WriteCypher(&bytes.Buffer{}, nil); err == nil {
		t.Error("nil graph: no error")
	}
}

// TestWriteCypherEmpty: an empty graph is just the two header lines.
func TestWriteCypherEmpty(t *testing.T) {
	var b bytes.Buffer
	if err := apoc.WriteCypher(&b, &apoc.Graph{}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "\n"); n != 2 || strings.Contains(b.String(), ";") {
		t.Errorf("empty graph:\n%s", b.String())
	}
}

// TestWriteCypherIndexNames: labels that map to the same index name
// (A-b, A_b and "a b" all give idx_a_b_id, as IndexName says) are taken
// in IndexLabels order (the six memory labels, then the others sorted:
// "A-b" < "A_b" < "a b" by byte). The first keeps idx_a_b_id; each later
// one gets the FNV-32a hash of its label, computed independently (Python,
// offset 0x811c9dc5, prime 0x01000193): "A_b" → 7d8f9c51, "a b" → 10a3f9f2.
// The same names memoria load gives (graph/neo4jload's test on the server).
func TestWriteCypherIndexNames(t *testing.T) {
	g := &apoc.Graph{}
	for i, l := range []string{"a b", "A_b", "A-b"} {
		g.Nodes = append(g.Nodes, apoc.Node{InternalID: strconv.Itoa(i), Labels: []string{l}, Properties: map[string]any{"id": l}})
	}
	var b bytes.Buffer
	if err := apoc.WriteCypher(&b, g); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"CREATE INDEX idx_a_b_id IF NOT EXISTS FOR (n:`A-b`) ON (n.id);\n",
		"CREATE INDEX idx_a_b_7d8f9c51_id IF NOT EXISTS FOR (n:A_b) ON (n.id);\n",
		"CREATE INDEX idx_a_b_10a3f9f2_id IF NOT EXISTS FOR (n:`a b`) ON (n.id);\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
}

// TestIndexLabelsOf: the labels met, in any order and repeated, give what
// IndexLabels gives for a graph with them: the six memory labels first,
// then the others sorted, each once.
func TestIndexLabelsOf(t *testing.T) {
	g := &apoc.Graph{Nodes: []apoc.Node{{Labels: []string{"Zeta", "Event"}}, {Labels: []string{"Alpha"}}, {Labels: []string{"Zeta"}}}}
	want := append(slices.Clone(apoc.MemoryLabels), "Alpha", "Zeta")
	if got := apoc.IndexLabelsOf([]string{"Zeta", "Event", "Alpha", "Zeta"}); !slices.Equal(got, want) {
		t.Errorf("IndexLabelsOf = %v, want %v", got, want)
	}
	if got := apoc.IndexLabels(g); !slices.Equal(got, want) {
		t.Errorf("IndexLabels = %v, want %v", got, want)
	}
}
