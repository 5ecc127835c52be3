// Package rankwhy answers "why is node X (not) in retriever NAME's ranking"
// for every retriever (docs/RETRIEVERS.md, "Why a ranking retriever missed a
// node"): kept, cut (its rank and score against the K-th) or unreached,
// with the retriever's own reason (its WhyNot hook, retriever.Spec: no
// route within its reach, only through types it does not follow,
// activation below θ, an estimate below the push's resolution), in none of
// the lists of a retriever that combines others, or Activation Energy's
// why-not, or, under a relationship filter, filtered (reachable only
// through relationships the filter removed). `memoria why --retriever
// NAME` and the explorer's compare view both ask it; render.RankingWhyText
// and render.RankingWhyJSONLine write its answers (Answer).
//
// It runs no retriever itself: the caller passes a function that runs one
// by name at a K (Config.Run), and, for Activation Energy, one that answers
// its why-not (Config.Activation). Everything else it reads through the
// graph.Neighbourhood the ranking retrievers read, and what it knows of
// each retriever comes from the registry (retriever/registry).
package rankwhy

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation/why"
	"github.com/memoria-graph/memoria/retriever/registry"
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
	return fmt.Sprintf("no node has the id %s", textsafe.DisplayID(e.NodeID))
}

// searchMaxNodes bounds the search for a node's hop distance from the
// seeds (Explainer.Distance): no search visits more than that many nodes.
const searchMaxNodes = 20000

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

// About is an Explainer of another node, nodeID, for the same query: it
// shares w's rankings, so asking about several nodes runs each retriever
// once per K. An unknown node is a *NoNodeError. Neither is safe for
// concurrent use.
func (w *Explainer) About(ctx context.Context, nodeID string) (*Explainer, error) {
	o := *w
	err := w.cfg.Neighbourhood.Read(ctx, func(r graph.Reader) error {
		found, err := r.Nodes(ctx, []string{nodeID})
		if err == nil && len(found) == 0 {
			err = &NoNodeError{NodeID: nodeID}
		}
		if err == nil {
			o.node = found[0]
		}
		return err
	})
	return &o, err
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
func (w *Explainer) Explain(ctx context.Context, name string, depth int) (Answer, error) {
	k := depth
	if k == 0 {
		k = w.cfg.TopK
	}
	a := Answer{Retriever: name, NodeID: w.node.Node.ID, K: k, Hops: -1, FollowedHops: -1}
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
			depthAll = w.cfg.Settings(name).Spec().WholeK(at, len(w.rq.Seeds), k)
		}
		if all, err = w.ranked(ctx, name, depthAll); err != nil {
			return a, err
		}
	}
	a.Ranked = len(all.Hits)
	if _, ok := all.Stats.Get("residual_mass"); ok {
		a.Residual, a.ResidualMass = true, retriever.StatFloat(all, "residual_mass")
	}
	if h := hitOf(all, a.NodeID); h != nil {
		a.Hit = h
		a.Verdict = Cut
		if h.Rank <= k {
			a.Verdict = Kept
		}
		return a, nil
	}
	a.Verdict = Unreached
	return a, w.unreached(ctx, &a, all)
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
func (w *Explainer) unreached(ctx context.Context, a *Answer, all retriever.Ranking) error {
	if a.Retriever == registry.Activation {
		if w.cfg.Activation == nil {
			return errors.New("rankwhy: no Activation Energy why-not in the Config")
		}
		ans, err := w.cfg.Activation(ctx, a.NodeID)
		if err != nil {
			return err
		}
		a.Reason, a.Why = string(ans.Verdict), &ans
		return nil
	}
	if filtered, err := w.filtered(ctx, a); filtered || err != nil {
		return err
	}
	p := w.cfg.Settings(a.Retriever)
	if names, depth, ok := p.Spec().Combines(p); ok {
		a.Reason = retriever.ReasonInNoList
		for _, name := range names {
			l, err := w.Explain(ctx, name, depth)
			if err != nil {
				return err
			}
			a.Lists = append(a.Lists, l)
		}
		return nil
	}
	u, ok, err := p.WhyNot(ctx, w, all)
	if err != nil {
		return err
	}
	if !ok {
		a.Reason = retriever.ReasonNotRanked
		return nil
	}
	a.Reason, a.Limit, a.Hops, a.FollowedHops, a.Searched, a.Whole = u.Reason, u.Limit, u.Hops, u.FollowedHops, u.Searched, u.Whole
	a.Unfollowed, a.Typed, a.Activation, a.Threshold = u.Unfollowed, u.Typed, u.Activation, u.Threshold
	if u.Reason == retriever.ReasonNotPushed {
		a.Epsilon, a.Touched = u.Epsilon, u.Touched
	}
	return nil
}

