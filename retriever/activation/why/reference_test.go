package why

// The reference: the whole-ball reader that Explain used before it read
// from both ends (docs/ALGORITHM.md, "Why not X", step 1), kept unchanged
// so that the tests can compare the two. It reads every RELATES
// relationship of every node within MAX_DEPTH-1 hops of a seed, then runs
// the same bound and exact search over that ball.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/retry"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// referenceExplain is Explain as it was with the whole ball.
func referenceExplain(ctx context.Context, cfg Config) (Answer, error) {
	if cfg.Backend == nil {
		return Answer{}, errors.New("why: no backend")
	}
	if err := retriever.ValidateSeeds(cfg.Seeds); err != nil {
		return Answer{}, err
	}
	r, err := activation.New(cfg.Backend, cfg.Params, cfg.Options)
	if err != nil {
		return Answer{}, err
	}
	tags := retriever.NormalizeTags(cfg.Tags)
	ans := Answer{NodeID: cfg.NodeID, Blocking: -1, Params: cfg.Params, Exact: true}

	exp, release, err := cfg.Backend.Open(ctx)
	if err != nil {
		return Answer{}, err
	}
	defer release(context.WithoutCancel(ctx))
	do := func(fn func() error) error { return retry.Do(ctx, cfg.Options.MaxRetries, cfg.Options.Backoff, fn) }

	var found bool
	if err := do(func() (err error) { _, found, err = exp.FetchSeed(ctx, cfg.NodeID); return err }); err != nil {
		return Answer{}, err
	}
	if !found {
		return Answer{}, UnknownNodeError{cfg.NodeID}
	}
	// Seeds that exist, in seed order (a seed given twice, with two
	// scores, is explored twice, so it starts routes twice).
	var seeds []int
	seedNodes := map[string]graph.Node{}
	asked := map[string]bool{}
	for i, s := range cfg.Seeds {
		if !asked[s.NodeID] {
			asked[s.NodeID] = true
			var (
				n  graph.Node
				ok bool
			)
			if err := do(func() (err error) { n, ok, err = exp.FetchSeed(ctx, s.NodeID); return err }); err != nil {
				return Answer{}, err
			}
			if ok {
				seedNodes[s.NodeID] = n
			} else {
				ans.SeedsNotFound = append(ans.SeedsNotFound, s.NodeID)
			}
		}
		if _, ok := seedNodes[s.NodeID]; ok {
			seeds = append(seeds, i)
		}
	}
	for _, i := range seeds {
		if cfg.Seeds[i].NodeID == cfg.NodeID {
			ans.Verdict, ans.Seed = Kept, cfg.Seeds[i]
			return ans, nil
		}
	}

	runs, err := realRuns(ctx, r, cfg.Seeds, tags)
	if err != nil {
		return Answer{}, err
	}
	if i, route, ok := keptRoute(runs, cfg.NodeID); ok {
		ans.Verdict, ans.Seed, ans.Route = Kept, cfg.Seeds[i], route
		return ans, nil
	}

	b, err := refReadBall(ctx, exp, do, cfg, tags, seeds, seedNodes)
	if err != nil {
		return Answer{}, err
	}
	budget := cfg.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	best, exact, err := b.bestRoute(ctx, cfg.NodeID, budget)
	if err != nil {
		return Answer{}, err
	}
	if best == nil {
		ans.Verdict = Unreachable
		return ans, nil
	}
	ans.Seed, ans.Route, ans.Exact = cfg.Seeds[best.seed], best.steps, exact
	if err := walk(&ans, runs[best.seed], cfg.Params); err != nil {
		return Answer{}, err
	}
	return ans, nil
}

// refEdge is one RELATES relationship out of a ball node, as the Expander
// gave it with activation 1 (only its weight, degree and tag_sim are used).
type refEdge struct {
	to   string
	cand activation.Candidate
	key  string // activation.EdgeKey, for ties between parallel edges
	f    float64
}

