package onneo4j

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/oninmem"
	"github.com/memoria-graph/memoria/testkit/naive"
	"github.com/memoria-graph/memoria/testkit/neo4jfix"
	"github.com/memoria-graph/memoria/testkit/randgraph"
)

// agreeGraphs is how many random graphs TestEnginesAgree compares.
const agreeGraphs = 60

// TestEnginesAgree: on 60 random graphs (testkit/randgraph: 15 to 200
// nodes with hubs, parallel and identical parallel edges, self-loops,
// missing weights, integer weights, grid ties, untagged and empty-tagged
// edges, duplicated tags, MENTIONS edges, unlabelled nodes), loaded into
// Neo4j with Load and into the in-memory engine from the same apoc.Graph,
// random explorations (1 to 5 seeds, sometimes one that does not exist;
// 0 to 3 query tags, sometimes unknown or duplicated; random MAX_DEPTH,
// MIN_ACTIVATION, TAG_SIM_FLOOR, MAX_BRANCHES) give on both engines:
// identical kept paths (node ids in order) with transfer energies within
// 1e-9 relative, identical terminations, and identical level events (the
// same candidates in the same order with the same fates, degrees, tag_sim
// and energies, and the same edges in the same order: parallel edges that
// tie exactly on parent, T and neighbour are ordered by activation.EdgeKey
// on both engines, so the edge recorded for a kept hop is the same, an
// integer weight 1 next to a float 1.0 included; only edges whose EdgeKey
// is equal too, identical parallel edges, are compared as a multiset). The naive reference
// (testkit/naive) must agree on the paths and on every level's
// candidates and fates too. Neo4j runs both ways: the fast path (New: id
// indexes and element ids) and the specification's Cypher (NewSeedCypher).
func TestEnginesAgree(t *testing.T) {
	d := fx.Driver(t)
	start := time.Now()
	var explorations, candidates int
	var loadTime time.Duration
	for i := 0; i < agreeGraphs; i++ {
		r := rand.New(rand.NewSource(int64(1000 + i)))
		opt := randgraph.Random(r, 15, 200)
		g := randgraph.Generate(r, opt)
		t0 := time.Now()
		fx.Load(t, d, g)
		loadTime += time.Since(t0)
		src := neo4jdb.NewSource(d, "", "")
		mem, err := inmem.New(g, "random")
		if err != nil {
			t.Fatal(err)
		}
		ng := naive.FromAPOC(g)

		// The connectors themselves: one random batched expansion, compared
		// candidate by candidate in the Expander contract's order.
		req := randomRequest(r, g, opt)
		if msg := compareExpand(t, New(src), oninmem.New(mem), req); msg != "" {
			t.Fatalf("graph %d: ExpandFrontier %+v: %s", i, req, msg)
		}
		if msg := compareExpand(t, NewSeedCypher(src), oninmem.New(mem), req); msg != "" {
			t.Fatalf("graph %d: the seed's Cypher: ExpandFrontier %+v: %s", i, req, msg)
		}

		for run := 0; run < 3; run++ {
			cfg, seeds, tags := randomExploration(r, g, opt)
			where := fmt.Sprintf("graph %d (%d nodes, %d rels) run %d cfg %+v seeds %v tags %q", i, len(g.Nodes), len(g.Rels), run, cfg, seeds, tags)
			r1, l1 := neo4jfix.ExploreWithLevels(t, New(src), cfg, seeds, tags)
			r2, l2 := coarse(neo4jfix.ExploreWithLevels(t, oninmem.New(mem), cfg, seeds, tags)) // the memory engine traces; these two do not
			r3, l3 := neo4jfix.ExploreWithLevels(t, NewSeedCypher(src), cfg, seeds, tags)
			explorations += len(seeds)
			for k := range seeds {
				if r1[k].Error != "" || r3[k].Error != "" {
					t.Fatalf("%s: neo4j: %s %s", where, r1[k].Error, r3[k].Error)
				}
				if msg := compareResults(r1[k], r2[k], l1[k], l2[k]); msg != "" {
					t.Fatalf("%s, seed %s: neo4j (fast path) and inmem differ: %s", where, seeds[k].NodeID, msg)
				}
				if msg := compareResults(r3[k], r2[k], l3[k], l2[k]); msg != "" {
					t.Fatalf("%s, seed %s: neo4j (the seed's Cypher) and inmem differ: %s", where, seeds[k].NodeID, msg)
				}
				nr := naive.Explore(ng, seeds[k], retriever.NormalizeTags(tags), cfg)
				if msg := naive.Diff(r1[k], l1[k], nr); msg != "" {
					t.Fatalf("%s, seed %s: neo4j and naive differ: %s", where, seeds[k].NodeID, msg)
				}
				for _, lv := range l1[k] {
					candidates += len(lv.Outcomes)
				}
			}
		}
	}
	t.Logf("%d graphs, %d seed explorations, %d candidates compared in %v (loading: %v)",
		agreeGraphs, explorations, candidates, time.Since(start).Round(time.Millisecond), loadTime.Round(time.Millisecond))
	if candidates < 1000 {
		t.Errorf("only %d candidates compared: the explorations are too shallow to mean much", candidates)
	}
}

