package ppr_test

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/ppr"
	"github.com/memoria-graph/memoria/testkit/naiveppr"
	"github.com/memoria-graph/memoria/testkit/randgraph"
)

// randomCase is a random graph (parallel relationships, self-loops, nodes
// without ids, missing and integer weights, typed relationships the walk
// ignores) with random seeds and parameters.
type randomCase struct {
	g     *apoc.Graph
	query retriever.Query
	p     ppr.Params
}

func newRandomCase(r *rand.Rand) randomCase {
	g := randgraph.Generate(r, randgraph.Random(r, 20, 120))
	randgraph.AddTyped(r, g, 1.5*r.Float64())
	return randomCase{g: g, query: randomQuery(r, g), p: randomParams(r)}
}

func randomQuery(r *rand.Rand, g *apoc.Graph) retriever.Query {
	return retriever.Query{Seeds: randgraph.Seeds(r, g)}
}

func randomParams(r *rand.Rand) ppr.Params {
	return ppr.Params{Damping: []float64{0.5, 0.85, 0.2}[r.Intn(3)], Epsilon: []float64{1e-3, 1e-6, 1e-9}[r.Intn(3)],
		TopK: []int{10, 3, 1, 50}[r.Intn(4)]}
}

func (c randomCase) naive() naiveppr.Result {
	var seeds []naiveppr.Seed
	for _, s := range c.query.Seeds {
		seeds = append(seeds, naiveppr.Seed{ID: s.NodeID, R: s.Score})
	}
	return naiveppr.Run(c.g, seeds, c.p.Damping)
}

// tol is what float rounding may add to the bound.
const tol = 1e-12

// agreeWithNaive checks a ranking against the power iteration: every
// hit's estimate, and every seed's share of it, is at most the true value
// and at least the true value minus the residual mass (the error bound);
// the terms sum to the score; no node left out has a true value above the
// last hit's estimate plus the bound (the top K are right up to it); the
// seeds found are the naive's; each route runs from a seed to the hit.
func agreeWithNaive(t *testing.T, label string, got retriever.Ranking, want naiveppr.Result) {
	t.Helper()
	bound := stat(got, "residual_mass").(float64)
	if f := stat(got, "seeds_found"); f != len(want.Found) {
		t.Fatalf("%s: %v seeds found, naive %d", label, f, len(want.Found))
	}
	in := map[string]bool{}
	for _, h := range got.Hits {
		in[h.NodeID] = true
		pi := want.Pi[h.NodeID]
		if h.Score > pi+tol || pi-h.Score > bound+tol {
			t.Fatalf("%s: %s = %v, power iteration %v, bound %v", label, h.NodeID, h.Score, pi, bound)
		}
		sum := 0.0
		for _, term := range h.Terms {
			sum += term.Value
			seed := term.Name[len("share(") : len(term.Name)-1]
			sh := want.Share[seed][h.NodeID]
			if term.Value > sh+tol || sh-term.Value > bound+tol {
				t.Fatalf("%s: %s's %s = %v, power iteration %v", label, h.NodeID, term.Name, term.Value, sh)
			}
		}
		if sum != h.Score || !h.TermsAdd {
			t.Fatalf("%s: %s's terms sum to %v, score %v", label, h.NodeID, sum, h.Score)
		}
		if h.Origin == retriever.OriginExpanded {
			if len(h.Route) == 0 || h.Route[0].From != h.Seed || h.Route[len(h.Route)-1].To != h.NodeID {
				t.Fatalf("%s: %s's route %+v", label, h.NodeID, h.Route)
			}
			if _, ok := want.Share[h.Seed]; !ok {
				t.Fatalf("%s: %s's route starts at %s, not a seed", label, h.NodeID, h.Seed)
			}
		}
	}
	if len(got.Hits) == 0 {
		if len(want.Found) > 0 {
			t.Fatalf("%s: no hits", label)
		}
		return
	}
	last := got.Hits[len(got.Hits)-1].Score
	for id, pi := range want.Pi {
		if !in[id] && pi > last+bound+tol {
			t.Fatalf("%s: %s (%v) left out below %v (bound %v)", label, id, pi, last, bound)
		}
	}
}

