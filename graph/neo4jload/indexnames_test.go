package neo4jload

import (
	"bytes"
	"regexp"
	"slices"
	"testing"

	"github.com/memoria-graph/memoria/graph/apoc"
)

// TestIndexNamesMatchScript: for labels whose index names collide (Foo-Bar
// and Foo_Bar both clean to idx_foo_bar_id), memoria load creates on the
// real server exactly the indexes the Cypher script writes: the script's
// CREATE INDEX lines are read back and compared with what SHOW INDEXES
// lists after the load (and with LoadStats.Indexes).
//
// Expected by hand (docs/ALGORITHM.md "Indexes"): the six memory labels
// keep idx_<label>_id; then "Foo-Bar" < "Foo_Bar" by byte, so Foo-Bar keeps
// idx_foo_bar_id and Foo_Bar gets the FNV-32a hash of "Foo_Bar", e686649d
// (computed independently in Python: offset 0x811c9dc5, prime 0x01000193):
// idx_foo_bar_e686649d_id. Before the fix the script wrote
// idx_foo_bar_id_2 for it while load wrote idx_foo_bar_e686649d_id.
func TestIndexNamesMatchScript(t *testing.T) {
	g := &apoc.Graph{Nodes: []apoc.Node{
		{InternalID: "0", Labels: []string{"Foo_Bar"}, Properties: map[string]any{"id": "u"}},
		{InternalID: "1", Labels: []string{"Foo-Bar"}, Properties: map[string]any{"id": "h"}},
	}}
	var script bytes.Buffer
	if err := apoc.WriteCypher(&script, g); err != nil {
		t.Fatal(err)
	}
	var scripted []string
	for _, m := range regexp.MustCompile("(?m)^CREATE INDEX `?([^` ]+)`? IF NOT EXISTS FOR \\(n:`?([^`)]+)`?\\)").FindAllStringSubmatch(script.String(), -1) {
		scripted = append(scripted, m[2]+"="+m[1])
	}
	want := []string{
		"UserRequest=idx_userrequest_id", "UserPreference=idx_userpreference_id", "AgentAnswer=idx_agentanswer_id",
		"AgentAction=idx_agentaction_id", "Event=idx_event_id", "DataSource=idx_datasource_id",
		"Foo-Bar=idx_foo_bar_id", "Foo_Bar=idx_foo_bar_e686649d_id",
	}
	if !slices.Equal(scripted, want) {
		t.Fatalf("script indexes %q, want %q", scripted, want)
	}

	d := fx.Driver(t)
	st := fx.Load(t, d, g)
	for _, w := range []string{"idx_foo_bar_id", "idx_foo_bar_e686649d_id"} {
		if !slices.Contains(st.Indexes, w) {
			t.Errorf("LoadStats.Indexes %q lacks %s", st.Indexes, w)
		}
	}
	var onServer []string
	for _, rec := range fx.Cypher(t, d, "SHOW INDEXES YIELD name, labelsOrTypes, properties WHERE properties = ['id'] RETURN name, labelsOrTypes[0] AS label ORDER BY name", nil) {
		name, _ := rec.Get("name")
		label, _ := rec.Get("label")
		onServer = append(onServer, label.(string)+"="+name.(string))
	}
	for _, w := range want {
		if !slices.Contains(onServer, w) {
			t.Errorf("the server has %q, not %s", onServer, w)
		}
	}
}

// TestWeightIndexOnlyWithRelates: memoria load indexes RELATES' weight
// (apoc.WeightIndexStatement, docs/ALGORITHM.md "Indexes") when the graph
// has a RELATES relationship, and only then: a graph of one Event node
// and a MENTIONS self-loop plans the six memory labels' id indexes and
// nothing else (Event is one of the six), and the same graph with a
// RELATES self-loop besides plans those six, then the weight index.
func TestWeightIndexOnlyWithRelates(t *testing.T) {
	g := &apoc.Graph{
		Nodes: []apoc.Node{{InternalID: "0", Labels: []string{"Event"}, Properties: map[string]any{"id": "e"}}},
		Rels:  []apoc.Relationship{{InternalID: "0", Type: "MENTIONS", Start: "0", End: "0"}},
	}
	six := apoc.IndexNames(apoc.MemoryLabels)
	p, err := Prepare(g, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.indexNames, six) || slices.Contains(p.Queries(), apoc.WeightIndexStatement) {
		t.Errorf("no RELATES: indexes %q, want %q", p.indexNames, six)
	}
	g.Rels = append(g.Rels, apoc.Relationship{InternalID: "1", Type: "RELATES", Start: "0", End: "0", Properties: map[string]any{"weight": 0.5}})
	if p, err = Prepare(g, 0); err != nil {
		t.Fatal(err)
	}
	if want := append(slices.Clone(six), apoc.WeightIndexName); !slices.Equal(p.indexNames, want) ||
		p.indexes[len(p.indexes)-1] != apoc.WeightIndexStatement || !slices.Contains(p.Queries(), apoc.WeightIndexStatement) {
		t.Errorf("a RELATES: indexes %q (%q), want %q", p.indexNames, p.indexes, want)
	}
}
