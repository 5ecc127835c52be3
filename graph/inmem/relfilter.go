package inmem

import (
	"context"

	"github.com/memoria-graph/memoria/graph"
)

// relProp is relationship e's property key, read where the graph keeps it
// (the compact arrays for a RELATES weight, else the properties as
// loaded), without building the property map: what a filter's condition
// compares.
func (g *Graph) relProp(e int32, key string) (any, bool) {
	if g.trav[g.relType[e]] {
		f := g.relFlags[e]
		switch {
		case key == g.weightKey && f&fWeightCompact != 0:
			if f&fWeightInt != 0 {
				return int64(g.relWeight[e]), true
			}
			return g.relWeight[e], true
		case key == g.tagsKey && f&fTagsCompact != 0:
			return []string{}, true // a list: no condition holds on it
		case key == g.tagsKey && f&fTagsJoined != 0:
			return g.joinedTags(e), true
		}
	}
	v, ok := g.extra[e][key]
	return v, ok && v != nil
}

// Keeps reports whether f keeps relationship e (graph.RelFilter's rule).
func (g *Graph) Keeps(f *graph.RelFilter, e int32) bool {
	if f == nil {
		return true
	}
	if !f.KeepsType(g.typeName(e)) {
		return false
	}
	for _, c := range f.Where {
		v, ok := g.relProp(e, c.Key)
		if !ok || !c.Holds(v) {
			return false
		}
	}
	return true
}

// Filtered returns g's reads (graph.Neighbourhood) with f applied: Around
// and Arcs leave out the relationships f does not keep; Degrees,
// Strengths and Facts' degrees stay the graph's (graph.RelFilter). An
// inactive f gives g itself.
func (g *Graph) Filtered(f graph.RelFilter) graph.Neighbourhood {
	if !f.Active() {
		return g
	}
	return filtered{g: g, f: &f}
}

type filtered struct {
	g *Graph
	f *graph.RelFilter
}

func (n filtered) Read(ctx context.Context, fn func(graph.Reader) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return fn(reader(n))
}
