package spreading_test

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/graph/neo4jload"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/spreading"
	"github.com/memoria-graph/memoria/testkit/neo4jfix"
	"github.com/memoria-graph/memoria/testkit/neo4jtest"
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
//     implementation (agreeWithNaive: scores to 1e-12, since the naive
//     adds in the graph's relationship order);
//   - the two engines rank identically (sameRanking): the same hits in
//     the same order, scores and details to the bit, the same routes and
//     statistics;
//   - every hit's feeders agree on both engines (sameFeeders), and each
//     hit's feeders query, as --format cypher prints it, returns on Neo4j
//     exactly the hit and its feeders (neo4jfix.FeedersOnNeo4j).
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
			sameRanking(t, label, got1, got2)
			sameFeeders(t, label, got1, got2)
			fed += neo4jfix.FeedersOnNeo4j(t, d, label, got1, got2)
		}
	}
	if fed < 100 {
		t.Errorf("only %d feeders queries ran: the random graphs do not exercise them", fed)
	}
}

// sameRanking: the two engines' rankings are identical: the same hits in
// the same order with the same ranks, seeds and origins, scores, terms and
// details (Δ per pulse, activation, blend, penalty, top sources) to the
// bit, routes over the same nodes with the same types, weights and
// factors, and the same statistics. Both engines hand each firing node's
// arcs over in graph.SortRels order and the senders fire in id order
// (docs/RETRIEVERS.md "Spreading activation", rule 3), so every sum is
// added in the same order on both; relationships alike but for their
// tags may be each other's stand-in, which no compared field can tell.
func sameRanking(t *testing.T, label string, onNeo4j, embedded retriever.Ranking) {
	t.Helper()
	if a, b := fmt.Sprint(onNeo4j.Stats), fmt.Sprint(embedded.Stats); a != b {
		t.Fatalf("%s: stats on Neo4j %s, embedded %s", label, a, b)
	}
	if a, b := fmt.Sprint(onNeo4j.Seeds), fmt.Sprint(embedded.Seeds); a != b {
		t.Fatalf("%s: seeds on Neo4j %s, embedded %s", label, a, b)
	}
	if len(onNeo4j.Hits) != len(embedded.Hits) {
		t.Fatalf("%s: %d hits on Neo4j, %d embedded", label, len(onNeo4j.Hits), len(embedded.Hits))
	}
	for i, x := range onNeo4j.Hits {
		y := embedded.Hits[i]
		if x.NodeID != y.NodeID || x.Rank != y.Rank || x.Score != y.Score || x.Seed != y.Seed || x.Origin != y.Origin ||
			fmt.Sprint(x.Terms) != fmt.Sprint(y.Terms) || fmt.Sprint(x.Detail) != fmt.Sprint(y.Detail) || len(x.Route) != len(y.Route) {
			t.Fatalf("%s: hit %d: Neo4j %s #%d %v %v %v, embedded %s #%d %v %v %v", label, i+1,
				x.NodeID, x.Rank, x.Score, x.Terms, x.Detail, y.NodeID, y.Rank, y.Score, y.Terms, y.Detail)
		}
		for j, p := range x.Route {
			q := y.Route[j]
			if p.From != q.From || p.To != q.To || p.Type != q.Type || p.Weight != q.Weight || p.Factor != q.Factor {
				t.Fatalf("%s: %s's hop %d: Neo4j %+v, embedded %+v", label, x.NodeID, j, p, q)
			}
		}
	}
}

// sameFeeders: a hit of both rankings has the same labels and score (to
// the bit: both engines give each sender's arcs to one node in ascending
// order of weight, so activation adds up in the same order) and the same
// feeders on both engines: from the same node, of the same type and
// weight, bringing the same amount to 1e-12.
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
		// Neo4j keeps a node's labels in an order of its own.
		if la, lb := slices.Sorted(slices.Values(a.Labels)), slices.Sorted(slices.Values(b.Labels)); !slices.Equal(la, lb) || a.Score != b.Score {
			t.Fatalf("%s: %s is %v %v on Neo4j, %v %v embedded", label, a.NodeID, la, a.Score, lb, b.Score)
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

// TestSpreadingPlans: spreading activation from the demo graph's scenario
// A seed N2006 and four more seeds at P = 3, θ = 0.01, on a graph loaded
// by `memoria load` (which indexes id on every label), sends one seed
// lookup, an Arcs query per pulse run, one Facts query for what the
// candidates are scored by (entity_count and degree; no embedding without
// a query vector), one lookup of the hits by id (their labels and
// properties), one Around query of the cheaper ends of the hits' routes
// and feeders, and one Details query for those relationships; EXPLAIN shows
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
	want := neo4jfix.Plans{Arcs: 3, Around: 1, Lookups: 2, Details: 1, Facts: 1}
	if n != want || pulses.(int) != 3 {
		t.Errorf("queries %+v with %v pulses run, want %+v with 3", n, pulses, want)
	}
	for _, s := range queries {
		if s.Query == neo4jdb.FactsQuery(graph.Relates) && !slices.Equal(s.Params["keys"].([]string), []string{"entity_count"}) {
			t.Errorf("without a query vector the candidates' facts are %v, want entity_count only", s.Params["keys"])
		}
	}
}
