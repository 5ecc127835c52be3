package inmem

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/memoria-graph/memoria/graph"
)

var _ graph.MetricsReader = (*Graph)(nil)

// Metrics computes the graph's metrics exactly: the clustering coefficient
// over every node (opt.Sample and opt.Seed do not apply; Clustering.Sampled
// is false). It checks ctx between nodes.
func (g *Graph) Metrics(ctx context.Context, opt graph.MetricsOptions) (graph.Metrics, error) {
	opt = opt.Normalized()
	var m graph.Metrics
	n := len(g.nodeInternal)

	byType := make([]int64, len(g.types))
	for _, t := range g.relType {
		byType[t]++
	}
	for t, c := range byType {
		if c > 0 {
			m.ByType = append(m.ByType, graph.TypeCount{Type: g.types[t], Count: c})
		}
	}
	slices.SortFunc(m.ByType, func(a, b graph.TypeCount) int { return strings.Compare(a.Type, b.Type) })
	m.Relationships = int64(len(g.relStart))
	for e := range g.relStart {
		if g.trav[g.relType[e]] {
			m.Relates++
			if g.relStart[e] == g.relEnd[e] {
				m.SelfLoops++
			}
		}
	}

	count := map[int64]int64{}
	for u := 0; u < n; u++ {
		count[int64(g.degree[u])]++
	}
	hist := make([]graph.DegreeCount, 0, len(count))
	for d, c := range count {
		hist = append(hist, graph.DegreeCount{Degree: d, Nodes: c})
	}
	m.FillDegrees(hist)
	m.Tags = len(g.tagCounts)

	locals, err := g.localClustering(ctx)
	if err != nil {
		return graph.Metrics{}, err
	}
	m.Clustering.Coefficient, m.Clustering.Nodes = graph.AverageClustering(locals)

	if m.HubDegree > 0 {
		for u := 0; u < n; u++ {
			if g.nodeHasID(int32(u)) && m.IsHub(int64(g.degree[u])) {
				m.HubCount++
				m.Hubs = append(m.Hubs, graph.NodeDegree{ID: g.nodeID[u], Degree: int64(g.degree[u])})
			}
		}
		slices.SortFunc(m.Hubs, func(a, b graph.NodeDegree) int {
			if c := cmp.Compare(b.Degree, a.Degree); c != 0 {
				return c
			}
			return strings.Compare(a.ID, b.ID)
		})
		if len(m.Hubs) > opt.MaxHubs {
			m.Hubs = m.Hubs[:opt.MaxHubs]
		}
	}
	return m, nil
}

// localClustering returns every node's distinct other neighbours and the
// linked pairs among them, on the simple graph (parallel relationships
// once, self-loops ignored). mark[v] == u+1 says v neighbours u; seen[w] ==
// stamp that the pair (v, w) was counted already for the current u and v
// (stamp grows with every such v).
func (g *Graph) localClustering(ctx context.Context) ([]graph.LocalClustering, error) {
	n := len(g.nodeInternal)
	mark := make([]int32, n)
	seen := make([]uint64, n)
	var stamp uint64
	var nbrs []int32
	out := make([]graph.LocalClustering, 0, n)
	for u := int32(0); int(u) < n; u++ {
		if u%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		nbrs = nbrs[:0]
		adj, _ := g.Relates(u)
		for _, v := range adj {
			if v != u && mark[v] != u+1 {
				mark[v] = u + 1
				nbrs = append(nbrs, v)
			}
		}
		k := int64(len(nbrs))
		if k < 2 {
			continue
		}
		var links int64
		for _, v := range nbrs {
			stamp++
			wAdj, _ := g.Relates(v)
			for _, w := range wAdj {
				// Each pair once (v < w), each neighbour of v once.
				if w > v && mark[w] == u+1 && seen[w] != stamp {
					seen[w] = stamp
					links++
				}
			}
		}
		out = append(out, graph.LocalClustering{K: k, Links: links})
	}
	return out, nil
}

// Degrees returns the degree of each node of ids that exists.
func (g *Graph) Degrees(ctx context.Context, ids []string) (map[string]int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(ids))
	for _, id := range ids {
		if u, ok := g.byID[id]; ok {
			out[id] = int64(g.degree[u])
		}
	}
	return out, nil
}
