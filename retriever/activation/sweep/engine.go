package sweep

import (
	"context"
	"errors"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// step is what the sweep keeps of one exploration of one seed at one
// value: for MIN_ACTIVATION the result holds for every v with from ≤ v <
// next (Run's doc comment); for the other parameters only at from.
type step struct {
	from, next float64
	totals     Totals
	nodes      []string // the nodes in the result, the seed excepted, sorted
	fp         [16]byte // fingerprint of the result (fingerprint)
	failed     string   // the error of a seed that ended in error
}

// newStep keeps what the sweep needs of res, explored at v.
func newStep(v, next float64, res activation.Result) *step {
	st := &step{from: v, next: next, totals: TotalsOf([]activation.Result{res}), fp: fingerprint(res)}
	for id := range activation.Placements(res) {
		st.nodes = append(st.nodes, id)
	}
	slices.Sort(st.nodes)
	if res.TerminatedReason == activation.TerminatedError {
		st.failed, st.next = res.Error, v
	}
	return st
}

// fingerprint hashes what `explore --format json` prints of a result that
// can differ between two values of a threshold: the termination, the error,
// the depth reached and, per path, its end reason and each hop's nodes,
// relationship and transfer energy (every other number of a hop follows
// from those). The relationship is named by its ends, its Neo4j element id,
// weight and tags; parallel relationships alike in all of these and in T
// are never told apart by a threshold (they pass it together, and the
// claim order's last key, the edge's properties, picks the same one at
// every value: docs/ALGORITHM.md rule 4), so their other properties need
// not be hashed. Two results with the same fingerprint print alike.
func fingerprint(r activation.Result) [16]byte {
	h := newHash128()
	str, num := h.str, h.num
	str(string(r.TerminatedReason))
	str(r.Error)
	num(uint64(r.MaxDepthReached))
	num(uint64(len(r.Paths)))
	for _, p := range r.Paths {
		str(string(p.EndReason.Coarse()))
		num(uint64(len(p.Steps)))
		for _, s := range p.Steps {
			str(s.FromNode.ID)
			str(s.ToNode.ID)
			str(s.Edge.SourceID)
			str(s.Edge.TargetID)
			str(s.Edge.ElementID)
			num(math.Float64bits(activation.EffectiveWeight(s.Edge)))
			num(uint64(len(s.Edge.Tags)))
			for _, t := range s.Edge.Tags {
				str(t)
			}
			num(math.Float64bits(s.TransferEnergy))
		}
	}
	return h.sum()
}

// A sweep reads the graph through one memo per seed (memoBackend): its
// expanders are plain Expanders, not Tracers, since a sweep needs the
// candidates only and `explore --format json` prints results without
// traces, so a point's result is the same either way, at a fraction of the
// cost on the memory engine.

// exploreOne runs seed alone at value v of cfg.Param, untraced, and returns
// its result and next: the lowest MIN_ACTIVATION above v at which the run
// can decide otherwise (+Inf when there is none; changeAt).
func exploreOne(ctx context.Context, cfg Config, backend activation.Backend, tags []string, seed retriever.Seed, v float64) (activation.Result, float64, error) {
	ps, err := cfg.Param.Set(cfg.Params, v)
	if err != nil {
		return activation.Result{}, 0, err
	}
	r, err := activation.New(backend, ps, cfg.Options)
	if err != nil {
		return activation.Result{}, 0, err
	}
	ch, err := r.Explore(ctx, []retriever.Seed{seed}, tags)
	if err != nil {
		return activation.Result{}, 0, err
	}
	next := math.Inf(1)
	var res activation.Result
	for ev := range ch {
		switch ev.Kind {
		case activation.EventLevel:
			next = min(next, changeAt(ev.Level.Outcomes))
		case activation.EventResult:
			res = *ev.Result
		}
	}
	if err := ctx.Err(); err != nil {
		return res, 0, err
	}
	if res.TerminatedReason == activation.TerminatedCancelled {
		return res, 0, context.Canceled
	}
	return res, next, nil
}

// changeAt is the lowest MIN_ACTIVATION at which a level's candidates
// (outcomes) decide otherwise, +Inf when none does: raising MIN_ACTIVATION
// to m drops the candidates with T ≤ m (docs/ALGORITHM.md rule 3), and
// dropping a losing candidate (claimed, or over its parent's MAX_BRANCHES)
// changes no other candidate's fate (rule 4: it claimed nothing and took no
// branch), so the level, and every level after it, stays as it was. Two
// drops change something: a kept candidate's (the lowest kept T), and the
// last candidate of a parent that kept nothing (its path then ends with no
// candidates instead of all claimed: rule 6; the highest T among that
// parent's candidates). Below the lower of the two the run's result is the
// same, so a sweep's step reaches that far, not merely to the lowest T of
// any candidate: most candidates lose, and each skipped one is a run saved.
func changeAt(outcomes []activation.Outcome) float64 {
	at := math.Inf(1)
	type parent struct {
		kept bool
		top  float64
	}
	var parents map[string]parent
	for _, o := range outcomes {
		t := o.Candidate.TransferEnergy
		if o.Fate == activation.FateKept {
			at = min(at, t)
		}
		if parents == nil {
			parents = map[string]parent{}
		}
		p, ok := parents[o.Candidate.ParentID]
		if !ok || p.top < t {
			p.top = t
		}
		p.kept = p.kept || o.Fate == activation.FateKept
		parents[o.Candidate.ParentID] = p
	}
	for _, p := range parents {
		if !p.kept {
			at = min(at, p.top)
		}
	}
	return at
}

// explore runs seed si at v and keeps the step.
func (e *engine) explore(ctx context.Context, si int, v float64) (*step, error) {
	res, next, err := exploreOne(ctx, e.cfg, memoBackend{e.cfg.Backend, e.memos[si]}, e.tags, e.cfg.Seeds[si], v)
	if err != nil {
		return nil, err
	}
	if e.cfg.Param != MinActivation {
		next = v
	}
	st := newStep(v, next, res)
	e.mu.Lock()
	e.explored++
	e.mu.Unlock()
	// Steps never overlap. The new one starts where no step holds (explore
	// is only called there), but it may reach over steps explored above it
	// earlier: a step s above v within [v, next) is a run that decides as
	// the run at v (only fewer candidates), so its next is at least this
	// one's, and this one is cut at s.from without losing anything.
	steps := e.seeds[si]
	i, _ := slices.BinarySearchFunc(steps, v, func(s *step, v float64) int { return cmpFloat(s.from, v) })
	if i < len(steps) && steps[i].from < st.next {
		st.next = steps[i].from
	}
	e.seeds[si] = slices.Insert(steps, i, st)
	return st, nil
}

// cover returns seed si's step that holds at v, or nil: the step explored
// at v, or for MIN_ACTIVATION the nearest step below v if its next is above
// v (steps never overlap: see explore).
func (e *engine) cover(si int, v float64) *step {
	steps := e.seeds[si]
	i, found := slices.BinarySearchFunc(steps, v, func(s *step, v float64) int { return cmpFloat(s.from, v) })
	switch {
	case found:
		return steps[i]
	case e.cfg.Param == MinActivation && i > 0 && steps[i-1].failed == "" && v < steps[i-1].next:
		return steps[i-1]
	}
	return nil
}

// eachSeed runs fn for every seed (each).
func (e *engine) eachSeed(ctx context.Context, fn func(si int) error) error {
	all := make([]int, len(e.seeds))
	for i := range all {
		all[i] = i
	}
	return e.each(ctx, all, fn)
}

// each runs fn for the seeds si, e.workers at a time (one alone in this
// goroutine), and returns the first error (context errors last, so that a
// budget or a failure is reported as such).
func (e *engine) each(ctx context.Context, seeds []int, fn func(si int) error) error {
	if len(seeds) <= 1 || e.workers == 1 {
		for _, si := range seeds {
			if err := fn(si); err != nil {
				return err
			}
		}
		return nil
	}
	sem := make(chan struct{}, e.workers)
	errs := make([]error, len(seeds))
	var wg sync.WaitGroup
	for k, si := range seeds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				errs[k] = ctx.Err()
				return
			}
			defer func() { <-sem }()
			errs[k] = fn(si)
		}()
	}
	wg.Wait()
	var ctxErr error
	for _, err := range errs {
		switch {
		case err == nil:
		case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
			ctxErr = err
		default:
			return err
		}
	}
	return ctxErr
}