// coarse is a traced run as an engine that is not an activation.Tracer
// reports it: path ends as activation.EndReason.Coarse gives them, with no
// near miss, and levels without near misses or tallies.
func coarse(res []activation.Result, lv [][]activation.LevelEvent) ([]activation.Result, [][]activation.LevelEvent) {
	cp := func(ps []activation.Path) []activation.Path {
		out := slices.Clone(ps)
		for i := range out {
			out[i].EndReason, out[i].NearMiss = out[i].EndReason.Coarse(), nil
		}
		return out
	}
	r2 := slices.Clone(res)
	for i := range r2 {
		r2[i].Paths = cp(r2[i].Paths)
	}
	l2 := make([][]activation.LevelEvent, len(lv))
	for i := range lv {
		l2[i] = slices.Clone(lv[i])
		for j := range l2[i] {
			l2[i][j].Completed, l2[i][j].NearMisses, l2[i][j].Tallies = cp(l2[i][j].Completed), nil, nil
		}
	}
	return r2, l2
}

// randomExploration draws a configuration, 1 to 5 seeds and query tags.
func randomExploration(r *rand.Rand, g *apoc.Graph, opt randgraph.Options) (activation.Params, []retriever.Seed, []string) {
	cfg := activation.DefaultParams()
	cfg.MaxDepth = 1 + r.Intn(6)
	cfg.MinActivation = []float64{0, 0.0005, 0.001, 0.005, 0.01, 0.05}[r.Intn(6)]
	cfg.TagSimFloor = []float64{0, 0.15, 0.15, 0.3, 1}[r.Intn(5)]
	cfg.MaxBranches = 1 + r.Intn(4)
	var seeds []retriever.Seed
	for n := 1 + r.Intn(5); len(seeds) < n; {
		id := g.Nodes[r.Intn(len(g.Nodes))].Properties["id"].(string)
		if r.Intn(15) == 0 {
			id = "missing-" + id
		}
		score := []float64{1, 0.5, 0.9, r.Float64()*0.999 + 0.001}[r.Intn(4)]
		seeds = append(seeds, retriever.Seed{NodeID: id, Score: score})
	}
	vocab := opt.Tags
	var tags []string
	for n := r.Intn(4); len(tags) < n; {
		switch r.Intn(8) {
		case 0:
			tags = append(tags, "unknown")
		case 1:
			tags = append(tags, " "+vocab[0]+" ")
		default:
			tags = append(tags, vocab[r.Intn(len(vocab))])
		}
	}
	return cfg, seeds, tags
}

// randomRequest is a batched expansion of up to 8 random frontier nodes
// with random activations and a random visited set.
func randomRequest(r *rand.Rand, g *apoc.Graph, opt randgraph.Options) activation.ExpandRequest {
	cfg, _, tags := randomExploration(r, g, opt)
	req := activation.ExpandRequest{Visited: map[string]struct{}{}, QueryTags: retriever.NormalizeTags(tags),
		MinActivation: cfg.MinActivation / 10, TagSimFloor: cfg.TagSimFloor}
	for _, k := range r.Perm(len(g.Nodes))[:min(len(g.Nodes), 1+r.Intn(8))] {
		id := g.Nodes[k].Properties["id"].(string)
		req.Frontier = append(req.Frontier, activation.FrontierInput{NodeID: id, Activation: r.Float64()})
		req.Visited[id] = struct{}{}
	}
	for _, n := range g.Nodes {
		if r.Intn(5) == 0 {
			req.Visited[n.Properties["id"].(string)] = struct{}{}
		}
	}
	return req
}

