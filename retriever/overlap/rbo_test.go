package overlap

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func list(ids string) []string {
	out := make([]string, len(ids))
	for i, r := range ids {
		out[i] = string(r)
	}
	return out
}

// TestRBOWorked: RBO_ext at p = 0.9 worked by hand (p² = 0.81, p³ = 0.729).
//
// Identical [a b c]: X_d = d, so A_d = 1 at every depth and
// RBO_ext = (1−p)/p · (p + p² + p³) + 1 · p³ = (1−p)(1 + p + p²) + p³
// = 1 − p³ + p³ = 1.
//
// Disjoint [a b c], [d e f]: X_d = 0 at every depth: 0.
//
// [a b c] against [b a d], equal lengths (equation 32):
//
//	d = 1: {a} ∩ {b} = ∅,             X_1 = 0, A_1 = 0
//	d = 2: {a b} ∩ {b a} = {a b},     X_2 = 2, A_2 = 1
//	d = 3: {a b c} ∩ {b a d} = {a b}, X_3 = 2, A_3 = 2/3
//	Σ A_d p^d = 0 + 1 · 0.81 + 2/3 · 0.729 = 0.81 + 0.486 = 1.296
//	(1−p)/p · 1.296 = 1.296 / 9 = 0.144;  A_3 · p³ = 2/3 · 0.729 = 0.486
//	RBO_ext = 0.144 + 0.486 = 0.63
//
// Uneven lengths (equation 30), S the shorter list:
//
//	S = [a], L = [a b]: s = 1, l = 2, X_1 = 1, X_2 = |{a} ∩ {a b}| = 1, X_s = 1
//	  (1−p)/p · (1 · p + 1/2 · p² + X_s·(2−1)/(1·2) · p²) = (1−p)/p · (p + p²) = 0.1 · 1.9 = 0.19
//	  ((X_2 − X_1)/2 + X_1/1) · p² = 0.81;  RBO_ext = 1 (a prefix is assumed to go on agreeing)
//	S = [a], L = [b a]: X_1 = 0, X_2 = 1, X_s = 0
//	  (1−p)/p · (0 + 1/2 · 0.81 + 0) = 0.405 / 9 = 0.045;  (1/2 + 0) · 0.81 = 0.405;  RBO_ext = 0.45
//	S = [a c], L = [a b c]: X_1 = 1, X_2 = |{a c} ∩ {a b}| = 1, X_3 = |{a c} ∩ {a b c}| = 2, X_s = X_2 = 1
//	  Σ X_d/d p^d = 0.9 + 0.405 + 0.486 = 1.791;  the s < d ≤ l term at d = 3: 1 · 1/(2·3) · 0.729 = 0.1215
//	  (1−p)/p · 1.9125 = 0.2125;  ((2 − 1)/3 + 1/2) · 0.729 = 5/6 · 0.729 = 0.6075;  RBO_ext = 0.82
//
// Empty lists: two give 1, one gives 0 (RBO's doc comment says why).
func TestRBOWorked(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want float64
	}{
		{"abc", "abc", 1},
		{"abc", "def", 0},
		{"abc", "bad", 0.63},
		{"a", "ab", 1},
		{"a", "ba", 0.45},
		{"ac", "abc", 0.82},
		{"", "", 1},
		{"", "ab", 0},
	} {
		for _, swap := range []bool{false, true} {
			a, b := list(c.a), list(c.b)
			if swap {
				a, b = b, a
			}
			if got := RBO(a, b, 0.9); math.Abs(got-c.want) > 1e-12 {
				t.Errorf("RBO(%v, %v) = %.15g, want %g", a, b, got, c.want)
			}
		}
	}
}

// TestRBOIdenticalIsExactlyOne: identical lists give 1 exactly, not
// 1 − ε, at any length (the JSON shows it as 1).
func TestRBOIdenticalIsExactlyOne(t *testing.T) {
	l := list("abcdefghijklmnopqrstuvwxyz")
	for n := range len(l) + 1 {
		if got := RBO(l[:n], l[:n], 0.9); got != 1 {
			t.Errorf("length %d: %v", n, got)
		}
	}
}

// TestRBOPanicsOnBadP: p must be in (0, 1).
func TestRBOPanicsOnBadP(t *testing.T) {
	for _, p := range []float64{0, 1, -0.5, 1.5, math.NaN()} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("p = %v did not panic", p)
				}
			}()
			RBO(list("ab"), list("ba"), p)
		}()
	}
}

// overlaps is X_d = |a[:d] ∩ b[:d]| for d = 0 … max(len(a), len(b)) by
// brute force (a[:d] is all of a when d is past its end); X_d stays the
// last value beyond.
func overlaps(a, b []string) func(d int) int {
	l := max(len(a), len(b))
	x := make([]int, l+1)
	for d := range x {
		for _, p := range a[:min(d, len(a))] {
			for _, q := range b[:min(d, len(b))] {
				if p == q {
					x[d]++
				}
			}
		}
	}
	return func(d int) int { return x[min(d, l)] }
}

