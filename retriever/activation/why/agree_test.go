package why_test

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/oninmem"
	"github.com/memoria-graph/memoria/retriever/activation/why"
	"github.com/memoria-graph/memoria/testkit/randgraph"
)

// randomCase is a random question set: a graph of testkit/randgraph with
// some weights raised above 1 (up to 8, so that a hop into a node of low
// degree can multiply energy, as in TestClaimed), one to three seeds (now
// and then one the graph lacks, or one given twice), up to three query
// tags, MAX_DEPTH 1 to 6, MAX_BRANCHES 1 to 3, MIN_ACTIVATION from 0.0005
// to 0.05, and now and then a small search budget, so that answers cut
// short (exact false) or failed for the budget are compared too.
type randomCase struct {
	graph  *apoc.Graph
	text   string // the graph as APOC JSON lines
	seeds  []retriever.Seed
	tags   []string
	params activation.Params
	budget int
}

func newRandomCase(t testing.TB, r *rand.Rand, minNodes, maxNodes int) randomCase {
	t.Helper()
	opt := randgraph.Random(r, minNodes, maxNodes)
	g := randgraph.Generate(r, opt)
	amp := []float64{0, 0.15, 0.4, 0.7}[r.Intn(4)]
	for i := range g.Rels {
		if g.Rels[i].Type == "RELATES" && r.Float64() < amp {
			if _, ok := g.Rels[i].Properties["weight"]; ok {
				g.Rels[i].Properties["weight"] = 1 + 15*r.Float64()
			}
		}
	}
	var b strings.Builder
	if err := apoc.Write(&b, g); err != nil {
		t.Fatal(err)
	}
	c := randomCase{graph: g, text: b.String(), params: activation.DefaultParams()}
	for range 1 + r.Intn(3) {
		switch x := r.Intn(10); {
		case x == 0:
			c.seeds = append(c.seeds, retriever.Seed{NodeID: "missing", Score: 0.5})
		case x == 1 && len(c.seeds) > 0:
			c.seeds = append(c.seeds, retriever.Seed{NodeID: c.seeds[0].NodeID, Score: 0.3 + 0.7*r.Float64()})
		default:
			if id, ok := g.Nodes[r.Intn(len(g.Nodes))].Properties["id"].(string); ok {
				c.seeds = append(c.seeds, retriever.Seed{NodeID: id, Score: 0.3 + 0.7*r.Float64()})
			}
		}
	}
	for range r.Intn(4) {
		c.tags = append(c.tags, opt.Tags[r.Intn(len(opt.Tags))])
	}
	c.params.MaxDepth = 1 + r.Intn(6)
	c.params.MaxBranches = 1 + r.Intn(3)
	c.params.MinActivation = []float64{0.0005, 0.002, 0.005, 0.02, 0.05}[r.Intn(5)]
	if r.Intn(4) == 0 {
		c.budget = []int{1, 2, 3, 5, 8, 20}[r.Intn(6)]
	}
	return c
}

func (c randomCase) config(be activation.Backend, node string) why.Config {
	return why.Config{Backend: be, Params: c.params, Options: activation.DefaultOptions(), Seeds: c.seeds, Tags: c.tags,
		NodeID: node, Budget: c.budget}
}

// ids are the graph's node ids.
func (c randomCase) ids() []string {
	var ids []string
	for _, n := range c.graph.Nodes {
		if id, ok := n.Properties["id"].(string); ok {
			ids = append(ids, id)
		}
	}
	return ids
}

// outcome is an answer or its error, as text.
func outcome(a why.Answer, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return detail(a)
}

