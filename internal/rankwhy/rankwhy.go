// Package rankwhy answers "why is node X (not) in retriever NAME's ranking"
// for every retriever (docs/RETRIEVERS.md, "Why a ranking retriever missed a
// node"): kept, cut (its rank and score against the K-th) or unreached,
// with the retriever's own reason (no route within its reach, only through
// types it does not follow, activation below θ, an estimate below the
// push's resolution, in none of fusion's lists, or Activation Energy's
// why-not), or, under a relationship filter, filtered (reachable only
// through relationships the filter removed). `memoria why --retriever NAME` and the explorer's compare view
// both ask it; render.RankingWhyText and render.RankingWhyJSONLine write its
// answers.
//
// It runs no retriever itself: the caller passes a function that runs one
// by name at a K (Config.Run), and, for Activation Energy, one that answers
// its why-not (Config.Activation). Everything else it reads through the
// graph.Neighbourhood the ranking retrievers read.
package rankwhy

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
	"github.com/memoria-graph/memoria/retriever/registry"
	"github.com/memoria-graph/memoria/retriever/spreading"
)

// Config is what an Explainer reads.
type Config struct {
	// Neighbourhood is the graph the ranking retrievers read; the seeds'
	// and the node's look-ups and the distance searches read it too.
	Neighbourhood graph.Neighbourhood
	// Query is the query the retrievers ran with.
	Query retriever.Query
	// Run returns retriever name's ranking for Query with K = depth (the
	// retriever's own K when depth is 0); for Activation Energy, depth
	// above 0 cuts its ranking to depth hits, and 0 leaves it uncut.
	Run func(ctx context.Context, name string, depth int) (retriever.Ranking, error)
	// TopK is the K an answer for depth 0 compares ranks against.
	TopK int
	// Settings are each ranking retriever's parameters, as Run runs them
	// (registry.Lookup names the retriever): the reasons read their reach
	// (H, P, θ, ε) and fusion's lists, and the Spec's Bound says at which K
	// a whole ranking is read.
	Settings func(name string) retriever.Settings
	// Activation answers Activation Energy's why-not for a node it did not
	// rank (why.Explain at its parameters); nil when Activation Energy is
	// never asked about.
	Activation func(ctx context.Context, nodeID string) (why.Answer, error)
	// Unfiltered, when the retrievers run under a relationship filter
	// (graph.RelFilter), is the same graph without it, and Filter the
	// filter's description: a node the retrievers could reach only through
	// relationships the filter removed is answered "filtered". Nil when
	// there is no filter.
	Unfiltered graph.Neighbourhood
	Filter     string
}

// NoNodeError is New's error for a node id no node has.
type NoNodeError struct{ NodeID string }

func (e *NoNodeError) Error() string {
	return fmt.Sprintf("no node has the id %s", render.DisplayID(e.NodeID))
}

// Bounds of the search for a node's hop distance from the seeds
// (Explainer.distance): the expansion and spreading activation search two
// hops beyond their reach, ppr (whose push has none) pprSearchHops; no
// search visits more than searchMaxNodes nodes.
const (
	searchBeyond   = 2
	pprSearchHops  = 4
	searchMaxNodes = 20000
)

// Explainer answers why one node is (not) in a ranking retriever's
// ranking: it runs the retriever at its parameters, then, when the node is
// not among the hits, again with K large enough to see every hit it ranks,
// and for a node it did not rank at all finds the retriever's own reason.
// It keeps the rankings it made, so asking about several retrievers (or
// fusion and the lists it fuses) runs each once per K. It is not safe for
// concurrent use.
type Explainer struct {
	cfg   Config
	rq    retriever.Query
	node  graph.NodeRef
	seeds []graph.NodeRef // the seeds found
	// runs holds the rankings already made, by retriever and K.
	runs map[string]retriever.Ranking
}

