package render

import (
	"fmt"
	"strings"

	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation/why"
)

// The verdicts of a ranking retriever's why-not (`memoria why --retriever
// NAME`, docs/CLI.md "Why not X").
const (
	// RankKept: the node is among the retriever's top K.
	RankKept = "kept"
	// RankCut: the retriever ranked the node, below its K-th hit.
	RankCut = "cut"
	// RankUnreached: the retriever did not rank the node at all.
	RankUnreached = "unreached"
	// RankFiltered: the retriever did not rank the node, and could have
	// reached it within its reach only through relationships the run's
	// relationship filter removed (docs/RETRIEVERS.md, "Relationship
	// filters").
	RankFiltered = "filtered"
)

// The reasons a ranking retriever did not reach a node (RankingWhy.Reason).
// A fused Activation Energy list gives its own verdict instead
// (why.Verdict: unreachable, below_threshold, claimed, ...).
// A node the filter cut off gets the verdict RankFiltered instead.
const (
	// ReasonNoRoute: no route within the retriever's reach: for the
	// expansion none of at most H hops over any relationship type; for
	// spreading activation no RELATES route of at most P hops.
	ReasonNoRoute = "no_route"
	// ReasonNotFollowed (expansion): within H hops, but only through
	// relationship types it does not follow (weight 0 or not in the table).
	ReasonNotFollowed = "not_followed"
	// ReasonNotPositive (expansion): within H hops through followed types,
	// but every such route passes a node whose value is not positive (a
	// negative type weight, a relationship weight of 0 or less), where the
	// expansion stops.
	ReasonNotPositive = "not_positive"
	// ReasonNotFired (spreading): within P RELATES hops, but no neighbour of
	// it ever fired: the nodes before it on its routes stayed below θ.
	ReasonNotFired = "not_fired"
	// ReasonBelowThreshold (spreading): activation reached it, but its A(v)
	// stayed below θ.
	ReasonBelowThreshold = "below_threshold"
	// ReasonNotPushed (ppr): its estimate is 0: the push never moved mass
	// to it within ε.
	ReasonNotPushed = "not_pushed"
	// ReasonInNoList (fusion): in none of the fused rankings' top N.
	ReasonInNoList = "in_no_list"
)

// RankingWhy is a ranking retriever's answer to "why is this node (not) in
// its top K": the node's place in the retriever's whole ranking (a run with
// K large), or, when it has none, the retriever's own reason and the
// numbers that make it.
type RankingWhy struct {
	Retriever string
	NodeID    string
	Verdict   string // RankKept, RankCut, RankUnreached or RankFiltered
	K         int
	// Hit is the node's hit, kept or cut (rank, score, terms, route,
	// feeders, detail); nil when unreached.
	Hit *retriever.Hit
	// Kth is the retriever's K-th hit; nil when it ranked fewer than K.
	Kth *retriever.Hit
	// Ranked is how many hits the retriever ranked in all.
	Ranked int
	// Reason is why an unreached node was not ranked (the Reason
	// constants, or a fused Activation Energy list's why.Verdict).
	Reason string
	// Limit is the hops the retriever's reach is bounded by: the
	// expansion's H, spreading's P; 0 for the others.
	Limit int
	// Hops is the node's distance in hops from the nearest seed found,
	// over every relationship type for the expansion and over RELATES for
	// spreading and ppr; −1 when the bounded search found no route within
	// Searched hops.
	Hops int
	// FollowedHops is, for the expansion, the distance over the types it
	// follows (−1 as for Hops).
	FollowedHops int
	// Searched is how many hops from the seeds the search covered.
	Searched int
	// Whole says the search met every node any route from the seeds
	// reaches (so a distance of −1 means no route at all, of any length).
	Whole bool
	// Unfollowed are, for not_followed, the types not followed on the
	// node's shortest routes, sorted.
	Unfollowed []string
	// Activation and Threshold are spreading's A(v) and θ.
	Activation, Threshold float64
	// Epsilon, ResidualMass and Touched are ppr's ε, the residual mass
	// left (every π is at most that above its estimate) and the nodes that
	// got residual.
	Epsilon, ResidualMass float64
	Touched               int
	// Lists are, for fusion, each fused ranking's verdict at the fuse
	// depth (when the node is unreached), in --fuse order.
	Lists []RankingWhy
	// Why is a fused Activation Energy list's own answer when it did not
	// reach the node.
	Why *why.Answer
	// Filter is, for RankFiltered, the relationship filter's description;
	// Hops is then the node's distance without the filter and
	// FollowedHops with it (−1: none within Searched hops).
	Filter string
}

