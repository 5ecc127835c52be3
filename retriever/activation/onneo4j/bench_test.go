package onneo4j

import (
	"context"
	"testing"

	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/testkit/neo4jfix"
	"github.com/memoria-graph/memoria/testkit/neo4jtest"
)

// benchSeeds are the seeds of scenarios A, B, C, D and E, explored together.
var benchSeeds = []retriever.Seed{
	{NodeID: "N2006", Score: 0.85}, {NodeID: "T3000", Score: 0.9}, {NodeID: "N2002", Score: 0.8},
	{NodeID: "T4020", Score: 1}, {NodeID: "T4003", Score: 1},
}

var benchTags = []string{"demand_forecasting", "stockout", "safety_stock", "inventory_policy", "campaign", "office_move", "it_support"}

// BenchmarkExploreDemo explores five seeds of the demo graph at once on the
// real server (the seeds in parallel goroutines, their queries sent
// together by the batcher), through Connect's driver. Reported, not enforced; it also
// reports the number of level queries per exploration.
func BenchmarkExploreDemo(b *testing.B) {
	fx.Demo(b)
	srv := neo4jtest.Shared(b)
	ctx := context.Background()
	conn, err := neo4jdb.Connect(ctx, neo4jdb.Settings{URI: srv.URI, Username: srv.Username, Password: srv.Password})
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	g := mustRetriever(b, New(conn), activation.DefaultParams())
	levels := 0
	b.ResetTimer()
	for b.Loop() {
		ch, err := g.Explore(ctx, benchSeeds, benchTags)
		if err != nil {
			b.Fatal(err)
		}
		for ev := range ch {
			if ev.Kind == activation.EventLevel {
				levels++
			}
			if ev.Kind == activation.EventResult && ev.Result.Error != "" {
				b.Fatal(ev.Result.Error)
			}
		}
	}
	b.ReportMetric(float64(levels)/float64(b.N), "levels/op")
}

// BenchmarkExpandLevel is one round trip (ns/op is the time per level): level 1 of scenario A (frontier
// N2006, four candidates) in a read transaction of one session.
func BenchmarkExpandLevel(b *testing.B) {
	src := fx.Demo(b)
	c := openConn(b, src)
	req := neo4jfix.ExpandReq(map[string]float64{"N2006": 0.85}, nil, tagsA, 0.005, 0.15)
	ctx := context.Background()
	for b.Loop() {
		if _, err := c.ExpandFrontier(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}
