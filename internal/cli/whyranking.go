package cli

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/why"
	"github.com/memoria-graph/memoria/retriever/expansion"
	"github.com/memoria-graph/memoria/retriever/fusion"
	"github.com/memoria-graph/memoria/retriever/ppr"
	"github.com/memoria-graph/memoria/retriever/spreading"
)

// Bounds of the search for a node's hop distance from the seeds
// (whyRanking.distance): the expansion and spreading activation search two
// hops beyond their reach, ppr (whose push has none) pprSearchHops; no
// search visits more than searchMaxNodes nodes.
const (
	searchBeyond   = 2
	pprSearchHops  = 4
	searchMaxNodes = 20000
)

// whyRanking answers `why --retriever NAME` for a ranking retriever: it
// runs the retriever at its parameters, then, when the node is not among
// the hits, again with K large enough to see every hit it ranks, and for a
// node it did not rank at all finds the retriever's own reason.
type whyRanking struct {
	g     *rankings
	rq    retriever.Query
	node  graph.NodeRef
	seeds []graph.NodeRef // the seeds found
	// runs holds the rankings already made, by retriever and K.
	runs map[string]retriever.Ranking
}

// newWhyRanking looks the node and the seeds up; an unknown node is a
// usage error, as for Activation Energy.
func newWhyRanking(ctx context.Context, g *rankings, rq retriever.Query, nodeID string) (*whyRanking, error) {
	w := &whyRanking{g: g, rq: rq, runs: map[string]retriever.Ranking{}}
	err := g.nb.Read(ctx, func(r graph.Reader) error {
		found, err := r.Nodes(ctx, []string{nodeID})
		if err != nil {
			return err
		}
		if len(found) == 0 {
			return usagef("why: --node %s: no node has this id", render.DisplayID(nodeID))
		}
		w.node = found[0]
		ids := make([]string, len(rq.Seeds))
		for i, s := range rq.Seeds {
			ids[i] = s.NodeID
		}
		w.seeds, err = r.Nodes(ctx, ids)
		return err
	})
	return w, err
}

// ranked is retriever name's ranking with K = depth (its own K when 0).
func (w *whyRanking) ranked(ctx context.Context, name string, depth int) (retriever.Ranking, error) {
	key := fmt.Sprintf("%s/%d", name, depth)
	if r, ok := w.runs[key]; ok {
		return r, nil
	}
	r, err := w.g.of(ctx, name, w.rq, depth)
	if err == nil {
		w.runs[key] = r
	}
	return r, err
}

// explain answers for retriever name at K = depth (its own K when 0).
func (w *whyRanking) explain(ctx context.Context, name string, depth int) (render.RankingWhy, error) {
	k := depth
	if k == 0 {
		k = w.g.rf.topK
	}
	a := render.RankingWhy{Retriever: name, NodeID: w.node.Node.ID, K: k, Hops: -1, FollowedHops: -1}
	at, err := w.ranked(ctx, name, depth)
	if err != nil {
		return a, err
	}
	if len(at.Hits) >= k {
		kth := at.Hits[k-1]
		a.Kth = &kth
	}
	all := at
	if h := hitOf(at, a.NodeID); h == nil && len(at.Hits) >= k {
		// Cut or unreached: every hit the retriever ranks, to see where.
		depthAll := max(bound(name, at, len(w.rq.Seeds)), k)
		if name == activation.Name {
			depthAll = 0 // uncut
		}
		if all, err = w.ranked(ctx, name, depthAll); err != nil {
			return a, err
		}
	}
	a.Ranked = len(all.Hits)
	if name == ppr.Name {
		a.ResidualMass = statFloat(all, "residual_mass")
	}
	if h := hitOf(all, a.NodeID); h != nil {
		a.Hit = h
		a.Verdict = render.RankCut
		if h.Rank <= k {
			a.Verdict = render.RankKept
		}
		return a, nil
	}
	a.Verdict = render.RankUnreached
	return a, w.unreached(ctx, &a, all)
}

// bound is a K at which retriever name ranks every node it reaches, read
// from a ranking's statistics: spreading's candidates, ppr's nodes touched
// (every node with a positive estimate was touched), fusion's union, and
// for the expansion the seeds and the relationships its hops read (every
// node it scores is a seed or the far end of one of them). 0 for
// Activation Energy, whose ranking rankings.of cuts only when asked to.
func bound(name string, r retriever.Ranking, seeds int) int {
	switch name {
	case expansion.Name:
		return seeds + statInt(r, "relationships_read")
	case spreading.Name:
		return statInt(r, "candidates")
	case ppr.Name:
		return statInt(r, "nodes_touched")
	case fusion.Name:
		return statInt(r, "union")
	}
	return 0
}