// New looks the node and the seeds up in cfg.Neighbourhood; an unknown
// node is a *NoNodeError.
func New(ctx context.Context, cfg Config, nodeID string) (*Explainer, error) {
	w := &Explainer{cfg: cfg, rq: cfg.Query, runs: map[string]retriever.Ranking{}}
	rq := cfg.Query
	err := cfg.Neighbourhood.Read(ctx, func(r graph.Reader) error {
		found, err := r.Nodes(ctx, []string{nodeID})
		if err != nil {
			return err
		}
		if len(found) == 0 {
			return &NoNodeError{NodeID: nodeID}
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

// SeedsNotFound are the ids of the query's seeds that no node has, in
// seed order, as New found them: a caller that reports them (why's
// "seed S not found", docs/CLI.md "Why not X") reads them here rather
// than looking the seeds up again.
func (w *Explainer) SeedsNotFound() []string {
	found := make(map[string]bool, len(w.seeds))
	for _, s := range w.seeds {
		found[s.Node.ID] = true
	}
	var missing []string
	for _, s := range w.rq.Seeds {
		if !found[s.NodeID] {
			missing = append(missing, s.NodeID)
		}
	}
	return missing
}

// ranked is retriever name's ranking with K = depth (its own K when 0).
func (w *Explainer) ranked(ctx context.Context, name string, depth int) (retriever.Ranking, error) {
	key := fmt.Sprintf("%s/%d", name, depth)
	if r, ok := w.runs[key]; ok {
		return r, nil
	}
	r, err := w.cfg.Run(ctx, name, depth)
	if err == nil {
		w.runs[key] = r
	}
	return r, err
}

// Explain answers for retriever name at K = depth (Config.TopK when 0):
// kept (its rank is within K), cut (ranked, but below the K-th) or
// unreached (not ranked at all, with the retriever's reason).
func (w *Explainer) Explain(ctx context.Context, name string, depth int) (render.RankingWhy, error) {
	k := depth
	if k == 0 {
		k = w.cfg.TopK
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
		depthAll := 0 // Activation Energy's: uncut
		if name != registry.Activation {
			depthAll = max(w.cfg.Settings(name).Spec().Bound(at, len(w.rq.Seeds)), k)
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

func statInt(r retriever.Ranking, name string) int { return retriever.StatInt(r, name) }

func statFloat(r retriever.Ranking, name string) float64 { return retriever.StatFloat(r, name) }

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
func (w *Explainer) unreached(ctx context.Context, a *render.RankingWhy, all retriever.Ranking) error {
	if filtered, err := w.filtered(ctx, a); filtered || err != nil {
		return err
	}
	cfg := w.cfg
	switch a.Retriever {
	case expansion.Name:
		exp := cfg.Settings(expansion.Name).Raw().(expansion.Params)
		h := exp.MaxHops
		a.Limit = h
		followed := func(rel graph.Rel) bool {
			tw, ok := exp.TypeWeights[rel.Edge.Type]
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
		p := cfg.Settings(spreading.Name).Raw().(spreading.Params)
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
		a.Epsilon, a.Touched = cfg.Settings(ppr.Name).Raw().(ppr.Params).Epsilon, statInt(all, "nodes_touched")
		d, err := w.distance(ctx, pprSearchHops, isRelates, nil)
		if err != nil {
			return err
		}
		a.Hops, a.Searched, a.Whole = d.hops, d.searched, d.whole
	case fusion.Name:
		a.Reason = render.ReasonInNoList
		fp := cfg.Settings(fusion.Name)
		names, depth, _ := fp.Spec().Combines(fp)
		for _, name := range names {
			l, err := w.Explain(ctx, name, depth)
			if err != nil {
				return err
			}
			a.Lists = append(a.Lists, l)
		}
	case activation.Name:
		if cfg.Activation == nil {
			return errors.New("rankwhy: no Activation Energy why-not in the Config")
		}
		ans, err := cfg.Activation(ctx, a.NodeID)
		if err != nil {
			return err
		}
		a.Reason, a.Why = string(ans.Verdict), &ans
	}
	return nil
}

func isRelates(rel graph.Rel) bool { return rel.Edge.Type == graph.Relates }

// filtered answers "filtered" (render.RankFiltered) for a ranking
// retriever that runs under a relationship filter when the node is within
// its reach over the unfiltered graph but not over the filtered one: every
// route short enough runs through a relationship the filter removed. The
// reach is the expansion's H over the types it follows, spreading's P over
// RELATES, and for ppr (which has none) pprSearchHops over RELATES. It
// reports whether it answered.
func (w *Explainer) filtered(ctx context.Context, a *render.RankingWhy) (bool, error) {
	cfg := w.cfg
	if cfg.Unfiltered == nil {
		return false, nil
	}
	var limit int
	follow := isRelates
	switch a.Retriever {
	case expansion.Name:
		exp := cfg.Settings(expansion.Name).Raw().(expansion.Params)
		limit = exp.MaxHops
		follow = func(rel graph.Rel) bool {
			tw, ok := exp.TypeWeights[rel.Edge.Type]
			return ok && tw != 0
		}
	case spreading.Name:
		limit = cfg.Settings(spreading.Name).Raw().(spreading.Params).Pulses
	case ppr.Name:
		limit = pprSearchHops
	default:
		return false, nil
	}
	without, err := w.distanceOver(ctx, cfg.Unfiltered, limit, follow, nil)
	if err != nil || without.hops < 0 || without.hops > limit {
		return false, err
	}
	with, err := w.distanceOver(ctx, cfg.Neighbourhood, limit, follow, nil)
	if err != nil || (with.hops >= 0 && with.hops <= limit) {
		return false, err
	}
	a.Verdict, a.Filter, a.Limit = render.RankFiltered, cfg.Filter, limit
	a.Hops, a.FollowedHops, a.Searched, a.Whole = without.hops, with.hops, with.searched, with.whole
	return true, nil
}

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
func (w *Explainer) distance(ctx context.Context, maxHops int, follow, noted func(graph.Rel) bool) (reach, error) {
	return w.distanceOver(ctx, w.cfg.Neighbourhood, maxHops, follow, noted)
}

// distanceOver is distance over the graph reads nb.
func (w *Explainer) distanceOver(ctx context.Context, nb graph.Neighbourhood, maxHops int, follow, noted func(graph.Rel) bool) (reach, error) {
	target := w.node.Node.ID
	var out reach
	err := nb.Read(ctx, func(r graph.Reader) error {
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
func (w *Explainer) activation(ctx context.Context, all retriever.Ranking, p spreading.Params) (act float64, received bool, err error) {
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
	err = w.cfg.Neighbourhood.Read(ctx, func(r graph.Reader) error {
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
