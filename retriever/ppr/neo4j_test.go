package ppr_test

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/graph/neo4jload"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/ppr"
	"github.com/memoria-graph/memoria/testkit/neo4jfix"
	"github.com/memoria-graph/memoria/testkit/neo4jtest"
)

// Tests on the shared server run one after another: they replace its data.
func TestMain(m *testing.M) { neo4jtest.Main(m) }

var fx = neo4jfix.New(func(ctx context.Context, src *neo4jdb.Source, g *apoc.Graph) (neo4jload.LoadStats, error) {
	return neo4jload.Load(ctx, src, g, neo4jload.LoadOptions{Wipe: true})
})

// sameRanking compares two rankings field by field: hits (ids, scores to
// the bit, ranks, seeds, origins, terms, routes' ends, types, weights and
// factors) and statistics.
func sameRanking(t *testing.T, label string, a, b retriever.Ranking) {
	t.Helper()
	if fmt.Sprint(a.Stats) != fmt.Sprint(b.Stats) || fmt.Sprint(a.Seeds) != fmt.Sprint(b.Seeds) {
		t.Fatalf("%s: stats %v / %v, seeds %v / %v", label, a.Stats, b.Stats, a.Seeds, b.Seeds)
	}
	if len(a.Hits) != len(b.Hits) {
		t.Fatalf("%s: %d hits on Neo4j, %d embedded", label, len(a.Hits), len(b.Hits))
	}
	for i := range a.Hits {
		x, y := a.Hits[i], b.Hits[i]
		if x.NodeID != y.NodeID || x.Score != y.Score || x.Rank != y.Rank || x.Seed != y.Seed || x.Origin != y.Origin ||
			fmt.Sprint(x.Terms) != fmt.Sprint(y.Terms) || len(x.Route) != len(y.Route) {
			t.Fatalf("%s: hit %d: Neo4j %+v, embedded %+v", label, i+1, x, y)
		}
		if len(x.Feeders) != len(y.Feeders) {
			t.Fatalf("%s: %s: %d feeders on Neo4j, %d embedded", label, x.NodeID, len(x.Feeders), len(y.Feeders))
		}
		for j, p := range slices.Concat(x.Route, x.Feeders) {
			q := slices.Concat(y.Route, y.Feeders)[j]
			if p.From != q.From || p.To != q.To || p.Type != q.Type || p.Weight != q.Weight || p.Factor != q.Factor {
				t.Fatalf("%s: %s's hop or feeder %d: Neo4j %+v, embedded %+v", label, x.NodeID, j, p, q)
			}
		}
	}
}

// TestEnginesAgreeOnPPR: on 20 random graphs (randgraph with AddTyped:
// hubs, parallel and identical parallel relationships, self-loops, nodes
// without ids, missing and integer weights, typed relationships the walk
// ignores), loaded into Neo4j and into the embedded engine from the same
// apoc.Graph, three random runs each (d, ε, K, seeds) rank exactly alike
// on both engines, scores and shares to the bit, with the same
// statistics (so the same pushes, rounds and reads), routes and feeders,
// and within the error bound of the power iteration
// (testkit/naiveppr); and each hit's feeders query, as --format
// cypher prints it, returns on Neo4j exactly the hit and its feeders
// (neo4jfix.FeedersOnNeo4j).
func TestEnginesAgreeOnPPR(t *testing.T) {
	fed := 0
	defer func() {
		if fed < 20 && !t.Failed() {
			t.Errorf("only %d hits' feeders queries ran", fed)
		}
	}()
	for i := range 20 {
		r := rand.New(rand.NewSource(int64(7000 + i)))
		c := newRandomCase(r)
		src := fx.Graph(t, c.g)
		nb := neo4jdb.NewNeighbourhood(src)
		mem, err := inmem.New(c.g, "random")
		if err != nil {
			t.Fatal(err)
		}
		for run := range 3 {
			if run > 0 {
				c.query, c.p = randomQuery(r, c.g), randomParams(r)
			}
			label := fmt.Sprintf("graph %d run %d (%+v)", i, run, c.p)
			got1, err := ppr.Retrieve(context.Background(), nb, c.query, c.p)
			if err != nil {
				t.Fatalf("%s: Neo4j: %v", label, err)
			}
			got2, err := ppr.Retrieve(context.Background(), mem, c.query, c.p)
			if err != nil {
				t.Fatalf("%s: embedded: %v", label, err)
			}
			sameRanking(t, label, got1, got2)
			agreeWithNaive(t, label, got1, c.naive())
			fed += neo4jfix.FeedersOnNeo4j(t, fx.Driver(t), label, got1, got2)
		}
	}
}

// TestNeighbourhoodPlans: personalized PageRank of the demo graph's
// scenario A seed N2006 and four more seeds (ε 1e-4, so that it ends in a
// few rounds) sends one seed lookup, one Strengths query per round that
// meets new nodes, one Arcs query per round that pushes unread nodes, one
// Around query for the routes, one lookup of the hits by id (the arcs
// carry no labels or properties) and one Details query for the routes'
// relationships; EXPLAIN shows no AllNodesScan or
// NodeByLabelScan in any of them. The Arcs, Around and Strengths queries
// are counted against the run's own statistics (no more nodes read than weighed: a node is weighed
// before it is read).
func TestNeighbourhoodPlans(t *testing.T) {
	g := neo4jfix.DemoGraph(t)
	var queries []neo4jfix.Sent
	d := fx.Driver(t)
	fx.Load(t, d, g)
	nb := neo4jdb.NewNeighbourhood(neo4jdb.NewSource(d, "", ""))
	nb.SetTrace(func(q string, p map[string]any) { queries = append(queries, neo4jfix.Sent{Query: q, Params: p}) })
	p := ppr.DefaultParams()
	p.Epsilon = 1e-4
	q := retriever.Query{Seeds: []retriever.Seed{{NodeID: "N2006", Score: 0.85}, {NodeID: "T3000", Score: 0.9},
		{NodeID: "T4001", Score: 0.5}, {NodeID: "N2010", Score: 0.4}, {NodeID: "N2001", Score: 0.3}}}
	res, err := ppr.Retrieve(context.Background(), nb, q, p)
	if err != nil {
		t.Fatal(err)
	}
	n := neo4jfix.NeighbourhoodPlans(t, d, queries)
	reads, _ := res.Stats.Get("reads")
	rounds, _ := res.Stats.Get("rounds")
	weighed, _ := res.Stats.Get("nodes_weighed")
	read, _ := res.Stats.Get("nodes_read")
	if n.Arcs+n.Around != reads.(int) || n.Arcs < 1 || n.Around != 1 || n.Lookups != 2 || n.Details != 1 {
		t.Errorf("%+v (stats: %v reads)", n, reads)
	}
	if n.Strengths < 2 || n.Strengths > rounds.(int)+1 {
		t.Errorf("%d Strengths queries for %v rounds", n.Strengths, rounds)
	}
	if read.(int) > weighed.(int) {
		t.Errorf("%v nodes read, %v weighed: every node read is weighed first", read, weighed)
	}
}