// compareExpand compares the candidates of one request on two backends,
// in order, edges included (see sameEdges).
func compareExpand(t *testing.T, a, b activation.Backend, req activation.ExpandRequest) string {
	t.Helper()
	run := func(be activation.Backend) []activation.Candidate {
		c, release, err := be.Open(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer release(context.Background())
		cands, err := c.ExpandFrontier(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		return cands
	}
	return compareCandidates(run(a), run(b))
}

// compareCandidates compares two engines' candidates for one request, in
// order, edges included (see sameEdges).
func compareCandidates(ca, cb []activation.Candidate) string {
	if len(ca) != len(cb) {
		return fmt.Sprintf("%d candidates vs %d", len(ca), len(cb))
	}
	for j := 0; j < len(ca); {
		x, y := ca[j], cb[j]
		if !neo4jfix.SameSlot(x, y) || x.Degree != y.Degree || x.TagSim != y.TagSim || x.Activation != y.Activation {
			return fmt.Sprintf("candidate %d: %s", j, outcomePair(activation.Outcome{Candidate: x}, activation.Outcome{Candidate: y}))
		}
		k := j + 1
		for k < len(ca) && neo4jfix.SameSlot(ca[k], x) {
			k++
		}
		for m := j; m < k; m++ {
			if !neo4jfix.SameSlot(cb[m], x) {
				return fmt.Sprintf("candidate %d: %s", m, outcomePair(activation.Outcome{Candidate: ca[m]}, activation.Outcome{Candidate: cb[m]}))
			}
		}
		if msg := sameEdges(ca[j:k], cb[j:k]); msg != "" {
			return fmt.Sprintf("candidates %d to %d: %s", j, k-1, msg)
		}
		j = k
	}
	return ""
}

// sameEdges compares the edges of a run of candidates that tie on parent,
// T and neighbour, in order: both engines sort such ties by
// activation.EdgeKey, so position m must have the same EdgeKey on both.
// Edges whose EdgeKey is equal as well (the same properties, as Neo4j
// stores them) may still come in either order: within each run of equal
// EdgeKeys, the edges (with their direction, weight and tags) are compared
// as a multiset.
func sameEdges(a, b []activation.Candidate) string {
	for m := range a {
		if ka, kb := activation.EdgeKey(a[m].Edge), activation.EdgeKey(b[m].Edge); ka != kb {
			return fmt.Sprintf("tied edge %d: EdgeKey %s vs %s", m, ka, kb)
		}
	}
	for j := 0; j < len(a); {
		key := activation.EdgeKey(a[j].Edge)
		k := j + 1
		for k < len(a) && activation.EdgeKey(a[k].Edge) == key {
			k++
		}
		var ea, eb []string
		for m := j; m < k; m++ {
			ea, eb = append(ea, edgeKey(a[m])), append(eb, edgeKey(b[m]))
		}
		slices.Sort(ea)
		slices.Sort(eb)
		if !slices.Equal(ea, eb) {
			return fmt.Sprintf("edges %v vs %v", ea, eb)
		}
		j = k
	}
	return ""
}

func relClose(a, b float64) bool {
	if a == b {
		return true
	}
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// compareResults compares one seed's result and level events from two engines.
func compareResults(a, b activation.Result, la, lb []activation.LevelEvent) string {
	if a.TerminatedReason != b.TerminatedReason || a.MaxDepthReached != b.MaxDepthReached {
		return fmt.Sprintf("terminated %s/%d vs %s/%d", a.TerminatedReason, a.MaxDepthReached, b.TerminatedReason, b.MaxDepthReached)
	}
	if (a.SeedNode == nil) != (b.SeedNode == nil) {
		return "seed found on one engine only"
	}
	if len(a.Paths) != len(b.Paths) {
		return fmt.Sprintf("%d paths vs %d:\n%v\n%v", len(a.Paths), len(b.Paths), neo4jfix.PathIDs(a), neo4jfix.PathIDs(b))
	}
	for i := range a.Paths {
		pa, pb := a.Paths[i], b.Paths[i]
		if !slices.Equal(pa.NodeIDs(), pb.NodeIDs()) || pa.EndReason != pb.EndReason {
			return fmt.Sprintf("path %d: %v (%s) vs %v (%s)", i, pa.NodeIDs(), pa.EndReason, pb.NodeIDs(), pb.EndReason)
		}
		if (pa.NearMiss == nil) != (pb.NearMiss == nil) ||
			pa.NearMiss != nil && (pa.NearMiss.ToNode.ID != pb.NearMiss.ToNode.ID || !relClose(pa.NearMiss.TransferEnergy, pb.NearMiss.TransferEnergy)) {
			return fmt.Sprintf("path %v: near miss %+v vs %+v", pa.NodeIDs(), pa.NearMiss, pb.NearMiss)
		}
		for j := range pa.Steps {
			if !relClose(pa.Steps[j].TransferEnergy, pb.Steps[j].TransferEnergy) {
				return fmt.Sprintf("path %v step %d: T %v vs %v", pa.NodeIDs(), j, pa.Steps[j].TransferEnergy, pb.Steps[j].TransferEnergy)
			}
			// The recorded edge: of parallel edges that tie, both engines
			// keep the first by activation.EdgeKey.
			if ka, kb := activation.EdgeKey(pa.Steps[j].Edge), activation.EdgeKey(pb.Steps[j].Edge); ka != kb {
				return fmt.Sprintf("path %v step %d: edge %s vs %s", pa.NodeIDs(), j, ka, kb)
			}
		}
	}
	if len(la) != len(lb) {
		return fmt.Sprintf("%d levels vs %d", len(la), len(lb))
	}
	for i := range la {
		if la[i].FrontierSize != lb[i].FrontierSize || len(la[i].Completed) != len(lb[i].Completed) {
			return fmt.Sprintf("level %d: frontier %d/%d, completed %d/%d", i+1, la[i].FrontierSize, lb[i].FrontierSize, len(la[i].Completed), len(lb[i].Completed))
		}
		if !maps.Equal(la[i].Tallies, lb[i].Tallies) {
			return fmt.Sprintf("level %d: tallies %v vs %v", i+1, la[i].Tallies, lb[i].Tallies)
		}
		na, nb := la[i].NearMisses, lb[i].NearMisses
		if len(na) != len(nb) {
			return fmt.Sprintf("level %d: %d near misses vs %d", i+1, len(na), len(nb))
		}
		for j := range na {
			if na[j].ParentID != nb[j].ParentID || na[j].NeighborNode.ID != nb[j].NeighborNode.ID || !relClose(na[j].TransferEnergy, nb[j].TransferEnergy) ||
				activation.EdgeKey(na[j].Edge) != activation.EdgeKey(nb[j].Edge) {
				return fmt.Sprintf("level %d near miss %d: %s>%s T=%v vs %s>%s T=%v", i+1, j, na[j].ParentID, na[j].NeighborNode.ID, na[j].TransferEnergy,
					nb[j].ParentID, nb[j].NeighborNode.ID, nb[j].TransferEnergy)
			}
		}
		oa, ob := la[i].Outcomes, lb[i].Outcomes
		if len(oa) != len(ob) {
			return fmt.Sprintf("level %d: %d candidates vs %d", i+1, len(oa), len(ob))
		}
		for j := 0; j < len(oa); {
			x, y := oa[j], ob[j]
			cx, cy := x.Candidate, y.Candidate
			if cx.ParentID != cy.ParentID || cx.NeighborNode.ID != cy.NeighborNode.ID || !relClose(cx.TransferEnergy, cy.TransferEnergy) ||
				x.Fate != y.Fate || x.ClaimedBy != y.ClaimedBy || cx.Degree != cy.Degree || !relClose(cx.TagSim, cy.TagSim) ||
				cx.Activation != cy.Activation {
				return fmt.Sprintf("level %d outcome %d: %s", i+1, j, outcomePair(x, y))
			}
			// Parallel edges with exactly the same T: the same edges in the
			// same order (by activation.EdgeKey) on both engines.
			k := j + 1
			for k < len(oa) && neo4jfix.SameSlot(oa[k].Candidate, cx) {
				k++
			}
			var ra, rb []activation.Candidate
			for m := j; m < k; m++ {
				if !neo4jfix.SameSlot(ob[m].Candidate, cx) || oa[m].Fate != ob[m].Fate || oa[m].ClaimedBy != ob[m].ClaimedBy {
					return fmt.Sprintf("level %d outcome %d: %s", i+1, m, outcomePair(oa[m], ob[m]))
				}
				ra, rb = append(ra, oa[m].Candidate), append(rb, ob[m].Candidate)
			}
			if msg := sameEdges(ra, rb); msg != "" {
				return fmt.Sprintf("level %d outcomes %d to %d: %s", i+1, j, k-1, msg)
			}
			j = k
		}
	}
	return ""
}

func edgeKey(c activation.Candidate) string {
	w := "nil"
	if c.Edge.Weight != nil {
		w = fmt.Sprint(*c.Edge.Weight)
	}
	return fmt.Sprintf("%s>%s w=%s tags=%q props=%s", c.Edge.SourceID, c.Edge.TargetID, w, c.Edge.Tags, graph.CanonicalProps(c.Edge.Properties))
}

func outcomePair(x, y activation.Outcome) string {
	f := func(o activation.Outcome) string {
		c := o.Candidate
		return fmt.Sprintf("%s->%s R=%v d=%d ts=%v T=%v %s %s", c.ParentID, c.NeighborNode.ID, c.Activation, c.Degree, c.TagSim, c.TransferEnergy, o.Fate, o.ClaimedBy)
	}
	return f(x) + " vs " + f(y)
}
