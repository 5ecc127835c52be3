package neo4jload

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/testkit/neo4jfix"
	"github.com/memoria-graph/memoria/testkit/neo4jtest"
	"github.com/memoria-graph/memoria/testkit/randgraph"
)

// fileDump renders g as neo4jtest.Dump renders the database that holds
// exactly g: values as the driver returns them (integers int64, floats
// float64, lists []any) and lists mixing integers and floats as floats,
// as Neo4j stores them (docs/EXPORTS.md, "The APOC file").
func fileDump(g *apoc.Graph) string {
	index := make(map[string]int, len(g.Nodes))
	nodes := make([]neo4jtest.DumpNode, len(g.Nodes))
	for i, n := range g.Nodes {
		index[n.InternalID] = i
		nodes[i] = neo4jtest.DumpNode{Labels: n.Labels, Props: stored(n.Properties)}
	}
	rels := make([]neo4jtest.DumpRel, len(g.Rels))
	for i, r := range g.Rels {
		rels[i] = neo4jtest.DumpRel{Start: index[r.Start], End: index[r.End], Type: r.Type, Props: stored(r.Properties)}
	}
	return neo4jtest.DumpOf(nodes, rels)
}

// stored is props as Neo4j gives them back.
func stored(props map[string]any) map[string]any {
	out := make(map[string]any, len(props))
	for k, v := range props {
		switch x := v.(type) {
		case int:
			out[k] = int64(x)
		case []string:
			l := make([]any, len(x))
			for i, s := range x {
				l[i] = s
			}
			out[k] = l
		case []any:
			floats := false
			for _, e := range x {
				if _, ok := e.(float64); ok {
					floats = true
				}
			}
			l := make([]any, len(x))
			for i, e := range x {
				if n, ok := e.(int64); ok && floats {
					e = float64(n)
				}
				l[i] = e
			}
			out[k] = l
		default:
			out[k] = v
		}
	}
	return out
}

