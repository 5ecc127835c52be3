package why_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/oninmem"
	"github.com/memoria-graph/memoria/retriever/activation/why"
	"github.com/memoria-graph/memoria/testkit/neo4jtest"
)

func TestMain(m *testing.M) { neo4jtest.Main(m) }

const demoPath = "../../../testdata/demo.jsonl"

// scenarioA is docs/DEMO_GRAPH.md's scenario A: seed N2006 (R 0.85), the
// four inventory tags, the defaults.
var scenarioA = question{
	seeds: []retriever.Seed{{NodeID: "N2006", Score: 0.85}},
	tags:  []string{"demand_forecasting", "stockout", "safety_stock", "inventory_policy"},
}

type question struct {
	seeds  []retriever.Seed
	tags   []string
	params func(*activation.Params)
}

func (q question) ask(t *testing.T, be activation.Backend, node string) why.Answer {
	t.Helper()
	a, err := q.try(be, node)
	if err != nil {
		t.Fatalf("why %s: %v", node, err)
	}
	return a
}

func (q question) try(be activation.Backend, node string) (why.Answer, error) {
	ps := activation.DefaultParams()
	if q.params != nil {
		q.params(&ps)
	}
	return why.Explain(context.Background(), why.Config{Backend: be, Params: ps, Options: activation.DefaultOptions(),
		Seeds: q.seeds, Tags: q.tags, NodeID: node})
}

func demo(t testing.TB) activation.Backend {
	t.Helper()
	g, err := inmem.LoadFile(demoPath)
	if err != nil {
		t.Fatal(err)
	}
	return oninmem.New(g)
}

func loadFile(t testing.TB, path string) activation.Backend {
	t.Helper()
	g, err := inmem.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return oninmem.New(g)
}

func load(t testing.TB, jsonl string) activation.Backend {
	t.Helper()
	g, err := inmem.Load(strings.NewReader(jsonl), "test")
	if err != nil {
		t.Fatal(err)
	}
	return oninmem.New(g)
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1e-12, math.Abs(b)) }

// route checks the answer's route: its node ids (seed first) and each hop's
// T against hand-worked values (relative 1e-9).
func route(t *testing.T, a why.Answer, ids []string, ts []float64) {
	t.Helper()
	var got []string
	if len(a.Route) > 0 {
		got = append(got, a.Route[0].FromNode.ID)
	}
	for _, s := range a.Route {
		got = append(got, s.ToNode.ID)
	}
	if !slices.Equal(got, ids) {
		t.Fatalf("route %v, want %v", got, ids)
	}
	for i, s := range a.Route {
		if !near(s.TransferEnergy, ts[i]) {
			t.Errorf("hop %d (%s → %s): T = %.10g, want %.10g", i+1, s.FromNode.ID, s.ToNode.ID, s.TransferEnergy, ts[i])
		}
	}
}

func verdict(t *testing.T, a why.Answer, v why.Verdict, blocking int) {
	t.Helper()
	if a.Verdict != v || a.Blocking != blocking || !a.Exact {
		t.Fatalf("verdict %s, blocking hop %d, exact %v; want %s, %d, exact", a.Verdict, a.Blocking, a.Exact, v, blocking)
	}
}

// TestKept: N2010 is in scenario A's result, on path A of docs/ALGORITHM.md's
// worked example: N2006 → N2003 (0.85 × 0.82 / √4 × 0.2917 = 0.1016) → N2001
// (0.1016 × 0.9 / √3 × 0.49 = 0.02588) → N2010 (0.02588 × 0.8 / √3 × 0.575 =
// 0.006873), the T (float64) values of docs/DEMO_GRAPH.md. A seed is kept
// with an empty route.
func TestKept(t *testing.T) {
	be := demo(t)
	a := scenarioA.ask(t, be, "N2010")
	verdict(t, a, why.Kept, -1)
	route(t, a, []string{"N2006", "N2003", "N2001", "N2010"}, []float64{0.10164583333333331, 0.02588019491351869, 0.006873291250000001})
	if a.Seed.NodeID != "N2006" || a.BlockingHop() != nil {
		t.Errorf("seed %v, blocking hop %v", a.Seed, a.BlockingHop())
	}
	s := scenarioA.ask(t, be, "N2006")
	verdict(t, s, why.Kept, -1)
	route(t, s, nil, nil)
}

// TestBranchLimit: N2007 is N2006's fourth candidate at level 1
// (docs/ALGORITHM.md rule 4): T = 0.85 × 0.5 / √4 × 0.15 = 0.031875, above
// 0.005, but N2006 had kept N2003 (0.1016), N2004 (0.08936) and N2005
// (0.06933) first. Its other route, N2006 → N2005 → N2007, gives only
// 0.069328125 × 0.4 / √3 × 0.15 = 0.002402, so the direct hop is the best.
func TestBranchLimit(t *testing.T) {
	a := scenarioA.ask(t, demo(t), "N2007")
	verdict(t, a, why.BranchLimit, 0)
	route(t, a, []string{"N2006", "N2007"}, []float64{0.031875})
	var sib []string
	for _, c := range a.Siblings {
		sib = append(sib, c.NeighborNode.ID)
	}
	if !slices.Equal(sib, []string{"N2003", "N2004", "N2005"}) {
		t.Errorf("siblings %v, want N2003 N2004 N2005", sib)
	}
}

