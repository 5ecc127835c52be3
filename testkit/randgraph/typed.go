package randgraph

import (
	"math/rand"
	"strconv"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/retriever"
)

// Types are the relationship types AddTyped draws from: the typed
// expansion's table (docs/RETRIEVERS.md) and two types it does not know.
var Types = []string{"FIXES", "SUPPORTS", "FOLLOWS", "RELATED", "SIMILAR_TO", "PART_OF", "CAUSES", "CONTRADICTS", "MENTIONS", "CITES"}

// AddTyped adds about perNode × nodes relationships of the types in Types
// to g, between random nodes (some parallel to one just added, some
// self-loops), each with a weight from {0.25, 0.5, 0.75, 1.0} or an integer
// 1, or none. It draws only from r, after Generate, so a graph Generate
// made stays the same up to the relationships added.
func AddTyped(r *rand.Rand, g *apoc.Graph, perNode float64) {
	n := len(g.Nodes)
	if n == 0 {
		return
	}
	add := func(typ string, a, b int) {
		props := map[string]any{}
		switch k := r.Intn(6); {
		case k < 4:
			props["weight"] = grid[k]
		case k == 4:
			props["weight"] = int64(1)
		}
		g.Rels = append(g.Rels, apoc.Relationship{InternalID: strconv.Itoa(len(g.Rels)), Type: typ,
			Start: g.Nodes[a].InternalID, End: g.Nodes[b].InternalID, Properties: props})
	}
	m := int(perNode * float64(n))
	for i := 0; i < m; i++ {
		a, b := r.Intn(n), r.Intn(n)
		if r.Intn(30) == 0 {
			b = a
		}
		typ := Types[r.Intn(len(Types))]
		add(typ, a, b)
		if r.Intn(12) == 0 {
			if r.Intn(2) == 0 {
				add(typ, b, a)
			} else {
				add(Types[r.Intn(len(Types))], a, b)
			}
		}
	}
}

// ScaleTyped is Scale(n, m, hubPower, seed) followed by typed more
// relationships, of the types in Types (uniform), between uniform random
// nodes (no self-loops), three in four with a weight from {0.25, 0.5, 0.75,
// 1.0}: the benchmark graph of the typed expansion. The RELATES part is
// Scale's, byte for byte.
func ScaleTyped(n, m, typed int, hubPower float64, seed uint64) []byte {
	b := Scale(n, m, hubPower, seed)
	r := rand.New(rand.NewSource(int64(seed) ^ 0x5eed))
	for j := 0; j < typed; j++ {
		a, c := r.Intn(n), r.Intn(n)
		if a == c {
			c = (c + 1) % n
		}
		b = append(b, `{"type":"relationship","id":"t`...)
		b = strconv.AppendInt(b, int64(j), 10)
		b = append(b, `","label":"`...)
		b = append(b, Types[r.Intn(len(Types))]...)
		b = append(b, `","properties":{`...)
		if k := r.Intn(4); k < 3 {
			b = append(b, `"weight":`...)
			b = strconv.AppendFloat(b, grid[k], 'f', 2, 64)
		}
		b = appendEnds(b, a, c)
	}
	return b
}

// Seeds draws a query's seeds for g: 1 to 5 of its nodes with an id, each
// scored from {1, 0.9, 0.5, 0.25, 0.1}, and, one time in four, a seed
// "absent" (0.7) that is not in the graph.
func Seeds(r *rand.Rand, g *apoc.Graph) []retriever.Seed {
	var ids []string
	for _, n := range g.Nodes {
		if id, ok := n.Properties["id"].(string); ok {
			ids = append(ids, id)
		}
	}
	var seeds []retriever.Seed
	for _, i := range r.Perm(len(ids))[:1+r.Intn(min(5, len(ids)))] {
		seeds = append(seeds, retriever.Seed{NodeID: ids[i], Score: []float64{1, 0.9, 0.5, 0.25, 0.1}[r.Intn(5)]})
	}
	if r.Intn(4) == 0 {
		seeds = append(seeds, retriever.Seed{NodeID: "absent", Score: 0.7})
	}
	return seeds
}