func statInt(r retriever.Ranking, name string) int {
	v, _ := r.Stats.Get(name)
	n, _ := v.(int)
	return n
}

func statFloat(r retriever.Ranking, name string) float64 {
	v, _ := r.Stats.Get(name)
	x, _ := v.(float64)
	return x
}

// hitOf is the hit of node id in r, nil when r does not hold it.
func hitOf(r retriever.Ranking, id string) *retriever.Hit {
	for i := range r.Hits {
		if r.Hits[i].NodeID == id {
			h := r.Hits[i]
			return &h
		}
	}
	return nil
}

// unreached fills in why retriever a.Retriever did not rank the node; all
// is its whole ranking.
func (w *whyRanking) unreached(ctx context.Context, a *render.RankingWhy, all retriever.Ranking) error {
	rf := w.g.rf
	switch a.Retriever {
	case expansion.Name:
		h := rf.exp.MaxHops
		a.Limit = h
		followed := func(rel graph.Rel) bool {
			tw, ok := rf.exp.TypeWeights[rel.Edge.Type]
			return ok && tw != 0
		}
		anyType, err := w.distance(ctx, h+searchBeyond, func(graph.Rel) bool { return true }, func(rel graph.Rel) bool { return !followed(rel) })
		if err != nil {
			return err
		}
		fol, err := w.distance(ctx, h+searchBeyond, followed, nil)
		if err != nil {
			return err
		}
		a.Hops, a.FollowedHops, a.Searched = anyType.hops, fol.hops, min(anyType.searched, fol.searched)
		switch {
		case anyType.hops < 0 || anyType.hops > h:
			a.Reason, a.Searched, a.Whole = render.ReasonNoRoute, anyType.searched, anyType.whole
		case fol.hops < 0 || fol.hops > h:
			a.Reason, a.Searched, a.Whole, a.Unfollowed = render.ReasonNotFollowed, fol.searched, fol.whole, anyType.types
		default:
			a.Reason = render.ReasonNotPositive
		}
	case spreading.Name:
		p := rf.spread
		a.Limit, a.Threshold = p.Pulses, p.Threshold
		d, err := w.distance(ctx, p.Pulses+searchBeyond, isRelates, nil)
		if err != nil {
			return err
		}
		a.Hops, a.Searched, a.Whole = d.hops, d.searched, d.whole
		if d.hops < 0 || d.hops > p.Pulses {
			a.Reason = render.ReasonNoRoute
			return nil
		}
		act, received, err := w.activation(ctx, all, p)
		if err != nil {
			return err
		}
		a.Reason, a.Activation = render.ReasonBelowThreshold, act
		if !received {
			a.Reason = render.ReasonNotFired
		}
	case ppr.Name:
		a.Reason = render.ReasonNotPushed
		a.Epsilon, a.Touched = rf.ppr.Epsilon, statInt(all, "nodes_touched")
		d, err := w.distance(ctx, pprSearchHops, isRelates, nil)
		if err != nil {
			return err
		}
		a.Hops, a.Searched, a.Whole = d.hops, d.searched, d.whole
	case fusion.Name:
		a.Reason = render.ReasonInNoList
		for _, name := range rf.fusion.Fuse {
			l, err := w.explain(ctx, name, rf.fusion.Depth)
			if err != nil {
				return err
			}
			a.Lists = append(a.Lists, l)
		}
	case activation.Name:
		backend, _, err := w.g.q.backend(ctx, w.g.source, false)
		if err != nil {
			return err
		}
		q := w.g.q
		ans, err := why.Explain(ctx, why.Config{Backend: backend, Params: q.cfg, Options: q.opts, Seeds: w.rq.Seeds,
			Tags: w.rq.Tags, NodeID: a.NodeID})
		if err != nil {
			return fmt.Errorf("why: %w", err)
		}
		a.Reason, a.Why = string(ans.Verdict), &ans
	}
	return nil
}

func isRelates(rel graph.Rel) bool { return rel.Edge.Type == graph.Relates }

// reach is what distance found: the node's distance in hops (−1 for none
// found), how many hops were searched, and the noted types on its
// shortest routes.
type reach struct {
	hops, searched int
	types          []string
	whole          bool // the search met every node any route reaches
}