// TestBelowThreshold: N2012 has two neighbours, N2005 and N2016. Through
// N2005: N2006 → N2005 (0.069328125) → N2012 (no weight: 0.01; tags
// {stockout, supplier}, one of five shared: tag_sim 0.15 + 0.85 × 1/5 =
// 0.32; T = 0.069328125 × 0.01 / √3 × 0.32 = 0.000128085), docs/ALGORITHM.md
// rule 6. Through N2016 it is three hops: N2006 → N2007 (0.031875) → N2016
// (0.031875 × 0.55 / √3 × 0.15 = 0.001518) → N2012 (0.001518 × 0.58 / √3 ×
// 0.15 = 0.0000763), lower. The best route parts from the run at its
// second hop, below 0.005.
func TestBelowThreshold(t *testing.T) {
	a := scenarioA.ask(t, demo(t), "N2012")
	verdict(t, a, why.BelowThreshold, 1)
	route(t, a, []string{"N2006", "N2005", "N2012"}, []float64{0.069328125, 0.00012808515721971848})
}

// TestUnreachable: the holiday cluster (T4008–T4012) has no RELATES edge to
// the inventory cluster (docs/DEMO_GRAPH.md lists the only cross-cluster
// edges: N2017–T3006 and T3003–T4001), so no route of any length joins it
// to N2006. T3006 is five hops from N2006 (N2006–N2004–N2008–N2009–N2017–
// T3006; N2017, T3006's only inventory neighbour, is four hops away): at
// MAX_DEPTH 4 it is unreachable, at 5 it has a route.
func TestUnreachable(t *testing.T) {
	be := demo(t)
	a := scenarioA.ask(t, be, "T4008")
	verdict(t, a, why.Unreachable, -1)
	route(t, a, nil, nil)
	q := scenarioA
	q.params = func(p *activation.Params) { p.MaxDepth = 4 }
	verdict(t, q.ask(t, be, "T3006"), why.Unreachable, -1)
	a = scenarioA.ask(t, be, "T3006")
	if a.Verdict == why.Unreachable || len(a.Route) != 5 {
		t.Errorf("at MAX_DEPTH 5, T3006: %s with %d hops, want a 5-hop route", a.Verdict, len(a.Route))
	}
}

// nonmonotone is testdata/nonmonotone.jsonl, the hand-built graph of
// docs/ALGORITHM.md's "The result is not monotone": S–A (w 1), A–X (w 1),
// S–X (w 0.04), X–Z (w 0.2); d(S) = 2, d(A) = 2, d(X) = 3.
const nonmonotone = "../../../testdata/nonmonotone.jsonl"

// TestVisitedEarlier: at MIN_ACTIVATION 0.01 (between 0.003266 and 0.02828)
// the weak edge S→X (1 × 0.04 / √2 = 0.02828) reaches X at level 1, and
// X→Z (0.02828 × 0.2 / √3 = 0.003266) is then below the threshold. The best
// route to Z is S → A (1 / √2 = 0.7071) → X (0.7071 / √2 = 0.5) → Z (0.5 ×
// 0.2 / √3 = 0.05774), far above S → X → Z; it parts from the run at its
// second hop, where X was already visited by S → X.
func TestVisitedEarlier(t *testing.T) {
	g, err := inmem.LoadFile(nonmonotone)
	if err != nil {
		t.Fatal(err)
	}
	q := question{seeds: []retriever.Seed{{NodeID: "S", Score: 1}}, params: func(p *activation.Params) { p.MinActivation = 0.01 }}
	a := q.ask(t, oninmem.New(g), "Z")
	verdict(t, a, why.VisitedEarlier, 1)
	route(t, a, []string{"S", "A", "X", "Z"}, []float64{1 / math.Sqrt2, 0.5, 0.5 * 0.2 / math.Sqrt(3)})
	if len(a.VisitedVia) != 1 || a.VisitedVia[0].FromNode.ID != "S" || a.VisitedVia[0].ToNode.ID != "X" || !near(a.VisitedVia[0].TransferEnergy, 0.04/math.Sqrt2) {
		t.Errorf("visited via %+v, want S → X (T 0.02828)", a.VisitedVia)
	}
}

// claimedPath (testdata/claimed.jsonl) is hand-built: S–p (w 1), S–q (w 0.5), p–X (w 1), q–X (w 4,
// outside the specification's [0.25, 1]: it amplifies), q–Y (no weight:
// 0.01); no query tags, so tag_sim is 1. Degrees: S 2, p 2, q 3, X 2, Y 1.
const claimedPath = "../../../testdata/claimed.jsonl"

