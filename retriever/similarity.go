package retriever

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// Where a semantic similarity came from (Similarity).
const (
	SimilarityFromEmbedding = "embedding"
	SimilarityFromSeed      = "seed score"
	SimilarityFromNone      = "none"
)

// Similarity is the one rule for a node's semantic similarity to the query,
// sem(v) (docs/RETRIEVERS.md, "Spreading activation", rule 5; the signals
// rerank uses it too): with a query vector q, the cosine of q with the
// node's embedding property when that is a list of finite numbers of q's
// length, not all zero, a negative cosine counted 0. Otherwise (no query
// vector, no such embedding) it is the seed's R for a seed (seed true,
// r its R) and 0 for any other node. from says which:
// SimilarityFromEmbedding, SimilarityFromSeed or SimilarityFromNone.
func Similarity(q []float64, embedding any, seed bool, r float64) (sem float64, from string) {
	if sim, ok := Cosine(q, embedding); ok {
		return sim, SimilarityFromEmbedding
	}
	if seed {
		return r, SimilarityFromSeed
	}
	return 0, SimilarityFromNone
}

// Cosine is the cosine of q with an embedding property, negative taken as
// 0; ok is false without a query vector, or when the property is not a
// list of finite numbers of q's length with a length of its own.
func Cosine(q []float64, emb any) (float64, bool) {
	if q == nil {
		return 0, false
	}
	var e []float64
	switch x := emb.(type) {
	case []float64:
		e = x
	case []any:
		e = make([]float64, len(x))
		for i, v := range x {
			y, ok := Number(v)
			if !ok {
				return 0, false
			}
			e[i] = y
		}
	default:
		return 0, false
	}
	if len(e) != len(q) {
		return 0, false
	}
	for _, x := range e {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, false
		}
	}
	// Each vector is scaled by a power of two that brings its largest
	// element into [0.5, 1) before the squares are summed: the cosine does
	// not change, and the squares of elements near the largest double no
	// longer overflow (an embedding [1e200, 1e200, 0] is parallel to [1, 1,
	// 0]: cosine 1, not 0) nor those near the smallest underflow. A power
	// of two scales exactly (but for elements below 2⁻¹⁰²² of the
	// largest), so where the sums did not overflow or underflow before,
	// the cosine has the same bits as without the scaling.
	sq, okq := unitScale(q)
	se, oke := unitScale(e)
	if !okq || !oke {
		return 0, false
	}
	var dot, nq, ne float64
	for i := range q {
		x, y := math.Ldexp(q[i], sq), math.Ldexp(e[i], se)
		dot += x * y
		nq += x * x
		ne += y * y
	}
	return max(0, dot/(math.Sqrt(nq)*math.Sqrt(ne))), true
}

// unitScale is the power of two, as an exponent, that brings the largest
// magnitude among xs into [0.5, 1); ok is false when every x is 0.
func unitScale(xs []float64) (exp int, ok bool) {
	m := 0.0
	for _, x := range xs {
		m = max(m, math.Abs(x))
	}
	if m == 0 {
		return 0, false
	}
	_, e := math.Frexp(m)
	return -e, true
}

// CheckQueryVector says what is wrong with a query vector, if anything: it
// must have a length, finite numbers, and not all of them zero (no
// direction to compare with).
func CheckQueryVector(v []float64) error {
	if len(v) == 0 {
		return errors.New("the query vector is empty")
	}
	zero := true
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("the query vector's element %d is not a finite number", i+1)
		}
		zero = zero && x == 0
	}
	if zero {
		return errors.New("the query vector is all zeros (no direction to compare with)")
	}
	return nil
}

// Number reads a property value as a number: an integer, or a float that
// is finite; ok is false for anything else.
func Number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case float64:
		return x, !math.IsNaN(x) && !math.IsInf(x, 0)
	}
	return 0, false
}

// ParseQueryVector reads a query vector: a JSON array of finite numbers,
// not all zero.
func ParseQueryVector(data []byte) ([]float64, error) {
	var v []float64
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("not a JSON array of numbers: %w", err)
	}
	if v == nil {
		return nil, errors.New("not a JSON array of numbers: null")
	}
	if err := CheckQueryVector(v); err != nil {
		return nil, err
	}
	return v, nil
}