// series sums (1−p) · Σ_{d=1..depth} p^(d−1) · agree(d) directly: RBO's
// definition (Webber et al. 2010, equation 7) with a chosen agreement at
// each depth. At p = 0.9 and depth 2000 the weight left out, p^2000, is
// below 1e-91.
func series(p float64, depth int, agree func(d int) float64) float64 {
	sum, pd := 0.0, 1.0
	for d := 1; d <= depth; d++ {
		sum += pd * agree(d)
		pd *= p
	}
	return (1 - p) * sum
}

// bounds are RBO_min and RBO_max of two finite lists as series summed to a
// large depth: at each depth, the overlap seen (min) or the most the
// unseen items could add to it (max). At depth d, beyond a list's end its
// d − len unseen items may match the other list's seen items that it does
// not hold, and the two lists' unseen items may match each other.
func bounds(a, b []string, p float64) (lo, hi float64) {
	const depth = 2000
	overlapAt := overlaps(a, b)
	lo = series(p, depth, func(d int) float64 { return float64(overlapAt(d)) / float64(d) })
	hi = series(p, depth, func(d int) float64 {
		sa, sb := min(d, len(a)), min(d, len(b))
		x := overlapAt(d)
		ua, ub := d-sa, d-sb       // unseen items of a and b
		onlyA, onlyB := sa-x, sb-x // seen items the other list's seen part lacks
		m1, m2 := min(ub, onlyA), min(ua, onlyB)
		return float64(min(d, x+m1+m2+min(ua-m2, ub-m1))) / float64(d)
	})
	return lo, hi
}

// extSeries is RBO_ext as the series of equation 7 with the agreement
// equation 30 extrapolates (S the shorter list, X_d by brute force): X_d/d
// to depth s; (X_d + X_s·(d−s)/s)/d from s to l; (X_l − X_s)/l + X_s/s
// beyond l.
func extSeries(a, b []string, p float64) float64 {
	if len(a) > len(b) {
		a, b = b, a
	}
	s, l := len(a), len(b)
	overlapAt := overlaps(a, b)
	xs, xl := float64(overlapAt(s)), float64(overlapAt(l))
	return series(p, 2000, func(d int) float64 {
		switch {
		case d <= s:
			return float64(overlapAt(d)) / float64(d)
		case d <= l:
			return (float64(overlapAt(d)) + xs*float64(d-s)/float64(s)) / float64(d)
		}
		return (xl-xs)/float64(l) + xs/float64(s)
	})
}

// randList is n distinct ids drawn from an alphabet of size m ≥ n.
func randList(r *rand.Rand, n, m int) []string {
	out := make([]string, n)
	for i, j := range r.Perm(m)[:n] {
		out[i] = fmt.Sprintf("n%d", j)
	}
	return out
}

// TestRBOAgainstSeries: on 3,000 random pairs of lists (lengths 1 to 12,
// even and uneven, ids from an alphabet of 4 to 20 so that overlaps are
// frequent), at p = 0.5, 0.9 and 0.98, RBO equals RBO_ext summed as a
// series to depth 2000 (to 1e-9), lies between RBO_min and RBO_max summed
// the same way (RBO_min ≤ RBO_ext ≤ RBO_min + RBO_res), and is symmetric.
func TestRBOAgainstSeries(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		p := []float64{0.5, 0.9, 0.98}[i%3]
		m := 4 + r.IntN(17)
		a, b := randList(r, 1+r.IntN(min(m, 12)), m), randList(r, 1+r.IntN(min(m, 12)), m)
		got := RBO(a, b, p)
		if want := extSeries(a, b, p); math.Abs(got-want) > 1e-9 {
			t.Fatalf("RBO(%v, %v, %v) = %.15g, the series gives %.15g", a, b, p, got, want)
		}
		lo, hi := bounds(a, b, p)
		if got < lo-1e-9 || got > hi+1e-9 {
			t.Fatalf("RBO(%v, %v, %v) = %.15g, outside [min %.15g, max %.15g]", a, b, p, got, lo, hi)
		}
		if back := RBO(b, a, p); back != got {
			t.Fatalf("RBO not symmetric on %v, %v: %v and %v", a, b, got, back)
		}
	}
}

// TestBoundsWorked pins the test's own bounds on a case worked by hand, so
// that the cross-check above cannot pass on bounds that are always wide:
// [a b] against [b c] at p = 0.5. Seen: X_1 = 0, X_2 = 1. RBO_min keeps
// X_d = 1 beyond: 0.5 · (0 + 0.5 · 1/2 + Σ_{d≥3} 0.5^(d−1)/d), and since
// Σ_{d≥1} 0.5^(d−1)/d = 2 ln 2, the tail is 2 ln 2 − 1 − 0.25: RBO_min =
// 0.5 · (2 ln 2 − 1) = ln 2 − 0.5. RBO_max: from depth 3, a's unseen items
// may be c and then b's, b's may be a and then a's, so X_d = d and A_d = 1:
// 0.5 · (0.25 + Σ_{d≥3} 0.5^(d−1)) = 0.5 · (0.25 + 0.5) = 0.375.
func TestBoundsWorked(t *testing.T) {
	lo, hi := bounds(list("ab"), list("bc"), 0.5)
	if want := math.Ln2 - 0.5; math.Abs(lo-want) > 1e-12 {
		t.Errorf("min %.15g, want %.15g", lo, want)
	}
	if math.Abs(hi-0.375) > 1e-12 {
		t.Errorf("max %.15g, want 0.375", hi)
	}
}