// TestAgreesWithNaive: on 300 random graphs, random seeds (sometimes one
// not in the graph), d in {0.5, 0.85, 0.2}, ε in {1e-3, 1e-6, 1e-9} and K
// in {1, 3, 10, 50}, the local estimate on the embedded engine is within
// its bound of a global power iteration run to 1e-15 (naiveppr), share by
// share.
func TestAgreesWithNaive(t *testing.T) {
	var reached randgraph.Reached
	for i := range 300 {
		r := rand.New(rand.NewSource(int64(i)))
		c := newRandomCase(r)
		g, err := inmem.New(c.g, "random")
		if err != nil {
			t.Fatal(err)
		}
		got, err := ppr.Retrieve(context.Background(), g, c.query, c.p)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		agreeWithNaive(t, fmt.Sprintf("case %d (%+v)", i, c.p), got, c.naive())
		reached.Count(c.g, got)
	}
	reached.Check(t)
}

// TestConvergesToPowerIteration: with ε = 1e-12 the estimate of every hit
// on 100 random graphs is within 1e-9 of the power iteration, and the
// residual mass (the bound) is below 1e-9: the push computes the same π.
func TestConvergesToPowerIteration(t *testing.T) {
	for i := range 100 {
		r := rand.New(rand.NewSource(int64(1000 + i)))
		c := newRandomCase(r)
		c.p.Epsilon = 1e-12
		c.p.TopK = 1000
		g, err := inmem.New(c.g, "random")
		if err != nil {
			t.Fatal(err)
		}
		got, err := ppr.Retrieve(context.Background(), g, c.query, c.p)
		if err != nil {
			t.Fatal(err)
		}
		want := c.naive()
		if b := stat(got, "residual_mass").(float64); b > 1e-9 {
			t.Errorf("case %d: residual mass %v", i, b)
		}
		n := 0
		for _, pi := range want.Pi {
			if pi > 1e-9 {
				n++
			}
		}
		for _, h := range got.Hits {
			if math.Abs(h.Score-want.Pi[h.NodeID]) > 1e-9 {
				t.Errorf("case %d: %s = %v, power iteration %v", i, h.NodeID, h.Score, want.Pi[h.NodeID])
			}
		}
		if len(got.Hits) < n {
			t.Errorf("case %d: %d hits, %d nodes above 1e-9", i, len(got.Hits), n)
		}
	}
}

// byNumber is a graph's reads with its numbered reads (graph.NumberedArcs)
// counted, so that a test knows the walk read by number.
type byNumber struct {
	nb    graph.Neighbourhood
	reads *atomic.Int64
}

func (n byNumber) Read(ctx context.Context, fn func(graph.Reader) error) error {
	return n.nb.Read(ctx, func(r graph.Reader) error { return fn(countedReader{r, r.(graph.NumberedArcs), n.reads}) })
}

type countedReader struct {
	graph.Reader
	graph.NumberedArcs
	reads *atomic.Int64
}

func (c countedReader) ArcNums(ctx context.Context, from []int32, relType string, missing float64, to []int32, w []float64) ([]int32, []float64, []int32, error) {
	c.reads.Add(1)
	return c.NumberedArcs.ArcNums(ctx, from, relType, missing, to, w)
}

func (c countedReader) StrengthNums(ctx context.Context, nums []int32, relType string, missing float64, out []graph.Strength) ([]graph.Strength, error) {
	c.reads.Add(1)
	return c.NumberedArcs.StrengthNums(ctx, nums, relType, missing, out)
}

// genericOnly is a graph's reads with the optional numbered arcs hidden,
// so the walk reads through Arcs as it does on Neo4j.
type genericOnly struct{ g *inmem.Graph }

func (n genericOnly) Read(ctx context.Context, fn func(graph.Reader) error) error {
	return n.g.Read(ctx, func(r graph.Reader) error { return fn(plainReader{r}) })
}

type plainReader struct{ graph.Reader }

