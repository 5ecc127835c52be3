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
	"github.com/memoria-graph/memoria/retriever/activation/oninmem"
	"github.com/memoria-graph/memoria/retriever/activation/why"
	"github.com/memoria-graph/memoria/testkit/naive"
	"github.com/memoria-graph/memoria/testkit/randgraph"
	"github.com/memoria-graph/memoria/testkit/tinygraph"
)

// TestPruneKeepsEveryBestRoute: pruning by energy (docs/ALGORITHM.md, "Why
// not X", step 1) marks only nodes that are the hop source of no route
// whose final T reaches the best route found, whatever part of the graph
// has been read. On 300 random graphs (10 to 40 nodes, every weight in
// [0, 1], MAX_DEPTH 2 to 5), the region is read in one to four rounds of
// random nodes (why.PruneRounds, pruned nodes left unread), which leaves
// unread nodes next to each other and nodes not met at all between the
// read ones, and pruned after each round. Every simple route of the whole
// graph (bruteRoutes) whose T reaches the highest best T of the rounds so
// far must keep every hop source unpruned. Nodes must have been pruned
// in at least 100 rounds, so that the check is not empty.
func TestPruneKeepsEveryBestRoute(t *testing.T) {
	r := rand.New(rand.NewSource(77))
	prunedRounds := 0
	for c := range 300 {
		g := randgraph.Generate(r, randgraph.Random(r, 10, 40))
		var b strings.Builder
		if err := apoc.Write(&b, g); err != nil {
			t.Fatal(err)
		}
		be := load(t, b.String())
		ng := naive.FromAPOC(g)
		var ids []string
		for _, n := range ng.Nodes {
			if n.HasID && !strings.Contains(n.ID, "\x00") {
				ids = append(ids, n.ID)
			}
		}
		if len(ids) < 3 {
			continue
		}
		perm := r.Perm(len(ids))
		target := ids[perm[0]]
		var seeds []retriever.Seed
		for _, i := range perm[1 : 2+r.Intn(2)] {
			seeds = append(seeds, retriever.Seed{NodeID: ids[i], Score: 0.3 + 0.7*r.Float64()})
		}
		var tags []string
		for range r.Intn(3) {
			tags = append(tags, randgraph.Vocabulary(3)[r.Intn(3)])
		}
		ps := activation.DefaultParams()
		ps.MaxDepth = 2 + r.Intn(4)
		ps.TagSimFloor = []float64{0, 0.15, 0.5}[r.Intn(3)]
		type route struct {
			sources []string
			t       float64
		}
		var routes []route
		bruteRoutes(ng, seeds, target, tags, ps, func(nodes []int, t float64) {
			rt := route{t: t}
			for _, v := range nodes[:len(nodes)-1] {
				rt.sources = append(rt.sources, ng.Nodes[v].ID)
			}
			routes = append(routes, rt)
		})
		rounds := make([][]string, 1+r.Intn(4))
		for k := range rounds {
			p := []float64{0.15, 0.35, 0.7}[r.Intn(3)]
			for _, id := range ids {
				if r.Float64() < p {
					rounds[k] = append(rounds[k], id)
				}
			}
		}
		reach, round := 0.0, 0
		err := why.PruneRounds(context.Background(), why.Config{Backend: be, Params: ps, Seeds: seeds, Tags: tags, NodeID: target}, rounds,
			func(best float64, pruned map[string]bool) {
				round++
				reach = max(reach, best)
				if len(pruned) > 0 {
					prunedRounds++
				}
				for _, rt := range routes {
					if rt.t < reach {
						continue
					}
					for _, id := range rt.sources {
						if pruned[id] {
							t.Errorf("case %d (MAX_DEPTH %d, seeds %v, target %q), round %d: %q pruned, a hop source of %v (T %v, the best found %v)",
								c, ps.MaxDepth, seeds, target, round, id, rt.sources, rt.t, reach)
						}
					}
				}
			})
		if err != nil {
			t.Fatalf("case %d: %v", c, err)
		}
	}
	t.Logf("rounds with nodes pruned: %d", prunedRounds)
	if prunedRounds < 100 {
		t.Errorf("nodes were pruned in %d rounds, want at least 100", prunedRounds)
	}
}

