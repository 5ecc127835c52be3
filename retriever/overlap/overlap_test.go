package overlap

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/retriever"
)

// ranking is a ranking of the ids of s (one letter a node) in that order,
// ranked 1, 2, ….
func ranking(name, s string) retriever.Ranking {
	r := retriever.Ranking{Retriever: name}
	for i, id := range list(s) {
		r.Hits = append(r.Hits, retriever.Hit{Rank: i + 1, NodeID: id, Score: 1 / float64(i+1)})
	}
	return r
}

// TestJaccard: |A ∩ B| / |A ∪ B|. [a b c] and [b c d]: {b c} of {a b c d},
// 2/4 = 0.5; [a b] and [b a]: order does not count, 1; [a] and [b]: 0;
// [a b c] and [a]: 1/3; an empty list and [a]: 0; two empty lists: 1.
func TestJaccard(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want float64
	}{{"abc", "bcd", 0.5}, {"ab", "ba", 1}, {"a", "b", 0}, {"abc", "a", 1.0 / 3}, {"", "a", 0}, {"", "", 1}} {
		if got, back := Jaccard(list(c.a), list(c.b)), Jaccard(list(c.b), list(c.a)); got != c.want || back != c.want {
			t.Errorf("Jaccard(%q, %q) = %v (and %v swapped), want %v", c.a, c.b, got, back, c.want)
		}
	}
}

// fourRankings: four lists compared at k = 3.
//
//	activation  A B Z D E  → top 3: A B Z
//	expansion   B A F      → B A F
//	spreading   C H        → C H    (shorter than k)
//	ppr         A G Z B    → A G Z  (B, rank 4, is cut)
//
// The union, by best rank, then how many lists hold the node, then id:
//
//	A  best 1, 3 lists (activation 1, expansion 2, ppr 1)
//	B  best 1, 2 lists (activation 2, expansion 1; ppr's rank 4 is cut)
//	C  best 1, 1 list  (spreading 1)
//	G  best 2, 1 list  (ppr 2)          before H by id
//	H  best 2, 1 list  (spreading 2)
//	Z  best 3, 2 lists (activation 3, ppr 3)   before F though "F" < "Z"
//	F  best 3, 1 list  (expansion 3)
//
// Only: activation none (A, B, Z are all shared), expansion F, spreading C
// and H, ppr G.
//
// The pairs, in names order (Jaccard of the top 3; RBO at p = 0.9, p² =
// 0.81, p³ = 0.729):
//
//	activation–expansion  {A B} of {A B Z F}: 0.5;  [A B Z] vs [B A F] is TestRBOWorked's
//	                      [a b c] vs [b a d]: 0.63
//	activation–spreading  disjoint: 0, 0
//	activation–ppr        {A Z} of {A B Z G}: 0.5;  [A B Z] vs [A G Z]: A_1 = 1, A_2 = 1/2, A_3 = 2/3,
//	                      (1−p)/p · (0.9 + 0.405 + 0.486) + 2/3 · 0.729 = 0.199 + 0.486 = 0.685
//	expansion–spreading   disjoint: 0, 0
//	expansion–ppr         {A} of {B A F G Z}: 0.2;  [B A F] vs [A G Z]: A_1 = 0, A_2 = 1/2, A_3 = 1/3,
//	                      (1−p)/p · (0.405 + 0.243) + 1/3 · 0.729 = 0.072 + 0.243 = 0.315
//	spreading–ppr         disjoint: 0, 0
func fourRankings(t *testing.T) Result {
	t.Helper()
	names := []string{"activation", "expansion", "spreading", "ppr"}
	res, err := Compare(names, []retriever.Ranking{
		ranking("activation", "ABZDE"), ranking("expansion", "BAF"), ranking("spreading", "CH"), ranking("ppr", "AGZB"),
	}, 3)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestCompare checks fourRankings' union, ranks, only-one-list nodes and
// pairs.
func TestCompare(t *testing.T) {
	res := fourRankings(t)
	want := map[string][4]int{ // node → rank in activation, expansion, spreading, ppr
		"A": {1, 2, 0, 1}, "B": {2, 1, 0, 0}, "C": {0, 0, 1, 0}, "G": {0, 0, 0, 2},
		"H": {0, 0, 2, 0}, "Z": {3, 0, 0, 3}, "F": {0, 3, 0, 0},
	}
	var order []string
	for _, n := range res.Nodes {
		order = append(order, n.NodeID)
		for i, r := range n.Ranks {
			if r.List != res.Names[i] || r.Rank != want[n.NodeID][i] {
				t.Errorf("%s's rank %d: %+v, want %s %d", n.NodeID, i, r, res.Names[i], want[n.NodeID][i])
			}
		}
	}
	if got := strings.Join(order, " "); got != "A B C G H Z F" {
		t.Errorf("union order %s, want A B C G H Z F", got)
	}
	only := map[string][]string{"activation": {}, "expansion": {"F"}, "spreading": {"C", "H"}, "ppr": {"G"}}
	for i, o := range res.Only {
		if o.List != res.Names[i] || !reflect.DeepEqual(o.NodeIDs, only[o.List]) {
			t.Errorf("only %+v, want %v", o, only[o.List])
		}
	}
	if l, ok := res.Nodes[2].OnlyIn(); !ok || l != "spreading" {
		t.Errorf("C only in %q %v", l, ok)
	}
	if _, ok := res.Nodes[0].OnlyIn(); ok {
		t.Error("A is held by three lists")
	}
	pairs := []Pair{
		{"activation", "expansion", 0.5, 0.63}, {"activation", "spreading", 0, 0}, {"activation", "ppr", 0.5, 0.685},
		{"expansion", "spreading", 0, 0}, {"expansion", "ppr", 0.2, 0.315}, {"spreading", "ppr", 0, 0},
	}
	if len(res.Pairs) != len(pairs) {
		t.Fatalf("pairs %+v", res.Pairs)
	}
	for i, p := range res.Pairs {
		w := pairs[i]
		if p.A != w.A || p.B != w.B || math.Abs(p.Jaccard-w.Jaccard) > 1e-12 || math.Abs(p.RBO-w.RBO) > 1e-12 {
			t.Errorf("pair %d: %+v, want %+v", i, p, w)
		}
	}
}

// TestCompareCuts: k cuts each list to its first k hits, k ≤ 0 keeps them
// all, and a k beyond a list's length keeps it whole. [A B C] and [C B A]:
// at k = 1, {A} and {C}: Jaccard 0, RBO 0; at k = 0 and k = 10 the whole
// lists, Jaccard 1 and RBO (A_1 = 0, A_2 = 1/2, A_3 = 1) (1−p)/p · (0.405 +
// 0.729) + 0.729 = 0.126 + 0.729 = 0.855.
func TestCompareCuts(t *testing.T) {
	rs := []retriever.Ranking{ranking("x", "ABC"), ranking("y", "CBA")}
	for _, c := range []struct {
		k        int
		nodes    int
		jac, rbo float64
	}{{1, 2, 0, 0}, {0, 3, 1, 0.855}, {-1, 3, 1, 0.855}, {10, 3, 1, 0.855}} {
		res, err := Compare([]string{"x", "y"}, rs, c.k)
		if err != nil {
			t.Fatal(err)
		}
		if p := res.Pairs[0]; len(res.Nodes) != c.nodes || p.Jaccard != c.jac || math.Abs(p.RBO-c.rbo) > 1e-12 {
			t.Errorf("k = %d: %d nodes, %+v; want %d nodes, jaccard %v, rbo %v", c.k, len(res.Nodes), p, c.nodes, c.jac, c.rbo)
		}
	}
}

// TestComparePositionsNotRankField: a node's rank is its position in Hits;
// a hand-made ranking whose hits all say Rank 1 still ranks them 1, 2, 3.
func TestComparePositionsNotRankField(t *testing.T) {
	r := ranking("x", "ABC")
	for i := range r.Hits {
		r.Hits[i].Rank = 1
	}
	res, err := Compare([]string{"x"}, []retriever.Ranking{r}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range res.Nodes {
		if n.Ranks[0].Rank != i+1 {
			t.Errorf("%s ranked %d", n.NodeID, n.Ranks[0].Rank)
		}
	}
	if len(res.Pairs) != 0 || !reflect.DeepEqual(res.Only[0].NodeIDs, []string{"A", "B", "C"}) {
		t.Errorf("one list: pairs %v, only %v", res.Pairs, res.Only)
	}
}

// TestCompareErrors: names and rankings of different lengths, an empty or
// repeated name, and a node repeated in a list's top k are errors; a repeat
// beyond the cut is not read.
func TestCompareErrors(t *testing.T) {
	two := []retriever.Ranking{ranking("x", "AB"), ranking("y", "BA")}
	for _, c := range []struct {
		names []string
		rs    []retriever.Ranking
		k     int
		want  string
	}{
		{[]string{"x"}, two, 0, "1 names for 2 rankings"},
		{[]string{"x", ""}, two, 0, "ranking 2 has no name"},
		{[]string{"x", "x"}, two, 0, `the name "x" is given twice`},
		{[]string{"x", "y"}, []retriever.Ranking{ranking("x", "ABA"), two[1]}, 0, `ranking "x" lists node "A" twice`},
	} {
		if _, err := Compare(c.names, c.rs, c.k); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.names, err, c.want)
		}
	}
	if _, err := Compare([]string{"x", "y"}, []retriever.Ranking{ranking("x", "ABA"), two[1]}, 2); err != nil {
		t.Errorf("a repeat beyond k: %v", err)
	}
	if res, err := Compare(nil, nil, 5); err != nil || len(res.Nodes)+len(res.Pairs)+len(res.Only) != 0 {
		t.Errorf("no rankings: %+v, %v", res, err)
	}
}

