package sweep

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// Config is one sweep: the retriever's backend, options and base
// thresholds, the seeds and query tags, the parameter and its values.
type Config struct {
	Backend activation.Backend
	// Params are the thresholds; Param's value in them is the current
	// value, which is always a point of the sweep.
	Params  activation.Params
	Options activation.Options
	Seeds   []retriever.Seed
	Tags    []string
	Param   Param
	// Values are the values asked for (any order; duplicates dropped).
	Values []float64
	// Breakpoints adds, for MIN_ACTIVATION, the exact breakpoints between
	// the lowest and the highest value, nearest the current value first
	// (see Run), within MaxPoints and Budget.
	Breakpoints bool
	// MaxPoints caps the explorations spent looking for breakpoints (each
	// adds at most one point); 0 means DefaultMaxPoints.
	MaxPoints int
	// Budget caps the time spent looking for breakpoints, counted from the
	// end of the values asked; 0 means none. It does not stop the search
	// before the decade around the current value is exact (Decade).
	Budget time.Duration
	// Progress, when set, receives a snapshot of the sweep so far: after
	// the current value, after each value asked and after each stretch of
	// breakpoints. Run calls it from its own goroutine, one call at a time;
	// the snapshot belongs to the callee.
	Progress func(*Sweep)
	// Workers is how many seeds are explored at once (0: the number of
	// CPUs, at most the number of seeds).
	Workers int
}

// DefaultBudget is the time `memoria sweep` spends looking for
// breakpoints unless --budget says otherwise: enough to make the default
// range exact on the 1M-edge benchmark graph (docs/PERFORMANCE.md), short
// enough that the command stays interactive on any graph; the decade
// around the current value is made exact whatever it is (Decade).
const DefaultBudget = 1500 * time.Millisecond

// Decade is how far around the current value (a factor on each side) a
// MIN_ACTIVATION sweep with breakpoints is always made exact, within the
// range, whatever its Budget: [current/10, current×10]. Only MaxPoints
// stops the search before that; the budget then counts on beyond it.
const Decade = 10

// DefaultMaxPoints is the default cap on the explorations a sweep spends
// on breakpoints.
const DefaultMaxPoints = 20_000

// Point is one value of the sweep and its totals over the seeds.
type Point struct {
	Value float64
	// Breakpoint: the sweep added the value (a value where the result
	// changes: it differs just below it), it was not asked for.
	Breakpoint bool
	Totals     Totals
}

// Failure is a seed that ended in error at a value.
type Failure struct {
	Value  float64
	SeedID string
	Error  string
}

// Sweep is a sweep, finished (Done) or a snapshot of one in progress.
// It keeps, per point, the totals and, per seed, a reference to the
// exploration whose result holds there; per exploration only its totals,
// its nodes and a fingerprint, never the whole result, so its memory does
// not grow with points × result size. Replay gives every point's results.
type Sweep struct {
	Param   Param
	Current float64
	// From and To are the lowest and the highest value asked (the current
	// value included).
	From, To float64
	// Points are ascending by value.
	Points []Point
	// ExactFrom and ExactUntil bound the part of the range where the
	// points include every breakpoint: for every v with ExactFrom ≤ v <
	// ExactUntil (and v ≤ To), the result at v is the result of the highest
	// point ≤ v. ExactUntil ≤ ExactFrom when no part is exact (another
	// parameter, or no breakpoints asked).
	ExactFrom, ExactUntil float64
	// Stopped says why the search for breakpoints stopped before the whole
	// range was exact ("" when it did not stop early).
	Stopped string
	// Explorations counts the explorations of one seed at one value run so
	// far.
	Explorations int
	// Failures lists the seeds that ended in error at a point.
	Failures []Failure
	// Done is false on a snapshot of a sweep still running.
	Done    bool
	Elapsed time.Duration

	cfg   Config
	steps [][]*step // per point, per seed
}

// Exact reports whether the whole range is exact.
func (s *Sweep) Exact() bool {
	return s.HasExact() && s.ExactFrom <= s.From && s.ExactUntil > s.To
}

// HasExact reports whether some part of the range is exact.
func (s *Sweep) HasExact() bool { return s.ExactUntil > s.ExactFrom }

// ExactTo is the highest value of the exact part that lies in the range:
// ExactUntil (exclusive) or To.
func (s *Sweep) ExactTo() float64 { return min(s.ExactUntil, s.To) }

