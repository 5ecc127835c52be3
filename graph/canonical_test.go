package graph

import (
	"math"
	"testing"
)

// TestCanonicalProps pins the one rule for property keys (CanonicalProps):
// how Neo4j stores values, and the APOC file writes them.
//
// Expected: key order does not matter; an integer 1 and a float 1.0 differ
// (1 vs 1.0: Neo4j keeps the type, and Load must not merge them), in a
// list too ([1] is an integer array, [1.0] a float array), except that a
// list mixing integers and floats is stored as floats ([1, 2.5] and
// [1.0, 2.5] alike); a []any and a []string of the same strings alike;
// nested lists and maps by the same rules at each level; NaN equal to
// itself, the infinities spelt out; floats with a '.' or an exponent
// whatever their size; strings quoted.
func TestCanonicalProps(t *testing.T) {
	for _, c := range []struct {
		a, b map[string]any
		same bool
		want string // a's key
	}{
		{map[string]any{"a": "x", "b": true}, map[string]any{"b": true, "a": "x"}, true, `{"a":"x","b":true}`},
		{map[string]any{"w": int64(1)}, map[string]any{"w": 1.0}, false, `{"w":1}`},
		{map[string]any{"w": 1.0}, map[string]any{"w": float32(1)}, true, `{"w":1.0}`},
		{map[string]any{"w": int64(1)}, map[string]any{"w": 1}, true, `{"w":1}`},
		{map[string]any{"l": []any{int64(1)}}, map[string]any{"l": []any{1.0}}, false, `{"l":[1]}`},
		{map[string]any{"l": []any{int64(1), 2.5}}, map[string]any{"l": []any{1.0, 2.5}}, true, `{"l":[1.0,2.5]}`},
		{map[string]any{"l": []any{int64(1), int64(2)}}, map[string]any{"l": []int64{1, 2}}, true, `{"l":[1,2]}`},
		{map[string]any{"l": []any{1.0, 2.0}}, map[string]any{"l": []float64{1, 2}}, true, `{"l":[1.0,2.0]}`},
		{map[string]any{"l": []any{"a", "b"}}, map[string]any{"l": []string{"a", "b"}}, true, `{"l":["a","b"]}`},
		{map[string]any{"l": []any{}}, map[string]any{"l": []string{}}, true, `{"l":[]}`},
		{map[string]any{"l": []any{"1"}}, map[string]any{"l": []any{int64(1)}}, false, `{"l":["1"]}`},
		{map[string]any{"l": []any{true}}, map[string]any{"l": []bool{true}}, true, `{"l":[true]}`},
		{map[string]any{"n": []any{[]any{int64(1)}, []any{int64(1), 0.5}}}, map[string]any{"n": []any{[]any{1.0}, []any{1.0, 0.5}}}, false, `{"n":[[1],[1.0,0.5]]}`},
		{map[string]any{"m": map[string]any{"z": int64(1), "a": []string{"x"}}}, map[string]any{"m": map[string]any{"a": []any{"x"}, "z": 1.0}}, false, `{"m":{"a":["x"],"z":1}}`},
		{map[string]any{"f": math.NaN()}, map[string]any{"f": math.NaN()}, true, `{"f":NaN}`},
		{map[string]any{"f": math.NaN()}, map[string]any{"f": "NaN"}, false, `{"f":NaN}`},
		{map[string]any{"f": math.Inf(1), "g": math.Inf(-1)}, map[string]any{"g": math.Inf(-1), "f": math.Inf(1)}, true, `{"f":Infinity,"g":-Infinity}`},
		{map[string]any{"f": 1e21, "g": 1e-7, "h": 1e20, "i": math.Copysign(0, -1)}, nil, false, `{"f":1e+21,"g":1e-07,"h":100000000000000000000.0,"i":-0.0}`},
		{map[string]any{"s": `a"b`}, map[string]any{"s": `a\"b`}, false, `{"s":"a\"b"}`},
		{map[string]any{}, nil, true, `{}`},
	} {
		a, b := CanonicalProps(c.a), CanonicalProps(c.b)
		if a != c.want {
			t.Errorf("CanonicalProps(%v) = %s, want %s", c.a, a, c.want)
		}
		if (a == b) != c.same {
			t.Errorf("%v and %v: keys %s and %s, want same=%v", c.a, c.b, a, b, c.same)
		}
	}
}
