package spreading_test

import (
	"context"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/retriever/spreading"
)

// TestOverflowNamesThePulse: weights of 1e308 on the chain A–B–C, seed A,
// P = 2, D = 0.7. Every weight is finite, but
//
//	Δ₁(B) = 1 × 1e308 × 0.7 = 7e307
//	pulse 2: B fires, A first (other ends by id): 7e307 × 1e308 × 0.7 = +Inf
//
// so the run fails there, naming the pulse, the relationship B–A and the
// arithmetic, rather than scoring A and C NaN and +Inf (which no format
// can write).
func TestOverflowNamesThePulse(t *testing.T) {
	g := build(t, nil, rel{Spec: "A-RELATES->B", Weight: 1e308}, rel{Spec: "B-RELATES->C", Weight: 1e308})
	_, err := spreading.Retrieve(context.Background(), g, seeds("A", 1.0), spreading.DefaultParams())
	if err == nil {
		t.Fatal("no error for an activation of +Inf")
	}
	for _, part := range []string{`spreading: pulse 2, relationship ("B")-[:RELATES]-("A")`, `Δ1("B") × w × D = 6.999999999999999e+307 × 1e+308 × 0.7`, "not a finite number"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q lacks %q", err, part)
		}
	}
}

// TestOverflowInTheSum: seeds A and B each pass 1 × 1e308 × 1 = 1e308 to
// X at pulse 1 (P = 1, D = 1): each amount is finite, their sum Δ₁(X) =
// 1e308 + 1e308 is +Inf. The run fails at B's relationship (A fires
// first), naming the sum.
func TestOverflowInTheSum(t *testing.T) {
	g := build(t, nil, rel{Spec: "A-RELATES->X", Weight: 1e308}, rel{Spec: "B-RELATES->X", Weight: 1e308})
	q := seeds("A", 1.0, "B", 1.0)
	p := spreading.DefaultParams()
	p.Pulses, p.Decay = 1, 1
	_, err := spreading.Retrieve(context.Background(), g, q, p)
	if err == nil {
		t.Fatal("no error for an activation of +Inf")
	}
	for _, part := range []string{`spreading: pulse 1, relationship ("B")-[:RELATES]-("X")`, `Δ1("X") = 1e+308 + 1e+308`, "not a finite number"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q lacks %q", err, part)
		}
	}
}

// TestLargeFiniteWeights: weights of 1e150 on the same chain stay finite,
// and the run scores them. Δ₁(B) = 1 × 1e150 × 0.7 = 7e149; at pulse 2 B
// passes 7e149 × 1e150 × 0.7 = 4.9e299 to A and to C. A(A) = 1 + 4.9e299
// (4.9e299 in doubles) = A(C), the max, so N(A) = N(C) = 1 and N(B) =
// 7e149 / 4.9e299. With α = 0.7 and no query vector sem is R = 1 for the
// seed A and 0 for the others: A 0.7 + 0.3 = 1, C 0.3, B 0.3 × 7e149 /
// 4.9e299 ≈ 4.3e-151 (degrees 1, 2, 1: no penalty).
func TestLargeFiniteWeights(t *testing.T) {
	g := build(t, nil, rel{Spec: "A-RELATES->B", Weight: 1e150}, rel{Spec: "B-RELATES->C", Weight: 1e150})
	r := run(t, g, seeds("A", 1.0), nil)
	want(t, r, []string{"A", "C", "B"}, []float64{1, 0.3, 0.3 * 7e149 / 4.9e299})
}
