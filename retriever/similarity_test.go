package retriever

import (
	"math"
	"testing"
)

// TestCosineScales: the cosine of vectors whose squares leave the doubles,
// worked by hand:
//
//   - [1, 1, 0] and [1e200, 1e200, 0] are parallel: 1. Unscaled, the
//     embedding's squares overflow (|e|² = +Inf) and the cosine came out 0.
//   - [1e300, 0] and [1e300, 1e300] are 45° apart: 1/√2. Unscaled, every
//     sum overflows and the cosine came out NaN.
//   - [3, 4] and [3e-200, 4e-200] are parallel: 1. Unscaled, the
//     embedding's squares underflow to 0 and it counted as no embedding.
//   - [-1e200, 0] and [1e200, 0] are opposite: −1, counted 0.
//
// Vectors within the doubles' range keep their bits: [1, 2, 2] and
// [2, 1, 2] give 8 / (3 × 3) = 8/9 exactly as before.
func TestCosineScales(t *testing.T) {
	for _, c := range []struct {
		q, e []float64
		want float64
	}{
		{[]float64{1, 1, 0}, []float64{1e200, 1e200, 0}, 1},
		{[]float64{1e300, 0}, []float64{1e300, 1e300}, 1 / math.Sqrt2},
		{[]float64{3, 4}, []float64{3e-200, 4e-200}, 1},
		{[]float64{-1e200, 0}, []float64{1e200, 0}, 0},
	} {
		got, ok := Cosine(c.q, c.e)
		if !ok || !(math.Abs(got-c.want) <= 1e-15) { // NaN fails too
			t.Errorf("Cosine(%v, %v) = %v, %v; want %v", c.q, c.e, got, ok, c.want)
		}
	}
	if got, ok := Cosine([]float64{1, 2, 2}, []any{2.0, int64(1), 2.0}); !ok || got != 8.0/9 {
		t.Errorf("Cosine([1 2 2], [2 1 2]) = %v, %v; want 8/9 = %v", got, ok, 8.0/9)
	}
	if _, ok := Cosine([]float64{1, 2}, []float64{0, 0}); ok {
		t.Error("an all-zero embedding has a cosine")
	}
	if sem, from := Similarity([]float64{1, 1, 0}, []any{1e200, 1e200, 0.0}, false, 0); !(math.Abs(sem-1) <= 1e-15) || from != SimilarityFromEmbedding {
		t.Errorf("Similarity of a parallel embedding of 1e200s = %v from %s, want 1 from the embedding", sem, from)
	}
}
