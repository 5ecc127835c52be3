// Package fusion fuses the rankings of several retrievers into one by
// Reciprocal Rank Fusion (docs/RETRIEVERS.md, "Fusion (Reciprocal Rank
// Fusion)"): a node at rank r of a ranking brings it 1/(k + r), and its
// fused score is the sum over the rankings that hold it.
//
// It reads no graph and runs no retriever: the caller runs each retriever
// of Params.Fuse on the same query (its top K set to Params.Depth) and
// hands Fuse their rankings, so the package shares only package retriever
// with the others (docs/ARCHITECTURE.md) and Fuse is a pure function.
package fusion

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/memoria-graph/memoria/retriever"
)

// Name is the retriever's name in rankings, flags and the explorer.
const Name = "fusion"

// in is where one node stands in the fused rankings: its position in
// each (0 where absent), and the ranking it stands best in.
type in struct {
	rank []int
	best int
}

// Fuse fuses lists, the rankings of p.Fuse's retrievers in that order
// (lists[i].Retriever must be p.Fuse[i]), by Reciprocal Rank Fusion:
//
//   - Each ranking's hits are taken in the order of its Hits, which is
//     rank order, and cut to the first p.Depth. A hit's rank r is its
//     position there, from 1. Every retriever numbers its hits by
//     retriever.Rank, so r is the hit's own Rank: tied scores do not share
//     a rank, the ranking rule has already ordered them by id.
//   - RRF(d) = Σ 1/(p.K + r) over the rankings that hold d, added in
//     p.Fuse's order (so every run gives the same bits).
//   - The fused hits are ranked by the ranking rule (RRF descending, then
//     id) and the top p.TopK kept.
//
// Each fused hit's terms are its rankings' 1/(k + r), named "ppr
// 1/(60+3)" (the ranking, then the fraction), in p.Fuse's order; they
// add up to its score (TermsAdd). Its detail holds, for each ranking in
// order, "<name>_rank" and "<name>_score" (that ranking's rank and own
// score, nil where the ranking lacks the hit), then "best_list", the
// ranking where the hit stands best (the smallest r; on a tie the first
// in p.Fuse). Labels, Node, Seed, Route and Feeders are that ranking's.
// Origin is initial when any ranking has the hit as initial, and then
// Seed is the hit itself and Route empty; else expanded.
//
// The seeds are the union of the rankings' seeds, in the order first met
// (the first ranking's, then any new one of the next, ...), each found
// when any ranking found it, its score the first ranking's that lists it.
// The stats are, per ranking, "<name>_hits", the hits it brought (at most
// p.Depth); "union", the distinct nodes among them; and "in_every_list",
// those every ranking brought.
//
// Fuse refuses invalid parameters, a number of rankings other than
// len(p.Fuse), a ranking under another retriever's name than its place in
// p.Fuse says, a ranking holding a number that is not finite (its order is
// no order, and its scores would be copied into the detail:
// retriever.Ranking.CheckFinite), and a ranking that lists a node twice.
func Fuse(lists []retriever.Ranking, p Params) (retriever.Ranking, error) {
	if err := p.Validate(); err != nil {
		return retriever.Ranking{}, err
	}
	if len(lists) != len(p.Fuse) {
		return retriever.Ranking{}, fmt.Errorf("fusion: %d rankings for the %d retrievers of fuse", len(lists), len(p.Fuse))
	}
	var errs []error
	for i, l := range lists {
		if l.Retriever != p.Fuse[i] {
			errs = append(errs, fmt.Errorf("fusion: ranking %d is %q's, fuse names %q there", i+1, l.Retriever, p.Fuse[i]))
		}
		if err := l.CheckFinite(); err != nil {
			errs = append(errs, fmt.Errorf("fusion: %w", err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return retriever.Ranking{}, err
	}

	at := map[string]*in{}
	var order []string // ids in the order first met
	brought := make([]int, len(lists))
	for i, l := range lists {
		hits := l.Hits[:min(len(l.Hits), p.Depth)]
		brought[i] = len(hits)
		for j, h := range hits {
			e := at[h.NodeID]
			if e == nil {
				e = &in{rank: make([]int, len(lists)), best: i}
				at[h.NodeID] = e
				order = append(order, h.NodeID)
			}
			if e.rank[i] != 0 {
				return retriever.Ranking{}, fmt.Errorf("fusion: %s's ranking lists node %q twice", l.Retriever, h.NodeID)
			}
			e.rank[i] = j + 1
			if j+1 < e.rank[e.best] {
				e.best = i
			}
		}
	}

	everywhere := 0
	hits := make([]retriever.Hit, 0, len(order))
	for _, id := range order {
		e := at[id]
		if !slices.Contains(e.rank, 0) {
			everywhere++
		}
		hits = append(hits, fused(lists, p, id, e))
	}
	kept, _ := retriever.Rank(hits, p.TopK)

	stats := make(retriever.Fields, 0, len(lists)+2)
	for i, n := range brought {
		stats = append(stats, retriever.Field{Name: p.Fuse[i] + "_hits", Value: n})
	}
	stats = append(stats, retriever.Field{Name: "union", Value: len(order)}, retriever.Field{Name: "in_every_list", Value: everywhere})
	return retriever.Ranking{Retriever: Name, Params: p.Fields(), Seeds: seeds(lists), Hits: kept, Stats: stats}, nil
}

// fused is the hit id, which stands in lists as e says.
func fused(lists []retriever.Ranking, p Params, id string, e *in) retriever.Hit {
	k := strconv.FormatFloat(p.K, 'g', -1, 64)
	best := lists[e.best].Hits[e.rank[e.best]-1]
	h := retriever.Hit{NodeID: id, Labels: slices.Clone(best.Labels), Node: best.Node, Seed: best.Seed,
		Origin: retriever.OriginExpanded, Route: slices.Clone(best.Route), Feeders: slices.Clone(best.Feeders), TermsAdd: true}
	h.Detail = make(retriever.Fields, 0, 2*len(lists)+1)
	for i, r := range e.rank {
		name := p.Fuse[i]
		if r == 0 {
			h.Detail = append(h.Detail, retriever.Field{Name: name + "_rank"}, retriever.Field{Name: name + "_score"})
			continue
		}
		own := lists[i].Hits[r-1]
		if own.Origin == retriever.OriginInitial {
			h.Origin = retriever.OriginInitial
		}
		w := p.weight(name)
		v := w / (p.K + float64(r))
		h.Score += v
		num := "1"
		if w != 1 {
			num = strconv.FormatFloat(w, 'g', -1, 64)
		}
		h.Terms = append(h.Terms, retriever.Term{Name: name + " " + num + "/(" + k + "+" + strconv.Itoa(r) + ")", Value: v})
		h.Detail = append(h.Detail, retriever.Field{Name: name + "_rank", Value: r}, retriever.Field{Name: name + "_score", Value: own.Score})
	}
	h.Detail = append(h.Detail, retriever.Field{Name: "best_list", Value: p.Fuse[e.best]})
	if h.Origin == retriever.OriginInitial {
		h.Seed, h.Route = id, nil
	}
	return h
}

// seeds is the union of the rankings' seeds, in the order first met.
func seeds(lists []retriever.Ranking) []retriever.SeedStatus {
	var out []retriever.SeedStatus
	at := map[string]int{}
	for _, l := range lists {
		for _, s := range l.Seeds {
			i, ok := at[s.NodeID]
			if !ok {
				at[s.NodeID] = len(out)
				out = append(out, s)
				continue
			}
			out[i].Found = out[i].Found || s.Found
		}
	}
	return out
}
