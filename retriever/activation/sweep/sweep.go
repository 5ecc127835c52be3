// Package sweep runs the Activation Energy retriever at each value of one
// threshold (MIN_ACTIVATION, MAX_BRANCHES, TAG_SIM_FLOOR or MAX_DEPTH),
// the others fixed, and says what changed: per value the results exactly as
// a fresh exploration gives them, their totals, and for each node the
// values at which it is in the result and where that is not monotone
// (docs/ALGORITHM.md, "Sweeps and breakpoints").
//
// For MIN_ACTIVATION it also finds the exact breakpoints: the values where
// the result can change. Every point is a fresh run through
// activation.Retriever, so a sweep can never disagree with `explore`.
package sweep

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// Param names the swept threshold, as the CLI spells it.
type Param string

// The four parameters a sweep can vary.
const (
	MinActivation Param = "min-activation"
	MaxBranches   Param = "max-branches"
	TagSimFloor   Param = "tag-sim-floor"
	MaxDepth      Param = "max-depth"
)

// Params lists the four, in the CLI's order.
var Params = []Param{MinActivation, MaxBranches, TagSimFloor, MaxDepth}

// ParseParam reads a parameter name.
func ParseParam(s string) (Param, error) {
	for _, p := range Params {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("unknown parameter %q (want min-activation, max-branches, tag-sim-floor or max-depth)", s)
}

// Integer reports whether the parameter takes whole numbers.
func (p Param) Integer() bool { return p == MaxBranches || p == MaxDepth }

// Get returns the parameter's value in ps.
func (p Param) Get(ps activation.Params) float64 {
	switch p {
	case MinActivation:
		return ps.MinActivation
	case MaxBranches:
		return float64(ps.MaxBranches)
	case TagSimFloor:
		return ps.TagSimFloor
	default:
		return float64(ps.MaxDepth)
	}
}

// Set returns ps with the parameter set to v, or an error when v is not a
// valid value (a fraction for a whole-number parameter, or out of the
// ranges of docs/ALGORITHM.md).
func (p Param) Set(ps activation.Params, v float64) (activation.Params, error) {
	if p.Integer() && (v != math.Trunc(v) || math.Abs(v) > 1<<30) {
		return ps, fmt.Errorf("%s takes whole numbers, got %v", p, v)
	}
	switch p {
	case MinActivation:
		ps.MinActivation = v
	case MaxBranches:
		ps.MaxBranches = int(v)
	case TagSimFloor:
		ps.TagSimFloor = v
	case MaxDepth:
		ps.MaxDepth = int(v)
	default:
		return ps, fmt.Errorf("unknown parameter %q", p)
	}
	return ps, ps.Validate()
}

// DefaultRange is the range a sweep covers when none is given:
// MIN_ACTIVATION 0.0001 to 0.1 (a log grid), MAX_BRANCHES 1 to 10,
// TAG_SIM_FLOOR 0 to 1 and MAX_DEPTH 1 to 12, with steps points.
func DefaultRange(p Param) (from, to float64, steps int) {
	switch p {
	case MinActivation:
		return 0.0001, 0.1, 25
	case MaxBranches:
		return 1, 10, 10
	case TagSimFloor:
		return 0, 1, 11
	default:
		return 1, activation.MaxMaxDepth, activation.MaxMaxDepth
	}
}

// Grid returns steps values from from to to, both included, ascending:
// for MIN_ACTIVATION a log grid (so from must be above 0), for the others an
// even grid, rounded to whole numbers for MAX_BRANCHES and MAX_DEPTH (and
// duplicates dropped). Inner values of a log grid are rounded to 3
// significant digits, so each can be typed back as --min-activation.
func Grid(p Param, from, to float64, steps int) ([]float64, error) {
	switch {
	case math.IsNaN(from) || math.IsNaN(to) || math.IsInf(from, 0) || math.IsInf(to, 0):
		return nil, fmt.Errorf("--from and --to must be finite numbers, got %v and %v", from, to)
	case from > to:
		return nil, fmt.Errorf("--from %v is above --to %v", from, to)
	case steps < 1 || steps > 10000:
		return nil, fmt.Errorf("--steps must be between 1 and 10000, got %d", steps)
	case p == MinActivation && from <= 0:
		return nil, fmt.Errorf("a min-activation grid is logarithmic: --from must be above 0, got %v", from)
	}
	if steps == 1 || from == to {
		return []float64{from}, nil
	}
	out := make([]float64, 0, steps)
	for i := range steps {
		f := float64(i) / float64(steps-1)
		var v float64
		switch {
		case i == 0:
			v = from
		case i == steps-1:
			v = to
		case p == MinActivation:
			v = round3(from * math.Pow(to/from, f))
		default:
			v = from + (to-from)*f
		}
		if p.Integer() {
			v = math.Round(v)
		}
		if len(out) == 0 || out[len(out)-1] != v {
			out = append(out, v)
		}
	}
	return out, nil
}

func round3(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'e', 2, 64), 64)
	return r
}