// refBall is the part of the graph within MAX_DEPTH hops of the seeds.
type refBall struct {
	seeds    []retriever.Seed
	seedIdx  []int // indexes in seeds of the seeds to start from
	nodes    map[string]graph.Node
	dist     map[string]int
	adj      map[string][]refEdge
	maxDepth int
	tags     []string
	floor    float64
}

// refReadBall reads, level by level through exp, every RELATES relationship
// of every node within MAX_DEPTH-1 hops of a seed: one ExpandFrontier per
// level, with nothing visited and no threshold, so every row comes back.
func refReadBall(ctx context.Context, exp activation.Expander, do func(func() error) error, cfg Config, tags []string, seeds []int, seedNodes map[string]graph.Node) (*refBall, error) {
	b := &refBall{seeds: cfg.Seeds, seedIdx: seeds, nodes: map[string]graph.Node{}, dist: map[string]int{},
		adj: map[string][]refEdge{}, maxDepth: cfg.Params.MaxDepth, tags: tags, floor: cfg.Params.TagSimFloor}
	var frontier []activation.FrontierInput
	for _, i := range seeds {
		id := cfg.Seeds[i].NodeID
		if _, dup := b.dist[id]; !dup {
			b.dist[id], b.nodes[id] = 0, seedNodes[id]
			frontier = append(frontier, activation.FrontierInput{NodeID: id, Activation: 1})
		}
	}
	for depth := 0; depth < b.maxDepth && len(frontier) > 0; depth++ {
		req := activation.ExpandRequest{Frontier: frontier, Visited: map[string]struct{}{}, QueryTags: tags,
			MinActivation: -math.MaxFloat64, TagSimFloor: b.floor}
		var cands []activation.Candidate
		if err := do(func() (err error) { cands, err = exp.ExpandFrontier(ctx, req); return err }); err != nil {
			return nil, err
		}
		var next []activation.FrontierInput
		for _, c := range cands {
			to := c.NeighborNode.ID
			b.adj[c.ParentID] = append(b.adj[c.ParentID], refEdge{to: to, cand: c, key: activation.EdgeKey(c.Edge),
				f: activation.TransferEnergy(1, activation.EffectiveWeight(c.Edge), c.Degree, c.TagSim)})
			if _, ok := b.dist[to]; !ok {
				b.dist[to] = depth + 1
				b.nodes[to] = c.NeighborNode
				next = append(next, activation.FrontierInput{NodeID: to, Activation: 1})
			}
		}
		frontier = next
	}
	return b, nil
}

// refFound is a complete route.
type refFound struct {
	seed  int // index in Config.Seeds
	t     float64
	ids   []string
	steps []activation.Step
}

// refBetter orders complete routes: higher final T, then fewer hops, then the
// earlier seed, then the node ids compared in order.
func refBetter(a, b *refFound) bool {
	if b == nil {
		return true
	}
	if a.t != b.t {
		return a.t > b.t
	}
	if len(a.ids) != len(b.ids) {
		return len(a.ids) < len(b.ids)
	}
	if a.seed != b.seed {
		return a.seed < b.seed
	}
	return slices.Compare(a.ids, b.ids) < 0
}

// bound computes, for every ball node v and every number of hops r, the
// highest |product of hop factors| over walks from v that end at target
// within r hops (−1 when there is none): a per-depth dynamic programme
// over walks, which may repeat nodes. Since T = R × the product of the
// factors w/√d × tag_sim, R × bound[v][r] bounds the final T of every
// simple route from v (docs/ALGORITHM.md, "Why not X").
func (b *refBall) bound(target string) map[string][]float64 {
	u := make(map[string][]float64, len(b.dist))
	for v := range b.dist {
		row := make([]float64, b.maxDepth+1)
		for r := range row {
			row[r] = -1
		}
		if v == target {
			row[0] = 1
		}
		u[v] = row
	}
	for r := 1; r <= b.maxDepth; r++ {
		for v, row := range u {
			best := row[r-1]
			for _, e := range b.adj[v] {
				if next := u[e.to][r-1]; next >= 0 {
					best = max(best, math.Abs(e.f)*next)
				}
			}
			row[r] = best
		}
	}
	return u
}

