// Package why answers "why is node X (not) in the result?" for the
// Activation Energy retriever (docs/ALGORITHM.md, "Why not X"): for the
// current seeds, query tags and thresholds it gives a verdict, kept (with
// its path) or unreachable, or else the route of highest final transfer
// energy within MAX_DEPTH hops and the first hop at which the real run
// parted from it: below_threshold, claimed, branch_limit or
// visited_earlier.
//
// It reads the graph only through activation.Backend and its Expander, the
// interface the retriever itself reads through, so it works alike on the
// embedded engine and on Neo4j (its snapshot included); the real run is a
// fresh activation.Retriever run, so the verdict can never disagree with
// `explore`.
package why

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/retry"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// Verdict is the answer's kind.
type Verdict string

// The verdicts of docs/ALGORITHM.md, "Why not X".
const (
	// Kept: the node is in a seed's result (a seed itself included); Route
	// is its path there.
	Kept Verdict = "kept"
	// Unreachable: no RELATES route of at most MAX_DEPTH hops joins it to
	// any seed that exists.
	Unreachable Verdict = "unreachable"
	// BelowThreshold: the best route's blocking hop has T ≤ MIN_ACTIVATION.
	BelowThreshold Verdict = "below_threshold"
	// Claimed: another parent took the hop's neighbour first at that level.
	Claimed Verdict = "claimed"
	// BranchLimit: the hop's parent had already kept MAX_BRANCHES.
	BranchLimit Verdict = "branch_limit"
	// VisitedEarlier: the hop's neighbour had been reached at an earlier
	// level by another route.
	VisitedEarlier Verdict = "visited_earlier"
)

// Config is one question.
type Config struct {
	Backend activation.Backend
	Params  activation.Params
	Options activation.Options
	Seeds   []retriever.Seed
	Tags    []string
	// NodeID is the node asked about.
	NodeID string
	// Budget bounds the search for the best route (routes tried); 0 means
	// DefaultBudget. When it runs out the answer is the best route found so
	// far, with Answer.Exact false.
	Budget int
}

// DefaultBudget is how many partial routes the search may try.
const DefaultBudget = 2_000_000

// UnknownNodeError is the error for a node id the graph does not have.
type UnknownNodeError struct{ ID string }

func (e UnknownNodeError) Error() string { return fmt.Sprintf("no node has the id %q", e.ID) }

// Answer is the verdict on one node.
type Answer struct {
	NodeID  string
	Verdict Verdict
	// Seed is the seed the route starts at (zero when unreachable).
	Seed retriever.Seed
	// Route is, for Kept, the node's path in the seed's result (empty when
	// the node is a seed); otherwise the route of highest final T, every
	// hop's numbers computed by rule 1 from the seed's R.
	Route []activation.Step
	// Blocking is the index in Route of the first hop where the real run
	// parted from the route; -1 for Kept and Unreachable.
	Blocking int
	// Params are the thresholds the question was asked with.
	Params activation.Params
	// ClaimedBy is, for Claimed, the candidate that took the neighbour.
	ClaimedBy *activation.Candidate
	// Siblings are, for BranchLimit, the parent's kept candidates at that
	// level (the ones that beat the hop, in claim order).
	Siblings []activation.Candidate
	// VisitedVia is, for VisitedEarlier, the real run's path to the hop's
	// neighbour, which reached it at an earlier level.
	VisitedVia []activation.Step
	// Exact is false when the search ran out of budget, so that a better
	// route may exist.
	Exact bool
	// SeedsNotFound are the ids of the seeds no node has, in seed order,
	// each once: they start no route.
	SeedsNotFound []string
}

// BlockingHop returns the blocking hop, or nil.
func (a Answer) BlockingHop() *activation.Step {
	if a.Blocking < 0 || a.Blocking >= len(a.Route) {
		return nil
	}
	return &a.Route[a.Blocking]
}

// Level is the level (1-based depth) of the blocking hop, 0 when none.
func (a Answer) Level() int { return a.Blocking + 1 }

// Explain answers the question: it runs the retriever as `explore` would,
// reads through one Expander the neighbourhoods a route of at most
// MAX_DEPTH hops from a seed to the node can pass through, from both ends
// (readRegion), finds the best route and walks it against the run. An id
// the graph does not have is an UnknownNodeError.
func Explain(ctx context.Context, cfg Config) (Answer, error) {
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

	g, err := readRegion(ctx, exp, do, cfg, tags, seeds)
	if err != nil {
		return Answer{}, err
	}
	budget := cfg.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	best, exact, err := g.bestRoute(ctx, cfg.Seeds, seeds, budget)
	if err != nil {
		return Answer{}, err
	}
	if best == nil {
		ans.Verdict = Unreachable
		return ans, nil
	}
	steps, err := g.steps(ctx, exp, do, best, seedNodes)
	if err != nil {
		return Answer{}, err
	}
	ans.Seed, ans.Route, ans.Exact = cfg.Seeds[best.seed], steps, exact
	if err := walk(&ans, runs[best.seed], cfg.Params); err != nil {
		return Answer{}, err
	}
	return ans, nil
}

// run is one seed's real exploration.
type run struct {
	levels []activation.LevelEvent // levels[d-1] has depth d
	result activation.Result
	// reached maps each node the run kept to the level that kept it and
	// the kept candidate (the seed is at depth 0 with no candidate).
	reached map[string]reach
}

type reach struct {
	depth int
	cand  activation.Candidate
}

