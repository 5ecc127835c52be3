package render

import (
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/why"
	"github.com/memoria-graph/memoria/retriever/rankwhy"
)

// rankingWhys are one answer of each verdict and reason, built by hand
// from docs/RETRIEVERS.md's demo examples: ppr keeps N2003 (0.1149, rank 2)
// and, with K = 1, cuts it against N2006's 0.5585 (0.4436 short, 21%);
// the expansion cuts N2007 (0.85 × 0.5 × 0.6 × 0.8 = 0.204) against the 3rd
// hit N2004 (0.85 × 0.58 × 0.6 × 0.8 = 0.2366); the rest unreached, each
// by its reason; the last with hostile ids and type names.
func rankingWhys() []rankwhy.Answer {
	n2003 := retriever.Hit{Rank: 2, NodeID: "N2003", Score: 0.1149, Seed: "N2006", Origin: retriever.OriginExpanded,
		Route:    []retriever.Hop{{From: "N2006", To: "N2003", Type: "RELATES", Weight: 0.82, Factor: 0.1745}},
		Feeders:  []retriever.Hop{{From: "N2006", To: "N2003", Type: "RELATES", Weight: 0.82, Factor: 0.1949}},
		Terms:    []retriever.Term{{Name: "share(N2006)", Value: 0.1149}},
		TermsAdd: true}
	n2006 := retriever.Hit{Rank: 1, NodeID: "N2006", Score: 0.5585, Seed: "N2006", Origin: retriever.OriginInitial}
	n2004 := retriever.Hit{Rank: 3, NodeID: "N2004", Score: 0.2366}
	n2007 := retriever.Hit{Rank: 4, NodeID: "N2007", Score: 0.204, Seed: "N2006", Origin: retriever.OriginExpanded,
		Route: []retriever.Hop{{From: "N2006", To: "N2007", Type: "RELATES", Weight: 0.5, Factor: 0.5}},
		Terms: []retriever.Term{{Name: "R(N2006)", Value: 0.85}, {Name: "RELATES", Value: 0.5}, {Name: "f", Value: 0.6}, {Name: "δ^1", Value: 0.8}}}
	cutPPR := n2003
	cutPPR.Rank = 2
	unreachable := why.Answer{NodeID: "T4008", Verdict: why.Unreachable, Params: activation.DefaultParams(), Blocking: -1, Exact: true}
	bad := "X" + hostileOSC52
	return []rankwhy.Answer{
		{Retriever: "ppr", Residual: true, NodeID: "N2003", Verdict: rankwhy.Kept, K: 6, Hit: &n2003, Kth: &retriever.Hit{Rank: 6, NodeID: "N2001", Score: 0.03793},
			Ranked: 31, ResidualMass: 0.00002457, Hops: -1, FollowedHops: -1},
		{Retriever: "ppr", Residual: true, NodeID: "N2003", Verdict: rankwhy.Cut, K: 1, Hit: &cutPPR, Kth: &n2006, Ranked: 31, ResidualMass: 0.00002457},
		{Retriever: "expansion", Typed: true, NodeID: "N2007", Verdict: rankwhy.Cut, K: 3, Hit: &n2007, Kth: &n2004, Ranked: 5},
		{Retriever: "expansion", Typed: true, NodeID: "N2001", Verdict: rankwhy.Unreached, K: 10, Ranked: 5, Reason: retriever.ReasonNoRoute, Limit: 1, Hops: 2, FollowedHops: 2, Searched: 2},
		{Retriever: "expansion", Typed: true, NodeID: "N2002", Verdict: rankwhy.Unreached, K: 10, Ranked: 5, Reason: retriever.ReasonNotFollowed, Limit: 1, Hops: 1, FollowedHops: -1,
			Searched: 3, Unfollowed: []string{"MENTIONS"}},
		{Retriever: "expansion", Typed: true, NodeID: "N2001", Verdict: rankwhy.Unreached, K: 10, Ranked: 4, Reason: retriever.ReasonNotPositive, Limit: 2, Hops: 2, FollowedHops: 2, Searched: 2},
		{Retriever: "spreading", NodeID: "N2012", Verdict: rankwhy.Unreached, K: 10, Ranked: 8, Reason: retriever.ReasonBelowThreshold, Limit: 2, Hops: 2, Searched: 2,
			Activation: 0.002205, Threshold: 0.05},
		{Retriever: "spreading", NodeID: "N2001", Verdict: rankwhy.Unreached, K: 10, Ranked: 5, Reason: retriever.ReasonNotFired, Limit: 2, Hops: 2, Searched: 2, Threshold: 0.6},
		{Retriever: "spreading", NodeID: "T4008", Verdict: rankwhy.Unreached, K: 10, Ranked: 8, Reason: retriever.ReasonNoRoute, Limit: 2, Hops: -1, Searched: 4, Whole: true},
		{Retriever: "ppr", Residual: true, NodeID: "T4008", Verdict: rankwhy.Unreached, K: 10, Ranked: 31, Reason: retriever.ReasonNotPushed, Hops: -1, Searched: 4,
			Epsilon: 1e-6, ResidualMass: 0.00002457, Touched: 33},
		{Retriever: "fusion", NodeID: "T4008", Verdict: rankwhy.Unreached, K: 10, Ranked: 31, Reason: retriever.ReasonInNoList, Lists: []rankwhy.Answer{
			{Retriever: "activation", NodeID: "T4008", Verdict: rankwhy.Unreached, K: 100, Ranked: 13, Reason: string(why.Unreachable), Why: &unreachable},
			{Retriever: "ppr", Residual: true, NodeID: "T4008", Verdict: rankwhy.Unreached, K: 100, Ranked: 31, Reason: retriever.ReasonNotPushed, Hops: -1, Searched: 4,
				Epsilon: 1e-6, ResidualMass: 0.00002457, Touched: 33},
		}},
		{Retriever: "expansion", Typed: true, NodeID: bad, Verdict: rankwhy.Unreached, K: 10, Reason: retriever.ReasonNotFollowed, Limit: 1, Hops: 1, FollowedHops: -1,
			Searched: 3, Unfollowed: []string{"MENT" + hostileClear}},
		{Retriever: "ppr", Residual: true, NodeID: bad, Verdict: rankwhy.Cut, K: 1, Hit: &retriever.Hit{Rank: 2, NodeID: bad, Score: 0.1, Seed: hostileBidi,
			Origin: retriever.OriginExpanded, Route: []retriever.Hop{{From: hostileBidi, To: bad, Type: hostileTitle, Weight: 1, Factor: 0.5}},
			Terms: []retriever.Term{{Name: "share(" + hostileBidi + ")", Value: 0.1}}, TermsAdd: true},
			Kth: &retriever.Hit{Rank: 1, NodeID: hostileBidi, Score: 0.5}},
	}
}

