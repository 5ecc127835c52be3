package oninmem

import (
	"context"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// TestFilterKeepsDegree: a filtered relationship is not traversed, but
// the degree stays the graph's. A has four RELATES of weight 0.8, to B
// (attitude 5), C (attitude 2), D (no attitude) and E (attitude "5", a
// string), and a KNOWS to F: d(A) = 4. With --rel-where attitude>=4 only
// A→B passes, at 1 × 0.8 / √4 × 1 = 0.4 (not 0.8 / √1). With
// --exclude-rel-types RELATES nothing passes; with --rel-types KNOWS
// neither (Activation Energy follows RELATES only).
func TestFilterKeepsDegree(t *testing.T) {
	g := load(t,
		nd("0", "A"), nd("1", "B"), nd("2", "C"), nd("3", "D"), nd("4", "E"), nd("5", "F"),
		rl("10", "0", "1", `"weight":0.8,"attitude":5`),
		rl("11", "0", "2", `"weight":0.8,"attitude":2`),
		rl("12", "0", "3", `"weight":0.8`),
		rl("13", "4", "0", `"weight":0.8,"attitude":"5"`),
		rt("14", "KNOWS", "0", "5", `"weight":1.0,"attitude":5`),
	)
	req := activation.ExpandRequest{Frontier: []activation.FrontierInput{{NodeID: "A", Activation: 1}}, Visited: visited("A")}
	ge4, err := graph.ParseRelCond("attitude>=4")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []struct {
		name string
		f    graph.RelFilter
		want []summary
	}{
		{"none", graph.RelFilter{}, []summary{{"A", "B", 0.4, 4}, {"A", "C", 0.4, 4}, {"A", "D", 0.4, 4}, {"A", "E", 0.4, 4}}},
		{"attitude>=4", graph.RelFilter{Where: []graph.RelCond{ge4}}, []summary{{"A", "B", 0.4, 4}}},
		{"exclude RELATES", graph.RelFilter{Exclude: []string{graph.Relates}}, []summary{}},
		{"only KNOWS", graph.RelFilter{Types: []string{"KNOWS"}}, []summary{}},
	} {
		got, err := NewFiltered(g, k.f).ExpandFrontier(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		s := summarize(got)
		if len(s) != len(k.want) {
			t.Errorf("%s: %+v, want %+v", k.name, s, k.want)
			continue
		}
		for i := range s {
			if s[i] != k.want[i] {
				t.Errorf("%s: %+v, want %+v", k.name, s, k.want)
				break
			}
		}
	}
}
