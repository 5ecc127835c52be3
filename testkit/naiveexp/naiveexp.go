// Package naiveexp is a deliberately simple second implementation of the
// typed-expansion rules (docs/RETRIEVERS.md, "Typed expansion"), written
// from the rules over a whole APOC graph and sharing no code with
// retriever/expansion or the engines' reads: every hop scans every
// relationship of the graph in both directions. Tests compare the real
// retriever, on both engines, against it.
package naiveexp

import (
	"math"
	"sort"
	"strconv"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
)

// Params mirror the retriever's.
type Params struct {
	MaxHops         int
	ExpansionFactor float64
	DepthDecay      float64
	TopK            int
	TypeWeights     map[string]float64
}

// Seed is a seed id with its R.
type Seed struct {
	ID string
	R  float64
}

// Hop is one relationship of a route.
type Hop struct {
	From, To, Type string
	Weight, Factor float64
}

// Hit is one ranked node.
type Hit struct {
	Rank          int
	ID            string
	Score         float64
	Seed          string
	Initial       bool
	Contradicting bool
	Route         []Hop
}

// Result is the kept hits and the statistics the retriever reports.
type Result struct {
	Hits                                 []Hit
	Found, New, Kept, Dropped, SelfLoops int
	Skipped                              map[string]int
}

type best struct {
	a     float64
	from  string
	hop   Hop
	props string
}

// Run expands seeds over g.
func Run(g *apoc.Graph, seeds []Seed, p Params) Result {
	ids := map[string]string{} // internal id → application id (nodes with one)
	for _, n := range g.Nodes {
		if id, ok := n.Properties["id"].(string); ok {
			ids[n.InternalID] = id
		}
	}
	present := map[string]bool{}
	for _, id := range ids {
		present[id] = true
	}
	res := Result{Skipped: map[string]int{}}
	a := []map[string]best{{}}
	for _, s := range seeds {
		if present[s.ID] {
			a[0][s.ID] = best{a: s.R}
			res.Found++
		}
	}
	for h := 1; h <= p.MaxHops; h++ {
		next := map[string]best{}
		for _, r := range g.Rels {
			s, okS := ids[r.Start]
			t, okT := ids[r.End]
			// Both directions: from the start to the end, and back.
			for d, dir := range [][2]string{{s, t}, {t, s}} {
				u, v := dir[0], dir[1]
				from, okU := a[h-1][u]
				if !okU || from.a <= 0 {
					continue
				}
				if r.Start == r.End {
					if d == 0 { // one relationship, met once
						res.SelfLoops++
					}
					continue
				}
				if !okS || !okT {
					continue
				}
				tw, followed := p.TypeWeights[r.Type]
				if !followed || tw == 0 {
					res.Skipped[r.Type]++
					continue
				}
				w := 1.0
				if r.Type == graph.Relates {
					w = 0.01
				}
				switch x := r.Properties["weight"].(type) {
				case float64:
					w = x
				case int64:
					w = float64(x)
				}
				c := best{a: from.a * (tw * w), from: u, hop: Hop{From: u, To: v, Type: r.Type, Weight: w, Factor: tw * w},
					props: graph.CanonicalProps(r.Properties)}
				old, ok := next[v]
				if !ok || c.a > old.a || (c.a == old.a && less(c, old)) {
					next[v] = c
				}
			}
		}
		a = append(a, next)
	}

	var hits []Hit
	for v := range present {
		bestH, score := 0, math.Inf(-1)
		for h := 1; h <= p.MaxHops; h++ {
			x, ok := a[h][v]
			if !ok {
				continue
			}
			d := 1.0
			for i := 0; i < h; i++ {
				d *= p.DepthDecay
			}
			if s := x.a * p.ExpansionFactor * d; s > score {
				bestH, score = h, s
			}
		}
		r, isSeed := a[0][v]
		switch {
		case isSeed && (bestH == 0 || r.a >= score):
			hits = append(hits, Hit{ID: v, Score: r.a, Seed: v, Initial: true})
		case bestH > 0:
			route := make([]Hop, bestH)
			at := v
			for h := bestH; h >= 1; h-- {
				route[h-1] = a[h][at].hop
				at = a[h][at].from
			}
			hits = append(hits, Hit{ID: v, Score: score, Seed: at, Route: route, Contradicting: score < 0})
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].ID < hits[j].ID
	})
	for i := range hits {
		hits[i].Rank = i + 1
		_, seed := a[0][hits[i].ID]
		switch {
		case i < p.TopK && seed:
			res.Kept++
		case i < p.TopK:
			res.New++
		case seed:
			res.Dropped++
		}
	}
	if len(hits) > p.TopK {
		hits = hits[:p.TopK]
	}
	res.Hits = hits
	return res
}

// less breaks a tie between two hops reaching one node with one value: the
// smaller parent id, then the smaller type, then the smaller canonical
// properties.
func less(c, old best) bool {
	if c.from != old.from {
		return c.from < old.from
	}
	if c.hop.Type != old.hop.Type {
		return c.hop.Type < old.hop.Type
	}
	return c.props < old.props
}

// String shows a hit for test failures.
func (h Hit) String() string {
	return h.ID + "@" + strconv.Itoa(h.Rank) + "=" + strconv.FormatFloat(h.Score, 'g', -1, 64)
}
