package tui

import (
	"context"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/tui/common"
	"github.com/memoria-graph/memoria/tui/components/params"
	"github.com/memoria-graph/memoria/tui/components/tree"
)

// runRef names one run: its retriever (the slot it belongs to) and its id
// in that slot. Every message of a run carries it, and the root drops a
// message whose run is not its slot's current one, so a late answer of
// either retriever is never shown (as gh-dash tells sections apart by id).
type runRef struct {
	retriever string
	id        int
}

// Messages of an Activation Energy run. Each carries the run it belongs to;
// the root drops those whose run is not its slot's current one.
type (
	runStartedMsg struct {
		id   runRef
		ch   <-chan activation.Event
		err  error
		held snapshotState // the snapshot's counters before the run (zero without one)
	}
	runEventMsg struct {
		id runRef
		ev activation.Event
	}
	runClosedMsg struct {
		id   runRef
		held snapshotState // the snapshot's counters after the run (zero without one)
	}
)

// runner owns the runs: one slot per retriever, what runs Activation
// Energy (its backend and options, the snapshot's counters), the graph
// reads of the others (nb: nil when only Activation Energy can run here;
// unfiltered and filter: Options.Unfiltered and Options.Filter), the read
// of a ranked hit's context, and the baselines a run is compared with
// (prev the last complete run before the current one, pinned the run the
// analyst pinned: each run is compared with pinned, else prev).
type runner struct {
	slots      map[string]*runSlot
	backend    activation.Backend
	opts       activation.Options
	held       func() snapshotState // the snapshot's counters (nil: no snapshot)
	nb         graph.Neighbourhood
	unfiltered graph.Neighbourhood
	filter     string
	hitCtx     hitContextRead
	prev       *tree.Baseline
	pinned     *tree.Baseline
}

func newRunner(backend activation.Backend, opts activation.Options, nb, unfiltered graph.Neighbourhood, filter string, pinned, saved *tree.Baseline) *runner {
	r := &runner{slots: map[string]*runSlot{}, backend: backend, opts: opts, held: heldFunc(backend),
		nb: nb, unfiltered: unfiltered, filter: filter, pinned: pinned, prev: saved}
	for _, name := range CompareRetrievers() {
		r.slots[name] = &runSlot{name: name}
	}
	return r
}

// stop cancels every retriever's run in flight and the read of a hit's
// context, if any.
func (r *runner) stop() {
	for _, s := range r.slots {
		s.stop()
	}
	r.hitCtx.stop()
}

// runReply is the envelope of every reply of a run's background work
// (runStartedMsg, runEventMsg, runClosedMsg, rankingMsg): the run it
// answers, by slot (the retriever's name) and id, and what applying it
// does. The root routes every one the same way (runner.route): a reply
// whose run is not its slot's current one is dropped, so a superseded run
// is never shown; the others apply themselves to their slot.
type runReply interface {
	tea.Msg
	run() runRef
	apply(m *Model, s *runSlot) tea.Cmd
}

// route drops r when its run is not its slot's current one, else applies
// it.
func (r *runner) route(m *Model, reply runReply) tea.Cmd {
	s, ok := r.slots[reply.run().retriever]
	if !ok || !s.current(reply.run()) {
		return nil // a superseded run: never shown
	}
	return reply.apply(m, s)
}

func (msg runStartedMsg) run() runRef { return msg.id }
func (msg runEventMsg) run() runRef   { return msg.id }
func (msg runClosedMsg) run() runRef  { return msg.id }

// apply starts reading the run's events, or shows why it could not start.
func (msg runStartedMsg) apply(m *Model, s *runSlot) tea.Cmd {
	if s.name != activation.Name {
		return nil
	}
	if msg.err != nil {
		s.err = msg.err
		m.refreshIfComparing()
		for _, st := range s.trees.Seeds {
			st.State, st.Err = tree.SeedFailed, msg.err.Error()
		}
		s.trees.Version++
		m.afterTreeChange(false)
		return common.NotifyErr(msg.err)
	}
	s.ch, s.heldBefore = msg.ch, msg.held
	return nextEventCmd(msg.id, msg.ch, m.runs.held)
}

// apply grows the trees by one event and reads the next.
func (msg runEventMsg) apply(m *Model, s *runSlot) tea.Cmd {
	if s.name != activation.Name || s.ch == nil {
		return nil // stopped: its events are no longer read
	}
	s.trees.Apply(msg.ev)
	m.afterTreeChange(false)
	return nextEventCmd(msg.id, s.ch, m.runs.held)
}

// apply ends the run; on a snapshot it says what the run read.
func (msg runClosedMsg) apply(m *Model, s *runSlot) tea.Cmd {
	if s.name != activation.Name {
		return nil
	}
	s.stop()
	m.refreshIfComparing()
	if m.runs.held != nil {
		return common.Notify(snapshotStatus(s.heldBefore, msg.held, m.Now(), m.KM.Reread.Help().Key))
	}
	return nil
}

