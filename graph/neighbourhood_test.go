package graph

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// TestWeightOf: the one weight rule. Absent and null give none; 1 (an
// integer) and 0.5 give their values; NaN passes as a number (Neo4j can
// hold one); a string or a list is an error naming the type.
func TestWeightOf(t *testing.T) {
	for _, c := range []struct {
		props map[string]any
		want  float64
		none  bool
		err   string
	}{
		{props: map[string]any{}, none: true},
		{props: map[string]any{"weight": nil}, none: true},
		{props: map[string]any{"weight": int64(1)}, want: 1},
		{props: map[string]any{"weight": 0.5}, want: 0.5},
		{props: map[string]any{"weight": math.NaN()}, want: math.NaN()},
		{props: map[string]any{"weight": "high"}, err: "property weight must be a number, got string"},
		{props: map[string]any{"weight": []any{1.0}}, err: "got []interface {}"},
	} {
		w, err := WeightOf(c.props)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v: error %v, want %q", c.props, err, c.err)
			}
		case c.none:
			if w != nil || err != nil {
				t.Errorf("%v: %v %v, want none", c.props, w, err)
			}
		case err != nil || w == nil || !(*w == c.want || math.IsNaN(c.want) && math.IsNaN(*w)):
			t.Errorf("%v: %v %v, want %v", c.props, w, err, c.want)
		}
	}
}

// TestSortRels: by the frontier node's position (B before A, as asked),
// then the other end's id, type, weight (none first), tags, then the
// properties when both have them, then the element id.
func TestSortRels(t *testing.T) {
	w := func(x float64) *float64 { return &x }
	rel := func(from, to, typ string, weight *float64, tags []string, eid string, props map[string]any) Rel {
		return Rel{Edge: Edge{SourceID: from, TargetID: to, Type: typ, Weight: weight, Tags: tags, ElementID: eid, Properties: props}}
	}
	rels := []Rel{
		rel("A", "X", "FIXES", nil, nil, "1", nil),
		rel("B", "Y", "FIXES", w(0.5), []string{"b"}, "2", nil),
		rel("B", "Y", "FIXES", w(0.5), []string{"a"}, "3", nil),
		rel("B", "Y", "FIXES", nil, nil, "4", nil),
		rel("B", "Y", "CAUSES", w(1), nil, "5", nil),
		rel("B", "X", "FIXES", w(1), nil, "6", nil),
		rel("B", "Y", "FIXES", w(0.5), []string{"a"}, "0", nil),
		rel("B", "Z", "FIXES", nil, nil, "", map[string]any{"note": "b"}),
		rel("B", "Z", "FIXES", nil, nil, "", map[string]any{"note": "a"}),
	}
	SortRels(rels, []NodeRef{{Node: Node{ID: "B"}}, {Node: Node{ID: "A"}}})
	var got []string
	for _, r := range rels {
		got = append(got, r.Edge.ElementID+":"+CanonicalProps(r.Edge.Properties))
	}
	want := `6:{} 5:{} 4:{} 0:{} 3:{} 2:{} :{"note":"a"} :{"note":"b"} 1:{}`
	if strings.Join(got, " ") != want {
		t.Errorf("order %s, want %s", strings.Join(got, " "), want)
	}
}

// TestSumWeights: a strength adds the weights from the smallest, whatever
// order they come in. By hand: 0.3, 0.1, 0.2 are added as (0.1 + 0.2) +
// 0.3 = 0.30000000000000004 + 0.3 = 0.6000000000000001, where the order
// given would give (0.3 + 0.1) + 0.2 = 0.4 + 0.2 = 0.6000000000000001 too,
// and 0.2, 0.3, 0.1 would give 0.5 + 0.1 = 0.6: the order matters, so the
// rule fixes it. No weight is a clean 0; a negative weight, a NaN, an
// infinity, or finite weights whose sum overflows are not clean.
func TestSumWeights(t *testing.T) {
	if x := (0.2 + 0.3) + 0.1; x != 0.6 {
		t.Fatalf("control: 0.2+0.3+0.1 = %v", x)
	}
	for _, c := range []struct {
		ws    []float64
		total float64
		clean bool
	}{
		{ws: []float64{0.3, 0.1, 0.2}, total: 0.6000000000000001, clean: true},
		{ws: []float64{0.2, 0.3, 0.1}, total: 0.6000000000000001, clean: true},
		{ws: nil, total: 0, clean: true},
		{ws: []float64{0, 0.01, 0.01}, total: 0.02, clean: true},
		{ws: []float64{0.5, -0.1}},
		{ws: []float64{0.5, math.NaN()}},
		{ws: []float64{math.Inf(1)}},
		{ws: []float64{math.MaxFloat64, math.MaxFloat64}},
	} {
		got := SumWeights(slices.Clone(c.ws))
		if got.Clean != c.clean || (c.clean && got.Total != c.total) {
			t.Errorf("SumWeights(%v) = %+v, want total %v clean %v", c.ws, got, c.total, c.clean)
		}
	}
}