// snapshot builds the Sweep as it stands: the values asked, and within the
// exact part every value where a seed's result changes.
func (e *engine) snapshot(done bool) *Sweep {
	s := &Sweep{Param: e.cfg.Param, Current: e.cur, From: e.asked[0], To: e.asked[len(e.asked)-1], Stopped: e.stopped,
		Failures: slices.Clone(e.failures), Done: done, Elapsed: time.Since(e.start), cfg: e.cfg, ExactFrom: 1, ExactUntil: 0}
	e.mu.Lock()
	s.Explorations = e.explored
	e.mu.Unlock()
	if e.hasExact {
		s.ExactFrom, s.ExactUntil = e.lo, e.hi
	}
	asked := make(map[float64]bool, len(e.asked))
	values := slices.Clone(e.asked)
	for _, v := range e.asked {
		asked[v] = true
	}
	if e.hasExact {
		for _, steps := range e.seeds {
			// A value where the seed's result changes: a step that starts
			// where the one below it ends, with another result.
			for k := 1; k < len(steps); k++ {
				below, st := steps[k-1], steps[k]
				if st.from > e.lo && st.from < e.hi && st.from <= s.To && below.failed == "" && st.failed == "" &&
					below.next == st.from && below.fp != st.fp {
					values = append(values, st.from)
				}
			}
		}
	}
	slices.Sort(values)
	values = slices.Compact(values)
	for _, v := range values {
		row := make([]*step, len(e.seeds))
		var t Totals
		ok := true
		for si := range e.seeds {
			st := e.cover(si, v)
			if st == nil {
				ok = false // an asked value not yet reached (a snapshot taken early)
				break
			}
			row[si] = st
			t.add(st.totals)
		}
		if !ok {
			continue
		}
		s.Points = append(s.Points, Point{Value: v, Breakpoint: !asked[v], Totals: t})
		s.steps = append(s.steps, row)
	}
	return s
}

