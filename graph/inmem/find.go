package inmem

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/memoria-graph/memoria/graph"
)

// findIndex is the node filter's index (graph.FilterFields, lower-cased),
// built once, on the first filtered ListNodes: node g.sorted[i]'s fields
// are fields[off[i]:off[i+1]]. last caches the ranking of the last filter,
// so that paging through its matches ranks the graph once.
type findIndex struct {
	once     sync.Once
	fields   []string
	off      []int32
	nameKeys []string

	mu   sync.Mutex
	last struct {
		q     string
		order []int32 // indexes into g.sorted, ranked
	}
}

func (g *Graph) buildFind() {
	g.find.once.Do(func() {
		f := &g.find
		f.off = make([]int32, 1, len(g.sorted)+1)
		counts := map[string]int{}
		for _, u := range g.sorted {
			for _, s := range graph.FilterFields(g.nodeID[u], g.nodeProps[u]) {
				f.fields = append(f.fields, strings.ToLower(s))
			}
			f.off = append(f.off, int32(len(f.fields)))
			for k, v := range g.nodeProps[u] {
				if _, ok := v.(string); ok && k != "id" {
					counts[k]++
				}
			}
		}
		for k := range counts {
			f.nameKeys = append(f.nameKeys, k)
		}
		slices.SortFunc(f.nameKeys, func(a, b string) int {
			return cmp.Or(cmp.Compare(counts[b], counts[a]), strings.Compare(a, b))
		})
	})
}

// NameKeys lists the keys of the nodes' string properties other than id,
// the most common first, then by key.
func (g *Graph) NameKeys(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	g.buildFind()
	return slices.Clone(g.find.nameKeys), nil
}

// ranked returns the indexes into g.sorted of the nodes q (normalised, not
// empty) matches, in the order of graph.CompareMatches.
func (g *Graph) ranked(ctx context.Context, q string) ([]int32, error) {
	g.buildFind()
	f := &g.find
	f.mu.Lock()
	if f.last.order != nil && f.last.q == q {
		order := f.last.order
		f.mu.Unlock()
		return order, nil
	}
	f.mu.Unlock()
	type hit struct {
		i int32
		m graph.Match
	}
	var hits []hit
	for i := range g.sorted {
		if i&4095 == 4095 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if m := graph.MatchFields(q, f.fields[f.off[i]:f.off[i+1]]); m.Rank != graph.RankNone {
			hits = append(hits, hit{int32(i), m})
		}
	}
	slices.SortFunc(hits, func(a, b hit) int {
		return graph.CompareMatches(a.m, g.nodeID[g.sorted[a.i]], b.m, g.nodeID[g.sorted[b.i]])
	})
	order := make([]int32, len(hits))
	for k, h := range hits {
		order[k] = h.i
	}
	f.mu.Lock()
	f.last.q, f.last.order = q, order
	f.mu.Unlock()
	return order, nil
}

// ListNodes returns up to limit nodes with an id after skipping offset;
// limit <= 0 means no limit. Without a filter they come by id (byte-wise);
// a filter keeps and ranks its matches (graph.Catalog, graph.MatchFields).
func (g *Graph) ListNodes(ctx context.Context, filter string, offset, limit int) ([]graph.NodeSummary, bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	offset = max(offset, 0)
	summary := func(u int32) graph.NodeSummary {
		text, _ := g.nodeProps[u]["text"].(string)
		return graph.NodeSummary{ID: g.nodeID[u], Labels: g.nodeLabels[u], Text: text, Props: graph.ShortStrings(g.nodeProps[u])}
	}
	page := func(n int, at func(int) int32) ([]graph.NodeSummary, bool) {
		if offset >= n {
			return []graph.NodeSummary{}, false
		}
		end := n
		if limit > 0 {
			end = min(n, offset+limit)
		}
		out := make([]graph.NodeSummary, 0, end-offset)
		for i := offset; i < end; i++ {
			out = append(out, summary(at(i)))
		}
		return out, end < n
	}
	q := graph.NormalizeFilter(filter)
	if q == "" {
		out, more := page(len(g.sorted), func(i int) int32 { return g.sorted[i] })
		return out, more, nil
	}
	order, err := g.ranked(ctx, q)
	if err != nil {
		return nil, false, err
	}
	out, more := page(len(order), func(i int) int32 { return g.sorted[order[i]] })
	return out, more, nil
}
