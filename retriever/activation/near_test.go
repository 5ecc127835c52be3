package activation

import (
	"context"
	"reflect"
	"testing"

	"github.com/memoria-graph/memoria/graph"
)

// TestNearKeeps: a frontier node without a limit keeps every neighbour; one
// with limit (1, 2) keeps exactly the neighbours Dist holds with the first
// count at most 1 or the second at most 2, and none Dist lacks.
func TestNearKeeps(t *testing.T) {
	near := Near{
		Dist:  map[string][2]int{"a": {1, 9}, "b": {9, 2}, "c": {2, 3}, "d": {0, 0}},
		Limit: map[string][2]int{"p": {1, 2}},
	}
	for _, c := range []struct {
		parent, neighbour string
		want              bool
	}{
		{"q", "a", true}, {"q", "x", true},
		{"p", "a", true}, {"p", "b", true}, {"p", "c", false}, {"p", "d", true}, {"p", "x", false},
	} {
		if got := near.Keeps(c.parent, c.neighbour); got != c.want {
			t.Errorf("Keeps(%s, %s) = %v, want %v", c.parent, c.neighbour, got, c.want)
		}
	}
}

// fixed is an Expander that is not a NearExpander: it returns its
// candidates whatever the request, the same slice every time (as a cache
// does).
type fixed []Candidate

func (f fixed) FetchSeed(context.Context, string) (graph.Node, bool, error) {
	return graph.Node{}, false, nil
}

func (f fixed) ExpandFrontier(context.Context, ExpandRequest) ([]Candidate, error) {
	return f, nil
}

// TestExpandNearFilters: through an Expander that cannot apply a Near,
// ExpandNear returns ExpandFrontier's candidates that the Near keeps, in
// their order, and leaves the slice the expander returned (and may keep)
// as it was.
func TestExpandNearFilters(t *testing.T) {
	c := func(p, n string) Candidate { return Candidate{ParentID: p, NeighborNode: graph.Node{ID: n}} }
	e := fixed{c("p", "a"), c("p", "x"), c("p", "b"), c("q", "x"), c("q", "a")}
	near := Near{Dist: map[string][2]int{"a": {0, 5}, "b": {5, 1}}, Limit: map[string][2]int{"p": {0, 1}}}
	got, err := ExpandNear(context.Background(), e, ExpandRequest{}, near)
	if err != nil {
		t.Fatal(err)
	}
	if want := []Candidate{c("p", "a"), c("p", "b"), c("q", "x"), c("q", "a")}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	// The expander's own slice is left as it was.
	if want := (fixed{c("p", "a"), c("p", "x"), c("p", "b"), c("q", "x"), c("q", "a")}); !reflect.DeepEqual(e, want) {
		t.Errorf("ExpandNear changed the expander's slice: %v", e)
	}
}