// detail is summary with every hop's edge (its key, ends, weight, degree,
// tag_sim and activation, to the bit) and the whole of ClaimedBy,
// Siblings and VisitedVia: all an answer says but element ids and node
// properties, so that engines can be compared.
func detail(a why.Answer) string {
	var b strings.Builder
	b.WriteString(summary(a))
	step := func(s activation.Step) {
		fmt.Fprintf(&b, "\n  %s>%s edge{%s %s>%s %s} w=%b d=%d ts=%b a=%b t=%b", s.FromNode.ID, s.ToNode.ID, activation.EdgeKey(s.Edge),
			s.Edge.SourceID, s.Edge.TargetID, s.Edge.Type, s.Weight, s.Degree, s.TagSim, s.Activation, s.TransferEnergy)
	}
	cand := func(what string, c activation.Candidate) {
		fmt.Fprintf(&b, "\n  %s %s>%s edge{%s} a=%b d=%d ts=%b t=%b", what, c.ParentID, c.NeighborNode.ID, activation.EdgeKey(c.Edge),
			c.Activation, c.Degree, c.TagSim, c.TransferEnergy)
	}
	for _, s := range a.Route {
		step(s)
	}
	if a.ClaimedBy != nil {
		cand("claimed by", *a.ClaimedBy)
	}
	for _, c := range a.Siblings {
		cand("sibling", c)
	}
	for _, s := range a.VisitedVia {
		b.WriteString("\n  via")
		step(s)
	}
	return b.String()
}

// TestAgreesWithReference: Explain on the memory engine gives exactly the
// answer of the whole-ball reader it replaced (ReferenceExplain):
// reflect.DeepEqual on the whole Answer (verdict, seed, route with every
// step's nodes, edge and numbers, blocking hop, ClaimedBy, Siblings,
// VisitedVia, Exact), or the same error, for every node of the demo graph
// (scenario A), of nonmonotone.jsonl and of claimed.jsonl (the questions of
// TestEnginesAgree, with MAX_DEPTH 1 to 6 and budgets of 3 and 2 on the
// last), and of 150 random graphs (randomCase: 10 to 60 nodes, weights
// above 1 in some, random seeds, tags and thresholds, sometimes a tiny
// budget). Reading from both ends must not change any answer
// (docs/ALGORITHM.md, "Why not X", step 1). Every verdict kind, a
// cut-short search and a budget error must have come up, so that all of
// them were compared.
//
// Explain is asked twice: through an engine that hides whether its
// weights lie in [0, 1] (activation.UnitWeigher), so it reads by hop count
// alone, and through the engine itself, which prunes by energy when they
// do (every graph but those with raised weights). The first must equal the
// reference everywhere, the tiny budgets included. The second must too
// wherever the search is not cut short; where the reference's search ran
// out of budget, pruning may leave it fewer routes to try, so its answer
// must be either cut short as well or exact and equal to the reference's
// with no budget. Pruning must also have read fewer neighbourhoods in
// total, and strictly fewer in at least 50 questions.
func TestAgreesWithReference(t *testing.T) {
	kinds := map[string]int{}
	var readPruned, readPlain, fewer int64
	compare := func(where string, be activation.Backend, cfg func(be activation.Backend, id string) why.Config, ids []string) {
		t.Helper()
		for _, id := range ids {
			pruned, plain := newCounting(be), newCounting(hideUnit{be})
			got, gerr := why.Explain(context.Background(), cfg(plain, id))
			want, werr := why.ReferenceExplain(context.Background(), cfg(be, id))
			if (gerr != nil) != (werr != nil) || (gerr != nil && gerr.Error() != werr.Error()) || !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, node %q, hop count alone:\n got %s\nwant %s", where, id, outcome(got, gerr), outcome(want, werr))
			}
			got, gerr = why.Explain(context.Background(), cfg(pruned, id))
			cutShort := werr != nil && strings.Contains(werr.Error(), "search budget") || werr == nil && !want.Exact
			switch {
			case !cutShort:
				if (gerr != nil) != (werr != nil) || (gerr != nil && gerr.Error() != werr.Error()) || !reflect.DeepEqual(got, want) {
					t.Fatalf("%s, node %q, pruned by energy:\n got %s\nwant %s", where, id, outcome(got, gerr), outcome(want, werr))
				}
			case gerr != nil && strings.Contains(gerr.Error(), "search budget"), gerr == nil && !got.Exact:
			default:
				c := cfg(be, id)
				c.Budget = 0
				full, ferr := why.ReferenceExplain(context.Background(), c)
				if gerr != nil || ferr != nil || !reflect.DeepEqual(got, full) {
					t.Fatalf("%s, node %q, pruned by energy, the reference cut short:\n got %s\nwant %s", where, id, outcome(got, gerr), outcome(full, ferr))
				}
			}
			readPruned += pruned.entries.Load()
			readPlain += plain.entries.Load()
			if pruned.entries.Load() < plain.entries.Load() {
				fewer++
			}
			switch {
			case werr != nil:
				kinds["error"]++
			case !want.Exact:
				kinds["not exact"]++
			}
			if werr == nil {
				kinds[string(want.Verdict)]++
			}
		}
	}
	for _, f := range []struct {
		path string
		q    question
	}{
		{demoPath, scenarioA},
		{nonmonotone, question{seeds: []retriever.Seed{{NodeID: "S", Score: 1}}, params: func(p *activation.Params) { p.MinActivation = 0.01 }}},
		{claimedPath, question{seeds: []retriever.Seed{{NodeID: "S", Score: 1}}}},
	} {
		g, err := inmem.LoadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for i := range g.NodeCount() {
			ids = append(ids, g.NodeAt(int32(i)).ID)
		}
		for depth := 1; depth <= 6; depth++ {
			for _, budget := range []int{0, 3, 2} {
				if budget > 0 && f.path != claimedPath {
					continue
				}
				cfg := func(be activation.Backend, id string) why.Config {
					ps := activation.DefaultParams()
					if f.q.params != nil {
						f.q.params(&ps)
					}
					ps.MaxDepth = depth
					return why.Config{Backend: be, Params: ps, Options: activation.DefaultOptions(), Seeds: f.q.seeds, Tags: f.q.tags,
						NodeID: id, Budget: budget}
				}
				compare(fmt.Sprintf("%s, MAX_DEPTH %d, budget %d", f.path, depth, budget), oninmem.New(g), cfg, ids)
			}
		}
	}
	r := rand.New(rand.NewSource(20))
	for k := range 150 {
		c := newRandomCase(t, r, 10, 60)
		compare(fmt.Sprintf("case %d (MAX_DEPTH %d, seeds %v)", k, c.params.MaxDepth, c.seeds), load(t, c.text), c.config, c.ids())
	}
	t.Logf("answers compared: %v; neighbourhoods read pruned by energy %d, by hop count alone %d, fewer in %d questions", kinds, readPruned, readPlain, fewer)
	if readPruned >= readPlain || fewer < 50 {
		t.Errorf("pruning by energy read %d neighbourhoods against %d, fewer in %d questions: it should read fewer", readPruned, readPlain, fewer)
	}
	for _, k := range []string{"kept", "unreachable", "below_threshold", "claimed", "branch_limit", "visited_earlier", "not exact", "error"} {
		if kinds[k] == 0 {
			t.Errorf("no %s answer came up", k)
		}
	}
}