// realRuns explores every seed as `explore` does and keeps each one's level
// events and result. A seed that ended in error makes the question
// unanswerable.
func realRuns(ctx context.Context, r *activation.Retriever, seeds []retriever.Seed, tags []string) ([]run, error) {
	ch, err := r.Explore(ctx, seeds, tags)
	if err != nil {
		return nil, err
	}
	runs := make([]run, len(seeds))
	for ev := range ch {
		switch ev.Kind {
		case activation.EventLevel:
			runs[ev.SeedIndex].levels = append(runs[ev.SeedIndex].levels, *ev.Level)
		case activation.EventResult:
			runs[ev.SeedIndex].result = *ev.Result
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i := range runs {
		res := runs[i].result
		switch res.TerminatedReason {
		case activation.TerminatedError:
			return nil, fmt.Errorf("seed %q: %s", seeds[i].NodeID, res.Error)
		case activation.TerminatedCancelled:
			return nil, context.Canceled
		}
		runs[i].reached = map[string]reach{seeds[i].NodeID: {}}
		for _, l := range runs[i].levels {
			for _, o := range l.Outcomes {
				if o.Fate == activation.FateKept {
					runs[i].reached[o.Candidate.NeighborNode.ID] = reach{depth: l.Depth, cand: o.Candidate}
				}
			}
		}
	}
	return runs, nil
}

// keptRoute finds id in the results: the seed whose path reaches it with the
// highest T (the first such seed on a tie) and that path up to it.
func keptRoute(runs []run, id string) (int, []activation.Step, bool) {
	bestSeed, bestT := -1, math.Inf(-1)
	var best []activation.Step
	for i, r := range runs {
		for _, p := range r.result.Paths {
			for k, s := range p.Steps {
				if s.ToNode.ID == id && (bestSeed < 0 || s.TransferEnergy > bestT) {
					bestSeed, bestT, best = i, s.TransferEnergy, slices.Clone(p.Steps[:k+1])
				}
			}
		}
	}
	return bestSeed, best, bestSeed >= 0
}

// walk sets the verdict: it follows the route hop by hop against the real
// run of its seed (docs/ALGORITHM.md, "Why not X"). Before hop i the route's
// first i-1 hops are the run's own path to the hop's parent (they were
// kept), so the parent was on the frontier of level i with the route's
// activation; hop i then parts from the run, in this order, when its
// neighbour was reached at an earlier level (visited_earlier), when its T
// is not above MIN_ACTIVATION (below_threshold), or when its candidate's
// fate at level i was claimed or branch_limit. A kept hop continues the
// walk.
func walk(ans *Answer, r run, ps activation.Params) error {
	for i, hop := range ans.Route {
		level := i + 1
		from, to := hop.FromNode.ID, hop.ToNode.ID
		if at, ok := r.reached[to]; ok && at.depth < level {
			ans.Verdict, ans.Blocking = VisitedEarlier, i
			ans.VisitedVia = r.pathTo(to)
			return nil
		}
		if !(hop.TransferEnergy > ps.MinActivation) {
			ans.Verdict, ans.Blocking = BelowThreshold, i
			return nil
		}
		if level > len(r.levels) {
			return fmt.Errorf("why: the run of %q has no level %d, though %q was on its frontier", ans.Seed.NodeID, level, from)
		}
		outs := r.levels[level-1].Outcomes
		var mine *activation.Outcome
		kept := false
		for k := range outs {
			o := &outs[k]
			if o.Candidate.ParentID != from || o.Candidate.NeighborNode.ID != to {
				continue
			}
			if o.Fate == activation.FateKept {
				kept = true
			}
			if mine == nil {
				mine = o
			}
		}
		switch {
		case kept:
			continue
		case mine == nil:
			return fmt.Errorf("why: level %d of %q's run has no candidate %q → %q, though its T %g is above MIN_ACTIVATION", level, ans.Seed.NodeID, from, to, hop.TransferEnergy)
		case mine.Fate == activation.FateClaimed:
			ans.Verdict, ans.Blocking = Claimed, i
			for _, o := range outs {
				if o.Fate == activation.FateKept && o.Candidate.NeighborNode.ID == to {
					c := o.Candidate
					ans.ClaimedBy = &c
				}
			}
			return nil
		case mine.Fate == activation.FateBranchLimit:
			ans.Verdict, ans.Blocking = BranchLimit, i
			for _, o := range outs {
				if o.Fate == activation.FateKept && o.Candidate.ParentID == from {
					ans.Siblings = append(ans.Siblings, o.Candidate)
				}
			}
			return nil
		default:
			return fmt.Errorf("why: candidate %q → %q at level %d has fate %q", from, to, level, mine.Fate)
		}
	}
	return fmt.Errorf("why: every hop of the route to %q was kept, yet no result holds it", ans.NodeID)
}

// pathTo is the run's path from its seed to id, through the kept
// candidates' parents.
func (r run) pathTo(id string) []activation.Step {
	var rev []activation.Candidate
	for at, ok := r.reached[id]; ok && at.depth > 0; at, ok = r.reached[at.cand.ParentID] {
		rev = append(rev, at.cand)
	}
	steps := make([]activation.Step, len(rev))
	for k := range rev {
		c := rev[len(rev)-1-k]
		from := graph.Node{ID: c.ParentID}
		if k > 0 {
			from = steps[k-1].ToNode
		} else if r.result.SeedNode != nil {
			from = *r.result.SeedNode
		}
		steps[k] = activation.StepFromCandidate(from, c)
	}
	return steps
}
