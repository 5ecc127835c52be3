// Package sweep runs the Activation Energy retriever at each value of one
// threshold (MIN_ACTIVATION, MAX_BRANCHES, TAG_SIM_FLOOR or MAX_DEPTH),
// the others fixed, and says what changed: per value the totals, for each
// node the values at which it is in the result and where that is not
// monotone, and, streamed on demand (Sweep.Replay), the results exactly as
// a fresh exploration gives them (docs/ALGORITHM.md, "Sweeps and
// breakpoints").
//
// For MIN_ACTIVATION it also finds the exact breakpoints, the values where
// the result changes, nearest the current value first and within a budget,
// and says which part of the range is exact. Every result comes from a run
// through activation.Retriever, so a sweep can never disagree with
// `explore`; a sweep keeps per run only its totals, its nodes and a
// fingerprint, so its memory grows with the points, not with points ×
// result size.
package sweep

import (
	"fmt"
	"math"
	"strconv"

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
	if p == MinActivation && from <= 0 && !math.IsNaN(from) && from <= to {
		return nil, fmt.Errorf("a min-activation grid is logarithmic: --from must be above 0, got %v", from)
	}
	return Spaced(from, to, steps, p == MinActivation, p.Integer())
}

// Spaced is the grid rule for any numeric parameter (the metric sweeps
// of every retriever use it too): steps values from from to to, both
// included, ascending, spaced evenly, or by a constant ratio when log (from
// above 0; inner values rounded to 3 significant digits), each rounded to a
// whole number when integer, duplicates dropped. Inner values of an even
// grid are rounded to 12 significant digits (round12).
func Spaced(from, to float64, steps int, log, integer bool) ([]float64, error) {
	switch {
	case math.IsNaN(from) || math.IsNaN(to) || math.IsInf(from, 0) || math.IsInf(to, 0):
		return nil, fmt.Errorf("--from and --to must be finite numbers, got %v and %v", from, to)
	case from > to:
		return nil, fmt.Errorf("--from %v is above --to %v", from, to)
	case steps < 1 || steps > 10000:
		return nil, fmt.Errorf("--steps must be between 1 and 10000, got %d", steps)
	case log && from <= 0:
		return nil, fmt.Errorf("a logarithmic grid needs --from above 0, got %v", from)
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
		case log:
			v = round3(from * math.Pow(to/from, f))
		default:
			v = round12(from + (to-from)*f)
		}
		if integer {
			v = math.Round(v)
		}
		if len(out) == 0 || out[len(out)-1] != v {
			out = append(out, v)
		}
	}
	return out, nil
}

// round12 drops the arithmetic's last bits from an even grid's value
// (0.1 + 0.8 × 2/8 is 0.30000000000000004), so that each value is the one a
// person would type.
func round12(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
	return r
}

func round3(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'e', 2, 64), 64)
	return r
}
