package activation

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/retry"
	"github.com/memoria-graph/memoria/retriever"
)

// EventKind tells which part of an Event is set.
type EventKind int

const (
	// EventSeed: the seed was fetched (SeedNode set) and exploration begins.
	EventSeed EventKind = iota + 1
	// EventLevel: one BFS level finished (Level set).
	EventLevel
	// EventResult: the seed's exploration finished (Result set). It is the
	// seed's last event.
	EventResult
)

// LevelEvent describes one BFS level of one seed.
type LevelEvent struct {
	// Depth is the depth of the nodes this level reached: 1 for the seed's
	// neighbours.
	Depth int `json:"depth"`
	// Outcomes lists every above-threshold candidate in claim order with its fate.
	Outcomes []Outcome `json:"outcomes"`
	// Completed holds the paths that ended at this level because their last
	// node kept nothing.
	Completed []Path `json:"completed"`
	// FrontierSize is the size of the next frontier.
	FrontierSize int `json:"frontier_size"`
	// NearMisses and Tallies account for the rest of each frontier node's
	// neighbours (Expansion); empty unless the expander is a Tracer.
	NearMisses []Candidate      `json:"near_misses,omitempty"`
	Tallies    map[string]Tally `json:"tallies,omitempty"`
}

// Event is one message of an exploration's stream.
type Event struct {
	Kind EventKind
	// SeedIndex is the seed's position in the Explore call.
	SeedIndex int
	Seed      retriever.Seed
	SeedNode  *graph.Node
	Level     *LevelEvent
	Result    *Result
	// Elapsed is the time since the seed's exploration began.
	Elapsed time.Duration
}

// Retriever explores seeds over a Backend.
type Retriever struct {
	backend Backend
	params  Params
	opts    Options
}

// New returns a retriever over backend, or the parameters' and options'
// errors.
func New(backend Backend, params Params, opts Options) (*Retriever, error) {
	if backend == nil {
		return nil, errors.New("retriever: no backend")
	}
	if err := errors.Join(params.Validate(), opts.Validate()); err != nil {
		return nil, err
	}
	return &Retriever{backend: backend, params: params, opts: opts}, nil
}

// Explore explores every seed in its own goroutine and streams events: for
// each seed an EventSeed (when found), one EventLevel per depth, and finally
// its EventResult, delivered as soon as that seed finishes. The channel is
// closed when every seed is done. A failing seed reports an error result and
// the others go on. Cancelling ctx stops all work; events not yet delivered
// are then dropped, and the channel is still closed once every goroutine
// has returned, so a consumer that stops reading must cancel ctx.
func (g *Retriever) Explore(ctx context.Context, seeds []retriever.Seed, queryTags []string) (<-chan Event, error) {
	if err := retriever.ValidateSeeds(seeds); err != nil {
		return nil, err
	}
	tags := retriever.NormalizeTags(queryTags)
	out := make(chan Event, 16)
	// Every seed's expander is opened before any exploration starts, so a
	// backend that sends the queries of one run's explorations together
	// (onneo4j) knows from the start how many to wait for.
	conns := make([]opened, len(seeds))
	for i := range conns {
		conns[i].conn, conns[i].release, conns[i].err = g.backend.Open(ctx)
	}
	var wg sync.WaitGroup
	for i, seed := range seeds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			emit := func(ev Event) bool {
				ev.SeedIndex, ev.Seed = i, seed
				select {
				case out <- ev:
					return true
				case <-ctx.Done():
					return false
				}
			}
			start := time.Now()
			res := g.exploreSeed(ctx, conns[i], seed, tags, func(ev Event) { ev.Elapsed = time.Since(start); emit(ev) })
			emit(Event{Kind: EventResult, Result: &res, Elapsed: time.Since(start)})
		}()
	}
	go func() { wg.Wait(); close(out) }()
	return out, nil
}

// ExploreAll runs Explore and collects the results in seed order. It returns
// ctx's error if the context ends first.
func (g *Retriever) ExploreAll(ctx context.Context, seeds []retriever.Seed, queryTags []string) ([]Result, error) {
	ch, err := g.Explore(ctx, seeds, queryTags)
	if err != nil {
		return nil, err
	}
	results := make([]Result, len(seeds))
	for ev := range ch {
		if ev.Kind == EventResult {
			results[ev.SeedIndex] = *ev.Result
		}
	}
	// A cancelled run may still deliver some results (cancelled ones
	// included); the context's error says the set is not to be trusted.
	if err := ctx.Err(); err != nil {
		return results, err
	}
	return results, nil
}

// opened is what Backend.Open returned for one seed.
type opened struct {
	conn    Expander
	release func(context.Context) error
	err     error
}

