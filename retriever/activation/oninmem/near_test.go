package oninmem

import (
	"context"
	"math"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/testkit/randgraph"
)

// randomNear is a random Near over the nodes ids and the request's frontier:
// hop counts 0 to 5 (or none, math.MaxInt32) for about half the nodes, and
// limits -1 to 4 for about two thirds of the frontier nodes.
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

// TestExpandNear: on 40 random graphs (testkit/randgraph) with random
// requests (frontier, visited ids, query tags, MIN_ACTIVATION, sometimes
// no threshold at all, as why reads) and random Nears, ExpandNear returns
// exactly ExpandFrontier's candidates that the Near keeps, in order
// (reflect.DeepEqual), the scratch space it leaves in the pool included
// (each graph asks several times through one engine); and the Nears do
// leave candidates out.
func TestExpandNear(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	left := 0
	for k := range 40 {
		opt := randgraph.Random(r, 10, 80)
		ag := randgraph.Generate(r, opt)
		var b strings.Builder
		if err := apoc.Write(&b, ag); err != nil {
			t.Fatal(err)
		}
		g, err := inmem.Load(strings.NewReader(b.String()), "random")
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for i := range g.NodeCount() {
			ids = append(ids, g.NodeAt(int32(i)).ID)
		}
		m := New(g)
		for range 5 {
			req := activation.ExpandRequest{Visited: map[string]struct{}{}, TagSimFloor: 0.15, MinActivation: -math.MaxFloat64}
			if r.Intn(2) == 0 {
				req.MinActivation = 0.005 * r.Float64()
			}
			for range r.Intn(3) {
				req.QueryTags = append(req.QueryTags, opt.Tags[r.Intn(len(opt.Tags))])
			}
			for _, i := range r.Perm(len(ids))[:1+r.Intn(min(10, len(ids)))] {
				req.Frontier = append(req.Frontier, activation.FrontierInput{NodeID: ids[i], Activation: 0.1 + r.Float64()})
			}
			for _, id := range ids {
				if r.Intn(6) == 0 {
					req.Visited[id] = struct{}{}
				}
			}
			near := randomNear(r, ids, req.Frontier)
			all, err := m.ExpandFrontier(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			want := near.Filter(all)
			got, err := m.ExpandNear(context.Background(), req, near)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
				t.Fatalf("graph %d: ExpandNear gave %d candidates, the filtered ExpandFrontier %d:\n%v\n%v", k, len(got), len(want), got, want)
			}
			left += len(all) - len(want)
		}
	}
	if left == 0 {
		t.Error("no Near left a candidate out")
	}
}
