// Package expansion is the typed-expansion retriever (docs/RETRIEVERS.md,
// "Typed expansion"): the seeds with their scores, and the nodes up to
// MaxHops hops from them, each scored through its best route by the
// weights of the relationship types it took, damped by an expansion factor
// and a decay per hop, ranked, the top K kept.
//
// It reads a graph only through graph.Neighbourhood (one read of the
// seeds, then one read per hop for the whole frontier), so it runs alike
// on the embedded engine and on Neo4j, and shares only package retriever
// with the other retrievers (docs/ARCHITECTURE.md).
package expansion

import (
	"context"
	"maps"
	"slices"
	"strconv"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
)

// Name is the retriever's name in rankings, flags and the explorer.
const Name = "expansion"

// WeightOf is the weight a relationship counts with: its own weight
// property; without one, graph.MissingRelatesWeight for a RELATES and 1
// for any other type (graph.Rel.WeightOr, which names a relationship whose
// weight is not a finite number).
func WeightOf(r graph.Rel) (float64, error) {
	if r.Edge.Type == graph.Relates {
		return r.WeightOr(graph.MissingRelatesWeight)
	}
	return r.WeightOr(1)
}

// reach is a node's best value a_h at one hop count h, and the hop that
// gave it (from a node of the previous hop).
type reach struct {
	a    float64
	from string
	hop  retriever.Hop // without its Edge, which rel gives when shown
	rel  graph.Rel
	ref  graph.NodeRef
}

// Retrieve runs the expansion of q's seeds over nb with p. q's tags are
// not used. A seed not in the graph is reported not found and expands
// nothing.
func Retrieve(ctx context.Context, nb graph.Neighbourhood, q retriever.Query, p Params) (retriever.Ranking, error) {
	return retriever.Retrieve(ctx, nb, q, p, func(r graph.Reader) (retriever.Ranking, error) { return retrieve(ctx, r, q, p) })
}

func retrieve(ctx context.Context, r graph.Reader, q retriever.Query, p Params) (retriever.Ranking, error) {
	seedRef, err := retriever.FindSeeds(ctx, r, q.Seeds)
	if err != nil {
		return retriever.Ranking{}, err
	}
	score := make(map[string]float64, len(q.Seeds))
	seeds := make([]retriever.SeedStatus, len(q.Seeds))
	layer0 := make(map[string]reach, len(seedRef))
	for i, s := range q.Seeds {
		ref, ok := seedRef[s.NodeID]
		seeds[i] = retriever.SeedStatus{NodeID: s.NodeID, Score: s.Score, Found: ok}
		score[s.NodeID] = s.Score
		if ok {
			layer0[s.NodeID] = reach{a: s.Score, ref: ref}
		}
	}

	// layers[h] holds a_h: layer 0 the seeds, layer h the nodes one hop
	// from a node of layer h−1 with a positive value.
	layers := []map[string]reach{layer0}
	skipped := map[string]int{}
	selfLoops, read := 0, 0
	for h := 1; h <= p.MaxHops; h++ {
		prev := layers[h-1]
		frontier := positive(prev)
		if len(frontier) == 0 {
			break
		}
		rels, err := r.Around(ctx, frontier)
		if err != nil {
			return retriever.Ranking{}, err
		}
		read += len(rels)
		next := map[string]reach{}
		for _, rel := range rels {
			e := rel.Edge
			if e.SourceID == e.TargetID {
				selfLoops++
				continue
			}
			tw, ok := p.TypeWeights[e.Type]
			if !ok || tw == 0 {
				skipped[e.Type]++
				continue
			}
			w, err := WeightOf(rel)
			if err != nil {
				return retriever.Ranking{}, err
			}
			u := prev[e.SourceID]
			c := reach{a: u.a * (tw * w), from: e.SourceID, ref: rel.To, rel: rel,
				hop: retriever.Hop{From: e.SourceID, To: e.TargetID, Type: e.Type, Weight: w, Factor: tw * w}}
			if cur, ok := next[e.TargetID]; !ok || better(c, cur) {
				next[e.TargetID] = c
			}
		}
		layers = append(layers, next)
	}

	// Score every node reached, rank the light (id, score) pairs, and
	// build full hits (route, terms) only for the K kept.
	var cands []scored
	seen := map[string]bool{}
	for h := range layers {
		for v := range layers[h] {
			if !seen[v] {
				seen[v] = true
				cands = append(cands, scoreOf(v, layers, p))
			}
		}
	}
	probed := retriever.ProbedOf(q.Probing(), len(cands), func(i int) string { return cands[i].id })
	best := retriever.Best(cands, p.TopK, func(a, b scored) int { return retriever.Compare(a.score, a.id, b.score, b.id) })
	shown, err := details(ctx, r, best, layers)
	if err != nil {
		return retriever.Ranking{}, err
	}
	hits := make([]retriever.Hit, len(best))
	for i, c := range best {
		hits[i] = hitOf(c, shown[i], score, p)
	}
	kept, _ := retriever.Rank(hits, 0)
	droppedSeeds := 0
	for _, c := range cands[len(best):] { // the rest, in no order
		if _, ok := layer0[c.id]; ok {
			droppedSeeds++
		}
	}
	return retriever.Ranking{
		Retriever: Name,
		Params:    p.Fields(),
		Seeds:     seeds,
		Hits:      kept,
		Stats:     stats(layer0, kept, droppedSeeds, skipped, selfLoops, read),
		Probed:    probed,
	}, nil
}