// Config is one sweep: the retriever's backend, options and base
// thresholds, the seeds and query tags, the parameter and its values.
type Config struct {
	Backend activation.Backend
	Params  activation.Params
	Options activation.Options
	Seeds   []retriever.Seed
	Tags    []string
	Param   Param
	// Values are the values to explore (any order; duplicates dropped).
	Values []float64
	// Breakpoints adds, for MIN_ACTIVATION, every exact breakpoint between
	// the lowest and the highest value (see Run).
	Breakpoints bool
	// MaxPoints caps the number of explorations (0: 5000); a sweep that
	// reaches it stops adding breakpoints and says so (Sweep.Truncated).
	MaxPoints int
}

// Point is one value and the results of a fresh exploration with it, in
// seed order.
type Point struct {
	Value   float64
	Results []retriever.Result
	// Breakpoint: the value is a breakpoint (the transfer energy of a
	// candidate), not one of the values asked for.
	Breakpoint bool
}

// Sweep is a finished sweep, its points ascending by value.
type Sweep struct {
	Param   Param
	Current float64
	Points  []Point
	// Exact: the points include every breakpoint between the first and the
	// last value, so the result for any value v in that range is the one of
	// the highest point at or below v.
	Exact bool
	// Truncated: Config.MaxPoints stopped the search for breakpoints.
	Truncated bool
}

// Run explores at each value with a new activation.Retriever and returns
// the points ascending; each point's results equal a fresh `explore` with
// that value. For MIN_ACTIVATION a seed is run again only where its result
// can have changed (runMinActivation), which makes a 100-point sweep cost
// about as many explorations as the result has changes.
//
// Breakpoints (MIN_ACTIVATION, Config.Breakpoints): a candidate is kept only
// if T > MIN_ACTIVATION (docs/ALGORITHM.md rule 3), so the run at m decides
// exactly as the run at any m' > m until m' reaches the smallest T among
// the candidates the run at m saw (every one of them above m). Run therefore
// adds, for every point, the T of every candidate in its level events that
// lies within the range, and explores those too, until no point adds a new
// value. Then the result at any m in the range is the result of the highest
// point ≤ m, and a breakpoint b is a value where the result may differ
// between b and just below b.
func Run(ctx context.Context, cfg Config) (*Sweep, error) {
	if len(cfg.Values) == 0 {
		return nil, errors.New("sweep: no values")
	}
	if err := retriever.ValidateSeeds(cfg.Seeds); err != nil {
		return nil, err
	}
	maxPoints := cfg.MaxPoints
	if maxPoints <= 0 {
		maxPoints = 5000
	}
	values := slices.Clone(cfg.Values)
	slices.Sort(values)
	values = slices.Compact(values)
	for _, v := range values {
		if _, err := cfg.Param.Set(cfg.Params, v); err != nil {
			return nil, fmt.Errorf("sweep: value %v: %w", v, err)
		}
	}
	breaks := cfg.Breakpoints && cfg.Param == MinActivation
	s := &Sweep{Param: cfg.Param, Current: cfg.Param.Get(cfg.Params), Exact: breaks}
	if cfg.Param == MinActivation {
		if err := s.runMinActivation(ctx, cfg, values, breaks, maxPoints); err != nil {
			return nil, err
		}
		return s, nil
	}
	for _, v := range values {
		results, err := exploreAll(ctx, cfg, v)
		if err != nil {
			return nil, err
		}
		s.Points = append(s.Points, Point{Value: v, Results: results})
	}
	return s, nil
}