// exploreSeed explores one seed synchronously over its opened expander
// (which it releases), calling emit (if not nil) for its EventSeed and
// EventLevel events, and returns its result. queryTags must be normalised.
func (g *Retriever) exploreSeed(ctx context.Context, o opened, seed retriever.Seed, queryTags []string, emit func(Event)) (res Result) {
	if emit == nil {
		emit = func(Event) {}
	}
	res = Result{Seed: seed, Paths: []Path{}}
	fail := func(err error) Result {
		if ctx.Err() != nil {
			res.TerminatedReason = TerminatedCancelled
			return res
		}
		res.TerminatedReason, res.Error = TerminatedError, err.Error()
		return res
	}

	conn, release, err := o.conn, o.release, o.err
	if err != nil {
		return fail(err)
	}
	defer func() {
		if err := release(context.WithoutCancel(ctx)); err != nil && res.Error == "" && res.TerminatedReason != TerminatedCancelled {
			res.TerminatedReason, res.Error = TerminatedError, fmt.Sprintf("closing the connection: %v", err)
		}
	}()

	var (
		seedNode graph.Node
		found    bool
	)
	err = g.retry(ctx, func() (err error) {
		seedNode, found, err = conn.FetchSeed(ctx, seed.NodeID)
		return err
	})
	if err != nil {
		return fail(err)
	}
	if !found {
		res.TerminatedReason = TerminatedSeedNotFound
		return res
	}
	res.SeedNode = &seedNode
	emit(Event{Kind: EventSeed, SeedNode: &seedNode})

	state := newTraversalState(g.params.MaxBranches, seedNode)
	frontier := state.InitialFrontier(seed.Score)
	var completed []Path
	finish := func(reason Termination) Result {
		sortPathsTreeOrder(completed)
		if completed != nil {
			res.Paths = completed
		}
		for _, p := range completed {
			res.MaxDepthReached = max(res.MaxDepthReached, p.Len())
		}
		res.TerminatedReason = reason
		return res
	}

	for depth := 0; depth < g.params.MaxDepth && len(frontier) > 0; depth++ {
		req := ExpandRequest{
			Frontier:      buildFrontierInputs(frontier),
			Visited:       state.Visited(),
			QueryTags:     queryTags,
			MinActivation: g.params.MinActivation,
			TagSimFloor:   g.params.TagSimFloor,
		}
		var x Expansion
		err := g.retry(ctx, func() (err error) {
			x, err = expand(ctx, conn, req, g.opts.NearMisses)
			return err
		})
		cands := x.Candidates
		if err == nil {
			err = checkFinite(cands)
		}
		if err != nil {
			// Paths still growing are not complete; keep only those that are.
			fail(err)
			return finish(res.TerminatedReason)
		}
		up := state.SelectNextFrontier(frontier, groupByParent(cands), x)
		completed = append(completed, up.Completed...)
		frontier = up.Next
		emit(Event{Kind: EventLevel, Level: &LevelEvent{
			Depth: depth + 1, Outcomes: up.Outcomes, Completed: up.Completed, FrontierSize: len(up.Next),
			NearMisses: x.NearMisses, Tallies: x.Tallies,
		}})
	}
	if len(frontier) == 0 {
		return finish(TerminatedFrontierExhausted)
	}
	completed = append(completed, finalizeRemaining(frontier)...)
	return finish(TerminatedMaxDepth)
}

// expand runs one level: traced when the expander is a Tracer, else
// ExpandFrontier alone (no near misses, no tallies).
func expand(ctx context.Context, conn Expander, req ExpandRequest, nearMisses int) (Expansion, error) {
	if t, ok := conn.(Tracer); ok {
		if nearMisses == 0 {
			nearMisses = DefaultNearMisses
		}
		return t.ExpandTrace(ctx, req, nearMisses)
	}
	cands, err := conn.ExpandFrontier(ctx, req)
	return Expansion{Candidates: cands}, err
}

// checkFinite refuses a candidate whose transfer energy is not a finite
// number (weights near the largest double overflow a hop or two later): it
// would poison every comparison after it and cannot be written as JSON.
// The error names the edge and the arithmetic (docs/ALGORITHM.md rule 1).
func checkFinite(cands []Candidate) error {
	for _, c := range cands {
		if t := c.TransferEnergy; math.IsInf(t, 0) || math.IsNaN(t) {
			return fmt.Errorf("edge %q → %q (%s): transfer energy T = R × w / √d × tag_sim = %g × %g / √%d × %g is not a finite number",
				c.ParentID, c.NeighborNode.ID, c.Edge.Type, c.Activation, EffectiveWeight(c.Edge), c.Degree, c.TagSim)
		}
	}
	return nil
}

// retry runs fn through the one retry loop (internal/retry) with the run's
// options.
func (g *Retriever) retry(ctx context.Context, fn func() error) error {
	return retry.Do(ctx, g.opts.MaxRetries, g.opts.Backoff, fn)
}
