package render

import (
	"fmt"
	"strings"

	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/rankwhy"
)

// RankingWhyJSON is the wire form of a rankwhy.Answer (`memoria why --retriever
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
func ToRankingWhyJSON(a rankwhy.Answer) RankingWhyJSON {
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
func RankingWhyJSONLine(a rankwhy.Answer) ([]byte, error) { return jsonLine(ToRankingWhyJSON(a)) }

// hops is a distance as the facts write it: null for none found.
func hops(h int) any {
	if h < 0 {
		return nil
	}
	return h
}

// facts are the numbers a reason is made of, keys in a fixed order.
func facts(a rankwhy.Answer) retriever.Fields {
	f := retriever.Fields{}
	if a.Verdict == rankwhy.Filtered {
		return append(f, retriever.Field{Name: "filter", Value: a.Filter}, retriever.Field{Name: "limit", Value: a.Limit},
			retriever.Field{Name: "hops_unfiltered", Value: hops(a.Hops)}, retriever.Field{Name: "hops", Value: hops(a.FollowedHops)},
			retriever.Field{Name: "searched", Value: a.Searched}, retriever.Field{Name: "whole", Value: a.Whole})
	}
	if a.Verdict != rankwhy.Unreached {
		if a.Residual {
			f = append(f, retriever.Field{Name: "residual_mass", Value: a.ResidualMass})
		}
		return f
	}
	switch a.Reason {
	case retriever.ReasonNoRoute, retriever.ReasonNotFollowed, retriever.ReasonNotPositive, retriever.ReasonNotFired:
		f = append(f, retriever.Field{Name: "limit", Value: a.Limit}, retriever.Field{Name: "hops", Value: hops(a.Hops)})
		if a.Typed {
			unf := a.Unfollowed
			if unf == nil {
				unf = []string{}
			}
			f = append(f, retriever.Field{Name: "followed_hops", Value: hops(a.FollowedHops)}, retriever.Field{Name: "unfollowed_types", Value: unf})
		}
		f = append(f, retriever.Field{Name: "searched", Value: a.Searched}, retriever.Field{Name: "whole", Value: a.Whole})
		if a.Reason == retriever.ReasonNotFired {
			f = append(f, retriever.Field{Name: "threshold", Value: a.Threshold})
		}
	case retriever.ReasonBelowThreshold:
		if a.Why == nil {
			f = append(f, retriever.Field{Name: "activation", Value: a.Activation}, retriever.Field{Name: "threshold", Value: a.Threshold},
				retriever.Field{Name: "limit", Value: a.Limit}, retriever.Field{Name: "hops", Value: hops(a.Hops)})
		}
	case retriever.ReasonNotPushed:
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
func RankingWhyDetail(a rankwhy.Answer) string {
	return rankingWhyDetail(a, DisplayID, textsafe.Escape)
}

func rankingWhyDetail(a rankwhy.Answer, id, esc func(string) string) string {
	switch a.Verdict {
	case rankwhy.Kept:
		return fmt.Sprintf("rank %d in the top %d, score %s", a.Hit.Rank, a.K, Num(a.Hit.Score))
	case rankwhy.Cut:
		d := fmt.Sprintf("rank %d, below the top %d: score %s", a.Hit.Rank, a.K, Num(a.Hit.Score))
		if a.Kth != nil {
			gap := a.Kth.Score - a.Hit.Score
			d += fmt.Sprintf(" against the %s hit %s's %s, %s short", ordinal(a.K), id(a.Kth.NodeID), Num(a.Kth.Score), Num(gap))
			if a.Kth.Score > 0 && a.Hit.Score >= 0 {
				d += " (" + ShareOf(a.Hit.Score, a.Kth.Score) + ")"
			}
			if a.Residual && a.ResidualMass >= gap {
				d += fmt.Sprintf("; within the push's error (residual mass %s)", Num(a.ResidualMass))
			}
		}
		return d
	}
	if a.Why != nil {
		return whyDetail(*a.Why, id)
	}
	node := id(a.NodeID)
	if a.Verdict == rankwhy.Filtered {
		over := "over RELATES"
		if a.Typed {
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
	case retriever.ReasonNoRoute:
		if a.Typed {
			return away(a.Hops, "(over any type)") + fmt.Sprintf("; H = %d", a.Limit)
		}
		return fmt.Sprintf("no activation reached it within %d pulses: ", a.Limit) + away(a.Hops, "over RELATES")
	case retriever.ReasonNotFollowed:
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
	case retriever.ReasonNotPositive:
		return fmt.Sprintf("%s is %s from the nearest seed through followed types, but every such route passes a node whose value is not positive (a negative type weight, or a weight of 0 or less), where the expansion stops; H = %d",
			node, hopWord(a.FollowedHops), a.Limit)
	case retriever.ReasonNotFired:
		return fmt.Sprintf("no activation reached it within %d pulses: %s is %s from the nearest seed over RELATES, but no neighbour of it fired (Δ below θ = %s)",
			a.Limit, node, hopWord(a.Hops), Num(a.Threshold))
	case retriever.ReasonBelowThreshold:
		d := fmt.Sprintf("its activation A = %s is below θ = %s", Num(a.Activation), Num(a.Threshold))
		if a.Threshold > 0 && a.Activation >= 0 {
			d += " (" + ShareOf(a.Activation, a.Threshold) + ")"
		}
		return d
	case retriever.ReasonNotPushed:
		d := fmt.Sprintf("its estimate is 0: the push never moved mass to it within ε = %s (residual mass left %s, which bounds its π); ",
			Num(a.Epsilon), Num(a.ResidualMass))
		return d + away(a.Hops, "over RELATES")
	case retriever.ReasonInNoList:
		n := 0
		if len(a.Lists) > 0 {
			n = a.Lists[0].K
		}
		return fmt.Sprintf("in none of the fused rankings' top %d", n)
	case retriever.ReasonNotRanked:
		return fmt.Sprintf("its whole ranking (%d hits) does not hold it, and %s gives no reason of its own", a.Ranked, esc(a.Retriever))
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
func RankingWhyText(a rankwhy.Answer) string {
	var b strings.Builder
	writeRankingWhy(&b, a, "")
	return b.String()
}

func writeRankingWhy(b *strings.Builder, a rankwhy.Answer, indent string) {
	head := DisplayID(a.NodeID) + ": " + a.Verdict + " by " + textsafe.Escape(a.Retriever)
	if indent != "" {
		head = textsafe.Escape(a.Retriever) + ": " + a.Verdict
	}
	switch {
	case a.Hit != nil:
		head += fmt.Sprintf(" (rank %d, K = %d)", a.Hit.Rank, a.K)
	case a.Why != nil:
		head += " (" + string(a.Why.Verdict) + ")"
	case a.Verdict == rankwhy.Filtered:
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