// Run sweeps: it explores every seed at the current value and at each value
// asked, then (MIN_ACTIVATION with Breakpoints) adds the breakpoints,
// nearest the current value first and outward in both directions, until
// the range is exact or MaxPoints or Budget is spent (Budget only once
// [current/Decade, current×Decade] is exact); the returned Sweep says
// which part is exact.
//
// A seed is explored on its own, and a point never explores a seed whose
// result it already knows: a run of the seed at u saw candidates (all
// above u), and next is the lowest T among them whose dropping changes
// the run (changeAt: a kept candidate's, or a parent's last when it kept
// nothing). A candidate is kept only if T > MIN_ACTIVATION
// (docs/ALGORITHM.md rule 3), so at any v with u ≤ v < next the run drops
// only losers, decides as at u, and its result is the one at u. So the
// seed's result is a step function of MIN_ACTIVATION whose steps are found
// one exploration each by following next upward: exploring from a value x
// and following next until it passes y gives every value in [x, y] where
// the seed's result can change. Run does that for every seed in parallel,
// in stretches: upward from the top of the exact part, and downward by
// exploring a value below it and following next up to it. A value where a
// seed's result really changes (its fingerprint differs from the one just
// below) is a breakpoint point.
func Run(ctx context.Context, cfg Config) (*Sweep, error) {
	if len(cfg.Values) == 0 {
		return nil, errors.New("sweep: no values")
	}
	if err := retriever.ValidateSeeds(cfg.Seeds); err != nil {
		return nil, err
	}
	if cfg.Backend == nil {
		return nil, errors.New("sweep: no backend")
	}
	cur := cfg.Param.Get(cfg.Params)
	values := append(slices.Clone(cfg.Values), cur)
	slices.Sort(values)
	values = slices.Compact(values)
	for _, v := range values {
		if _, err := cfg.Param.Set(cfg.Params, v); err != nil {
			return nil, fmt.Errorf("sweep: value %v: %w", v, err)
		}
	}
	e := newEngine(cfg, values)
	return e.run(ctx)
}

// engine is one sweep's state: per seed, the steps found so far.
type engine struct {
	cfg     Config
	memos   []*memo // per seed
	tags    []string
	asked   []float64 // ascending; the current value included
	cur     float64
	seeds   [][]*step // per seed, ascending by from
	workers int
	start   time.Time

	// The breakpoint budget. The deadline applies once the decade
	// around the current value is exact (timed).
	left     int
	deadline time.Time
	timed    bool

	// The exact part: [lo, min(reach)).
	lo, hi   float64
	reach    []float64
	hasExact bool
	stopped  string
	failures []Failure
	explored int
	mu       sync.Mutex // guards left and explored, which the seeds' goroutines share
}

func newEngine(cfg Config, values []float64) *engine {
	n := len(cfg.Seeds)
	w := cfg.Workers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	left := cfg.MaxPoints
	if left <= 0 {
		left = DefaultMaxPoints
	}
	memos := make([]*memo, n)
	for i := range memos {
		memos[i] = newMemo()
	}
	e := &engine{cfg: cfg, memos: memos, tags: retriever.NormalizeTags(cfg.Tags), asked: values,
		cur: cfg.Param.Get(cfg.Params), seeds: make([][]*step, n), workers: max(1, min(w, n)), start: time.Now(),
		left: left, reach: make([]float64, n)}
	return e
}

