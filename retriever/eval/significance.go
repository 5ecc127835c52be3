package eval

import (
	"math/rand/v2"
	"slices"
)

// Resamples and BootstrapSeed are the bootstrap intervals' defaults: the
// number of resamples of the queries and the seed of their generator,
// fixed so that a report is reproducible.
const (
	Resamples     = 10000
	BootstrapSeed = 20261129
)

// DefaultAlpha is the level at which eval marks an adjusted difference as
// significant (--alpha).
const DefaultAlpha = 0.05

// Holm is Holm–Bonferroni's adjustment of m p-values of one family (the
// comparisons of each row against the first, one metric): sorted
// ascending, the i-th (from 1) becomes min(1, (m − i + 1) × p), and each
// at least the one before it; returned in the order given. Worked (issue
// 34's): p 0.01, 0.04, 0.03 → sorted 0.01, 0.03, 0.04 → 3 × 0.01 = 0.03,
// 2 × 0.03 = 0.06, max(0.06, 1 × 0.04) = 0.06 → 0.03, 0.06, 0.06.
func Holm(ps []float64) []float64 {
	m := len(ps)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case ps[a] < ps[b]:
			return -1
		case ps[a] > ps[b]:
			return 1
		}
		return 0
	})
	out := make([]float64, m)
	prev := 0.0
	for i, j := range order {
		adj := min(1, float64(m-i)*ps[j])
		adj = max(adj, prev)
		out[j], prev = adj, adj
	}
	return out
}

// BootstrapCI is the 95% percentile bootstrap interval of the mean of each
// series of xs (one per metric, each over the same queries, so of one
// length): resamples
// draws of n queries with replacement (a PCG seeded with seed; one draw of
// queries serves every series, so the intervals of one row are of one
// resampling), each series' mean per draw, sorted, the 2.5th and 97.5th
// percentiles (the draws at ⌊0.025 × resamples⌋ and ⌈0.975 × resamples⌉
// − 1). No queries give [0, 0].
func BootstrapCI(xs [][]float64, resamples int, seed uint64) [][2]float64 {
	out := make([][2]float64, len(xs))
	if len(xs) == 0 || len(xs[0]) == 0 || resamples <= 0 {
		return out
	}
	n := len(xs[0])
	r := rand.New(rand.NewPCG(seed, 0x2545f4914f6cdd1d))
	means := make([][]float64, len(xs))
	for s := range means {
		means[s] = make([]float64, resamples)
	}
	pick := make([]int, n)
	for d := range resamples {
		for i := range pick {
			pick[i] = r.IntN(n)
		}
		for s, x := range xs {
			sum := 0.0
			for _, i := range pick {
				sum += x[i]
			}
			means[s][d] = sum / float64(n)
		}
	}
	lo, hi := resamples*25/1000, (resamples*975+999)/1000-1
	for s := range xs {
		slices.Sort(means[s])
		out[s] = [2]float64{means[s][lo], means[s][hi]}
	}
	return out
}