// runMinActivation explores the values ascending, with the breakpoints
// when breaks is set (see Run). Each seed is explored on its own, and only
// when its result can have changed: a run of the seed at u saw candidates
// whose smallest T is next (all above u); at any v with u ≤ v < next it
// decides exactly as at u (docs/ALGORITHM.md rule 3), so its result at v is
// the one at u. A seed that ended in error or was cancelled is run again.
func (s *Sweep) runMinActivation(ctx context.Context, cfg Config, values []float64, breaks bool, maxPoints int) error {
	hi := values[len(values)-1]
	asked := make(map[float64]bool, len(values))
	pending := make(floatHeap, 0, len(values))
	for _, v := range values {
		asked[v] = true
		pending = append(pending, v)
	}
	heap.Init(&pending)
	type seedState struct {
		res   retriever.Result
		next  float64
		valid bool
	}
	states := make([]seedState, len(cfg.Seeds))
	for pending.Len() > 0 {
		v := heap.Pop(&pending).(float64)
		if len(s.Points) >= maxPoints {
			s.Truncated, s.Exact = true, false
			break
		}
		results := make([]retriever.Result, len(cfg.Seeds))
		for i, seed := range cfg.Seeds {
			st := &states[i]
			if st.valid && v < st.next {
				results[i] = st.res
				continue
			}
			res, ts, err := exploreSeed(ctx, cfg, v, seed)
			if err != nil {
				return err
			}
			next := math.Inf(1)
			for _, t := range ts {
				next = min(next, t)
				if breaks && t <= hi && !asked[t] {
					asked[t] = true // queued once; marked a breakpoint below
					heap.Push(&pending, t)
				}
			}
			ok := res.TerminatedReason != retriever.TerminatedError && res.TerminatedReason != retriever.TerminatedCancelled
			*st = seedState{res: res, next: next, valid: ok}
			results[i] = res
		}
		s.Points = append(s.Points, Point{Value: v, Results: results, Breakpoint: !slices.Contains(values, v)})
	}
	return nil
}

// floatHeap is a min-heap of values still to explore.
type floatHeap []float64

func (h floatHeap) Len() int           { return len(h) }
func (h floatHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h floatHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *floatHeap) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *floatHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// exploreAll runs every seed at one value of cfg.Param.
func exploreAll(ctx context.Context, cfg Config, v float64) ([]retriever.Result, error) {
	ps, err := cfg.Param.Set(cfg.Params, v)
	if err != nil {
		return nil, err
	}
	r, err := activation.New(cfg.Backend, ps, cfg.Options)
	if err != nil {
		return nil, err
	}
	return r.ExploreAll(ctx, cfg.Seeds, cfg.Tags)
}

// exploreSeed runs one seed at one value of cfg.Param and returns, with its
// result, the transfer energy of every candidate of its level events.
func exploreSeed(ctx context.Context, cfg Config, v float64, seed retriever.Seed) (retriever.Result, []float64, error) {
	var res retriever.Result
	ps, err := cfg.Param.Set(cfg.Params, v)
	if err != nil {
		return res, nil, err
	}
	r, err := activation.New(cfg.Backend, ps, cfg.Options)
	if err != nil {
		return res, nil, err
	}
	ch, err := r.Explore(ctx, []retriever.Seed{seed}, cfg.Tags)
	if err != nil {
		return res, nil, err
	}
	var ts []float64
	for ev := range ch {
		switch ev.Kind {
		case activation.EventLevel:
			for _, o := range ev.Level.Outcomes {
				ts = append(ts, o.Candidate.TransferEnergy)
			}
		case activation.EventResult:
			res = *ev.Result
		}
	}
	return res, ts, ctx.Err()
}
