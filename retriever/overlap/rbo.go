package overlap

import (
	"fmt"
	"slices"
)

// RBO is the extrapolated rank-biased overlap RBO_ext of two finite lists
// of ids at persistence p (0 < p < 1), from W. Webber, A. Moffat and J.
// Zobel, "A similarity measure for indefinite rankings", ACM TOIS 28(4),
// 2010: equation 30, which handles lists of uneven lengths and is their
// equation 32 when the lengths are equal. It is symmetric, lies in [0, 1]
// and is 1 exactly for identical lists.
//
// Let S be the shorter list (length s) and L the longer (length l), and X_d
// = |S[:d] ∩ L[:d]| the overlap at depth d (for d > s, S[:d] is all of S),
// so that A_d = X_d / d is the agreement at depth d. Then
//
//	RBO_ext = (1−p)/p · ( Σ_{d=1..l} X_d/d · p^d  +  Σ_{d=s+1..l} X_s·(d−s)/(s·d) · p^d )
//	        + ( (X_l − X_s)/l + X_s/s ) · p^l
//
// and for s = l = k (equation 32):
//
//	RBO_ext = (1−p)/p · Σ_{d=1..k} X_d/d · p^d  +  X_k/k · p^k
//
// RBO itself is (1−p) · Σ_{d≥1} p^(d−1) · A_d over the whole, unseen,
// rankings; RBO_ext is that sum for the agreements seen, with the
// agreement assumed to go on beyond: the items S lacks below depth l agree
// at S's own rate X_s/s, and beyond depth l the agreement stays what it was
// at l. It lies between RBO_min (no agreement beyond what is seen) and
// RBO_max = RBO_min + RBO_res (all the agreement the unseen items could
// bring).
//
// Two empty lists give 1, like Jaccard (they agree entirely); one empty
// list gives 0 (X_d is 0 at every depth, and nothing is there to
// extrapolate from). The ids of each list must be distinct (Compare checks
// this; RBO does not, and counts a repeated id again). It panics when p is
// not in (0, 1).
func RBO(a, b []string, p float64) float64 {
	if !(p > 0 && p < 1) {
		panic(fmt.Sprintf("overlap.RBO: p = %v is not in (0, 1)", p))
	}
	short, long := a, b
	if len(short) > len(long) {
		short, long = long, short
	}
	s, l := len(short), len(long)
	switch {
	case slices.Equal(a, b):
		return 1
	case s == 0:
		return 0
	}
	inS := make(map[string]bool, s)
	inL := make(map[string]bool, l)
	x, xs := 0, 0 // X_d, and X_s once d has passed s
	sum := 0.0    // Σ (X_d/d + [d > s] X_s·(d−s)/(s·d)) · p^(d−1)
	pd := 1.0     // p^(d−1)
	for d := 1; d <= l; d++ {
		if d <= s {
			inS[short[d-1]] = true
			if inL[short[d-1]] {
				x++
			}
		}
		inL[long[d-1]] = true
		if inS[long[d-1]] {
			x++
		}
		term := float64(x) / float64(d)
		if d > s {
			term += float64(xs) * float64(d-s) / float64(s*d)
		}
		sum += term * pd
		if d == s {
			xs = x
		}
		pd *= p
	}
	// (1−p)/p · Σ … p^d is (1−p) · Σ … p^(d−1); pd is now p^l.
	return (1-p)*sum + (float64(x-xs)/float64(l)+float64(xs)/float64(s))*pd
}
