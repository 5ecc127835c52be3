package neo4jdb_test

import (
	"context"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
)

// TestUnitWeightsOnNeo4j: Source.UnitWeights under LightRAG's mapping
// (DIRECTED relationships weighed by `weight`, 1.0 when missing) and
// Graphiti's (RELATES_TO, no weight property: every fact weighs 1). With
// weights 0.5 and missing on DIRECTED it says false (not known) until a
// range index on DIRECTED's weight exists, then true; a DIRECTED weight of
// 2 makes it false again, and a weight of 7 on a type LightRAG does not
// traverse does not. Graphiti's mapping needs no index. It needs a Neo4j
// 5 (testkit/neo4jtest; with CI=true it fails rather than skips
// without one), and writes through the package's fixture (fx.Cypher), so
// that a later test asking for the demo graph gets it loaded again.
func TestUnitWeightsOnNeo4j(t *testing.T) {
	ctx := context.Background()
	d := fx.Driver(t)
	write := func(q string) {
		t.Helper()
		fx.Cypher(t, d, q, nil) // the fixture no longer counts the demo graph as loaded
	}
	write("MATCH (n) DETACH DELETE n")
	write("DROP INDEX directed_weight IF EXISTS")
	defer write("DROP INDEX directed_weight IF EXISTS")
	write(`CREATE (a:base {entity_id: 'a'}), (b:base {entity_id: 'b'}), (c:base {entity_id: 'c'}),
	       (a)-[:DIRECTED {weight: 0.5}]->(b), (b)-[:DIRECTED]->(c), (a)-[:OTHER {weight: 7}]->(c)`)
	mapped := func(name string) *neo4jdb.Source {
		t.Helper()
		s, ok := graph.Preset(name)
		if !ok {
			t.Fatalf("no preset %s", name)
		}
		src := neo4jdb.NewSource(d, "", "")
		if err := src.SetSchema(s); err != nil {
			t.Fatal(err)
		}
		return src
	}
	unit := func(name string) bool {
		t.Helper()
		got, err := mapped(name).UnitWeights(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if unit("lightrag") {
		t.Error("no index on DIRECTED's weight: UnitWeights says every weight lies in [0, 1]")
	}
	notice := func() string {
		t.Helper()
		n, err := mapped("lightrag").WeightIndexNotice(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	const fix = "CREATE INDEX IF NOT EXISTS FOR ()-[r:`DIRECTED`]-() ON (r.`weight`)"
	if n := notice(); !strings.Contains(n, `"weight" of "DIRECTED"`) || !strings.HasSuffix(n, "to fix, run: "+fix) {
		t.Errorf("the notice without the index: %q", n)
	}
	if !unit("graphiti") {
		t.Error("Graphiti's mapping weighs every fact 1: UnitWeights says not known")
	}
	write("CREATE INDEX directed_weight FOR ()-[r:DIRECTED]-() ON (r.weight)")
	write("CALL db.awaitIndexes(60)")
	if !unit("lightrag") {
		t.Error("weights 0.5 and missing (1.0), the index online: UnitWeights says not known")
	}
	if n := notice(); n != "" {
		t.Errorf("the index online, a notice: %q", n)
	}
	write("MATCH (a {entity_id: 'a'}), (c {entity_id: 'c'}) CREATE (a)-[:DIRECTED {weight: 2}]->(c)")
	if unit("lightrag") {
		t.Error("a DIRECTED weight of 2: UnitWeights says every weight lies in [0, 1]")
	}
}

// TestUnitWeightsNotNumbers: under memoria's own schema, with RELATES'
// weight index (apoc.WeightIndexStatement) online, UnitWeights says true
// for weights 0 and 0.5 and a missing one (0.01), and false as soon as one
// RELATES weight is not a number in [0, 1] although no weight is above 1
// or below 0: NaN (0.0/0.0, which Neo4j stores; NaN > 1.0 and NaN < 0.0
// are both false, so a search for a weight outside [0, 1] by comparison
// misses it), a string, a boolean, a list. The embedded engine's rule is
// the same: a weight w counts only when 0 ≤ w ≤ 1 (graph/inmem's
// UnitWeights), and it never loads a weight that is not a number. Each
// value is checked alone, then removed.
func TestUnitWeightsNotNumbers(t *testing.T) {
	ctx := context.Background()
	d := fx.Driver(t)
	write := func(q string) {
		t.Helper()
		fx.Cypher(t, d, q, nil) // the fixture no longer counts the demo graph as loaded
	}
	write("MATCH (n) DETACH DELETE n")
	write(apoc.WeightIndexStatement)
	defer write("DROP INDEX " + apoc.WeightIndexName + " IF EXISTS")
	write("CALL db.awaitIndexes(60)")
	write(`CREATE (a:X {id: 'a'}), (b:X {id: 'b'}),
	       (a)-[:RELATES {weight: 0}]->(b), (a)-[:RELATES {weight: 0.5}]->(b), (b)-[:RELATES]->(a)`)
	src := neo4jdb.NewSource(d, "", "")
	unit := func() bool {
		t.Helper()
		got, err := src.UnitWeights(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if !unit() {
		t.Fatal("weights 0, 0.5 and missing: UnitWeights says not known")
	}
	for _, w := range []string{"0.0/0.0", "'0.5'", "true", "[0.5]"} {
		write("MATCH (a {id: 'a'}), (b {id: 'b'}) CREATE (a)-[:RELATES {weight: " + w + ", odd: true}]->(b)")
		if unit() {
			t.Errorf("a RELATES weight of %s: UnitWeights says every weight lies in [0, 1]", w)
		}
		write("MATCH ()-[r:RELATES {odd: true}]->() DELETE r")
	}
	if !unit() {
		t.Error("the odd weights removed: UnitWeights says not known")
	}
}
