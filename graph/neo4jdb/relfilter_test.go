package neo4jdb

import (
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph"
)

// TestRelFilterWhereIsParameters: the predicate's text depends only on the
// filter's shape (which parts it has, and the operators), never on its
// types, keys or values, which go in as parameters: two filters of one
// shape, one of them hostile, give the same text, and no text of theirs.
func TestRelFilterWhereIsParameters(t *testing.T) {
	cond := func(s string) graph.RelCond {
		c, err := graph.ParseRelCond(s)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	plain := graph.RelFilter{Types: []string{"KNOWS"}, Exclude: []string{"HATES"}, Where: []graph.RelCond{cond("attitude>=4"), cond("kind!=enemy")}}
	hostile := graph.RelFilter{Types: []string{"K`]) DETACH DELETE n //"}, Exclude: []string{"$rf_types"},
		Where: []graph.RelCond{cond("a]) DETACH DELETE r //>=1"), cond(`kind!="x' }) RETURN 1 //"`)}}
	p1, p2 := map[string]any{}, map[string]any{}
	w1, w2 := RelFilterWhere(plain, "r", p1), RelFilterWhere(hostile, "r", p2)
	const want = "type(r) IN $rf_types AND NOT type(r) IN $rf_exclude AND r[$rf_key_0] >= $rf_value_0 AND (r[$rf_key_1] < $rf_value_1 OR r[$rf_key_1] > $rf_value_1)"
	if w1 != want || w2 != want {
		t.Errorf("predicates:\n%s\n%s\nwant\n%s", w1, w2, want)
	}
	if p2["rf_key_0"] != "a]) DETACH DELETE r //" || p2["rf_value_1"] != "x' }) RETURN 1 //" || p2["rf_value_0"] != int64(1) {
		t.Errorf("parameters: %v", p2)
	}
	for _, s := range []string{"DELETE", "RETURN", "enemy", "KNOWS", "attitude"} {
		if strings.Contains(w1+w2, s) {
			t.Errorf("%q reached the query text", s)
		}
	}
	if RelFilterWhere(graph.RelFilter{}, "r", map[string]any{}) != "" {
		t.Error("the zero filter gave a predicate")
	}
}