// TestRankingWhyNotRanked: a retriever that declares no why-not of its own
// (retriever.ReasonNotRanked) is said to lack the node in its whole
// ranking, with the ranking's length and the retriever's name escaped.
func TestRankingWhyNotRanked(t *testing.T) {
	a := rankwhy.Answer{Retriever: "deg" + hostileClear, NodeID: "N2001", Verdict: rankwhy.Unreached, K: 3, Ranked: 5, Reason: retriever.ReasonNotRanked}
	want := "its whole ranking (5 hits) does not hold it, and " + textsafe.Escape("deg"+hostileClear) + " gives no reason of its own"
	if got := RankingWhyDetail(a); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// TestRankingWhyText draws every answer (testdata/ranking_why_text.golden)
// and checks the sentences worked by hand.
func TestRankingWhyText(t *testing.T) {
	var b strings.Builder
	for _, a := range rankingWhys() {
		b.WriteString(RankingWhyText(a))
		b.WriteString("\n")
	}
	got := b.String()
	for _, want := range []string{
		"N2003: kept by ppr (rank 2, K = 6)\nrank 2 in the top 6, score 0.1149\nroute: from N2006 -[RELATES w=0.82 ×0.1745]-> N2003\n",
		"rank 2, below the top 1: score 0.1149 against the 1st hit N2006's 0.5585, 0.4436 short (21% of 0.5585)\n",
		"N2007: cut by expansion (rank 4, K = 3)\nrank 4, below the top 3: score 0.204 against the 3rd hit N2004's 0.2366, 0.0326 short (86% of 0.2366)\n",
		"score: R(N2006) 0.85 × RELATES 0.5 × f 0.6 × δ^1 0.8 = 0.204\n",
		"N2001 is 2 hops from the nearest seed (over any type); H = 1\n",
		"N2002 is 1 hop from the nearest seed only through types not followed (MENTIONS); through followed types no route from a seed within 3 hops; H = 1\n",
		"its activation A = 0.002205 is below θ = 0.05 (4% of 0.05)\n",
		"no activation reached it within 2 pulses: no route from a seed at all over RELATES\n",
		"T4008: unreached by fusion (in_no_list)\nin none of the fused rankings' top 100\n  activation: unreached (unreachable)\n  no RELATES route of at most 5 hops from a seed\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	for _, line := range strings.Split(got, "\n") {
		for _, r := range line {
			if !textsafe.Safe(r) {
				t.Errorf("raw %q in line %q", r, line)
			}
		}
	}
	golden(t, "ranking_why_text", got)
}

// TestRankingWhyJSON writes every answer as `why --retriever NAME --format
// json` does (testdata/ranking_why_json.golden): the eight keys docs/CLI.md
// pins first, in order; rank and score null when unreached, kth_score null
// when the retriever ranked fewer than K; nothing a terminal could act on.
func TestRankingWhyJSON(t *testing.T) {
	var b strings.Builder
	for _, a := range rankingWhys() {
		line, err := RankingWhyJSONLine(a)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
	}
	got := b.String()
	lines := strings.Split(strings.TrimSpace(got), "\n")
	if !strings.HasPrefix(lines[0], `{"retriever":"ppr","node_id":"N2003","verdict":"kept","rank":2,"score":0.1149,"kth_score":0.03793,"k":6,"detail":"rank 2 in the top 6, score 0.1149",`) {
		t.Errorf("kept line: %s", lines[0])
	}
	if !strings.HasPrefix(lines[3], `{"retriever":"expansion","node_id":"N2001","verdict":"unreached","rank":null,"score":null,"kth_score":null,"k":10,`) ||
		!strings.Contains(lines[3], `"reason":"no_route","facts":{"limit":1,"hops":2,"followed_hops":2,"unfollowed_types":[],"searched":2,"whole":false},"hit":null`) {
		t.Errorf("unreached line: %s", lines[3])
	}
	if strings.ContainsAny(got, "\x1b\x07\u202e") {
		t.Errorf("raw control text in %q", got)
	}
	golden(t, "ranking_why_json", got)
}

// TestRerankedText: a hit the signals rerank scored shows the retriever's
// own rank and score, then the signals (an empty notes list left out); any
// other hit shows nothing.
func TestRerankedText(t *testing.T) {
	h := retriever.Hit{Detail: retriever.Fields{{Name: "own_score", Value: 0.33456}, {Name: "own_rank", Value: 2},
		{Name: "sem", Value: 0.0}, {Name: "recency", Value: 0.5}, {Name: "days", Value: 34.657}, {Name: "notes", Value: []string{}}}}
	if got, want := RerankedText(h), "was #2 0.3346; sem=0 recency=0.5 days=34.66"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := RerankedText(retriever.Hit{Detail: retriever.Fields{{Name: "activation", Value: 1.0}}}); got != "" {
		t.Errorf("a hit not reranked: %q", got)
	}
}
