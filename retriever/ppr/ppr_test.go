package ppr_test

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/ppr"
	"github.com/memoria-graph/memoria/testkit/tinygraph"
)

// build makes a graph of nodes with the given ids and relationships
// "A-B" (RELATES, no weight), "A-B:0.5" (weight 0.5) or "A-B/FIXES"
// (another type, no weight).
func build(t *testing.T, ids []string, rels ...string) *inmem.Graph {
	t.Helper()
	g := &apoc.Graph{}
	for i, id := range ids {
		g.Nodes = append(g.Nodes, apoc.Node{InternalID: strconv.Itoa(i), Labels: []string{"Memory"}, Properties: map[string]any{"id": id}})
	}
	at := func(id string) string {
		for i, x := range ids {
			if x == id {
				return strconv.Itoa(i)
			}
		}
		t.Fatalf("no node %s", id)
		return ""
	}
	for i, s := range rels {
		typ := "RELATES"
		s, ty, ok := strings.Cut(s, "/")
		if ok {
			typ = ty
		}
		ends, w, hasW := strings.Cut(s, ":")
		a, b, _ := strings.Cut(ends, "-")
		props := map[string]any{}
		if hasW {
			x, err := strconv.ParseFloat(w, 64)
			if err != nil {
				t.Fatal(err)
			}
			props["weight"] = x
		}
		g.Rels = append(g.Rels, apoc.Relationship{InternalID: strconv.Itoa(i), Type: typ, Start: at(a), End: at(b), Properties: props})
	}
	m, err := inmem.New(g, "test")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func run(t *testing.T, g graph.Neighbourhood, p ppr.Params, seeds ...retriever.Seed) retriever.Ranking {
	t.Helper()
	r, err := ppr.Retrieve(context.Background(), g, retriever.Query{Seeds: seeds}, p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func stat(r retriever.Ranking, name string) any {
	v, _ := r.Stats.Get(name)
	return v
}

// near checks each hit's score against want within the run's residual
// mass (its error bound) and that the estimate is never above the truth.
func near(t *testing.T, r retriever.Ranking, want map[string]float64) {
	t.Helper()
	bound := stat(r, "residual_mass").(float64)
	if bound > 1e-5 {
		t.Errorf("residual mass %v", bound)
	}
	if len(r.Hits) != len(want) {
		t.Fatalf("%d hits, want %d: %+v", len(r.Hits), len(want), r.Hits)
	}
	for _, h := range r.Hits {
		w, ok := want[h.NodeID]
		if !ok || h.Score > w+1e-15 || w-h.Score > bound+1e-15 {
			t.Errorf("%s: %v, want %v within %v below", h.NodeID, h.Score, w, bound)
		}
	}
}

func precise() ppr.Params {
	p := ppr.DefaultParams()
	p.Epsilon = 1e-9
	return p
}

// TestPath: A–B–C, weights 1, seed A, d = 0.5. W(A) = W(C) = 1, W(B) = 2,
// so π(A) = ½ + ½·π(B)/2, π(B) = ½·(π(A) + π(C)), π(C) = ½·π(B)/2:
// π(C) = π(B)/4, π(B) = 4π(A)/7, π(A) = ½ + π(A)/7, so π = (7/12, 1/3,
// 1/12). B's route is A's relationship, its factor d·1/W(A) = 0.5; C's
// goes on through B at d·1/W(B) = 0.25. A is the seed, scored by its
// share alone.
func TestPath(t *testing.T) {
	g := build(t, []string{"A", "B", "C"}, "A-B:1", "B-C:1")
	r := run(t, g, precise(), retriever.Seed{NodeID: "A", Score: 0.9})
	near(t, r, map[string]float64{"A": 7.0 / 12, "B": 1.0 / 3, "C": 1.0 / 12})
	ids := []string{r.Hits[0].NodeID, r.Hits[1].NodeID, r.Hits[2].NodeID}
	if strings.Join(ids, " ") != "A B C" {
		t.Fatalf("ranked %v", ids)
	}
	if h := r.Hits[0]; h.Origin != retriever.OriginInitial || len(h.Route) != 0 || len(h.Terms) != 1 || h.Terms[0].Name != "share(A)" || h.Terms[0].Value != h.Score || !h.TermsAdd {
		t.Errorf("A: %+v", h)
	}
	c := r.Hits[2]
	if c.Seed != "A" || len(c.Route) != 2 || c.Route[0].From != "A" || c.Route[0].To != "B" || c.Route[0].Factor != 0.5 ||
		c.Route[1].From != "B" || c.Route[1].To != "C" || c.Route[1].Factor != 0.25 || c.Route[1].Edge.SourceID != "B" {
		t.Errorf("C's route: %+v", c.Route)
	}
}

// TestStar: hub H with leaves L1, L2, L3, weights 1, seed L1, d = 0.5.
// W(H) = 3, W(L) = 1: π(L1) = ½ + ½·π(H)/3, π(H) = ½·(π(L1) + π(L2) +
// π(L3)), π(L2) = π(L3) = π(H)/6; so π(H) = 0.6·π(L1), π(L1) = ½ +
// 0.1·π(L1): π = (5/9, 1/3, 1/18, 1/18). L2 and L3 tie and rank by id.
func TestStar(t *testing.T) {
	g := build(t, []string{"H", "L1", "L2", "L3"}, "H-L1:1", "L2-H:1", "H-L3:1")
	r := run(t, g, precise(), retriever.Seed{NodeID: "L1", Score: 0.5})
	near(t, r, map[string]float64{"L1": 5.0 / 9, "H": 1.0 / 3, "L2": 1.0 / 18, "L3": 1.0 / 18})
	if r.Hits[2].NodeID != "L2" || r.Hits[3].NodeID != "L3" || r.Hits[2].Score != r.Hits[3].Score {
		t.Errorf("leaves: %+v %+v", r.Hits[2], r.Hits[3])
	}
}

// TestDangling: seed S has no relationship; seed A has one, to B (w 1).
// R(S) = R(A) = 0.5, so p = (½, ½), d = 0.5. S sends its walk back to p:
// π(S) = ¼ + ½·π(S)·½, so π(S) = 1/3; π(A) = ¼ + ½·(π(B) + π(S)/2) and
// π(B) = π(A)/2, so π(A) = 4/9, π(B) = 2/9. By seed (the mass that
// started there): S's share of S is 1/3, of A (x = ½·x/2 + 1/12) 1/9, of
// B 1/18; A's share of A is 1/3 (x = ¼ + x/4), of B 1/6. The terms of A
// are share(S) + share(A) = 1/9 + 1/3.
func TestDangling(t *testing.T) {
	g := build(t, []string{"S", "A", "B"}, "A-B:1")
	r := run(t, g, precise(), retriever.Seed{NodeID: "S", Score: 0.5}, retriever.Seed{NodeID: "A", Score: 0.5})
	near(t, r, map[string]float64{"A": 4.0 / 9, "S": 1.0 / 3, "B": 2.0 / 9})
	bound := stat(r, "residual_mass").(float64)
	shares := map[string][]float64{"A": {1.0 / 9, 1.0 / 3}, "S": {1.0 / 3}, "B": {1.0 / 18, 1.0 / 6}}
	for _, h := range r.Hits {
		want := shares[h.NodeID]
		if len(h.Terms) != len(want) {
			t.Fatalf("%s: terms %+v", h.NodeID, h.Terms)
		}
		sum := 0.0
		for i, term := range h.Terms {
			if math.Abs(term.Value-want[i]) > bound {
				t.Errorf("%s: %s = %v, want %v", h.NodeID, term.Name, term.Value, want[i])
			}
			sum += term.Value
		}
		if sum != h.Score {
			t.Errorf("%s: terms sum to %v, score %v", h.NodeID, sum, h.Score)
		}
	}
	if r.Hits[0].Terms[0].Name != "share(S)" || r.Hits[0].Terms[1].Name != "share(A)" {
		t.Errorf("A's terms %+v", r.Hits[0].Terms)
	}
}

// TestMissingWeight: A–B without a weight counts 0.01; A–C weighs 0.99;
// a FIXES relationship A–D is not walked (D is never reached). Seed A, d
// = 0.5: W(A) = 1, B and C only lead back to A, so π(A) = ½ + ½·(π(B) +
// π(C)), π(B) = ½·0.01·π(A), π(C) = ½·0.99·π(A): π(A) = ½ + π(A)/4 = 2/3,
// π(B) = 1/300, π(C) = 0.33.
func TestMissingWeight(t *testing.T) {
	g := build(t, []string{"A", "B", "C", "D"}, "A-B", "C-A:0.99", "A-D/FIXES")
	r := run(t, g, precise(), retriever.Seed{NodeID: "A", Score: 1})
	near(t, r, map[string]float64{"A": 2.0 / 3, "B": 1.0 / 300, "C": 0.33})
	if h := r.Hits[2]; h.NodeID != "B" || h.Route[0].Weight != 0.01 || h.Route[0].Factor != 0.005 {
		t.Errorf("B: %+v", h)
	}
}

// TestEpsilonBound: the path A–B–C (weights 1) from A with ε = 0.1, d =
// 0.5, pushed by hand. Round 1: r(A) = 1 ≥ 0.1·1, push: A keeps 0.5, r(B)
// = 0.5. Round 2: r(B) = 0.5 ≥ 0.1·2, push: B keeps 0.25, r(A) = r(C) =
// 0.125. Round 3: A (0.125 ≥ 0.1) then C (0.125 ≥ 0.1) push: A keeps
// 0.0625 more, C 0.0625, and r(B) = 0.0625 + 0.0625 = 0.125 < 0.2 stops.
// Estimates: A 0.5625, B 0.25, C 0.0625, residual mass 0.125: each below
// the truth (7/12, 1/3, 1/12) by at most 0.125, and the three gaps sum to
// it exactly. 4 pushes in 3 rounds; 4 reads (A; B; C; then A, B and C
// again for the routes and feeders of the hits), 8 relationships read
// (A's, B's two, C's, then A's, B's two and C's). Feeders, d × pushed(x)
// × w / W(x) over the run: A is fed by B, 0.5 × 0.5 × 1/2 = 0.125; B by A,
// 0.5 × (1 + 0.125) × 1/1 = 0.5625, then by C, 0.5 × 0.125 × 1/1 =
// 0.0625; C by B, 0.125.
func TestEpsilonBound(t *testing.T) {
	g := build(t, []string{"A", "B", "C"}, "A-B:1", "B-C:1")
	p := ppr.DefaultParams()
	p.Epsilon = 0.1
	r := run(t, g, p, retriever.Seed{NodeID: "A", Score: 1})
	want := map[string]float64{"A": 0.5625, "B": 0.25, "C": 0.0625}
	for _, h := range r.Hits {
		if h.Score != want[h.NodeID] {
			t.Errorf("%s: %v, want %v", h.NodeID, h.Score, want[h.NodeID])
		}
	}
	feeders := map[string]string{"A": "B 0.125", "B": "A 0.5625, C 0.0625", "C": "B 0.125"}
	for _, h := range r.Hits {
		var got []string
		for _, f := range h.Feeders {
			if f.To != h.NodeID || f.Weight != 1 || f.Edge.SourceID != f.From {
				t.Errorf("%s: feeder %+v", h.NodeID, f)
			}
			got = append(got, fmt.Sprintf("%s %v", f.From, f.Factor))
		}
		if g := strings.Join(got, ", "); g != feeders[h.NodeID] {
			t.Errorf("%s: feeders %s, want %s", h.NodeID, g, feeders[h.NodeID])
		}
	}
	for name, v := range map[string]any{"residual_mass": 0.125, "pushes": 4, "rounds": 3, "reads": 4, "relationships_read": 8,
		"nodes_touched": 3, "nodes_read": 3, "seeds_found": 1} {
		if got := stat(r, name); got != v {
			t.Errorf("%s = %v, want %v", name, got, v)
		}
	}
}

// TestEpsilonThreshold: the push rule of docs/RETRIEVERS.md "Personalized
// PageRank", rule 5, at its edges, pushed by hand with d = 0.5 (every
// number a sum of powers of two, so exact in floating point): a node is
// pushed while r(u) ≥ ε × W(u) (at equality too), and a dangling node
// while r(u) ≥ ε, as if W were 1.
//
// A–B, w 0.5, seed A, ε = 0.5: W(A) = W(B) = 0.5, so both thresholds are
// 0.25 (not ε = 0.5: the strength is the weights' sum, not the degree).
// Round 1: r(A) = 1 ≥ 0.25, A keeps 0.5, r(B) = 0.5 × 1 × 0.5/0.5 = 0.5.
// Round 2: r(B) = 0.5 ≥ 0.25, B keeps 0.25, r(A) = 0.25. Round 3: r(A) =
// 0.25 ≥ 0.25 (equal), A keeps 0.125 more, r(B) = 0.125 < 0.25 ends it.
// Estimates A 0.625, B 0.25, residual mass 0.125, 3 pushes in 3 rounds.
// π(A) = ½ + ½·π(B), π(B) = ½·π(A): π = (2/3, 1/3), and the gaps 1/24 +
// 1/12 are the residual mass exactly. A strict ">" would stop after round
// 2 (A 0.5), a threshold of ε alone after round 2 too.
//
// S alone (no relationship: dangling; R 0.3, so p(S) = 1), ε = 0.25:
// each push keeps half of r(S) and sends the other half back to S by p.
// Round 1: r = 1 ≥ 0.25, keeps 0.5, r = 0.5. Round 2: keeps 0.25, r =
// 0.25. Round 3: 0.25 ≥ 0.25 (equal), keeps 0.125, r = 0.125 < 0.25 ends
// it. Estimate 0.875, residual mass 0.125 = π(S) − 0.875 (π(S) = 1), 3
// pushes in 3 rounds. With 4ε or ε/4 it would end after 1 push or 5.
func TestEpsilonThreshold(t *testing.T) {
	for _, c := range []struct {
		name  string
		g     *inmem.Graph
		seed  retriever.Seed
		eps   float64
		want  map[string]float64
		truth map[string]float64
	}{
		{"A–B", build(t, []string{"A", "B"}, "A-B:0.5"), retriever.Seed{NodeID: "A", Score: 1}, 0.5,
			map[string]float64{"A": 0.625, "B": 0.25}, map[string]float64{"A": 2.0 / 3, "B": 1.0 / 3}},
		{"dangling S", build(t, []string{"S"}), retriever.Seed{NodeID: "S", Score: 0.3}, 0.25,
			map[string]float64{"S": 0.875}, map[string]float64{"S": 1}},
	} {
		p := ppr.DefaultParams()
		p.Epsilon = c.eps
		r := run(t, c.g, p, c.seed)
		if len(r.Hits) != len(c.want) {
			t.Fatalf("%s: hits %+v, want %v", c.name, r.Hits, c.want)
		}
		gaps := 0.0
		for _, h := range r.Hits {
			if h.Score != c.want[h.NodeID] {
				t.Errorf("%s: %s = %v, want %v", c.name, h.NodeID, h.Score, c.want[h.NodeID])
			}
			gaps += c.truth[h.NodeID] - h.Score
		}
		for name, v := range map[string]any{"residual_mass": 0.125, "pushes": 3, "rounds": 3} {
			if got := stat(r, name); got != v {
				t.Errorf("%s: %s = %v, want %v", c.name, name, got, v)
			}
		}
		if math.Abs(gaps-0.125) > 1e-15 {
			t.Errorf("%s: the gaps to π add up to %v, want the residual mass 0.125", c.name, gaps)
		}
	}
}

// TestSelfLoopAndParallel: A–A (w 1, a self-loop, once in W(A)) and two
// parallel A–B (w 1 each): W(A) = 3, W(B) = 2, seed A, d = 0.5. π(A) = ½
// + ½·(π(A)/3 + π(B)), π(B) = ½·2π(A)/3 = π(A)/3; so π(A) = ½ + π(A)/3,
// π(A) = 3/4, π(B) = 1/4.
func TestSelfLoopAndParallel(t *testing.T) {
	g := build(t, []string{"A", "B"}, "A-A:1", "A-B:1", "B-A:1")
	r := run(t, g, precise(), retriever.Seed{NodeID: "A", Score: 1})
	near(t, r, map[string]float64{"A": 0.75, "B": 0.25})
}

// TestRefused: bad parameters and an unfound seed. A seed not in the
// graph is reported not found and the rest run as if it were not given:
// p is over the found seeds only (here X alone: π(X) = 1, it has no
// relationship, and every push sends d of its residual back to it).
func TestRefused(t *testing.T) {
	g := build(t, []string{"X"})
	for _, p := range []ppr.Params{{Damping: 1, Epsilon: 1e-6, TopK: 1}, {Damping: 0.5, Epsilon: 0, TopK: 1}, {Damping: 0.5, Epsilon: 1e-6, TopK: 0}} {
		if _, err := ppr.Retrieve(context.Background(), g, retriever.Query{Seeds: []retriever.Seed{{NodeID: "X", Score: 1}}}, p); err == nil {
			t.Errorf("%+v accepted", p)
		}
	}
	r := run(t, g, precise(), retriever.Seed{NodeID: "nope", Score: 1}, retriever.Seed{NodeID: "X", Score: 0.2})
	if r.Seeds[0].Found || !r.Seeds[1].Found || len(r.Hits) != 1 || math.Abs(r.Hits[0].Score-1) > stat(r, "residual_mass").(float64)+1e-15 {
		t.Errorf("%+v", r)
	}
}

// TestFilterKeepsStrength: the path A–B–C (weights 1) with B–C behind a
// filter (attitude 1 against attitude>=4; A–B has attitude 5). Seed A, d
// = 0.5. Strengths stay the graph's, W(A) = 1, W(B) = 2, so the half of
// B's walk that would cross B–C is lost rather than sent back to A:
// π(A) = ½ + ½·π(B)/2, π(B) = ½·π(A), so π(A) = ½ + π(A)/8: π(A) = 4/7,
// π(B) = 2/7, and C has nothing (1/7 of the mass is lost).
func TestFilterKeepsStrength(t *testing.T) {
	g := tinygraph.Build(t, nil,
		tinygraph.Rel{Spec: "A-RELATES->B", Weight: 1.0, Props: map[string]any{"attitude": int64(5)}},
		tinygraph.Rel{Spec: "B-RELATES->C", Weight: 1.0, Props: map[string]any{"attitude": int64(1)}})
	ge4, err := graph.ParseRelCond("attitude>=4")
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, g.Filtered(graph.RelFilter{Where: []graph.RelCond{ge4}}), precise(), retriever.Seed{NodeID: "A", Score: 0.9})
	near(t, r, map[string]float64{"A": 4.0 / 7, "B": 2.0 / 7})
}