// better says whether c beats cur for the same node at the same hop: a
// larger value, then (on a tie) the smaller parent id; between parallel
// relationships of one parent the first in graph.SortRels order stays.
func better(c, cur reach) bool {
	if c.a != cur.a {
		return c.a > cur.a
	}
	return c.from < cur.from
}

// positive is the frontier of a layer: its nodes with a positive value, by
// id.
func positive(layer map[string]reach) []graph.NodeRef {
	var out []graph.NodeRef
	for _, id := range slices.Sorted(maps.Keys(layer)) {
		if layer[id].a > 0 {
			out = append(out, layer[id].ref)
		}
	}
	return out
}

// decay is δ^h, multiplied out left to right.
func decay(d float64, h int) float64 {
	x := 1.0
	for range h {
		x *= d
	}
	return x
}

// scored is a node's score: at hop h (0 for a seed scored by its R).
type scored struct {
	id    string
	score float64
	h     int
}

// scoreOf scores node v: its expansion score is the best over h ≥ 1 of
// a_h(v) × f × δ^h (the smallest h on a tie); a seed keeps its R unless
// its expansion score is larger.
func scoreOf(v string, layers []map[string]reach, p Params) scored {
	bestH, best := 0, 0.0
	for h := 1; h < len(layers); h++ {
		x, ok := layers[h][v]
		if !ok {
			continue
		}
		s := x.a * p.ExpansionFactor * decay(p.DepthDecay, h)
		if bestH == 0 || s > best {
			bestH, best = h, s
		}
	}
	if r, isSeed := layers[0][v]; isSeed && (bestH == 0 || r.a >= best) {
		return scored{id: v, score: r.a}
	}
	return scored{id: v, score: best, h: bestH}
}

// shownHit is what a kept hit shows: its node and, for an expanded score,
// the reaches along its route from the seed outwards, properties filled.
type shownHit struct {
	node  graph.NodeRef
	route []reach
}

// details walks each kept hit's route back to its seed and reads the
// properties of the hits' nodes and the routes' relationships (one
// Details call for all).
func details(ctx context.Context, r graph.Reader, kept []scored, layers []map[string]reach) ([]shownHit, error) {
	shown := make([]shownHit, len(kept))
	var nodes []*graph.NodeRef
	var rels []*graph.Rel
	for i, c := range kept {
		s := &shown[i]
		s.node = layers[c.h][c.id].ref
		if s.node.Node.Properties == nil {
			nodes = append(nodes, &s.node)
		}
		s.route = make([]reach, c.h)
		at := c.id
		for h := c.h; h >= 1; h-- {
			s.route[h-1] = layers[h][at]
			at = s.route[h-1].from
		}
		for k := range s.route {
			rels = append(rels, &s.route[k].rel)
		}
	}
	if err := r.Details(ctx, nodes, rels); err != nil {
		return nil, err
	}
	return shown, nil
}

// hitOf builds the hit of a scored node from what it shows.
func hitOf(c scored, s shownHit, seedScore map[string]float64, p Params) retriever.Hit {
	node := s.node.Node
	labels := node.Labels
	if labels == nil {
		labels = []string{}
	}
	hit := retriever.Hit{NodeID: c.id, Score: c.score, Labels: labels, Node: node, Route: []retriever.Hop{}}
	if c.h == 0 {
		hit.Seed, hit.Origin = c.id, retriever.OriginInitial
		hit.Terms = []retriever.Term{{Name: "R(" + c.id + ")", Value: c.score}}
		return hit
	}
	route := make([]retriever.Hop, c.h)
	for k, x := range s.route {
		route[k] = x.hop
		route[k].Edge = x.rel.Full()
	}
	seed := route[0].From
	hit.Seed, hit.Origin, hit.Route = seed, retriever.OriginExpanded, route
	hit.Contradicting = c.score < 0
	hit.Terms = append(hit.Terms, retriever.Term{Name: "R(" + seed + ")", Value: seedScore[seed]})
	for _, hop := range route {
		hit.Terms = append(hit.Terms, retriever.Term{Name: hop.Type, Value: hop.Factor})
	}
	hit.Terms = append(hit.Terms,
		retriever.Term{Name: "f", Value: p.ExpansionFactor},
		retriever.Term{Name: "δ^" + strconv.Itoa(c.h), Value: decay(p.DepthDecay, c.h)})
	return hit
}

// stats are the specification's expansion statistics and what was
// skipped.
// A seed counts as an initial result whatever gave its score (another
// seed's route may beat its own R).
func stats(seeds map[string]reach, kept []retriever.Hit, droppedSeeds int, skipped map[string]int, selfLoops, read int) retriever.Fields {
	keptSeeds, newHits := 0, 0
	for _, h := range kept {
		if _, ok := seeds[h.NodeID]; ok {
			keptSeeds++
		} else {
			newHits++
		}
	}
	initial := len(seeds)
	rate := 0.0
	if initial > 0 {
		rate = float64(newHits) / float64(initial)
	}
	byType := retriever.Fields{}
	for _, t := range slices.Sorted(maps.Keys(skipped)) {
		byType = append(byType, retriever.Field{Name: t, Value: skipped[t]})
	}
	return retriever.Fields{
		{Name: "initial_count", Value: initial},
		{Name: "expanded_count", Value: len(kept)},
		{Name: "new_results", Value: newHits},
		{Name: "kept_results", Value: keptSeeds},
		{Name: "dropped_results", Value: droppedSeeds},
		{Name: "expansion_rate", Value: rate},
		{Name: "relationships_read", Value: read},
		{Name: "skipped_by_type", Value: byType},
		{Name: "self_loops_skipped", Value: selfLoops},
	}
}
