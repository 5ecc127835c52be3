package onneo4j

import (
	"context"
	"math"
	"math/rand"
	"testing"

	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/oninmem"
	"github.com/memoria-graph/memoria/testkit/randgraph"
)

// randomNear is a random activation.Near over the nodes ids and the
// frontier: hop counts 0 to 5 (or none, math.MaxInt32) for about half the
// nodes, limits -1 to 4 for about two thirds of the frontier nodes.
func randomNear(r *rand.Rand, ids []string, frontier []activation.FrontierInput) activation.Near {
	near := activation.Near{Dist: map[string][2]int{}, Limit: map[string][2]int{}}
	count := func() int {
		if r.Intn(4) == 0 {
			return math.MaxInt32
		}
		return r.Intn(6)
	}
	for _, id := range ids {
		if r.Intn(2) == 0 {
			near.Dist[id] = [2]int{count(), count()}
		}
	}
	for _, f := range frontier {
		if r.Intn(3) > 0 {
			near.Limit[f.NodeID] = [2]int{r.Intn(6) - 1, r.Intn(6) - 1}
		}
	}
	return near
}

// TestExpandNearAgrees: on 12 random graphs (testkit/randgraph: parallel
// and identical parallel edges, self-loops, missing and integer weights,
// MENTIONS edges...), loaded into Neo4j and into the memory engine, random
// requests (randomRequest, half of them with no threshold, as why reads)
// with random Nears (randomNear) give through the fast path's ExpandNear
// (BatchNearQuery, the Near applied on the server) exactly the memory
// engine's ExpandNear candidates, in order, edges included
// (compareCandidates); and through a snapshot that already holds some of
// the frontier nodes (replayed with the Near) and reads the others from the
// server (restricted, and not kept: the snapshot holds no more nodes
// after). The specification's Cypher, which has no restricted form,
// filters its ExpandFrontier and agrees too. The Nears must have left rows
// out (the fast path does not filter what the server sends, so agreeing
// means the server left them out).
func TestExpandNearAgrees(t *testing.T) {
	d := fx.Driver(t)
	ctx := context.Background()
	left := 0
	for i := range 12 {
		r := rand.New(rand.NewSource(int64(5000 + i)))
		opt := randgraph.Random(r, 15, 120)
		g := randgraph.Generate(r, opt)
		fx.Load(t, d, g)
		src := neo4jdb.NewSource(d, "", "")
		mem, err := inmem.New(g, "random")
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, n := range g.Nodes {
			ids = append(ids, n.Properties["id"].(string))
		}
		fast, snap := New(src), NewSnapshot(src)
		for q := range 4 {
			req := randomRequest(r, g, opt)
			if q%2 == 0 {
				req.MinActivation = -math.MaxFloat64
			}
			near := randomNear(r, ids, req.Frontier)
			expandNear := func(be activation.Backend, hold []activation.FrontierInput) []activation.Candidate {
				e, release, err := be.Open(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer release(ctx)
				for _, f := range req.Frontier { // the fast path addresses nodes it has seen; the others it resolves
					if _, _, err := e.FetchSeed(ctx, f.NodeID); err != nil {
						t.Fatal(err)
					}
				}
				if len(hold) > 0 {
					if _, err := e.ExpandFrontier(ctx, activation.ExpandRequest{Frontier: hold, Visited: map[string]struct{}{}}); err != nil {
						t.Fatal(err)
					}
				}
				cands, err := activation.ExpandNear(ctx, e, req, near)
				if err != nil {
					t.Fatal(err)
				}
				return cands
			}
			want := expandNear(oninmem.New(mem), nil)
			if msg := compareCandidates(expandNear(fast, nil), want); msg != "" {
				t.Fatalf("graph %d, request %d, fast path: %s", i, q, msg)
			}
			if msg := compareCandidates(expandNear(NewSeedCypher(src), nil), want); msg != "" {
				t.Fatalf("graph %d, request %d, the specification's Cypher: %s", i, q, msg)
			}
			var hold []activation.FrontierInput
			for _, f := range req.Frontier {
				if r.Intn(2) == 0 {
					hold = append(hold, f)
				}
			}
			before := snap.Stats().Nodes
			if msg := compareCandidates(expandNear(snap, hold), want); msg != "" {
				t.Fatalf("graph %d, request %d, snapshot holding %d of %d frontier nodes: %s", i, q, len(hold), len(req.Frontier), msg)
			}
			if held := snap.Stats().Nodes; held > before+len(hold) {
				t.Errorf("graph %d, request %d: the snapshot held %d nodes, then %d after holding %d and a restricted read", i, q, before, held, len(hold))
			}
			all, err := oninmem.New(mem).ExpandFrontier(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			left += len(all) - len(want)
		}
	}
	if left == 0 {
		t.Error("no Near left a row out")
	}
}