// Replay calls fn for every point, ascending, with its results in seed
// order: each exactly what a fresh exploration with that value gives (as
// `explore --format json` prints it, untraced). A seed is explored again
// only where its step changes, and only the current point's results are
// held, so a sweep of many points streams in bounded memory.
func (s *Sweep) Replay(ctx context.Context, fn func(Point, []activation.Result) error) error {
	if len(s.steps) > 0 && s.cfg.Backend == nil {
		return errors.New("sweep: this sweep was built from results and cannot be replayed")
	}
	tags := retriever.NormalizeTags(s.cfg.Tags)
	memos := make([]*memo, len(s.cfg.Seeds))
	for i := range memos {
		memos[i] = newMemo()
	}
	var prev []*step
	var results []activation.Result
	for i, p := range s.Points {
		row := s.steps[i]
		next := make([]activation.Result, len(row))
		for si, st := range row {
			if prev != nil && prev[si] == st && st.failed == "" && s.Param == MinActivation {
				next[si] = results[si]
				continue
			}
			res, _, err := exploreOne(ctx, s.cfg, memoBackend{s.cfg.Backend, memos[si]}, tags, s.cfg.Seeds[si], p.Value)
			if err != nil {
				return err
			}
			next[si] = res
		}
		prev, results = row, next
		if err := fn(p, results); err != nil {
			return err
		}
	}
	return nil
}

// PointResults is one point of FromResults.
type PointResults struct {
	Value      float64
	Breakpoint bool
	Results    []activation.Result // in seed order
}

// FromResults builds a finished sweep from each point's results, for
// renderers' tests and callers that explored themselves: points ascending,
// every point with the same seeds. The part [exactFrom, exactUntil) is
// taken as exact. It cannot be replayed.
func FromResults(p Param, current float64, points []PointResults, exactFrom, exactUntil float64) *Sweep {
	s := &Sweep{Param: p, Current: current, ExactFrom: exactFrom, ExactUntil: exactUntil, Done: true}
	for i, pt := range points {
		if i == 0 {
			s.From = pt.Value
			for _, r := range pt.Results {
				s.cfg.Seeds = append(s.cfg.Seeds, r.Seed)
			}
		}
		s.To = pt.Value
		row := make([]*step, len(pt.Results))
		var t Totals
		for si, r := range pt.Results {
			row[si] = newStep(pt.Value, pt.Value, r)
			t.add(row[si].totals)
		}
		s.Points = append(s.Points, Point{Value: pt.Value, Breakpoint: pt.Breakpoint, Totals: t})
		s.steps = append(s.steps, row)
	}
	return s
}
