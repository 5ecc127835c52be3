package tui

import (
	"context"
	"errors"
	"math"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/oninmem"
)

// fakeSource is the real demo graph (testdata/demo.jsonl through inmem)
// with hooks for the tests: hold a run between levels, hold filtered node
// searches, make the backend panic, count catalog calls. It reports what
// it holds (state, changed), so the harness settles on explicit events
// rather than on a quiet period.
type fakeSource struct {
	graph.Source
	// backend is the same graph as the retriever reaches it (oninmem); Open
	// wraps its expanders with the hooks.
	backend activation.Backend

	// panicOn makes FetchSeed panic for that id.
	panicOn string
	// listCalls counts ListNodes calls.
	listCalls atomic.Int32

	mu sync.Mutex
	// runs, when set (holdRuns), holds every expansion: a test can stop a
	// run at any depth. lists, when set (holdLists), holds every filtered
	// ListNodes (filter != "").
	runs, lists *gate
	open        int               // expanders opened and not yet released
	calls       []*listCall       // every ListNodes call, in order
	failNext    int               // ListNodes calls still to fail (failLists)
	opens       []context.Context // the context of every Open, in order
	// changed receives, without blocking, whenever what the fake holds
	// changes.
	changed chan struct{}
}

// gate holds callers until the test lets them through. Letting a caller
// through takes it out of waiting at once, under the fake's lock, so the
// harness never counts as held a caller that is already on its way.
type gate struct {
	open    bool
	tokens  int // passes granted before anyone waited
	waiting map[*waiter]bool
}

// waiter is a caller held at a gate: for an expansion its seed and the
// expansion it is about to run (0 for level 1, so the model has seen depth
// levels of it).
type waiter struct {
	pass  chan struct{}
	ctx   context.Context
	seed  string
	depth int
}

// listCall is one ListNodes call.
type listCall struct {
	filter string
	ctx    context.Context
}

func loadDemo(t testing.TB) *fakeSource {
	t.Helper()
	g, err := inmem.LoadFile("../testdata/demo.jsonl")
	if err != nil {
		t.Fatalf("demo graph: %v", err)
	}
	return &fakeSource{Source: g, backend: oninmem.New(g), changed: make(chan struct{}, 1)}
}

// update changes the fake's state under its lock and signals changed.
func (s *fakeSource) update(f func()) {
	s.mu.Lock()
	f()
	s.mu.Unlock()
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

// holdRuns makes every expansion wait for stepRun or openRuns.
func (s *fakeSource) holdRuns() { s.runs = &gate{waiting: map[*waiter]bool{}} }

// errFakeList is the failure of a ListNodes call made to fail (failLists).
var errFakeList = errors.New("fake: catalog unavailable")

// failLists makes the next n ListNodes calls fail with errFakeList.
func (s *fakeSource) failLists(n int) { s.update(func() { s.failNext = n }) }

// holdLists makes every filtered ListNodes wait for openLists.
func (s *fakeSource) holdLists() { s.lists = &gate{waiting: map[*waiter]bool{}} }

// stepRun lets one expansion through (now, or the next to arrive).
func (s *fakeSource) stepRun() {
	s.update(func() {
		for w := range s.runs.waiting {
			delete(s.runs.waiting, w)
			close(w.pass)
			return
		}
		s.runs.tokens++
	})
}

// openRuns lets every expansion through from now on.
func (s *fakeSource) openRuns() { s.update(func() { s.runs.openAll() }) }

// openLists lets every ListNodes through from now on.
func (s *fakeSource) openLists() { s.update(func() { s.lists.openAll() }) }

func (g *gate) openAll() {
	g.open = true
	for w := range g.waiting {
		delete(g.waiting, w)
		close(w.pass)
	}
}

// wait holds w at g (nil: no gate) until it is let through or its context
// ends.
func (s *fakeSource) wait(g *gate, w *waiter) error {
	if g == nil {
		return nil
	}
	held := false
	s.update(func() {
		switch {
		case g.open:
		case g.tokens > 0:
			g.tokens--
		default:
			w.pass = make(chan struct{})
			g.waiting[w] = true
			held = true
		}
	})
	if !held {
		return nil
	}
	select {
	case <-w.pass:
		return nil
	case <-w.ctx.Done():
		s.update(func() { delete(g.waiting, w) })
		return w.ctx.Err()
	}
}

// fakeState is a snapshot of what the fake holds. Callers whose context
// has ended are left out: they are about to return.
type fakeState struct {
	open      int      // expanders open
	held      []waiter // expansions held
	runTokens int      // expansions let through before they arrived
	lists     int      // filtered ListNodes held
}

func (s *fakeSource) state() fakeState {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := fakeState{open: s.open}
	if s.runs != nil {
		st.runTokens = s.runs.tokens
		for w := range s.runs.waiting {
			if w.ctx.Err() == nil {
				st.held = append(st.held, *w)
			}
		}
	}
	if s.lists != nil {
		for w := range s.lists.waiting {
			if w.ctx.Err() == nil {
				st.lists++
			}
		}
	}
	return st
}

// openContexts returns the context of every Open so far, in order.
func (s *fakeSource) openContexts() []context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]context.Context{}, s.opens...)
}