// filtered answers "filtered" (Filtered) for a ranking retriever that runs
// under a relationship filter when the node is within its reach
// (retriever.Settings.Reach) over the unfiltered graph but not over the
// filtered one: every route short enough runs through a relationship the
// filter removed. It reports whether it answered.
func (w *Explainer) filtered(ctx context.Context, a *Answer) (bool, error) {
	cfg := w.cfg
	if cfg.Unfiltered == nil {
		return false, nil
	}
	r, ok := cfg.Settings(a.Retriever).Reach()
	if !ok {
		return false, nil
	}
	without, err := w.distanceOver(ctx, cfg.Unfiltered, r.Hops, r.Follow, nil)
	if err != nil || without.Hops < 0 || without.Hops > r.Hops {
		return false, err
	}
	with, err := w.distanceOver(ctx, cfg.Neighbourhood, r.Hops, r.Follow, nil)
	if err != nil || (with.Hops >= 0 && with.Hops <= r.Hops) {
		return false, err
	}
	a.Verdict, a.Filter, a.Limit, a.Typed = Filtered, cfg.Filter, r.Hops, r.Typed
	a.Hops, a.FollowedHops, a.Searched, a.Whole = without.Hops, with.Hops, with.Searched, with.Whole
	return true, nil
}

// Node is the node asked about (retriever.Probe).
func (w *Explainer) Node() graph.NodeRef { return w.node }

// Query is the query the retrievers ran with (retriever.Probe).
func (w *Explainer) Query() retriever.Query { return w.rq }

// Neighbourhood is the graph the ranking retrievers read
// (retriever.Probe).
func (w *Explainer) Neighbourhood() graph.Neighbourhood { return w.cfg.Neighbourhood }

// Distance is the node's distance from the nearest seed found over the
// relationships follow accepts (a self-loop never), breadth first with one
// Around per hop, at most maxHops hops and searchMaxNodes nodes; the types
// of the relationships on its shortest routes that noted accepts are
// gathered. A search that stops at the node cap counts only the hops it
// finished; one whose frontier empties has searched everything within
// maxHops (retriever.Probe).
func (w *Explainer) Distance(ctx context.Context, maxHops int, follow, noted func(graph.Rel) bool) (retriever.Reach, error) {
	return w.distanceOver(ctx, w.cfg.Neighbourhood, maxHops, follow, noted)
}

// distanceOver is Distance over the graph reads nb.
func (w *Explainer) distanceOver(ctx context.Context, nb graph.Neighbourhood, maxHops int, follow, noted func(graph.Rel) bool) (retriever.Reach, error) {
	target := w.node.Node.ID
	var out retriever.Reach
	err := nb.Read(ctx, func(r graph.Reader) error {
		out = retriever.Reach{Hops: -1}
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
			out.Hops = 0
			return nil
		}
		for h := 1; h <= maxHops; h++ {
			if len(frontier) == 0 {
				out.Searched, out.Whole = maxHops, true
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
			out.Searched = h
			if level[target] {
				out.Hops = h
				out.Types = slices.Sorted(maps.Keys(types[target]))
				return nil
			}
			frontier = next
		}
		return nil
	})
	return out, err
}
