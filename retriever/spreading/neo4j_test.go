package spreading_test

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/graph/neo4jload"
	"github.com/memoria-graph/memoria/internal/testkit/neo4jfix"
	"github.com/memoria-graph/memoria/internal/testkit/neo4jtest"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/spreading"
)

// Tests on the shared server run one after another: they replace its data.
func TestMain(m *testing.M) { neo4jtest.Main(m) }

var fx = neo4jfix.New(func(ctx context.Context, src *neo4jdb.Source, g *apoc.Graph) (neo4jload.LoadStats, error) {
	return neo4jload.Load(ctx, src, g, neo4jload.LoadOptions{Wipe: true})
})

// degreesOf reads the degrees of ids over relType with nb.
func degreesOf(t *testing.T, nb graph.Neighbourhood, ids []string, relType string) []int64 {
	t.Helper()
	var out []int64
	err := nb.Read(context.Background(), func(r graph.Reader) error {
		refs, err := r.Nodes(context.Background(), ids)
		if err != nil {
			return err
		}
		out, err = r.Degrees(context.Background(), refs, relType)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEnginesAgreeOnSpreading: on 20 random decorated typed graphs
// (randgraph plus decorate), loaded into Neo4j and into the embedded
// engine from the same apoc.Graph:
//   - Degrees of every node over RELATES and over MENTIONS are the same
//     on both engines (self-loops once, relationships to any node);
//   - three random runs each agree on both engines with the naive
//     implementation (agreeWithNaive: scores to 1e-12, since parallel
//     relationships alike up to their tags may be read, and so added, in
//     another order on each engine);
//   - every hit's feeders agree on both engines (sameFeeders), and each
//     hit's feeders query, as --format cypher prints it, returns on Neo4j
//     exactly the hit and its feeders (feedersOnNeo4j).
func TestEnginesAgreeOnSpreading(t *testing.T) {
	fed := 0
	for i := range 20 {
		r := rand.New(rand.NewSource(int64(7000 + i)))
		c := newRandomCase(r)
		d := fx.Driver(t)
		fx.Load(t, d, c.g)
		nb := neo4jdb.NewNeighbourhood(neo4jdb.NewSource(d, "", ""))
		mem, err := inmem.New(c.g, "random")
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, n := range c.g.Nodes {
			if id, ok := n.Properties["id"].(string); ok {
				ids = append(ids, id)
			}
		}
		for _, ty := range []string{graph.Relates, "MENTIONS"} {
			a, b := degreesOf(t, nb, ids, ty), degreesOf(t, mem, ids, ty)
			if !slices.Equal(a, b) {
				t.Fatalf("graph %d: %s degrees on Neo4j %v, embedded %v", i, ty, a, b)
			}
		}
		for run := range 3 {
			if run > 0 {
				d := newRandomCase(rand.New(rand.NewSource(r.Int63())))
				c.p = d.p
				c.query.Seeds = nil
				for _, k := range r.Perm(len(ids))[:1+r.Intn(min(5, len(ids)))] {
					c.query.Seeds = append(c.query.Seeds, retriever.Seed{NodeID: ids[k], Score: 0.3 + 0.7*r.Float64()})
				}
			}
			label := fmt.Sprintf("graph %d run %d", i, run)
			got1, err := spreading.Retrieve(context.Background(), nb, c.query, c.p)
			if err != nil {
				t.Fatalf("%s: Neo4j: %v", label, err)
			}
			got2, err := spreading.Retrieve(context.Background(), mem, c.query, c.p)
			if err != nil {
				t.Fatalf("%s: embedded: %v", label, err)
			}
			agreeWithNaive(t, label+" (Neo4j)", got1, c.naive(), c.p.TopK)
			agreeWithNaive(t, label+" (embedded)", got2, c.naive(), c.p.TopK)
			sameFeeders(t, label, got1, got2)
			fed += feedersOnNeo4j(t, d, label, got1, got2)
		}
	}
	if fed < 100 {
		t.Errorf("only %d feeders queries ran: the random graphs do not exercise them", fed)
	}
}

// sameFeeders: a hit of both rankings has the same feeders on both
// engines: from the same node, of the same type and weight, bringing the
// same amount to 1e-12 (the senders' activation may be added in another
// order, as agreeWithNaive says).
func sameFeeders(t *testing.T, label string, onNeo4j, embedded retriever.Ranking) {
	t.Helper()
	byID := map[string]retriever.Hit{}
	for _, h := range embedded.Hits {
		byID[h.NodeID] = h
	}
	for _, a := range onNeo4j.Hits {
		b, ok := byID[a.NodeID]
		if !ok {
			continue
		}
		if len(a.Feeders) != len(b.Feeders) {
			t.Fatalf("%s: %s has %d feeders on Neo4j, %d embedded", label, a.NodeID, len(a.Feeders), len(b.Feeders))
		}
		for i, f := range a.Feeders {
			g := b.Feeders[i]
			if f.From != g.From || f.To != a.NodeID || f.Type != g.Type || f.Weight != g.Weight || !close12(f.Factor, g.Factor) {
				t.Fatalf("%s: %s's feeder %d is %+v on Neo4j, %+v embedded", label, a.NodeID, i, f, g)
			}
		}
	}
}

// feedersOnNeo4j runs, in a read transaction on d, the debug query
// render.HitCypher gives each hit of onNeo4j that has feeders (what
// --format cypher prints: render.FeedersCypher, every relationship pinned
// by its element id), and fails unless it returns exactly one row: the
// hit, then for each feeder in order its relationship (the element id
// the feeder carries, of its type, between the hit and the feeder) and the
// feeder's node. The same hit's query from the embedded ranking (pinned by
// properties) returns that row among its own: a relationship with equal
// properties beside it may add rows. It returns how many hits' queries
// ran.
func feedersOnNeo4j(t *testing.T, d neo4j.DriverWithContext, label string, onNeo4j, embedded retriever.Ranking) int {
	t.Helper()
	byID := map[string]retriever.Hit{}
	for _, h := range embedded.Hits {
		byID[h.NodeID] = h
	}
	ran := 0
	for _, h := range onNeo4j.Hits {
		if len(h.Feeders) == 0 {
			continue
		}
		q, ok := render.HitCypher(h)
		if !ok || !q.Feeders || len(q.Unpinned) > 0 {
			t.Fatalf("%s: %s's query %+v: not a pinned feeders query", label, h.NodeID, q)
		}
		rows := readRows(t, d, q.Query, q.Params)
		if len(rows) != 1 {
			t.Fatalf("%s: %s's feeders query returned %d rows, want 1\n%s\n%v", label, h.NodeID, len(rows), q.Query, q.Params)
		}
		want := rowOf(t, label, h, rows[0])
		ran++
		e, ok := byID[h.NodeID]
		if !ok || len(e.Feeders) != len(h.Feeders) {
			continue
		}
		eq, _ := render.HitCypher(e)
		if len(eq.Unpinned) > 0 || !strings.Contains(eq.Query, "properties(r0) = $r0") {
			t.Fatalf("%s: %s's embedded query %s (unpinned %v)", label, h.NodeID, eq.Query, eq.Unpinned)
		}
		found := false
		for _, row := range readRows(t, d, eq.Query, eq.Params) {
			found = found || rowOf(t, label, e, row) == want
		}
		if !found {
			t.Errorf("%s: %s's embedded feeders query does not return the Neo4j row %s\n%s", label, h.NodeID, want, eq.Query)
		}
	}
	return ran
}

// rowOf checks a feeders query's row against hit h (the hit's node, then
// each feeder's relationship and node, the relationship of the feeder's
// type joining the two) and returns its element ids, joined.
func rowOf(t *testing.T, label string, h retriever.Hit, row *neo4j.Record) string {
	t.Helper()
	if len(row.Values) != 1+2*len(h.Feeders) {
		t.Fatalf("%s: %s's row has %d columns, want %d", label, h.NodeID, len(row.Values), 1+2*len(h.Feeders))
	}
	hn, ok := row.Values[0].(neo4j.Node)
	if !ok || hn.Props["id"] != h.NodeID {
		t.Fatalf("%s: %s's row starts with %v", label, h.NodeID, row.Values[0])
	}
	ids := []string{hn.ElementId}
	for i, f := range h.Feeders {
		rel, ok1 := row.Values[1+2*i].(neo4j.Relationship)
		fn, ok2 := row.Values[2+2*i].(neo4j.Node)
		if !ok1 || !ok2 || fn.Props["id"] != f.From || rel.Type != f.Type {
			t.Fatalf("%s: %s's feeder %d: row holds %v, %v; want a %s to %s", label, h.NodeID, i, row.Values[1+2*i], row.Values[2+2*i], f.Type, f.From)
		}
		if f.Edge.ElementID != "" && rel.ElementId != f.Edge.ElementID {
			t.Errorf("%s: %s's feeder %d is relationship %s, the ranking's %s", label, h.NodeID, i, rel.ElementId, f.Edge.ElementID)
		}
		ends := []string{rel.StartElementId, rel.EndElementId}
		slices.Sort(ends)
		want := []string{hn.ElementId, fn.ElementId}
		slices.Sort(want)
		if !slices.Equal(ends, want) {
			t.Errorf("%s: %s's feeder %d: relationship %s joins %v, not the hit and %s", label, h.NodeID, i, rel.ElementId, ends, f.From)
		}
		ids = append(ids, rel.ElementId, fn.ElementId)
	}
	return strings.Join(ids, " ")
}

// readRows runs query with params in a read transaction on d.
func readRows(t *testing.T, d neo4j.DriverWithContext, query string, params map[string]any) []*neo4j.Record {
	t.Helper()
	ctx := context.Background()
	s := d.NewSession(ctx, neo4j.SessionConfig{AccessMode: neo4j.AccessModeRead})
	defer s.Close(ctx)
	rows, err := neo4j.ExecuteRead(ctx, s, func(tx neo4j.ManagedTransaction) ([]*neo4j.Record, error) {
		res, err := tx.Run(ctx, query, params)
		if err != nil {
			return nil, err
		}
		return res.Collect(ctx)
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, query)
	}
	return rows
}

// TestSpreadingPlans: spreading activation from the demo graph's scenario
// A seed N2006 and four more seeds at P = 3, θ = 0.01, on a graph loaded
// by `memoria load` (which indexes id on every label), sends one seed
// lookup, an Arcs query per pulse run, one Facts query for what the
// candidates are scored by (entity_count and degree; no embedding without
// a query vector), one Around query of the senders of the hits' routes and
// feeders, and one Details query each for the hits' properties and for
// those relationships; EXPLAIN shows
// no AllNodesScan or NodeByLabelScan in any of them
// (neo4jfix.NeighbourhoodPlans, which also checks, as a control, that the
// scan fallback's query does plan a scan).
func TestSpreadingPlans(t *testing.T) {
	g := neo4jfix.DemoGraph(t)
	var queries []neo4jfix.Sent
	d := fx.Driver(t)
	fx.Load(t, d, g)
	nb := neo4jdb.NewNeighbourhood(neo4jdb.NewSource(d, "", ""))
	nb.SetTrace(func(q string, p map[string]any) { queries = append(queries, neo4jfix.Sent{Query: q, Params: p}) })
	p := spreading.DefaultParams()
	p.Pulses, p.Threshold = 3, 0.01
	q := retriever.Query{Seeds: []retriever.Seed{{NodeID: "N2006", Score: 0.85}, {NodeID: "T3000", Score: 0.9},
		{NodeID: "T4001", Score: 0.5}, {NodeID: "N2010", Score: 0.4}, {NodeID: "N2001", Score: 0.3}}}
	res, err := spreading.Retrieve(context.Background(), nb, q, p)
	if err != nil {
		t.Fatal(err)
	}
	pulses, _ := res.Stats.Get("pulses_run")
	n := neo4jfix.NeighbourhoodPlans(t, d, queries)
	want := neo4jfix.Plans{Arcs: 3, Around: 1, Lookups: 1, Details: 2, Facts: 1}
	if n != want || pulses.(int) != 3 {
		t.Errorf("queries %+v with %v pulses run, want %+v with 3", n, pulses, want)
	}
	for _, s := range queries {
		if s.Query == neo4jdb.FactsQuery(graph.Relates) && !slices.Equal(s.Params["keys"].([]string), []string{"entity_count"}) {
			t.Errorf("without a query vector the candidates' facts are %v, want entity_count only", s.Params["keys"])
		}
	}
}
