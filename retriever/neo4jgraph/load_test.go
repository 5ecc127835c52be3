package neo4jgraph

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/apoc"
	"github.com/memoria-graph/memoria/retriever/inmem"
)

func counts(t testing.TB, src *Source) (int64, int64) {
	t.Helper()
	n, r, err := CountGraph(context.Background(), src.Driver(), src.Database())
	if err != nil {
		t.Fatal(err)
	}
	return n, r
}

// TestLoadDemoIdempotent: loading testdata/demo.jsonl (57 nodes, 69
// relationships: 67 RELATES + 2 MENTIONS, with the parallel pair
// T4003 ⇄ T4004 and the self-loop T4030) into an empty database creates
// 57 nodes and 69 relationships; loading it again (without wipe) creates
// nothing, matches all 57 nodes and 69 relationships, and leaves the counts
// at 57/69. The id indexes of seed 000 §9 exist for the six labels.
// Loading with Wipe reports what it deleted (57/69).
func TestLoadDemoIdempotent(t *testing.T) {
	d := sharedDriver(t)
	st := loadInto(t, d, demoGraph(t))
	src := NewSource(d, "", "")
	if st.NodesCreated != 57 || st.RelsCreated != 69 || st.NodesMatched != 0 || st.RelsMatched != 0 {
		t.Errorf("first load: %+v", st)
	}
	ctx := context.Background()
	st, err := Load(ctx, d, "", demoGraph(t), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.NodesCreated != 0 || st.RelsCreated != 0 || st.NodesMatched != 57 || st.RelsMatched != 69 || st.IndexesCreated != 0 {
		t.Errorf("second load: %+v", st)
	}
	if n, r := counts(t, src); n != 57 || r != 69 {
		t.Errorf("after two loads: %d nodes, %d relationships", n, r)
	}
	recs := cypher(t, d, "SHOW INDEXES YIELD name, labelsOrTypes, properties RETURN name, labelsOrTypes[0] AS label, properties[0] AS prop", nil)
	have := map[string]string{}
	for _, rec := range recs {
		name, _ := rec.Get("name")
		label, _ := rec.Get("label")
		prop, _ := rec.Get("prop")
		if prop == "id" {
			have[fmt.Sprint(name)] = fmt.Sprint(label)
		}
	}
	for _, lb := range SeedLabels {
		if have[apoc.IndexName(lb)] != lb {
			t.Errorf("no index %s on %s(id): %v", apoc.IndexName(lb), lb, have)
		}
	}
	if apoc.IndexName("UserPreference") != "idx_userpreference_id" {
		t.Errorf("IndexName = %s", apoc.IndexName("UserPreference"))
	}
	st, err = Load(ctx, d, "", demoGraph(t), LoadOptions{Wipe: true})
	if err != nil {
		t.Fatal(err)
	}
	if st.NodesDeleted != 57 || st.RelsDeleted != 69 || st.NodesCreated != 57 || st.RelsCreated != 69 {
		t.Errorf("load with wipe: %+v", st)
	}
	loaded = "demo"
}

// multiGraph has the cases that make relationships hard to load
// idempotently: three identical A→B edges, a fourth A→B edge with other
// tags, the reverse B→A with the same properties, two identical self-loops
// on the unlabelled node C, an integer weight 1 next to a float weight 1.0
// (different properties), a MENTIONS edge, and a node with two labels.
func multiGraph() *apoc.Graph {
	node := func(iid, id string, labels ...string) apoc.Node {
		if labels == nil {
			labels = []string{}
		}
		return apoc.Node{InternalID: iid, Labels: labels, Properties: map[string]any{"id": id, "text": "node " + id}}
	}
	rel := func(iid, typ, s, e string, props map[string]any) apoc.Relationship {
		return apoc.Relationship{InternalID: iid, Type: typ, Start: s, End: e, Properties: props}
	}
	x := func() map[string]any { return map[string]any{"weight": 0.5, "tags": []any{"x"}} }
	return &apoc.Graph{
		Nodes: []apoc.Node{node("0", "A", "Event"), node("1", "B", "Event", "DataSource"), node("2", "C"), node("3", "D")},
		Rels: []apoc.Relationship{
			rel("0", "RELATES", "0", "1", x()), rel("1", "RELATES", "0", "1", x()), rel("2", "RELATES", "0", "1", x()),
			rel("3", "RELATES", "0", "1", map[string]any{"weight": 0.5, "tags": []any{"y"}}),
			rel("4", "RELATES", "1", "0", x()),
			rel("5", "RELATES", "2", "2", map[string]any{"weight": 0.3}), rel("6", "RELATES", "2", "2", map[string]any{"weight": 0.3}),
			rel("7", "RELATES", "2", "3", map[string]any{"weight": int64(1)}), rel("8", "RELATES", "2", "3", map[string]any{"weight": 1.0}),
			rel("9", "MENTIONS", "3", "0", map[string]any{}),
		},
	}
}

// TestLoadParallelEdgesIdempotent: multiGraph (4 nodes, 10 relationships)
// loads as 4 nodes and 10 relationships, with batches of 2 rows; loading it
// twice and three times changes nothing (0 created, 4 and 10 matched), so
// identical parallel edges survive and are not multiplied. The integer
// weight stays an integer and the float a float; A→B has d(A) = 5 RELATES
// edges; the unlabelled nodes are found again by id; B has both labels.
func TestLoadParallelEdgesIdempotent(t *testing.T) {
	d := sharedDriver(t)
	ctx := context.Background()
	loaded = ""
	var progress []LoadProgress
	st, err := Load(ctx, d, "", multiGraph(), LoadOptions{Wipe: true, BatchSize: 2, Progress: func(p LoadProgress) { progress = append(progress, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if st.NodesCreated != 4 || st.RelsCreated != 10 || st.Batches < 5 {
		t.Errorf("first load: %+v", st)
	}
	if last := progress[len(progress)-1]; last.Phase != "relationships" || last.Done != 10 || last.Total != 10 {
		t.Errorf("last progress %+v", last)
	}
	src := NewSource(d, "", "")
	for i := 0; i < 2; i++ {
		st, err = Load(ctx, d, "", multiGraph(), LoadOptions{BatchSize: 2})
		if err != nil {
			t.Fatal(err)
		}
		if st.NodesCreated != 0 || st.RelsCreated != 0 || st.NodesMatched != 4 || st.RelsMatched != 10 {
			t.Errorf("reload %d: %+v", i+1, st)
		}
		if n, r := counts(t, src); n != 4 || r != 10 {
			t.Errorf("reload %d: %d nodes, %d relationships", i+1, n, r)
		}
	}
	recs := cypher(t, d, `MATCH (:Event {id: 'A'})-[r:RELATES]->(:Event {id: 'B'}) RETURN count(r) AS n`, nil)
	if n, _ := recs[0].Get("n"); n != int64(4) {
		t.Errorf("A->B: %v relationships, want 4", n)
	}
	recs = cypher(t, d, `MATCH ({id: 'C'})-[r:RELATES]->({id: 'D'}) RETURN valueType(r.weight) AS t ORDER BY t`, nil)
	var types []string
	for _, rec := range recs {
		v, _ := rec.Get("t")
		types = append(types, fmt.Sprint(v))
	}
	if !slices.Equal(types, []string{"FLOAT NOT NULL", "INTEGER NOT NULL"}) {
		t.Errorf("C->D weights: %v", types)
	}
	node, ok, err := src.Node(ctx, "B")
	if err != nil || !ok || !slices.Equal(node.Labels, []string{"Event", "DataSource"}) && !slices.Equal(node.Labels, []string{"DataSource", "Event"}) {
		t.Errorf("B: %+v %v %v", node, ok, err)
	}
	c := openConn(t, src)
	cands := expand(t, c, expandReq(map[string]float64{"A": 1}, nil, nil, 0, 0.15))
	if len(cands) != 5 || cands[0].Degree != 5 {
		t.Errorf("A: %s", candList(cands))
	}
	// The integer weight 1 counts as 1.0: T = 1 × 1.0 / √2 (D has the two
	// RELATES edges from C; its MENTIONS edge does not count).
	cands = expand(t, c, expandReq(map[string]float64{"D": 1}, nil, nil, 0, 0.15))
	ints := 0
	for _, cd := range cands {
		if _, isInt := cd.Edge.Properties["weight"].(int64); isInt {
			ints++
			if *cd.Edge.Weight != 1.0 || cd.Degree != 2 || cd.TransferEnergy != retriever.TransferEnergy(1, 1.0, 2, 1.0) {
				t.Errorf("integer weight: weight %v T %v", *cd.Edge.Weight, cd.TransferEnergy)
			}
		}
	}
	if len(cands) != 2 || ints != 1 {
		t.Errorf("D: %s", candList(cands))
	}
}

// TestLoadRejectsNodeWithoutID: a graph with a node without an id property
// (the second node) is rejected before anything is written, naming the
// node; even with Wipe the database keeps the demo graph (57/69).
func TestLoadRejectsNodeWithoutID(t *testing.T) {
	src := demoSource(t)
	g := &apoc.Graph{Nodes: []apoc.Node{
		{InternalID: "0", Labels: []string{"Event"}, Properties: map[string]any{"id": "A"}},
		{InternalID: "7", Labels: []string{"Event"}, Properties: map[string]any{"text": "no id"}},
	}}
	_, err := Load(context.Background(), src.Driver(), "", g, LoadOptions{Wipe: true})
	if err == nil || !strings.Contains(err.Error(), "node 7 (#2, labels [Event]) has no id property") {
		t.Fatalf("err = %v", err)
	}
	g = &apoc.Graph{Nodes: []apoc.Node{{InternalID: "0", Properties: map[string]any{"id": "A"}}},
		Rels: []apoc.Relationship{{InternalID: "0", Type: "RELATES", Start: "0", End: "9", Properties: map[string]any{}}}}
	if _, err = Load(context.Background(), src.Driver(), "", g, LoadOptions{Wipe: true}); err == nil || !strings.Contains(err.Error(), "unknown node 9") {
		t.Fatalf("err = %v", err)
	}
	if n, r := counts(t, src); n != 57 || r != 69 {
		t.Errorf("after rejected loads: %d nodes, %d relationships", n, r)
	}
}

type graphKey struct {
	nodes, rels []string
}

// keyOf renders a graph as sorted node and relationship descriptions,
// independent of internal ids.
func keyOf(g *apoc.Graph) graphKey {
	var k graphKey
	app := map[string]string{}
	for _, n := range g.Nodes {
		app[n.InternalID] = fmt.Sprint(n.Properties["id"])
		labels := slices.Clone(n.Labels)
		slices.Sort(labels)
		k.nodes = append(k.nodes, fmt.Sprintf("%v %s", labels, canonical(n.Properties)))
	}
	for _, r := range g.Rels {
		k.rels = append(k.rels, fmt.Sprintf("%s -%s-> %s %s", app[r.Start], r.Type, app[r.End], canonical(r.Properties)))
	}
	slices.Sort(k.nodes)
	slices.Sort(k.rels)
	return k
}

// TestReadGraphRoundTrip: ReadGraph of the loaded demo graph gives the same
// nodes (labels, properties) and relationships (endpoints, type,
// properties, as a multiset: the parallel T4003 ⇄ T4004 edges, the self-loop
// and both MENTIONS included) as testdata/demo.jsonl; it survives
// apoc.Write and Parse; and the in-memory engine built from it explores
// scenario A exactly like the one built from the file.
func TestReadGraphRoundTrip(t *testing.T) {
	src := demoSource(t)
	g, err := ReadGraph(context.Background(), src.Driver(), "")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := keyOf(g), keyOf(demoGraph(t)); !slices.Equal(got.nodes, want.nodes) || !slices.Equal(got.rels, want.rels) {
		t.Errorf("read back differs:\n%v\nvs\n%v", got, want)
	}
	var buf bytes.Buffer
	if err := apoc.Write(&buf, g); err != nil {
		t.Fatal(err)
	}
	again, err := apoc.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	m1, err := inmem.New(again, "read back")
	if err != nil {
		t.Fatal(err)
	}
	m2, _ := inmem.New(demoGraph(t), "file")
	seeds := []retriever.SeedInput{{NodeID: "N2006", Score: 0.85}}
	r1, _ := exploreWithLevels(t, m1, retriever.DefaultConfig(), seeds, tagsA)
	r2, _ := exploreWithLevels(t, m2, retriever.DefaultConfig(), seeds, tagsA)
	if !slices.Equal(pathIDs(r1[0]), pathIDs(r2[0])) || len(r1[0].Paths) != 3 {
		t.Errorf("scenario A on the read-back graph: %v", pathIDs(r1[0]))
	}
}