// TestPruneReachesTheTargetPastNodesNotMet: a hop out of a node not read
// yet may lead anywhere, to the target or, through nodes not met at all,
// towards it; prune bounds it by the highest bound of any unread node, the
// unread target's 1 among them, not by the relationships read to the node
// alone (docs/ALGORITHM.md, "Why not X", pruning by energy).
//
// Seed S (R 1), target X, MAX_DEPTH 4, no query tags (tag_sim 1):
// S–m (w 1), S–X (w 0.22), m–p, p–q, q–X (w 1 each), and m's three
// leaves z1, z2, z3 (w 1), so d(S) = 2, d(m) = 5, d(p) = d(q) = 2. Only
// S is read: m and X are met, unread; p, q and the leaves are not met.
//
//	the best route read: S→X, T = 0.22/√2 ≈ 0.15556
//	the best route: S→m→p→q→X, T = 1/√2 × 1/√5 × 1/√2 × 1/√2 = 1/(2√10)
//	≈ 0.15811, through m
//
// m may not be pruned. With 1 hop behind it, F(m, 1) = 1/√2, and U(m, 3) ≥
// U(m, 1) = 1/√5 × max(known, unread(0) = 1) = 1/√5: 1/√10 ≈ 0.316 ≥
// 0.15556, kept. Bounded by what was read to it alone (known(m) at r is S's
// U(S, r−1): 0, then S→X's 0.15556), U(m, 1) would be 0 and U(m, 2) =
// U(m, 3) = 1/√5 × 0.15556 ≈ 0.0696, the best over m's places 1/√2 ×
// 0.0696 ≈ 0.049 (with 1 hop behind it; F(m, 2) = F(m, 3) = 1/√2 × 1/√5
// ≈ 0.316 times 0.0696 or 0 with 2 or 3), and m would be pruned.
//
// Explain, which prunes the same way after reading S, gives that route at
// MIN_ACTIVATION 0.16, where the run keeps S→m (0.7071), m→p (1/√10 ≈
// 0.3162, p before z1, z2 on the tie, z3 past the branch limit) and p→q
// (1/√20 ≈ 0.2236), and q→X (1/√40 ≈ 0.1581) falls below the threshold:
// its fourth hop. With m pruned it would give S→X.
func TestPruneReachesTheTargetPastNodesNotMet(t *testing.T) {
	one := func(spec string) tinygraph.Rel { return tinygraph.Rel{Spec: spec, Weight: 1.0} }
	g := tinygraph.Build(t, nil, one("S-RELATES->m"), tinygraph.Rel{Spec: "S-RELATES->X", Weight: 0.22},
		one("m-RELATES->p"), one("p-RELATES->q"), one("q-RELATES->X"),
		one("m-RELATES->z1"), one("m-RELATES->z2"), one("m-RELATES->z3"))
	ps := activation.DefaultParams()
	ps.MaxDepth, ps.MinActivation = 4, 0.16
	cfg := why.Config{Backend: oninmem.New(g), Params: ps, Seeds: []retriever.Seed{{NodeID: "S", Score: 1}}, NodeID: "X"}
	err := why.PruneRounds(context.Background(), cfg, [][]string{{"S"}}, func(best float64, pruned map[string]bool) {
		if want := activation.TransferEnergy(1, 0.22, 2, 1); best != want {
			t.Errorf("the best route read has T %v, want %v (S→X)", best, want)
		}
		if pruned["m"] {
			t.Errorf("m pruned (%v), the second node of the best route", pruned)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	a, err := why.Explain(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	verdict(t, a, why.BelowThreshold, 3)
	route(t, a, []string{"S", "m", "p", "q", "X"}, []float64{1 / math.Sqrt(2), 1 / math.Sqrt(10), 1 / math.Sqrt(20), 1 / math.Sqrt(40)})
}

// TestPruneKeepsSubnormalTies: the slack 1 + 10⁻⁹ absorbs the rounding of
// the bounds' products only while they are normal floats; below 2⁻¹⁰²²
// each product is rounded to a fixed step, and a bound may fall an ulp
// below the T it bounds, so nothing is pruned (docs/ALGORITHM.md, "Why not
// X", pruning by energy).
//
// Seed S (R 1), target X, MAX_DEPTH 3, no query tags: S–a (w1 =
// 3.5426021101524254e-162) and S's four leaves z1 … z4 (w 1), so d(S) = 5;
// a–b and a–c (w2 = 1.4544648116887862e-157 each), d(a) = 3; b–X and c–X
// (w 1), d(b) = d(c) = 2. The routes S→a→b→X and S→a→c→X have the same T,
// T1 = w1/√5, T2 = T1 × w2/√3, T3 = T2/√2 = 9.4075e-320 (each hop rounded
// left to right, T2 and T3 below 2⁻¹⁰²²), and S→a→b→X is the better one by
// its ids. With S, a, the leaves and c read, the best route found is S→a→c→X,
// and b is met, unread: its bound F(b, 2) × U(b, 1) = (T1 × (w2/√3)) ×
// 1/√2 rounds to 9.407e-320, one step (4.94e-324) below T3, which the
// slack cannot lift. Pruned, b would leave S→a→c→X the answer.
func TestPruneKeepsSubnormalTies(t *testing.T) {
	const w1, w2 = 3.5426021101524254e-162, 1.4544648116887862e-157
	one := func(spec string) tinygraph.Rel { return tinygraph.Rel{Spec: spec, Weight: 1.0} }
	g := tinygraph.Build(t, nil, tinygraph.Rel{Spec: "S-RELATES->a", Weight: w1},
		one("S-RELATES->z1"), one("S-RELATES->z2"), one("S-RELATES->z3"), one("S-RELATES->z4"),
		tinygraph.Rel{Spec: "a-RELATES->b", Weight: w2}, tinygraph.Rel{Spec: "a-RELATES->c", Weight: w2},
		one("b-RELATES->X"), one("c-RELATES->X"))
	ps := activation.DefaultParams()
	ps.MaxDepth = 3
	t3 := activation.TransferEnergy(activation.TransferEnergy(activation.TransferEnergy(1, w1, 5, 1), w2, 3, 1), 1, 2, 1)
	if t3 != 9.4075e-320 {
		t.Fatalf("T3 = %v, want 9.4075e-320", t3)
	}
	cfg := why.Config{Backend: oninmem.New(g), Params: ps, Seeds: []retriever.Seed{{NodeID: "S", Score: 1}}, NodeID: "X"}
	err := why.PruneRounds(context.Background(), cfg, [][]string{{"S", "a", "z1", "z2", "z3", "z4", "c"}}, func(best float64, pruned map[string]bool) {
		if best != t3 {
			t.Errorf("the best route read has T %v, want %v", best, t3)
		}
		if pruned["b"] {
			t.Errorf("b pruned (%v), a hop source of the best route", pruned)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}
