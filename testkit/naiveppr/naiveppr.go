// Package naiveppr is a deliberately simple second implementation of
// personalized PageRank (docs/RETRIEVERS.md, "Personalized PageRank"),
// written from the rules over a whole APOC graph and sharing no code with
// retriever/ppr or the engines' reads: a global power iteration over every
// node with an id and every RELATES relationship between two of them, run
// until an iteration changes no value by more than 1e-15. Tests check the
// retriever's local estimate against it, within the retriever's error
// bound.
package naiveppr

import (
	"math"

	"github.com/memoria-graph/memoria/graph/apoc"
)

// Seed is a seed id with its R.
type Seed struct {
	ID string
	R  float64
}

// Result is π over the nodes with an id (0 for a node the walk never
// reaches), each found seed's share of it (Share[s][v]: the part of π(v)
// whose mass started at seed s; Σ over s is π(v)), and the seeds found, in
// the order given.
type Result struct {
	Pi         map[string]float64
	Share      map[string]map[string]float64
	Found      []string
	Iterations int
}

type arc struct {
	to int
	w  float64
}

// Run computes π = (1 − d) p + d π P over g from seeds.
func Run(g *apoc.Graph, seeds []Seed, d float64) Result {
	index := map[string]int{} // internal id → position
	var ids []string
	byID := map[string]int{}
	for _, n := range g.Nodes {
		if id, ok := n.Properties["id"].(string); ok {
			index[n.InternalID] = len(ids)
			byID[id] = len(ids)
			ids = append(ids, id)
		}
	}
	n := len(ids)
	out := make([][]arc, n)
	for _, r := range g.Rels {
		if r.Type != "RELATES" {
			continue
		}
		a, okA := index[r.Start]
		b, okB := index[r.End]
		if !okA || !okB {
			continue // an end without an id: not in the walk
		}
		w := 0.01
		switch x := r.Properties["weight"].(type) {
		case float64:
			w = x
		case int64:
			w = float64(x)
		}
		if w == 0 {
			continue
		}
		out[a] = append(out[a], arc{b, w})
		if a != b { // a self-loop counts once
			out[b] = append(out[b], arc{a, w})
		}
	}
	total := make([]float64, n)
	for u := range out {
		for _, e := range out[u] {
			total[u] += e.w
		}
	}

	res := Result{Pi: map[string]float64{}, Share: map[string]map[string]float64{}}
	sumR := 0.0
	var found []int
	var rs []float64
	for _, s := range seeds {
		if i, ok := byID[s.ID]; ok {
			found = append(found, i)
			rs = append(rs, s.R)
			res.Found = append(res.Found, s.ID)
			sumR += s.R
		}
	}
	if len(found) == 0 {
		return res
	}
	p := make([]float64, n)
	for k, i := range found {
		p[i] = rs[k] / sumR
	}
	// One vector per seed: x_s = (1 − d) p(s) e_s + d x_s P, P's dangling
	// rows replaced by p. π is their sum.
	pi := make([]float64, n)
	for k, s := range found {
		x := make([]float64, n)
		start := make([]float64, n)
		start[s] = p[s]
		for it := 1; ; it++ {
			next := make([]float64, n)
			for v := range next {
				next[v] = (1 - d) * start[v]
			}
			for u := range x {
				if x[u] == 0 {
					continue
				}
				if total[u] == 0 {
					for v := range p {
						next[v] += d * x[u] * p[v]
					}
					continue
				}
				for _, e := range out[u] {
					next[e.to] += d * x[u] * e.w / total[u]
				}
			}
			change := 0.0
			for v := range x {
				change = math.Max(change, math.Abs(next[v]-x[v]))
			}
			x = next
			if change <= 1e-15 || it > 100000 {
				res.Iterations = max(res.Iterations, it)
				break
			}
		}
		share := map[string]float64{}
		for v, val := range x {
			pi[v] += val
			share[ids[v]] = val
		}
		res.Share[res.Found[k]] = share
	}
	for v, val := range pi {
		res.Pi[ids[v]] = val
	}
	return res
}