// RankingWhyJSON is the wire form of a RankingWhy (`memoria why --retriever
// NAME --format json`, docs/CLI.md "Why not X"): retriever, node_id,
// verdict, rank, score, kth_score, k and detail first, in that order (rank
// and score null when unreached, kth_score null when the retriever ranked
// fewer than K), then kth_node_id, ranked, reason ("" unless unreached),
// facts (the reason's numbers, keys in a fixed order per reason), hit (the
// node's hit as --format ranking writes hits; null when unreached) and,
// for fusion, lists.
type RankingWhyJSON struct {
	Retriever string           `json:"retriever"`
	NodeID    string           `json:"node_id"`
	Verdict   string           `json:"verdict"`
	Rank      *int             `json:"rank"`
	Score     *float64         `json:"score"`
	KthScore  *float64         `json:"kth_score"`
	K         int              `json:"k"`
	Detail    string           `json:"detail"`
	KthNodeID *string          `json:"kth_node_id"`
	Ranked    int              `json:"ranked"`
	Reason    string           `json:"reason"`
	Facts     retriever.Fields `json:"facts"`
	Hit       *retriever.Hit   `json:"hit"`
	Lists     []RankingWhyJSON `json:"lists,omitempty"`
}

// ToRankingWhyJSON is the wire form of a; ids are written as they are (the
// JSON writer escapes what a terminal must not get raw).
func ToRankingWhyJSON(a RankingWhy) RankingWhyJSON {
	out := RankingWhyJSON{Retriever: a.Retriever, NodeID: a.NodeID, Verdict: a.Verdict, K: a.K,
		Detail: rankingWhyDetail(a, rawID, rawID), Ranked: a.Ranked, Reason: a.Reason, Facts: facts(a), Hit: a.Hit}
	if a.Hit != nil {
		rank, score := a.Hit.Rank, a.Hit.Score
		out.Rank, out.Score = &rank, &score
	}
	if a.Kth != nil {
		id, score := a.Kth.NodeID, a.Kth.Score
		out.KthNodeID, out.KthScore = &id, &score
	}
	for _, l := range a.Lists {
		out.Lists = append(out.Lists, ToRankingWhyJSON(l))
	}
	return out
}

// RankingWhyJSONLine is ToRankingWhyJSON as one JSON line, graph text
// \u-escaped where it could act on a terminal.
func RankingWhyJSONLine(a RankingWhy) ([]byte, error) { return jsonLine(ToRankingWhyJSON(a)) }

// hops is a distance as the facts write it: null for none found.
func hops(h int) any {
	if h < 0 {
		return nil
	}
	return h
}

// facts are the numbers a reason is made of, keys in a fixed order.
func facts(a RankingWhy) retriever.Fields {
	f := retriever.Fields{}
	if a.Verdict == RankFiltered {
		return append(f, retriever.Field{Name: "filter", Value: a.Filter}, retriever.Field{Name: "limit", Value: a.Limit},
			retriever.Field{Name: "hops_unfiltered", Value: hops(a.Hops)}, retriever.Field{Name: "hops", Value: hops(a.FollowedHops)},
			retriever.Field{Name: "searched", Value: a.Searched}, retriever.Field{Name: "whole", Value: a.Whole})
	}
	if a.Verdict != RankUnreached {
		if a.Retriever == "ppr" {
			f = append(f, retriever.Field{Name: "residual_mass", Value: a.ResidualMass})
		}
		return f
	}
	switch a.Reason {
	case ReasonNoRoute, ReasonNotFollowed, ReasonNotPositive, ReasonNotFired:
		f = append(f, retriever.Field{Name: "limit", Value: a.Limit}, retriever.Field{Name: "hops", Value: hops(a.Hops)})
		if a.Retriever == "expansion" {
			unf := a.Unfollowed
			if unf == nil {
				unf = []string{}
			}
			f = append(f, retriever.Field{Name: "followed_hops", Value: hops(a.FollowedHops)}, retriever.Field{Name: "unfollowed_types", Value: unf})
		}
		f = append(f, retriever.Field{Name: "searched", Value: a.Searched}, retriever.Field{Name: "whole", Value: a.Whole})
		if a.Reason == ReasonNotFired {
			f = append(f, retriever.Field{Name: "threshold", Value: a.Threshold})
		}
	case ReasonBelowThreshold:
		if a.Why == nil {
			f = append(f, retriever.Field{Name: "activation", Value: a.Activation}, retriever.Field{Name: "threshold", Value: a.Threshold},
				retriever.Field{Name: "limit", Value: a.Limit}, retriever.Field{Name: "hops", Value: hops(a.Hops)})
		}
	case ReasonNotPushed:
		f = append(f, retriever.Field{Name: "epsilon", Value: a.Epsilon}, retriever.Field{Name: "residual_mass", Value: a.ResidualMass},
			retriever.Field{Name: "nodes_touched", Value: a.Touched}, retriever.Field{Name: "hops", Value: hops(a.Hops)},
			retriever.Field{Name: "searched", Value: a.Searched}, retriever.Field{Name: "whole", Value: a.Whole})
	}
	return f
}