// counting counts the frontier entries, calls and rows (candidates) of
// why's reads (the expansions with no threshold; the real runs' have
// MIN_ACTIVATION).
type counting struct {
	activation.Backend
	entries, calls, rows *atomic.Int64
}

func (c counting) Open(ctx context.Context) (activation.Expander, func(context.Context) error, error) {
	e, release, err := c.Backend.Open(ctx)
	if err != nil {
		return nil, nil, err
	}
	return countingExpander{e, c}, release, nil
}

type countingExpander struct {
	activation.Expander
	c counting
}

func (e countingExpander) ExpandFrontier(ctx context.Context, req activation.ExpandRequest) ([]activation.Candidate, error) {
	cands, err := e.Expander.ExpandFrontier(ctx, req)
	if req.MinActivation == -math.MaxFloat64 {
		e.c.entries.Add(int64(len(req.Frontier)))
		e.c.calls.Add(1)
		e.c.rows.Add(int64(len(cands)))
	}
	return cands, err
}

// ExpandNear counts alike, the rows being what the engine's own
// ExpandNear returns.
func (e countingExpander) ExpandNear(ctx context.Context, req activation.ExpandRequest, near activation.Near) ([]activation.Candidate, error) {
	cands, err := activation.ExpandNear(ctx, e.Expander, req, near)
	e.c.entries.Add(int64(len(req.Frontier)))
	e.c.calls.Add(1)
	e.c.rows.Add(int64(len(cands)))
	return cands, err
}

// UnitWeights passes the engine's answer on, so that what is counted is
// what Explain reads through the engine itself.
func (e countingExpander) UnitWeights(ctx context.Context) (bool, error) {
	if u, ok := e.Expander.(activation.UnitWeigher); ok {
		return u.UnitWeights(ctx)
	}
	return false, nil
}

// hideUnit is an engine that does not say whether its weights lie in
// [0, 1] (activation.UnitWeigher), so why reads by hop count alone.
type hideUnit struct{ activation.Backend }

