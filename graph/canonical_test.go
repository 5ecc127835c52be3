package graph

import "testing"

// TestCanonicalProps: how Neo4j's equality reads property maps.
//
// Expected: key order does not matter ({a,b} and {b,a} alike); an integer 1
// and a float 1.0 differ as scalars ("i1" vs "f1": Neo4j keeps the type
// and Load must not merge them); inside a list they are alike ([1] and
// [1.0] both "n1": Neo4j may store a number list with another element type
// than sent); strings are quoted ("a\"b").
func TestCanonicalProps(t *testing.T) {
	if a, b := CanonicalProps(map[string]any{"a": "x", "b": true}), CanonicalProps(map[string]any{"b": true, "a": "x"}); a != b || a != `{"a":"x","b":true}` {
		t.Errorf("key order: %s vs %s", a, b)
	}
	if a, b := CanonicalProps(map[string]any{"w": int64(1)}), CanonicalProps(map[string]any{"w": 1.0}); a == b || a != `{"w":i1}` || b != `{"w":f1}` {
		t.Errorf("scalar 1 vs 1.0: %s, %s", a, b)
	}
	if a, b := CanonicalProps(map[string]any{"l": []any{int64(1)}}), CanonicalProps(map[string]any{"l": []any{1.0}}); a != b || a != `{"l":[n1]}` {
		t.Errorf("list [1] vs [1.0]: %s, %s", a, b)
	}
	if got := CanonicalProps(map[string]any{"s": `a"b`}); got != `{"s":"a\"b"}` {
		t.Errorf("quoting: %s", got)
	}
}