// RankingWhyDetail says in one sentence why the answer is what it is, ids
// written with DisplayID and type names escaped:
//
//	rank 2 in the top 6, score 0.1149
//	rank 9, below the top 6: score 0.0123 against the 6th hit N2001's 0.03793, 0.02563 short (32% of 0.03793)
//	T4008 is 3 hops from the nearest seed (over any type); H = 1
//	its activation A = 0.0306 is below θ = 0.05 (61% of 0.05)
func RankingWhyDetail(a RankingWhy) string { return rankingWhyDetail(a, DisplayID, textsafe.Escape) }

func rankingWhyDetail(a RankingWhy, id, esc func(string) string) string {
	switch a.Verdict {
	case RankKept:
		return fmt.Sprintf("rank %d in the top %d, score %s", a.Hit.Rank, a.K, Num(a.Hit.Score))
	case RankCut:
		d := fmt.Sprintf("rank %d, below the top %d: score %s", a.Hit.Rank, a.K, Num(a.Hit.Score))
		if a.Kth != nil {
			gap := a.Kth.Score - a.Hit.Score
			d += fmt.Sprintf(" against the %s hit %s's %s, %s short", ordinal(a.K), id(a.Kth.NodeID), Num(a.Kth.Score), Num(gap))
			if a.Kth.Score > 0 && a.Hit.Score >= 0 {
				d += " (" + ShareOf(a.Hit.Score, a.Kth.Score) + ")"
			}
			if a.Retriever == "ppr" && a.ResidualMass >= gap {
				d += fmt.Sprintf("; within the push's error (residual mass %s)", Num(a.ResidualMass))
			}
		}
		return d
	}
	if a.Why != nil {
		return whyDetail(*a.Why, id)
	}
	node := id(a.NodeID)
	if a.Verdict == RankFiltered {
		over := "over RELATES"
		if a.Retriever == "expansion" {
			over = "through followed types"
		}
		d := fmt.Sprintf("%s is %s from the nearest seed %s, but only through relationships the filter (%s) removes; with it, ",
			node, hopWord(a.Hops), over, esc(a.Filter))
		switch {
		case a.FollowedHops >= 0:
			d += "it is " + hopWord(a.FollowedHops) + " away"
		case a.Whole:
			d += "no route from a seed at all"
		default:
			d += "no route from a seed within " + hopWord(a.Searched)
		}
		return d + fmt.Sprintf("; reach %d", a.Limit)
	}
	none := func(over string) string {
		if a.Whole {
			return "no route from a seed at all " + over
		}
		return fmt.Sprintf("no route from a seed within %d hops %s", a.Searched, over)
	}
	away := func(h int, over string) string {
		if h < 0 {
			return none(over)
		}
		return fmt.Sprintf("%s is %s from the nearest seed %s", node, hopWord(h), over)
	}
	switch a.Reason {
	case ReasonNoRoute:
		if a.Retriever == "expansion" {
			return away(a.Hops, "(over any type)") + fmt.Sprintf("; H = %d", a.Limit)
		}
		return fmt.Sprintf("no activation reached it within %d pulses: ", a.Limit) + away(a.Hops, "over RELATES")
	case ReasonNotFollowed:
		types := make([]string, len(a.Unfollowed))
		for i, t := range a.Unfollowed {
			types[i] = esc(t)
		}
		d := fmt.Sprintf("%s is %s from the nearest seed only through types not followed (%s); through followed types ", node,
			hopWord(a.Hops), strings.Join(types, ", "))
		if a.FollowedHops < 0 {
			d += strings.TrimSuffix(none(""), " ")
		} else {
			d += "it is " + hopWord(a.FollowedHops) + " away"
		}
		return d + fmt.Sprintf("; H = %d", a.Limit)
	case ReasonNotPositive:
		return fmt.Sprintf("%s is %s from the nearest seed through followed types, but every such route passes a node whose value is not positive (a negative type weight, or a weight of 0 or less), where the expansion stops; H = %d",
			node, hopWord(a.FollowedHops), a.Limit)
	case ReasonNotFired:
		return fmt.Sprintf("no activation reached it within %d pulses: %s is %s from the nearest seed over RELATES, but no neighbour of it fired (Δ below θ = %s)",
			a.Limit, node, hopWord(a.Hops), Num(a.Threshold))
	case ReasonBelowThreshold:
		d := fmt.Sprintf("its activation A = %s is below θ = %s", Num(a.Activation), Num(a.Threshold))
		if a.Threshold > 0 && a.Activation >= 0 {
			d += " (" + ShareOf(a.Activation, a.Threshold) + ")"
		}
		return d
	case ReasonNotPushed:
		d := fmt.Sprintf("its estimate is 0: the push never moved mass to it within ε = %s (residual mass left %s, which bounds its π); ",
			Num(a.Epsilon), Num(a.ResidualMass))
		return d + away(a.Hops, "over RELATES")
	case ReasonInNoList:
		n := 0
		if len(a.Lists) > 0 {
			n = a.Lists[0].K
		}
		return fmt.Sprintf("in none of the fused rankings' top %d", n)
	}
	return a.Reason
}

