package eval

import (
	"math"
	"math/rand/v2"
)

// Permutations and Seed are the paired randomization test's defaults: the
// number of random sign assignments and the seed of their generator, fixed
// so that a report is reproducible.
const (
	Permutations = 10000
	Seed         = 20260321
)

// RandomizationTest is the two-sided paired randomization test (Fisher's;
// M. D. Smucker, J. Allan, B. Carterette, "A comparison of statistical
// significance tests for information retrieval evaluation", CIKM 2007) of
// per-query scores a and b (same queries, same order): under the null
// hypothesis the two systems are exchangeable on each query, so each
// difference d_i = b_i − a_i is as likely to have had the other sign. The
// statistic is |Σ d_i| (the mean difference times n); each of
// permutations rounds flips each d_i's sign with probability 1/2 (a PCG
// seeded with seed, one bit per query), and the p-value is
//
//	p = (1 + #{rounds with |Σ ±d_i| ≥ |Σ d_i|}) / (1 + permutations)
//
// (the observed assignment counted once, so p is never 0: B. Phipson, G.
// K. Smyth, "Permutation p-values should never be zero", 2010). A round
// within 1e-9 × Σ|d_i| of the statistic counts as reaching it, so that
// rounding in another order of addition does not decide. Identical runs
// give p = 1 (every round reaches 0); no queries give p = 1. With n
// queries there are only 2^n sign assignments, so p cannot go below about
// 2/2^n: 8 queries are the fewest that can reach p < 0.01.
func RandomizationTest(a, b []float64, permutations int, seed uint64) float64 {
	n := min(len(a), len(b))
	if n == 0 || permutations <= 0 {
		return 1
	}
	d := make([]float64, n)
	obs, scale := 0.0, 0.0
	for i := range d {
		d[i] = b[i] - a[i]
		obs += d[i]
		scale += math.Abs(d[i])
	}
	obs = math.Abs(obs)
	tol := 1e-9 * scale
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	count := 0
	for range permutations {
		s := 0.0
		var bits uint64
		for i, x := range d {
			if i%64 == 0 {
				bits = rng.Uint64()
			}
			// −x where the bit is 1: its sign bit flipped, as negation
			// does, without a branch the random bits would mispredict.
			s += math.Float64frombits(math.Float64bits(x) ^ (bits&1)<<63)
			bits >>= 1
		}
		if math.Abs(s) >= obs-tol {
			count++
		}
	}
	return float64(count+1) / float64(permutations+1)
}