// distance is the node's distance from the nearest seed found over the
// relationships follow accepts (a self-loop never), breadth first with one
// Around per hop, at most maxHops hops and searchMaxNodes nodes; the types
// of the relationships on its shortest routes that noted accepts are
// gathered. A search that stops at the node cap counts only the hops it
// finished; one whose frontier empties has searched everything within
// maxHops.
func (w *whyRanking) distance(ctx context.Context, maxHops int, follow, noted func(graph.Rel) bool) (reach, error) {
	target := w.node.Node.ID
	var out reach
	err := w.g.nb.Read(ctx, func(r graph.Reader) error {
		out = reach{hops: -1}
		types := map[string]map[string]bool{}
		seen := map[string]bool{}
		var frontier []graph.NodeRef
		for _, s := range w.seeds {
			if !seen[s.Node.ID] {
				seen[s.Node.ID] = true
				types[s.Node.ID] = map[string]bool{}
				frontier = append(frontier, s)
			}
		}
		if seen[target] {
			out.hops = 0
			return nil
		}
		for h := 1; h <= maxHops; h++ {
			if len(frontier) == 0 {
				out.searched, out.whole = maxHops, true
				return nil
			}
			if len(seen) > searchMaxNodes {
				return nil
			}
			rels, err := r.Around(ctx, frontier)
			if err != nil {
				return err
			}
			var next []graph.NodeRef
			level := map[string]bool{}
			for _, rel := range rels {
				e := rel.Edge
				if e.SourceID == e.TargetID || !follow(rel) || (seen[e.TargetID] && !level[e.TargetID]) {
					continue
				}
				if !level[e.TargetID] {
					level[e.TargetID], seen[e.TargetID] = true, true
					types[e.TargetID] = map[string]bool{}
					next = append(next, rel.To)
				}
				maps.Copy(types[e.TargetID], types[e.SourceID])
				if noted != nil && noted(rel) {
					types[e.TargetID][e.Type] = true
				}
			}
			out.searched = h
			if level[target] {
				out.hops = h
				out.types = slices.Sorted(maps.Keys(types[target]))
				return nil
			}
			frontier = next
		}
		return nil
	})
	return out, err
}

// activation is spreading activation's A(v) for a node it did not rank,
// computed from its whole ranking: every node that fires is a candidate
// (its Δ at the pulse before is at least θ, so its A is, when no weight is
// negative), and each candidate's detail gives its Δ per pulse; the node's
// A is what its RELATES relationships to the nodes that fired brought it,
// added as the retriever adds (pulse by pulse, senders by id, parallel
// relationships by weight), plus its own Δ₀ when it is a seed. received
// says whether anything reached it.
func (w *whyRanking) activation(ctx context.Context, all retriever.Ranking, p spreading.Params) (act float64, received bool, err error) {
	deltas := map[string][]float64{}
	for _, h := range all.Hits {
		if v, ok := h.Detail.Get("pulses"); ok {
			if d, ok := v.([]float64); ok {
				deltas[h.NodeID] = d
			}
		}
	}
	for _, s := range w.rq.Seeds {
		if s.NodeID == w.node.Node.ID {
			act, received = 1, true
			if p.Initial == spreading.InitialScore {
				act = s.Score
			}
		}
	}
	var arcs []graph.Arc
	err = w.g.nb.Read(ctx, func(r graph.Reader) error {
		var err error
		arcs, err = r.Arcs(ctx, []graph.NodeRef{w.node}, graph.Relates, graph.MissingRelatesWeight)
		return err
	})
	if err != nil {
		return 0, false, err
	}
	slices.SortStableFunc(arcs, func(a, b graph.Arc) int { return strings.Compare(a.To.Node.ID, b.To.Node.ID) })
	run := statInt(all, "pulses_run")
	for pulse := 1; pulse <= run; pulse++ {
		delta := 0.0
		for _, arc := range arcs {
			u := arc.To.Node.ID
			d := deltas[u]
			if u == w.node.Node.ID || len(d) < pulse || d[pulse-1] < p.Threshold || d[pulse-1] == 0 {
				continue
			}
			delta += d[pulse-1] * arc.Weight * p.Decay
			received = true
		}
		act += delta
	}
	return act, received, nil
}

// runWhyRanking answers `why --retriever NAME` for a ranking retriever.
func runWhyRanking(ctx context.Context, env Env, q *queryFlags, rf *retrieverFlags, node, format string) error {
	source, err := q.open(ctx, env)
	if err != nil {
		return err
	}
	defer source.Close(context.WithoutCancel(ctx))
	g, err := newRankings(env, q, rf, source)
	if err != nil {
		return err
	}
	rq := retriever.Query{Seeds: q.seeds, Tags: splitTags(q.tags)}
	w, err := newWhyRanking(ctx, g, rq, node)
	if err != nil {
		var u usageError
		if errors.As(err, &u) {
			return u
		}
		return fmt.Errorf("why: %w", err)
	}
	a, err := w.explain(ctx, rf.name, 0)
	if err != nil {
		return err
	}
	if format == "json" {
		b, err := render.RankingWhyJSONLine(a)
		if err == nil {
			_, err = env.Stdout.Write(b)
		}
		return err
	}
	_, err = fmt.Fprint(env.Stdout, render.RankingWhyText(a))
	return err
}
