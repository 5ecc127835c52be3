package tui

import (
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/retriever/registry"
	"github.com/memoria-graph/memoria/testkit/toyretriever"
)

// TestPickerShowsARegisteredRetriever: a retriever registered with no
// other edit (the toy "degree", testkit/toyretriever) is in the
// picker, last; ticking it beside Activation Energy opens the compare view
// with a degree column that runs and fills, and its parameter panel lists
// its table (MIN_DEGREE, TOP_K K), a step of which changes a copy.
func TestPickerShowsARegisteredRetriever(t *testing.T) {
	defer registry.Register(&toyretriever.DegreeSpec)()
	h := demoHarness(t)
	h.focusPane(focusTree)
	h.keys("X")
	if h.m.top() != overlay(h.m.ov.picker) {
		t.Fatal("X did not open the picker")
	}
	if v := h.m.ov.picker.View(); !strings.Contains(v, "[ ] degree") {
		t.Fatalf("the picker does not list degree:\n%s", v)
	}
	h.keys("down", "down", "down", "down", "down", " ", "enter")
	h.settle()
	if strings.Join(h.m.compared, ",") != "activation,degree" {
		t.Fatalf("compare %v, want activation,degree", h.m.compared)
	}
	h.waitCompared()
	s := h.m.runs.slots["degree"]
	if s.err != nil || s.ranking == nil || len(s.ranking.Hits) == 0 {
		t.Fatalf("degree's column: err %v, ranking %+v", s.err, s.ranking)
	}
	p := h.m.ranked.Panel("degree").Params()
	if p.Rows() != 2 || p.Name(0) != "MIN_DEGREE" || p.Name(1) != "TOP_K K" || p.Value(0) != "1" {
		t.Errorf("degree's panel: %d rows, %q=%q, %q", p.Rows(), p.Name(0), p.Value(0), p.Name(1))
	}
	if q := p.Step(0, +1); q.Value(0) != "2" || q.Settings().Get("min-degree") != 2 || p.Value(0) != "1" {
		t.Errorf("a step of MIN_DEGREE: %s (was %s): the copy changes, the original stays", q.Value(0), p.Value(0))
	}
}
