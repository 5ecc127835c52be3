package why_test

import (
	"context"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/why"
	"github.com/memoria-graph/memoria/testkit/naive"
	"github.com/memoria-graph/memoria/testkit/randgraph"
)

// bruteBest is the highest final T over every simple RELATES route of at
// most maxDepth hops from a seed to target, found by listing them all
// (bruteRoutes); ok is false when there is none.
func bruteBest(g *naive.Graph, seeds []retriever.Seed, target string, tags []string, ps activation.Params) (best float64, ok bool) {
	bruteRoutes(g, seeds, target, tags, ps, func(_ []int, t float64) {
		if !ok || t > best {
			best, ok = t, true
		}
	})
	return best, ok
}

// bruteRoutes calls visit with every simple RELATES route of at most
// maxDepth hops from a seed to target (its node indexes, the seed first)
// and its final T (rule 1's T, left to right, hop by hop). The slice is
// reused between calls.
func bruteRoutes(g *naive.Graph, seeds []retriever.Seed, target string, tags []string, ps activation.Params, visit func(route []int, t float64)) {
	tags = retriever.NormalizeTags(tags)
	deg := make([]int64, len(g.Nodes))
	for _, e := range g.Edges {
		if e.Type != "RELATES" {
			continue
		}
		deg[e.From]++
		if e.To != e.From {
			deg[e.To]++
		}
	}
	on := make([]bool, len(g.Nodes))
	var route []int
	var walk func(v int, t float64, hops int)
	walk = func(v int, t float64, hops int) {
		route = append(route, v)
		defer func() { route = route[:len(route)-1] }()
		if g.Nodes[v].ID == target {
			visit(route, t)
			return
		}
		if hops == ps.MaxDepth {
			return
		}
		for _, e := range g.Edges {
			if e.Type != "RELATES" || (e.From != v && e.To != v) {
				continue
			}
			u := e.To
			if u == v {
				u = e.From
			}
			if on[u] || !g.Nodes[u].HasID {
				continue
			}
			w := activation.MissingWeight
			if e.Weight != nil {
				w = *e.Weight
			}
			on[u] = true
			walk(u, activation.TransferEnergy(t, w, deg[v], activation.TagSim(e.Tags, tags, ps.TagSimFloor)), hops+1)
			on[u] = false
		}
	}
	for _, s := range seeds {
		for i, n := range g.Nodes {
			if n.HasID && n.ID == s.NodeID {
				on[i] = true
				walk(i, s.Score, 0)
				on[i] = false
			}
		}
	}
}

// TestBestRouteIsBest: on 30 random graphs (testkit/randgraph, 12 to 30
// nodes, MAX_DEPTH 1 to 4), for every node, the answer is kept exactly
// when a seed's result holds it, unreachable exactly when listing every
// simple route finds none, and otherwise its route's final T equals the
// highest final T of all simple routes, to the bit (docs/ALGORITHM.md, "Why
// not X": the search is exact).
func TestBestRouteIsBest(t *testing.T) {
	r := rand.New(rand.NewSource(10))
	for c := range 30 {
		opt := randgraph.Random(r, 12, 30)
		g := randgraph.Generate(r, opt)
		var b strings.Builder
		if err := apoc.Write(&b, g); err != nil {
			t.Fatal(err)
		}
		be := load(t, b.String())
		ng := naive.FromAPOC(g)
		var seeds []retriever.Seed
		for range 1 + r.Intn(2) {
			if id, ok := g.Nodes[r.Intn(len(g.Nodes))].Properties["id"].(string); ok && !strings.Contains(id, "\x00") {
				seeds = append(seeds, retriever.Seed{NodeID: id, Score: 0.3 + 0.7*r.Float64()})
			}
		}
		if len(seeds) == 0 {
			continue
		}
		var tags []string
		for range r.Intn(3) {
			tags = append(tags, opt.Tags[r.Intn(len(opt.Tags))])
		}
		ps := activation.DefaultParams()
		ps.MaxDepth = 1 + r.Intn(4)
		ps.MaxBranches = 1 + r.Intn(3)
		ps.MinActivation = []float64{0.0005, 0.005, 0.02}[r.Intn(3)]
		rt, err := activation.New(be, ps, activation.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		results, err := rt.ExploreAll(context.Background(), seeds, tags)
		if err != nil {
			t.Fatal(err)
		}
		inResult := map[string]bool{}
		for _, res := range results {
			for _, p := range res.Paths {
				for _, id := range p.NodeIDs() {
					inResult[id] = true
				}
			}
			if res.SeedNode != nil {
				inResult[res.SeedNode.ID] = true
			}
		}
		for _, n := range ng.Nodes {
			if !n.HasID {
				continue
			}
			a, err := why.Explain(context.Background(), why.Config{Backend: be, Params: ps, Options: activation.DefaultOptions(),
				Seeds: seeds, Tags: tags, NodeID: n.ID})
			if err != nil {
				t.Fatalf("case %d, node %q: %v", c, n.ID, err)
			}
			best, reachable := bruteBest(ng, seeds, n.ID, tags, ps)
			switch {
			case inResult[n.ID]:
				if a.Verdict != why.Kept {
					t.Errorf("case %d: %q is in a result, verdict %s", c, n.ID, a.Verdict)
				}
			case !reachable:
				if a.Verdict != why.Unreachable {
					t.Errorf("case %d: %q has no route, verdict %s", c, n.ID, a.Verdict)
				}
			case a.Verdict == why.Kept || a.Verdict == why.Unreachable:
				t.Errorf("case %d: %q is reachable and not kept, verdict %s", c, n.ID, a.Verdict)
			default:
				got := a.Route[len(a.Route)-1].TransferEnergy
				if got != best && !(math.IsNaN(got) && math.IsNaN(best)) {
					t.Errorf("case %d: %q: route T %v, best of all routes %v", c, n.ID, got, best)
				}
				if !a.Exact {
					t.Errorf("case %d: %q: search not exact", c, n.ID)
				}
			}
		}
	}
}