// TestClaimed, on claimed.jsonl with seed S (R 1) at the defaults. Level 1
// keeps p (1 / √2 = 0.7071) and q (0.5 / √2 = 0.3536). Level 2: q → X
// (0.3536 × 4 / √3 = 0.8165) comes before p → X (0.7071 / √2 = 0.5) and
// claims X; q → Y (0.3536 × 0.01 / √3 = 0.002041) is below 0.005, so Y is
// not in the result. Y's routes: S → q → Y (0.002041) and S → p → X → q →
// Y: 0.7071, 0.5, 0.5 × 4 / √2 = 1.414, 1.414 × 0.01 / √3 = 0.008165, the
// best (the walk S → q → X → q → Y would give more, 0.01333, but visits q
// twice, and routes are simple). That route parts from the run at its
// second hop, p → X, claimed by q at level 2.
func TestClaimed(t *testing.T) {
	q := question{seeds: []retriever.Seed{{NodeID: "S", Score: 1}}}
	a := q.ask(t, loadFile(t, claimedPath), "Y")
	verdict(t, a, why.Claimed, 1)
	r2 := 1 / math.Sqrt2
	route(t, a, []string{"S", "p", "X", "q", "Y"}, []float64{r2, r2 / math.Sqrt2, 0.5 * 4 / math.Sqrt2, 0.5 * 4 / math.Sqrt2 * 0.01 / math.Sqrt(3)})
	if c := a.ClaimedBy; c == nil || c.ParentID != "q" || !near(c.TransferEnergy, 0.5/math.Sqrt2*4/math.Sqrt(3)) {
		t.Errorf("claimed by %+v, want q with T 0.8165", a.ClaimedBy)
	}
	if a.Level() != 2 {
		t.Errorf("level %d, want 2", a.Level())
	}
}

// TestBudget: a search cut short says so. On claimed.jsonl the search tries
// neighbours in order of their bound (R × the best walk's factors to Y):
// from S, q first (0.3536 × (4/√3 × 4/√2 × 0.01/√3) = 0.01333, through the
// walk S → q → X → q → Y) before p (0.7071 × (1/√2 × 4/√2 × 0.01/√3) =
// 0.008165); from q, X (bound 0.01333) is a dead end (q is on the route and
// p cannot reach Y in two hops), then Y: S → q → Y is found on the third
// try. With a budget of 3 the search stops there, not exact; with 2 it has
// found nothing and says so.
func TestBudget(t *testing.T) {
	be := loadFile(t, claimedPath)
	ask := func(budget int) (why.Answer, error) {
		return why.Explain(context.Background(), why.Config{Backend: be, Params: activation.DefaultParams(),
			Seeds: []retriever.Seed{{NodeID: "S", Score: 1}}, NodeID: "Y", Budget: budget})
	}
	a, err := ask(3)
	if err != nil {
		t.Fatal(err)
	}
	if a.Exact || a.Verdict != why.BelowThreshold || len(a.Route) != 2 || a.Route[0].ToNode.ID != "q" {
		t.Errorf("exact %v, %s with %d hops; want not exact, below_threshold on S → q → Y", a.Exact, a.Verdict, len(a.Route))
	}
	if _, err := ask(2); err == nil || !strings.Contains(err.Error(), "no route to it was found in 2 tries") {
		t.Errorf("budget 2: err = %v, want the budget named", err)
	}
}

// TestUnknownNode: an id no node has is an UnknownNodeError naming it.
func TestUnknownNode(t *testing.T) {
	_, err := scenarioA.try(demo(t), "N9999")
	var u why.UnknownNodeError
	if !errors.As(err, &u) || u.ID != "N9999" {
		t.Fatalf("err = %v, want UnknownNodeError N9999", err)
	}
}

// TestSeedsNotFound: seeds no node has are named once each, in seed order,
// and start no route: with N9998 and N9999 (twice) beside scenario A's
// N2006, N2010 keeps TestKept's answer (seed N2006, the same route); with
// scenario A alone none is named.
func TestSeedsNotFound(t *testing.T) {
	be := demo(t)
	q := question{seeds: []retriever.Seed{{NodeID: "N9999", Score: 0.9}, {NodeID: "N2006", Score: 0.85},
		{NodeID: "N9998", Score: 0.5}, {NodeID: "N9999", Score: 0.4}}, tags: scenarioA.tags}
	a := q.ask(t, be, "N2010")
	if !slices.Equal(a.SeedsNotFound, []string{"N9999", "N9998"}) {
		t.Errorf("seeds not found %q, want N9999 and N9998", a.SeedsNotFound)
	}
	verdict(t, a, why.Kept, -1)
	route(t, a, []string{"N2006", "N2003", "N2001", "N2010"}, []float64{0.10164583333333331, 0.02588019491351869, 0.006873291250000001})
	if s := scenarioA.ask(t, be, "N2010"); s.SeedsNotFound != nil {
		t.Errorf("scenario A: seeds not found %q, want none", s.SeedsNotFound)
	}
}