func (e *engine) run(ctx context.Context) (*Sweep, error) {
	// The current value first (its chart appears at once), then the values
	// asked, ascending: a seed's step at u holds up to its next, so going up
	// a value is often already known and costs nothing.
	order := append([]float64{e.cur}, slices.DeleteFunc(slices.Clone(e.asked), func(v float64) bool { return v == e.cur })...)
	for _, v := range order {
		var need []int
		for si := range e.seeds {
			if e.cover(si, v) == nil {
				need = append(need, si)
			}
		}
		if err := e.each(ctx, need, func(si int) error {
			_, err := e.explore(ctx, si, v)
			return err
		}); err != nil {
			return nil, err
		}
		e.progress(false)
	}
	for _, v := range e.asked {
		for si := range e.seeds {
			if st := e.cover(si, v); st != nil && st.failed != "" {
				e.failures = append(e.failures, Failure{Value: v, SeedID: e.cfg.Seeds[si].NodeID, Error: st.failed})
			}
		}
	}
	if e.cfg.Param == MinActivation && e.cfg.Breakpoints {
		if err := e.breakpoints(ctx); err != nil {
			return nil, err
		}
	}
	s := e.snapshot(true)
	if e.cfg.Progress != nil {
		e.cfg.Progress(s)
	}
	return s, nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (e *engine) progress(done bool) {
	if e.cfg.Progress != nil {
		e.cfg.Progress(e.snapshot(done))
	}
}

// errBudget ends a stretch when the breakpoint budget is spent.
var errBudget = errors.New("sweep: budget spent")

// seedFailed ends a stretch when a seed ends in error.
type seedFailed struct {
	seed string
	v    float64
	msg  string
}

func (f seedFailed) Error() string {
	return fmt.Sprintf("seed %q ended in error at %v", f.seed, f.v)
}

// chunkTarget is how many explorations per seed a stretch aims at, so
// that progress is reported often and a stretch cut short by the budget
// wastes little.
const chunkTarget = 48

// breakpoints grows the exact part outward from the current value (the
// value asked nearest to it when it lies outside the range) until it
// covers the range or the budget is spent.
func (e *engine) breakpoints(ctx context.Context) error {
	from, to := e.asked[0], e.asked[len(e.asked)-1]
	anchor := min(max(e.cur, from), to)
	for si := range e.seeds {
		st := e.cover(si, anchor)
		if st == nil || st.failed != "" {
			e.stopped = fmt.Sprintf("seed %q ended in error at %v", e.cfg.Seeds[si].NodeID, anchor)
			return nil
		}
		e.reach[si] = st.next
	}
	if e.cfg.Budget > 0 { // the budget is for the search, after the values asked
		e.deadline = time.Now().Add(e.cfg.Budget)
	}
	e.lo, e.hasExact = anchor, true
	e.hi = slices.Min(e.reach)
	if from <= 0 {
		from = math.SmallestNonzeroFloat64 // a log stretch needs a positive floor; below it only 0 is left
	}
	widthUp, widthDown := math.Ln10/8, math.Ln10/8
	floorLo, floorHi := max(e.asked[0], anchor/Decade), min(to, anchor*Decade)
	for !(e.lo <= e.asked[0] && e.hi > to) {
		// Set before the stretch's goroutines start, read by spend.
		e.timed = e.lo <= floorLo && e.hi > floorHi
		down := e.lo > e.asked[0] && (e.hi > to || math.Log(anchor/e.lo) <= math.Log(e.hi/anchor))
		var (
			most int
			err  error
			w    float64
		)
		if down {
			x := max(from, e.lo*math.Exp(-widthDown))
			if e.lo <= from || x >= e.lo {
				x = e.asked[0]
			}
			w = math.Log(e.lo / x)
			most, err = e.stretchDown(ctx, x)
			widthDown = nextWidth(widthDown, w, most)
		} else {
			y := e.hi * math.Exp(widthUp)
			w = widthUp
			most, err = e.stretchUp(ctx, y)
			widthUp = nextWidth(widthUp, w, most)
		}
		var f seedFailed
		switch {
		case errors.Is(err, errBudget):
			if e.left <= 0 {
				e.stopped = "point limit"
			} else {
				e.stopped = "time budget"
			}
			return nil
		case errors.As(err, &f):
			e.stopped = f.Error()
			e.failures = append(e.failures, Failure{Value: f.v, SeedID: f.seed, Error: f.msg})
			return nil
		case err != nil:
			return err
		}
		e.progress(false)
	}
	return nil
}

// nextWidth sizes the next stretch (in log units) so that it costs about
// chunkTarget explorations per seed, given that the last one of width w
// cost most: within a quarter and four times the last width.
func nextWidth(last, w float64, most int) float64 {
	if most == 0 || w <= 0 {
		return last * 4
	}
	return min(max(w*chunkTarget/float64(most), last/4), last*4)
}

// stretchUp follows every seed's steps up from the top of the exact part
// until they pass y (or the range's top). The exact part grows to the
// lowest seed's reach, even when the budget cuts the stretch short.
func (e *engine) stretchUp(ctx context.Context, y float64) (int, error) {
	to := e.asked[len(e.asked)-1]
	limit := min(y, to)
	counts := make([]int, len(e.seeds))
	err := e.eachSeed(ctx, func(si int) error {
		v, n, err := e.chain(ctx, si, e.reach[si], func(v float64) bool { return v > limit })
		e.reach[si], counts[si] = v, n
		return err
	})
	e.hi = slices.Min(e.reach)
	return slices.Max(counts), err
}

// stretchDown explores every seed at x and follows its steps up to the
// bottom of the exact part, which then extends down to x; a stretch cut
// short extends nothing.
func (e *engine) stretchDown(ctx context.Context, x float64) (int, error) {
	lo := e.lo
	counts := make([]int, len(e.seeds))
	err := e.eachSeed(ctx, func(si int) error {
		_, n, err := e.chain(ctx, si, x, func(v float64) bool { return v >= lo })
		counts[si] = n
		return err
	})
	if err == nil {
		e.lo = x
	}
	return slices.Max(counts), err
}

// chain follows seed si's steps from v until done(v): at each value it
// uses the step that covers it, or explores there. It returns where it
// stopped and how many explorations it ran.
func (e *engine) chain(ctx context.Context, si int, v float64, done func(float64) bool) (float64, int, error) {
	n := 0
	for !done(v) {
		st := e.cover(si, v)
		if st == nil {
			if !e.spend() {
				return v, n, errBudget
			}
			var err error
			if st, err = e.explore(ctx, si, v); err != nil {
				return v, n, err
			}
			n++
		}
		if st.failed != "" {
			return v, n, seedFailed{seed: e.cfg.Seeds[si].NodeID, v: v, msg: st.failed}
		}
		v = st.next
	}
	return v, n, nil
}

// spend takes one exploration from the budget; false when it is spent
// (the time only once the decade around the current value is exact).
// Called from the seeds' goroutines: the count is shared under a lock.
func (e *engine) spend() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.left <= 0 || (e.timed && !e.deadline.IsZero() && time.Now().After(e.deadline)) {
		return false
	}
	e.left--
	return true
}
