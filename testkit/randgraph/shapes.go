package randgraph

import (
	"slices"
	"testing"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/retriever"
)

// Shapes names the nodes (by id) at the awkward shapes of relationships
// of type typ in g: those with a self-loop, and those at either end of two
// or more relationships between the same two nodes (in either direction).
// Tests that compare a retriever with a naive implementation on random
// graphs count their hits among these, to show that the cases reached the
// shapes and did not merely contain them.
func Shapes(g *apoc.Graph, typ string) (selfLoop, parallel map[string]bool) {
	ids := map[string]string{}
	for _, n := range g.Nodes {
		if id, ok := n.Properties["id"].(string); ok {
			ids[n.InternalID] = id
		}
	}
	selfLoop, parallel = map[string]bool{}, map[string]bool{}
	pairs := map[[2]string]int{}
	for _, r := range g.Rels {
		a, okA := ids[r.Start]
		b, okB := ids[r.End]
		if r.Type != typ || !okA || !okB {
			continue
		}
		if a == b {
			selfLoop[a] = true
			continue
		}
		if b < a {
			a, b = b, a
		}
		pairs[[2]string{a, b}]++
		if pairs[[2]string{a, b}] == 2 {
			parallel[a], parallel[b] = true, true
		}
	}
	return selfLoop, parallel
}

// Reached counts, over the cases of a comparison on random graphs, those
// whose ranking has a hit at a RELATES self-loop and those with a hit at
// parallel RELATES relationships (Shapes).
type Reached struct{ cases, selfLoop, parallel int }

// Count adds one case: graph g and the ranking a retriever gave on it.
func (c *Reached) Count(g *apoc.Graph, r retriever.Ranking) {
	self, par := Shapes(g, "RELATES")
	c.cases++
	if slices.ContainsFunc(r.Hits, func(h retriever.Hit) bool { return self[h.NodeID] }) {
		c.selfLoop++
	}
	if slices.ContainsFunc(r.Hits, func(h retriever.Hit) bool { return par[h.NodeID] }) {
		c.parallel++
	}
}

// Check fails t unless at least a tenth of the cases counted reached each
// shape.
func (c *Reached) Check(t testing.TB) {
	t.Helper()
	if c.selfLoop*10 < c.cases || c.parallel*10 < c.cases {
		t.Errorf("of %d random cases, %d have a hit at a RELATES self-loop and %d at parallel RELATES: the cases do not exercise them",
			c.cases, c.selfLoop, c.parallel)
	}
}
