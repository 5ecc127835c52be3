package retriever

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
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
	Outcomes []CandidateOutcome `json:"outcomes"`
	// Completed holds the paths that ended at this level because their last
	// node kept nothing.
	Completed []GraphPath `json:"completed"`
	// FrontierSize is the size of the next frontier.
	FrontierSize int `json:"frontier_size"`
}

// Event is one message of an exploration's stream.
type Event struct {
	Kind EventKind
	// SeedIndex is the seed's position in the Explore call.
	SeedIndex int
	Seed      SeedInput
	SeedNode  *GraphNode
	Level     *LevelEvent
	Result    *RetrievalResult
	// Elapsed is the time since the seed's exploration began.
	Elapsed time.Duration
}

// GraphRetriever explores seeds over a Backend.
type GraphRetriever struct {
	backend Backend
	cfg     Config
	// backoff is the pause before retry attempt (0-based).
	backoff func(attempt int) time.Duration
}

// DefaultBackoff is the seed's 0.05 s × 2^attempt.
func DefaultBackoff(attempt int) time.Duration {
	return 50 * time.Millisecond << attempt
}

// Option adjusts a GraphRetriever.
type Option func(*GraphRetriever)

// WithBackoff replaces DefaultBackoff (tests use it to avoid waiting).
func WithBackoff(f func(attempt int) time.Duration) Option {
	return func(g *GraphRetriever) { g.backoff = f }
}

// New returns a retriever over backend, or the configuration's errors.
func New(backend Backend, cfg Config, opts ...Option) (*GraphRetriever, error) {
	if backend == nil {
		return nil, errors.New("retriever: no backend")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	g := &GraphRetriever{backend: backend, cfg: cfg, backoff: DefaultBackoff}
	for _, o := range opts {
		o(g)
	}
	return g, nil
}

// Config returns the retriever's configuration.
func (g *GraphRetriever) Config() Config { return g.cfg }

// Explore explores every seed in its own goroutine and streams events: for
// each seed an EventSeed (when found), one EventLevel per depth, and finally
// its EventResult, delivered as soon as that seed finishes. The channel is
// closed when every seed is done. A failing seed reports an error result and
// the others go on. Cancelling ctx stops all work; events not yet delivered
// are then dropped, and the channel is still closed once every goroutine
// has returned, so a consumer that stops reading must cancel ctx.
func (g *GraphRetriever) Explore(ctx context.Context, seeds []SeedInput, queryTags []string) (<-chan Event, error) {
	if err := ValidateSeeds(seeds); err != nil {
		return nil, err
	}
	tags := NormalizeTags(queryTags)
	out := make(chan Event, 16)
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
			res := g.ExploreSeed(ctx, seed, tags, func(ev Event) { ev.Elapsed = time.Since(start); emit(ev) })
			emit(Event{Kind: EventResult, Result: &res, Elapsed: time.Since(start)})
		}()
	}
	go func() { wg.Wait(); close(out) }()
	return out, nil
}

// ExploreAll runs Explore and collects the results in seed order. It returns
// ctx's error if the context ends first.
func (g *GraphRetriever) ExploreAll(ctx context.Context, seeds []SeedInput, queryTags []string) ([]RetrievalResult, error) {
	ch, err := g.Explore(ctx, seeds, queryTags)
	if err != nil {
		return nil, err
	}
	results := make([]RetrievalResult, len(seeds))
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

// ExploreSeed explores one seed synchronously, calling emit (if not nil) for
// its EventSeed and EventLevel events, and returns its result. queryTags
// must be normalised.
func (g *GraphRetriever) ExploreSeed(ctx context.Context, seed SeedInput, queryTags []string, emit func(Event)) (res RetrievalResult) {
	if emit == nil {
		emit = func(Event) {}
	}
	res = RetrievalResult{Seed: seed, Paths: []GraphPath{}}
	fail := func(err error) RetrievalResult {
		if ctx.Err() != nil {
			res.TerminatedReason = TerminatedCancelled
			return res
		}
		res.TerminatedReason, res.Error = TerminatedError, err.Error()
		return res
	}

	conn, release, err := g.backend.Open(ctx, g.cfg.Database)
	if err != nil {
		return fail(err)
	}
	defer func() {
		if err := release(context.WithoutCancel(ctx)); err != nil && res.Error == "" && res.TerminatedReason != TerminatedCancelled {
			res.TerminatedReason, res.Error = TerminatedError, fmt.Sprintf("closing the connection: %v", err)
		}
	}()

	var fetched SeedFetchResult
	err = g.retry(ctx, func() (err error) {
		fetched, err = conn.FetchSeed(ctx, seed.NodeID)
		return err
	})
	if err != nil {
		return fail(err)
	}
	if !fetched.Found || fetched.Node == nil {
		res.TerminatedReason = TerminatedSeedNotFound
		return res
	}
	res.SeedNode = fetched.Node
	emit(Event{Kind: EventSeed, SeedNode: fetched.Node})

	state := NewTraversalState(g.cfg.MaxBranches, *fetched.Node)
	frontier := state.InitialFrontier(seed.Score)
	var completed []GraphPath
	finish := func(reason string) RetrievalResult {
		SortPathsTreeOrder(completed)
		if completed != nil {
			res.Paths = completed
		}
		for _, p := range completed {
			res.MaxDepthReached = max(res.MaxDepthReached, p.Len())
		}
		res.TerminatedReason = reason
		return res
	}

	for depth := 0; depth < g.cfg.MaxDepth && len(frontier) > 0; depth++ {
		req := ExpandRequest{
			Frontier:      BuildFrontierInputs(frontier),
			Visited:       state.Visited(),
			QueryTags:     queryTags,
			MinActivation: g.cfg.MinActivation,
			TagSimFloor:   g.cfg.TagSimFloor,
		}
		var cands []ExpansionCandidate
		err := g.retry(ctx, func() (err error) {
			cands, err = conn.ExpandFrontier(ctx, req)
			return err
		})
		if err != nil {
			// Paths still growing are not complete; keep only those that are.
			fail(err)
			return finish(res.TerminatedReason)
		}
		up := state.SelectNextFrontier(frontier, GroupByParent(cands))
		completed = append(completed, up.Completed...)
		frontier = up.Next
		emit(Event{Kind: EventLevel, Level: &LevelEvent{
			Depth: depth + 1, Outcomes: up.Outcomes, Completed: up.Completed, FrontierSize: len(up.Next),
		}})
	}
	if len(frontier) == 0 {
		return finish(TerminatedFrontierExhausted)
	}
	completed = append(completed, FinalizeRemaining(frontier)...)
	return finish(TerminatedMaxDepth)
}

// retry calls fn until it succeeds, fails with an error not marked
// Transient, or has been retried MaxRetries times, pausing with exponential
// backoff in between. It gives up at once when ctx ends.
func (g *GraphRetriever) retry(ctx context.Context, fn func() error) error {
	for attempt := 0; ; attempt++ {
		err := fn()
		if err == nil || !IsTransient(err) || attempt >= g.cfg.MaxRetries || ctx.Err() != nil {
			return err
		}
		t := time.NewTimer(g.backoff(attempt))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}
