package retriever

import (
	"math"
	"strconv"
)

// TopKLimit is where the explorer's panel stops stepping a K up (a K
// typed in may be larger).
const TopKLimit = 1000

// StepLinear moves v to the next multiple of step above or below it (dir
// ±1), clamped to [lo, hi]: the explorer's step of a number.
func StepLinear(v, step float64, dir int, lo, hi float64) float64 {
	const eps = 1e-9
	k := v / step
	var n float64
	if dir > 0 {
		n = math.Floor(k+eps) + 1
	} else {
		n = math.Ceil(k-eps) - 1
	}
	out := n * step
	out, _ = strconv.ParseFloat(strconv.FormatFloat(out, 'f', 6, 64), 64) // 0.15000000000000002 → 0.15
	return math.Max(lo, math.Min(hi, out))
}

// StepBy is a Param's Step of size d within [lo, hi] (StepLinear's rule).
func StepBy(d, lo, hi float64) func(float64, int) float64 {
	return func(v float64, dir int) float64 { return StepLinear(v, d, dir, lo, hi) }
}

// StepWhole is a Param's Step of 1 within [lo, hi].
func StepWhole(lo, hi int) func(float64, int) float64 {
	return func(v float64, dir int) float64 { return float64(max(lo, min(hi, int(v)+dir))) }
}

// StepTenfold is a Param's Step to the power of ten above or below v's
// nearest one, within [lo, hi]: 1e-6 → 1e-5 or 1e-7.
func StepTenfold(lo, hi float64) func(float64, int) float64 {
	return func(v float64, dir int) float64 {
		return math.Max(lo, math.Min(hi, math.Pow(10, math.Round(math.Log10(v))+float64(dir))))
	}
}

// TopKRow is the row of K, the hits a ranking retriever keeps, that every
// ranking retriever's table ends its numbers with: --top-k (which the
// command line registers once for all of them), swept from 1 to 50 by
// default.
func TopKRow[P any](get func(P) int, set func(*P, int)) Row[P] {
	return Row[P]{
		Param: Param{Flag: "top-k", Label: "TOP_K K", Range: "≥1", Whole: true, Usage: "hits kept `K`",
			Grid: Grid{From: 1, To: 50, Steps: 50}, Step: func(v float64, dir int) float64 {
				return float64(max(1, min(max(TopKLimit, int(v)), int(v)+dir)))
			}},
		Get: func(p P) float64 { return float64(get(p)) },
		Set: func(p *P, v float64) { set(p, int(v)) },
	}
}