// TestNumberedArcsSameBits: on 200 random graphs the walk through the
// embedded engine's numbered arcs (graph.NumberedArcs) gives exactly the
// ranking, to the bit, and the statistics of the walk through Arcs, with
// and without a relationship filter. The numbered reads are counted: a
// run that found a seed weighs it by number (StrengthNums), so one that
// made none did not take the numbered path at all.
func TestNumberedArcsSameBits(t *testing.T) {
	r := rand.New(rand.NewSource(23))
	ge, err := graph.ParseRelCond("weight>=0.5")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		c := newRandomCase(r)
		g, err := inmem.New(c.g, "random")
		if err != nil {
			t.Fatal(err)
		}
		var nb graph.Neighbourhood = g
		if i%2 == 1 {
			nb = g.Filtered(graph.RelFilter{Where: []graph.RelCond{ge}})
		}
		if _, ok := any(plainReader{}).(graph.NumberedArcs); ok {
			t.Fatal("the wrapper does not hide the numbered arcs")
		}
		reads := new(atomic.Int64)
		fast, err := ppr.Retrieve(context.Background(), byNumber{nb, reads}, c.query, c.p)
		if err != nil {
			t.Fatal(err)
		}
		if found := stat(fast, "seeds_found"); found != 0 && reads.Load() == 0 {
			t.Fatalf("case %d: %v seeds found, no read by number", i, found)
		}
		var slow retriever.Ranking
		if i%2 == 1 {
			slow, err = ppr.Retrieve(context.Background(), filteredGeneric{g, graph.RelFilter{Where: []graph.RelCond{ge}}}, c.query, c.p)
		} else {
			slow, err = ppr.Retrieve(context.Background(), genericOnly{g}, c.query, c.p)
		}
		if err != nil {
			t.Fatal(err)
		}
		if a, b := fmt.Sprintf("%+v", fast), fmt.Sprintf("%+v", slow); a != b {
			t.Fatalf("case %d: numbered arcs:\n%s\nArcs:\n%s", i, a, b)
		}
	}
}

// filteredGeneric is g.Filtered(f) with the numbered arcs hidden.
type filteredGeneric struct {
	g *inmem.Graph
	f graph.RelFilter
}

func (n filteredGeneric) Read(ctx context.Context, fn func(graph.Reader) error) error {
	return n.g.Filtered(n.f).Read(ctx, func(r graph.Reader) error { return fn(plainReader{r}) })
}

// TestRunsShareNoState: runs reuse the state of finished ones (through a
// pool), so 40 random cases (two graphs, half read by number, half
// through Arcs), run by four goroutines at once in a shuffled order and
// again, each give the ranking, to the bit, and the statistics of the
// same case run alone first. The runs meant to read by number must have
// (byNumber counts it).
func TestRunsShareNoState(t *testing.T) {
	r := rand.New(rand.NewSource(41))
	type run struct {
		nb    graph.Neighbourhood
		c     randomCase
		alone string
	}
	var runs []run
	reads := new(atomic.Int64)
	for range 2 {
		c := newRandomCase(r)
		g, err := inmem.New(c.g, "random")
		if err != nil {
			t.Fatal(err)
		}
		for i := range 20 {
			c := randomCase{g: c.g, query: randomQuery(r, c.g), p: randomParams(r)}
			var nb graph.Neighbourhood = byNumber{g, reads}
			if i%2 == 1 {
				nb = genericOnly{g}
			}
			got, err := ppr.Retrieve(context.Background(), nb, c.query, c.p)
			if err != nil {
				t.Fatal(err)
			}
			runs = append(runs, run{nb, c, fmt.Sprintf("%+v", got)})
		}
	}
	if reads.Load() == 0 {
		t.Fatal("no run read by number")
	}
	order := append(r.Perm(len(runs)), r.Perm(len(runs))...)
	errs := make(chan error, len(order))
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(order); i += 4 {
				k := runs[order[i]]
				got, err := ppr.Retrieve(context.Background(), k.nb, k.c.query, k.c.p)
				if err == nil && fmt.Sprintf("%+v", got) != k.alone {
					err = fmt.Errorf("case %d: at once:\n%+v\nalone:\n%s", order[i], got, k.alone)
				}
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}