func (h hideUnit) Open(ctx context.Context) (activation.Expander, func(context.Context) error, error) {
	e, release, err := h.Backend.Open(ctx)
	if err != nil {
		return nil, nil, err
	}
	return hiddenUnit{e}, release, nil
}

type hiddenUnit struct{ activation.Expander }

func (e hiddenUnit) ExpandNear(ctx context.Context, req activation.ExpandRequest, near activation.Near) ([]activation.Candidate, error) {
	return activation.ExpandNear(ctx, e.Expander, req, near)
}

func newCounting(be activation.Backend) counting {
	return counting{Backend: be, entries: new(atomic.Int64), calls: new(atomic.Int64), rows: new(atomic.Int64)}
}

// hops returns every node's hop distance from the nearest seed (a plain
// breadth-first search over RELATES, −1 when not reached), by node index.
func hops(g *inmem.Graph, seeds []retriever.Seed) []int {
	dist := make([]int, g.NodeCount())
	for i := range dist {
		dist[i] = -1
	}
	var queue []int32
	for _, s := range seeds {
		if u, ok := g.Lookup(s.NodeID); ok && dist[u] < 0 {
			dist[u] = 0
			queue = append(queue, u)
		}
	}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		nbrs, _ := g.Relates(u)
		for _, v := range nbrs {
			if dist[v] < 0 {
				dist[v] = dist[u] + 1
				queue = append(queue, v)
			}
		}
	}
	return dist
}

// TestReadsLess holds the point of reading from both ends: on a generated
// graph of 3,000 nodes and 30,000 relationships (testkit/randgraph.Scale,
// the benchmark's generator) with the benchmark's five seeds and tags at
// the defaults, for the first three nodes (in id order) at 1, 2, 3 and 4
// hops from the nearest seed that are not in the result, Explain gives the
// reference's answer while reading strictly fewer neighbourhoods (frontier
// entries of its expansions, the last read of the route's nodes included),
// in at most MAX_DEPTH + 2 expansions (one per level of either side, and
// the last read).
func TestReadsLess(t *testing.T) {
	g, err := inmem.Load(strings.NewReader(string(randgraph.Scale(3000, 30_000, 2.5, 1))), "scale")
	if err != nil {
		t.Fatal(err)
	}
	seeds := randgraph.ScaleSeeds(3000)
	tags := []string{randgraph.ScaleTag(0), randgraph.ScaleTag(3)}
	ps := activation.DefaultParams()
	dist := hops(g, seeds)
	ids := make([]string, g.NodeCount())
	for i := range ids {
		ids[i] = g.NodeAt(int32(i)).ID
	}
	order := make([]int, len(ids))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(ids[a], ids[b]) })
	asked := map[int]int{}
	for _, i := range order {
		d := dist[i]
		if d < 1 || d > 4 || asked[d] == 3 {
			continue
		}
		newer, older := newCounting(oninmem.New(g)), newCounting(oninmem.New(g))
		cfg := why.Config{Params: ps, Options: activation.DefaultOptions(), Seeds: seeds, Tags: tags, NodeID: ids[i]}
		cfg.Backend = newer
		got, err := why.Explain(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got.Verdict == why.Kept {
			continue
		}
		cfg.Backend = older
		want, err := why.ReferenceExplain(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		asked[d]++
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s (%d hops): got %s\nwant %s", ids[i], d, detail(got), detail(want))
		}
		n, o := newer.entries.Load(), older.entries.Load()
		t.Logf("%s, %d hops, %s: read %d neighbourhoods (%d rows) in %d expansions; the ball %d (%d rows) in %d", ids[i], d, got.Verdict,
			n, newer.rows.Load(), newer.calls.Load(), o, older.rows.Load(), older.calls.Load())
		if n >= o {
			t.Errorf("%s (%d hops): read %d neighbourhoods, the ball %d", ids[i], d, n, o)
		}
		if c := newer.calls.Load(); c > int64(ps.MaxDepth+2) {
			t.Errorf("%s (%d hops): %d expansions, want at most %d", ids[i], d, c, ps.MaxDepth+2)
		}
	}
	for d := 1; d <= 4; d++ {
		if asked[d] == 0 {
			t.Errorf("no node %d hops out was asked about", d)
		}
	}
}