// filteredCalls returns the ListNodes calls made with filter != "".
func (s *fakeSource) filteredCalls() []*listCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*listCall
	for _, c := range s.calls {
		if c.filter != "" {
			out = append(out, c)
		}
	}
	return out
}

func (s *fakeSource) Open(ctx context.Context) (activation.Expander, func(context.Context) error, error) {
	c, release, err := s.backend.Open(ctx)
	if err != nil {
		return nil, nil, err
	}
	s.update(func() { s.open++; s.opens = append(s.opens, ctx) })
	rel := func(ctx context.Context) error {
		defer s.update(func() { s.open-- })
		return release(ctx)
	}
	return &hookedConn{Expander: c, s: s}, rel, nil
}

func (s *fakeSource) ListNodes(ctx context.Context, filter string, offset, limit int) ([]graph.NodeSummary, bool, error) {
	s.listCalls.Add(1)
	fail := false
	s.update(func() {
		s.calls = append(s.calls, &listCall{filter: filter, ctx: ctx})
		if s.failNext > 0 {
			s.failNext--
			fail = true
		}
	})
	if fail {
		return nil, false, errFakeList
	}
	if filter != "" {
		if err := s.wait(s.lists, &waiter{ctx: ctx}); err != nil {
			return nil, false, err
		}
	}
	return s.Source.ListNodes(ctx, filter, offset, limit)
}

// hookedConn is one seed's expander (the retriever opens one per seed and
// uses it from one goroutine).
type hookedConn struct {
	activation.Expander
	s          *fakeSource
	seed       string
	expansions int
}

func (c *hookedConn) FetchSeed(ctx context.Context, id string) (graph.Node, bool, error) {
	c.seed = id
	if c.s.panicOn != "" && id == c.s.panicOn {
		panic("fake backend exploded")
	}
	return c.Expander.FetchSeed(ctx, id)
}

func (c *hookedConn) ExpandFrontier(ctx context.Context, req activation.ExpandRequest) ([]activation.Candidate, error) {
	if err := c.s.wait(c.s.runs, &waiter{ctx: ctx, seed: c.seed, depth: c.expansions}); err != nil {
		return nil, err
	}
	c.expansions++
	return c.Expander.ExpandFrontier(ctx, req)
}

// ExpandTrace is ExpandFrontier's hooks around the engine's trace (the
// memory engine is an activation.Tracer, as in production).
func (c *hookedConn) ExpandTrace(ctx context.Context, req activation.ExpandRequest, k int) (activation.Expansion, error) {
	if err := c.s.wait(c.s.runs, &waiter{ctx: ctx, seed: c.seed, depth: c.expansions}); err != nil {
		return activation.Expansion{}, err
	}
	c.expansions++
	return c.Expander.(activation.Tracer).ExpandTrace(ctx, req, k)
}

var (
	_ graph.Source       = (*fakeSource)(nil)
	_ activation.Backend = (*fakeSource)(nil)
)

// near reports whether a and b agree to 1e-9 (for hand-computed values).
func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// Fingerprint is the wrapped graph's (the embedded engine fingerprints its
// content): saved experiments record it.
func (s *fakeSource) Fingerprint(ctx context.Context) (graph.Fingerprint, error) {
	if f, ok := s.Source.(graph.Fingerprinter); ok {
		return f.Fingerprint(ctx)
	}
	return graph.Fingerprint{Source: s.Describe()}, nil
}