// runSlot is the state of one retriever's run: the one in flight, or the
// last one once it ended. The runner holds one per retriever (runner.slots,
// keyed by name); its messages carry the slot's name and id (runRef), and
// a message whose run is not the slot's current one is dropped (a
// superseded run is never shown).
type runSlot struct {
	name   string             // the retriever (its name in the registry)
	id     int                // the current run's id; each start takes the next
	cancel context.CancelFunc // cancels the run in flight (nil when none)
	// seedsV and tagsV are the versions of the seeds and tags the current
	// run was started from (started: there was one).
	seedsV, tagsV int
	started       bool

	// Activation Energy's run: the event stream and its trees.
	ch    <-chan activation.Event
	trees *tree.Trees // the run's trees (nil: no seeds)
	// cfg and tags are the thresholds and the (normalised) tags the run
	// was started with.
	cfg  activation.Params
	tags []string
	// heldBefore is the snapshot's counters when the run started.
	heldBefore snapshotState

	// A ranking retriever's run: its parameters, and once it answered its
	// ranking or its error; loading while it runs.
	params  params.Set
	ranking *retriever.Ranking
	err     error
	loading bool
}

// ref is the slot's current run.
func (s *runSlot) ref() runRef { return runRef{retriever: s.name, id: s.id} }

// current reports whether r is the slot's current run.
func (s *runSlot) current(r runRef) bool { return r == s.ref() }

// stop cancels the run in flight, if any; its events are no longer read.
func (s *runSlot) stop() {
	if s.cancel != nil {
		s.cancel()
		s.cancel = nil
	}
	s.ch = nil
	s.loading = false
}

// startRunCmd builds the retriever and starts Explore inside the command,
// never in Update. It captures only values copied by the caller.
// held (nil unless the backend is a snapshot) reads the snapshot's counters
// before the run starts.
func startRunCmd(ctx context.Context, id runRef, backend activation.Backend, held func() snapshotState, cfg activation.Params, opts activation.Options, seeds []retriever.Seed, tags []string) tea.Cmd {
	return common.SafeCmd(func() tea.Msg {
		var before snapshotState
		if held != nil {
			before = held()
		}
		r, err := activation.New(safeBackend{backend}, cfg, opts)
		if err != nil {
			return runStartedMsg{id: id, err: err}
		}
		ch, err := r.Explore(ctx, seeds, tags)
		return runStartedMsg{id: id, ch: ch, err: err, held: before}
	})
}

// nextEventCmd reads one event from a run's channel. The root re-arms it
// after each event of the current run. When the channel closes it reads
// the snapshot's counters (held, if not nil) for the status line.
func nextEventCmd(id runRef, ch <-chan activation.Event, held func() snapshotState) tea.Cmd {
	return common.SafeCmd(func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			var after snapshotState
			if held != nil {
				after = held()
			}
			return runClosedMsg{id: id, held: after}
		}
		return runEventMsg{id: id, ev: ev}
	})
}

// safeBackend wraps a Backend so that a panic inside the retriever's
// goroutines (in Open or a connector call) becomes an error instead of
// killing the program with the terminal in raw mode.
type safeBackend struct{ activation.Backend }

func recovered(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("backend panic: %v", r)
	}
}

func (s safeBackend) Open(ctx context.Context) (c activation.Expander, release func(context.Context) error, err error) {
	defer recovered(&err)
	c, release, err = s.Backend.Open(ctx)
	if err != nil {
		return nil, nil, err
	}
	rel := release
	release = func(ctx context.Context) (err error) {
		defer recovered(&err)
		return rel(ctx)
	}
	if t, ok := c.(activation.Tracer); ok {
		return safeTracer{safeConn{c}, t}, release, nil
	}
	return safeConn{c}, release, nil
}

type safeConn struct{ c activation.Expander }

// safeTracer keeps an engine's traces (activation.Tracer) behind the same
// recovery.
type safeTracer struct {
	safeConn
	t activation.Tracer
}

func (s safeTracer) ExpandTrace(ctx context.Context, req activation.ExpandRequest, k int) (x activation.Expansion, err error) {
	defer recovered(&err)
	return s.t.ExpandTrace(ctx, req, k)
}

func (s safeConn) FetchSeed(ctx context.Context, id string) (n graph.Node, ok bool, err error) {
	defer recovered(&err)
	return s.c.FetchSeed(ctx, id)
}

func (s safeConn) ExpandFrontier(ctx context.Context, req activation.ExpandRequest) (c []activation.Candidate, err error) {
	defer recovered(&err)
	return s.c.ExpandFrontier(ctx, req)
}

// ExpandNear keeps the engine's own ExpandNear (activation.NearExpander),
// which `why` reads through, behind the same recovery.
func (s safeConn) ExpandNear(ctx context.Context, req activation.ExpandRequest, near activation.Near) (c []activation.Candidate, err error) {
	defer recovered(&err)
	return activation.ExpandNear(ctx, s.c, req, near)
}

// UnitWeights keeps the engine's answer (activation.UnitWeigher), which
// lets why stop reading early, behind the same recovery; an engine that
// cannot tell says false.
func (s safeConn) UnitWeights(ctx context.Context) (ok bool, err error) {
	defer recovered(&err)
	if u, is := s.c.(activation.UnitWeigher); is {
		return u.UnitWeights(ctx)
	}
	return false, nil
}