func hopWord(h int) string {
	if h == 1 {
		return "1 hop"
	}
	return fmt.Sprintf("%d hops", h)
}

// ordinal is 1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st, ...
func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprintf("%d%s", n, suffix)
}

// RankingWhyText writes an answer for people: one verdict line, the
// detail, then for a hit its route, its score multiplied out, its feeders
// and its detail, and for fusion each fused ranking's verdict. Every id
// goes through DisplayID, every name through textsafe.Escape.
//
//	N2007: cut by ppr (rank 4, K = 3)
//	rank 4, below the top 3: score 0.07657 against the 3rd hit N2004's 0.09674, 0.02017 short (79% of 0.09674)
//	route: from N2006 -[RELATES w=0.5 ×0.1064]-> N2007
//	score: share(N2006) 0.07657 = 0.07657
//	fed by N2006 -[RELATES w=0.5]- brought 0.04758
func RankingWhyText(a RankingWhy) string {
	var b strings.Builder
	writeRankingWhy(&b, a, "")
	return b.String()
}

func writeRankingWhy(b *strings.Builder, a RankingWhy, indent string) {
	head := DisplayID(a.NodeID) + ": " + a.Verdict + " by " + textsafe.Escape(a.Retriever)
	if indent != "" {
		head = textsafe.Escape(a.Retriever) + ": " + a.Verdict
	}
	switch {
	case a.Hit != nil:
		head += fmt.Sprintf(" (rank %d, K = %d)", a.Hit.Rank, a.K)
	case a.Why != nil:
		head += " (" + string(a.Why.Verdict) + ")"
	case a.Verdict == RankFiltered:
		head += " (by the relationship filter)"
	default:
		head += " (" + a.Reason + ")"
	}
	b.WriteString(indent + head + "\n")
	b.WriteString(indent + RankingWhyDetail(a) + "\n")
	if h := a.Hit; h != nil {
		b.WriteString(indent + "route: " + HowReached(*h) + "\n")
		_, named := Formula(*h)
		b.WriteString(indent + "score: " + named + "\n")
		for _, f := range h.Feeders {
			b.WriteString(indent + "fed by " + FeederText(f) + "\n")
		}
		if len(h.Detail) > 0 {
			b.WriteString(indent + "detail: " + FieldsText(h.Detail) + "\n")
		}
	}
	for _, l := range a.Lists {
		writeRankingWhy(b, l, indent+"  ")
	}
}