// TestServerRefusesWhatTheCheckerRefuses: the names the checker refuses
// (docs/EXPORTS.md, "The APOC file") are names Neo4j refuses: a property
// key "" sent in a parameter map, and a relationship type with NUL, each
// fail with "not a valid token name" and create nothing. So a load that
// reached them would fail half way, which the checker prevents: Load
// refuses both graphs before writing. What the checker accepts at the
// edges loads, and reads back exactly: a weight 1e308 (finite), a label
// with a space and a control character, NUL inside a string value.
func TestServerRefusesWhatTheCheckerRefuses(t *testing.T) {
	d := fx.Driver(t)
	fx.Changed()
	neo4jtest.Shared(t).Wipe(t)
	ctx := context.Background()
	for _, q := range []struct {
		query  string
		params map[string]any
	}{
		{"CREATE (n:T) SET n = $p", map[string]any{"p": map[string]any{"": int64(1)}}},
		{"CREATE (:T)-[:`R\x00S`]->(:T)", nil},
	} {
		_, err := neo4j.ExecuteQuery(ctx, d, q.query, q.params, neo4j.EagerResultTransformer)
		if err == nil || !strings.Contains(err.Error(), "is not a valid token name") {
			t.Errorf("%q: %v, want a refused token name", q.query, err)
		}
	}
	src := neo4jdb.NewSource(d, "", "")
	if n, r := counts(t, src); n != 0 || r != 0 {
		t.Fatalf("the refused statements wrote %d nodes, %d relationships", n, r)
	}
	node := func(iid, id string, props map[string]any) apoc.Node {
		if props == nil {
			props = map[string]any{}
		}
		props["id"] = id
		return apoc.Node{InternalID: iid, Labels: []string{"Event"}, Properties: props}
	}
	for _, g := range []*apoc.Graph{
		{Nodes: []apoc.Node{node("0", "A", map[string]any{"": int64(1)})}},
		{Nodes: []apoc.Node{node("0", "A", nil)}, Rels: []apoc.Relationship{{InternalID: "0", Type: "R\x00S", Start: "0", End: "0"}}},
	} {
		if _, err := Load(ctx, src, g, LoadOptions{Wipe: true}); err == nil || !strings.HasPrefix(err.Error(), "the graph cannot be loaded: ") {
			t.Errorf("Load: %v", err)
		}
	}
	edge := &apoc.Graph{
		Nodes: []apoc.Node{{InternalID: "0", Labels: []string{"Odd \x01 label"}, Properties: map[string]any{"id": "A", "s": "a\x00b"}}},
		Rels:  []apoc.Relationship{{InternalID: "0", Type: "RELATES", Start: "0", End: "0", Properties: map[string]any{"weight": 1e308}}},
	}
	if _, err := Load(ctx, src, edge, LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, want := neo4jtest.Dump(t, d), fileDump(edge); got != want {
		t.Errorf("database:\n%s\nwant:\n%s", got, want)
	}
	fx.Cypher(t, d, "DROP INDEX "+apoc.IndexName("Odd \x01 label")+" IF EXISTS", nil)
}

// TestWipeRefusedGraphLeavesDatabase: with the demo graph and a node not
// in it in the database, a load with Wipe of a graph the checker refuses
// (an empty property key; a relationship type with NUL) changes nothing:
// the dump is the same before and after.
func TestWipeRefusedGraphLeavesDatabase(t *testing.T) {
	src := fx.Demo(t)
	d := src.Driver()
	fx.Cypher(t, d, `MATCH (n {id: "N2006"}) CREATE (:Junk {id: "JUNK"})-[:RELATES {weight: 0.5}]->(n)`, nil)
	before := neo4jtest.Dump(t, d)
	ctx := context.Background()
	for _, g := range []*apoc.Graph{
		{Nodes: []apoc.Node{{InternalID: "0", Labels: []string{"Event"}, Properties: map[string]any{"id": "X", "": "empty key"}}}},
		{Nodes: []apoc.Node{{InternalID: "0", Labels: []string{"Event"}, Properties: map[string]any{"id": "X"}}},
			Rels: []apoc.Relationship{{InternalID: "0", Type: "RELA\x00TES", Start: "0", End: "0"}}},
	} {
		_, err := Load(ctx, src, g, LoadOptions{Wipe: true, BatchSize: 1})
		if err == nil {
			t.Fatal("a refused graph loaded")
		}
		if after := neo4jtest.Dump(t, d); after != before {
			t.Fatalf("after %v the database changed:\n%s\nbefore:\n%s", err, after, before)
		}
	}
}

// TestWipeLeavesExactlyTheGraph: the database holds, besides nodes of the
// graph multiGraph loads (A, B, C, D), what a wipe must remove or correct:
// A as :DataSource with another property (the graph has it as :Event: a
// label conflict, so A is taken over and loses :DataSource), B with an
// extra label Stale (removed), three identical self-loops on C where the
// graph has two (one deleted), a RELATES A→B with other properties, and a
// Junk node with a relationship to D (both deleted). Loading multiGraph
// with Wipe, 2 rows per batch, leaves exactly multiGraph (its dump); the
// stats count 2 labels removed (DataSource, Stale), 1 node (Junk) and 3
// relationships (the extra self-loop, the odd A→B and Junk's). Loading it
// again with Wipe changes nothing: all 4 nodes and 10 relationships
// matched, nothing created or removed, the same dump.
func TestWipeLeavesExactlyTheGraph(t *testing.T) {
	d := fx.Driver(t)
	fx.Changed()
	neo4jtest.Shared(t).Wipe(t)
	fx.Cypher(t, d, `CREATE (a:DataSource {id: 'A', old: true}), (b:Event:DataSource:Stale {id: 'B', text: 'node B'}),
		(c {id: 'C', text: 'node C'}), (dd {id: 'D', text: 'node D'}), (j:Junk {id: 'J'}),
		(c)-[:RELATES {weight: 0.3}]->(c), (c)-[:RELATES {weight: 0.3}]->(c), (c)-[:RELATES {weight: 0.3}]->(c),
		(a)-[:RELATES {weight: 0.9}]->(b), (j)-[:MENTIONS]->(dd)`, nil)
	src := neo4jdb.NewSource(d, "", "")
	ctx := context.Background()
	st, err := Load(ctx, src, multiGraph(), LoadOptions{Wipe: true, BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := fileDump(multiGraph())
	if got := neo4jtest.Dump(t, d); got != want {
		t.Fatalf("after the load with Wipe:\n%s\nwant:\n%s", got, want)
	}
	if st.LabelsRemoved != 2 || st.NodesDeleted != 1 || st.RelsDeleted != 3 || st.NodesMatched != 4 {
		t.Errorf("stats %+v", st)
	}
	st, err = Load(ctx, src, multiGraph(), LoadOptions{Wipe: true, BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	if st.NodesMatched != 4 || st.RelsMatched != 10 || st.NodesCreated+st.RelsCreated+st.NodesDeleted+st.RelsDeleted+st.LabelsRemoved != 0 {
		t.Errorf("second load: %+v", st)
	}
	if got := neo4jtest.Dump(t, d); got != want {
		t.Fatalf("after the second load:\n%s\nwant:\n%s", got, want)
	}
}

// TestLoadKilledMidLoad: on a server of its own with a data directory,
// holding the demo graph plus a Junk node, a load with Wipe of a random
// graph (randgraph, 120 nodes, ids disjoint from the demo's), 20 rows per
// batch, is cut by killing the server (SIGKILL) right after its third
// relationship batch commits. Expected:
//
//   - Load returns an *IncompleteError for "writing relationships" that
//     says all 120 of 120 nodes and some relationships were written,
//     nothing removed, and that running the same load again completes it;
//   - a server restarted on the same data directory still holds everything
//     the database held before (the dump of before is contained in the
//     dump after: the demo graph and Junk, untouched, as the random graph
//     shares no id with them);
//   - loading the same graph again, with Wipe, gives exactly the graph
//     (its dump), and once more changes nothing.
func TestLoadKilledMidLoad(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	srv := neo4jtest.New(t, neo4jtest.WithDataDir(dir))
	ctx := context.Background()
	src := connect(t, srv)
	if _, err := Load(ctx, src, neo4jfix.DemoGraph(t), LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	fx.Cypher(t, src.Driver(), `MATCH (n {id: "N2006"}) CREATE (:Junk {id: "JUNK"})-[:RELATES {weight: 0.5}]->(n)`, nil)
	before := neo4jtest.Dump(t, src.Driver())

	opt := randgraph.DefaultOptions(120)
	opt.Attach = 3
	g := randgraph.Generate(rand.New(rand.NewSource(7)), opt)
	batches := 0
	_, err := Load(ctx, src, g, LoadOptions{Wipe: true, BatchSize: 20, Progress: func(p LoadProgress) {
		if p.Phase == "relationships" {
			if batches++; batches == 3 {
				if err := srv.Kill(); err != nil {
					t.Error(err)
				}
			}
		}
	}})
	var inc *IncompleteError
	if !errors.As(err, &inc) || inc.Phase != "writing relationships" || inc.Stats.NodesCreated != 120 ||
		!strings.Contains(err.Error(), "written so far: 120 of 120 nodes (120 created, 0 matched), ") ||
		!strings.Contains(err.Error(), fmt.Sprintf(" of %d relationships", len(g.Rels))) ||
		!strings.Contains(err.Error(), "nothing removed") || !strings.HasSuffix(err.Error(), "Running the same load again completes it: loading is idempotent.") {
		t.Fatalf("err = %v", err)
	}
	if written := inc.Stats.RelsCreated; written == 0 || written >= int64(len(g.Rels)) {
		t.Errorf("%d of %d relationships written before the kill", written, len(g.Rels))
	}
	t.Logf("the load stopped: %v", err)
	src.Close(ctx)

	srv = neo4jtest.New(t, neo4jtest.WithDataDir(dir))
	src = connect(t, srv)
	defer src.Close(ctx)
	after := neo4jtest.Dump(t, src.Driver())
	if missing := dumpMinus(before, after); len(missing) > 0 {
		t.Fatalf("the stopped load lost %d lines of the database, e.g. %s", len(missing), missing[0])
	}
	for i := 0; i < 2; i++ {
		st, err := Load(ctx, src, g, LoadOptions{Wipe: true, BatchSize: 20})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := neo4jtest.Dump(t, src.Driver()), fileDump(g); got != want {
			t.Fatalf("load %d after the restart:\n%s\nwant:\n%s", i+1, got, want)
		}
		if i == 1 && st.NodesCreated+st.RelsCreated+st.NodesDeleted+st.RelsDeleted != 0 {
			t.Errorf("the second load after the restart changed something: %+v", st)
		}
	}
}

// connect connects to srv as memoria does (the driver's own retries off).
func connect(t *testing.T, srv *neo4jtest.Server) *neo4jdb.Source {
	t.Helper()
	src, err := neo4jdb.Connect(context.Background(), neo4jdb.Settings{URI: srv.URI, Username: srv.Username, Password: srv.Password})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// dumpMinus lists the lines of dump a that b lacks (as multisets).
func dumpMinus(a, b string) []string {
	have := map[string]int{}
	for _, l := range strings.Split(b, "\n") {
		have[l]++
	}
	var missing []string
	for _, l := range strings.Split(a, "\n") {
		if strings.HasSuffix(l, " nodes") || strings.HasSuffix(l, " relationships") {
			continue // the counts
		}
		if have[l] == 0 {
			missing = append(missing, l)
			continue
		}
		have[l]--
	}
	return missing
}