// TestResultJSON: embedded beside a rankings field, a Result writes the
// issue's shape: "nodes" (ranks keyed by name in names order, null where
// absent), "overlap" (a, b, jaccard, rbo), "only" (every name, [] when
// none). [A B] and [B C] at k = 0: A (x 1) and B (x 2, y 1) share the best
// rank 1 and B is held by two lists, so the union is B, A, C (y 2).
// Jaccard {B} of {A B C}: 1/3; RBO (A_1 = 0, A_2 = 1/2): (1−p)/p · 0.405 +
// 0.5 · 0.81 = 0.045 + 0.405 = 0.45.
func TestResultJSON(t *testing.T) {
	res, err := Compare([]string{"x", "y"}, []retriever.Ranking{ranking("x", "AB"), ranking("y", "BC")}, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := struct {
		Rankings []string `json:"rankings"`
		Result
	}{[]string{"…"}, res}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"rankings":["…"],` +
		`"nodes":[{"node_id":"B","ranks":{"x":2,"y":1}},{"node_id":"A","ranks":{"x":1,"y":null}},{"node_id":"C","ranks":{"x":null,"y":2}}],` +
		`"overlap":[{"a":"x","b":"y","jaccard":0.3333333333333333,"rbo":0.45}],` +
		`"only":{"x":["A"],"y":["C"]}}`
	if string(b) != want {
		t.Errorf("JSON\n got %s\nwant %s", b, want)
	}
}