// bestRoute searches the simple routes from the seeds to target of at most
// MAX_DEPTH hops for the one of highest final T (ties: refBetter), depth
// first, trying each node's neighbours in order of their bound and pruning
// every partial route whose bound cannot reach the best found. It returns
// nil when no route exists; exact is false when the budget ran out first.
func (b *refBall) bestRoute(ctx context.Context, target string, budget int) (best *refFound, exact bool, err error) {
	if _, ok := b.dist[target]; !ok {
		return nil, true, nil
	}
	u := b.bound(target)
	onPath := map[string]bool{}
	var ids []string
	var steps []activation.Step
	tries := 0
	var dfs func(seed int, v string, t float64) error
	dfs = func(seed int, v string, t float64) error {
		if v == target {
			f := &refFound{seed: seed, t: t, ids: slices.Clone(ids), steps: slices.Clone(steps)}
			if refBetter(f, best) {
				best = f
			}
			return nil
		}
		left := b.maxDepth - len(steps) - 1 // hops left after the next
		if left < 0 {
			return nil
		}
		type option struct {
			e     refEdge
			t, ub float64
		}
		var opts []option
		for _, e := range b.adj[v] {
			if onPath[e.to] || u[e.to][left] < 0 {
				continue
			}
			nt := activation.TransferEnergy(t, activation.EffectiveWeight(e.cand.Edge), e.cand.Degree, e.cand.TagSim)
			if math.IsNaN(nt) || math.IsInf(nt, 0) {
				continue
			}
			opts = append(opts, option{e: e, t: nt, ub: math.Abs(nt) * u[e.to][left]})
		}
		// One option per neighbour: its edge of highest T (parallel edges;
		// ties by EdgeKey, as the claim order breaks them).
		slices.SortFunc(opts, func(a, b option) int {
			if c := strings.Compare(a.e.to, b.e.to); c != 0 {
				return c
			}
			if c := cmp.Compare(b.t, a.t); c != 0 {
				return c
			}
			return strings.Compare(a.e.key, b.e.key)
		})
		opts = slices.CompactFunc(opts, func(a, b option) bool { return a.e.to == b.e.to })
		slices.SortStableFunc(opts, func(a, b option) int { return cmp.Compare(b.ub, a.ub) })
		for _, o := range opts {
			if best != nil && o.ub*slack < best.t {
				break // sorted by bound: no later option can do better
			}
			if tries++; tries > budget {
				return errBudget
			}
			if tries%4096 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			c := o.e.cand
			step := activation.Step{FromNode: b.node(v), Edge: c.Edge, ToNode: c.NeighborNode, Weight: activation.EffectiveWeight(c.Edge),
				Activation: t, Degree: c.Degree, TagSim: c.TagSim, TransferEnergy: o.t}
			onPath[o.e.to] = true
			ids, steps = append(ids, o.e.to), append(steps, step)
			err := dfs(seed, o.e.to, o.t)
			ids, steps = ids[:len(ids)-1], steps[:len(steps)-1]
			delete(onPath, o.e.to)
			if err != nil {
				return err
			}
		}
		return nil
	}
	for _, i := range b.seedIdx {
		s := b.seeds[i]
		onPath[s.NodeID] = true
		ids = []string{s.NodeID}
		err := dfs(i, s.NodeID, s.Score)
		delete(onPath, s.NodeID)
		if errors.Is(err, errBudget) {
			if best == nil {
				return nil, false, fmt.Errorf("why: %q is within %d hops of a seed, but no route to it was found in %d tries (the search budget)", target, b.maxDepth, budget)
			}
			return best, false, nil
		}
		if err != nil {
			return nil, false, err
		}
	}
	return best, true, nil
}

// node returns a ball node.
func (b *refBall) node(id string) graph.Node {
	if n, ok := b.nodes[id]; ok {
		return n
	}
	return graph.Node{ID: id}
}
