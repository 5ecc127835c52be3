package render

import (
	"fmt"
	"strings"

	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/why"
)

// WhyHop is one hop of a why-not answer on the wire: `from`, `to` and
// `transfer_energy` first, then the numbers that made T (docs/ALGORITHM.md
// rule 1).
type WhyHop struct {
	From           string  `json:"from"`
	To             string  `json:"to"`
	TransferEnergy float64 `json:"transfer_energy"`
	Activation     float64 `json:"activation"`
	Weight         float64 `json:"weight"`
	TagSim         float64 `json:"tag_sim"`
	Degree         int64   `json:"degree"`
}

// WhyJSON is `memoria why --format json` (docs/EXPORTS.md, "Why not X"):
// node_id, verdict, route, blocking_hop (null for kept and unreachable) and
// detail, in that order, then what the detail is made of.
type WhyJSON struct {
	NodeID      string   `json:"node_id"`
	Verdict     string   `json:"verdict"`
	Route       []WhyHop `json:"route"`
	BlockingHop *WhyHop  `json:"blocking_hop"`
	Detail      string   `json:"detail"`
	// Seed is the route's seed (null when unreachable).
	Seed *retriever.Seed `json:"seed"`
	// Level is the blocking hop's level (0 when there is none).
	Level         int     `json:"level"`
	MinActivation float64 `json:"min_activation"`
	MaxDepth      int     `json:"max_depth"`
	MaxBranches   int     `json:"max_branches"`
	// ClaimedBy is, for claimed, the hop that took the neighbour.
	ClaimedBy *WhyHop `json:"claimed_by,omitempty"`
	// Siblings are, for branch_limit, the parent's kept hops at that level.
	Siblings []WhyHop `json:"siblings,omitempty"`
	// VisitedVia is, for visited_earlier, the node ids of the run's path
	// that reached the neighbour first.
	VisitedVia []string `json:"visited_via,omitempty"`
	// Exact is false when the search for the best route ran out of budget.
	Exact bool `json:"exact"`
}

func whyHop(s activation.Step) WhyHop {
	return WhyHop{From: s.FromNode.ID, To: s.ToNode.ID, TransferEnergy: s.TransferEnergy, Activation: s.Activation,
		Weight: s.Weight, TagSim: s.TagSim, Degree: s.Degree}
}

func whyCand(c activation.Candidate) WhyHop {
	return WhyHop{From: c.ParentID, To: c.NeighborNode.ID, TransferEnergy: c.TransferEnergy, Activation: c.Activation,
		Weight: activation.EffectiveWeight(c.Edge), TagSim: c.TagSim, Degree: c.Degree}
}

// ToWhyJSON is the wire form of a. Ids are written as they are (the JSON
// writer escapes what a terminal must not get raw); the detail is WhyDetail
// with raw ids.
func ToWhyJSON(a why.Answer) WhyJSON {
	out := WhyJSON{NodeID: a.NodeID, Verdict: string(a.Verdict), Route: []WhyHop{}, Detail: whyDetail(a, rawID),
		Level: a.Level(), MinActivation: a.Params.MinActivation, MaxDepth: a.Params.MaxDepth, MaxBranches: a.Params.MaxBranches, Exact: a.Exact}
	for _, s := range a.Route {
		out.Route = append(out.Route, whyHop(s))
	}
	if h := a.BlockingHop(); h != nil {
		bh := whyHop(*h)
		out.BlockingHop = &bh
	}
	if a.Verdict != why.Unreachable {
		s := a.Seed
		out.Seed = &s
	}
	if a.ClaimedBy != nil {
		c := whyCand(*a.ClaimedBy)
		out.ClaimedBy = &c
	}
	for _, c := range a.Siblings {
		out.Siblings = append(out.Siblings, whyCand(c))
	}
	if len(a.VisitedVia) > 0 {
		out.VisitedVia = activation.Path{Steps: a.VisitedVia}.NodeIDs()
	}
	return out
}

func rawID(id string) string { return id }

// WhyDetail says in one sentence why the answer is what it is, every id
// written with DisplayID:
//
//	in the result of seed N2006 at depth 3
//	no RELATES route of at most 5 hops from seed N2006
//	N2005 → N2012 at level 2: T=0.0001281 is not above MIN_ACTIVATION 0.005 (3% of 0.005)
//	p → X at level 2: X was claimed by q (q → X T=0.8165)
//	N2006 → N2007 at level 1: N2006 had already kept MAX_BRANCHES 3: N2003 T=0.1016, N2004 T=0.08936, N2005 T=0.06933
//	A → X at level 2: X was reached at level 1 by S → X
func WhyDetail(a why.Answer) string { return whyDetail(a, DisplayID) }

func whyDetail(a why.Answer, id func(string) string) string {
	arrow := func(from, to string) string { return id(from) + " → " + id(to) }
	var d string
	switch a.Verdict {
	case why.Kept:
		if len(a.Route) == 0 {
			d = id(a.NodeID) + " is a seed"
		} else {
			d = fmt.Sprintf("in the result of seed %s at depth %d", id(a.Seed.NodeID), len(a.Route))
		}
	case why.Unreachable:
		d = fmt.Sprintf("no RELATES route of at most %d hops from a seed", a.Params.MaxDepth)
	default:
		h := a.BlockingHop()
		if h == nil {
			return string(a.Verdict)
		}
		d = fmt.Sprintf("%s at level %d: ", arrow(h.FromNode.ID, h.ToNode.ID), a.Level())
		switch a.Verdict {
		case why.BelowThreshold:
			d += fmt.Sprintf("T=%s is not above MIN_ACTIVATION %s", Num(h.TransferEnergy), Num(a.Params.MinActivation))
			if a.Params.MinActivation > 0 {
				d += " (" + ShareOf(h.TransferEnergy, a.Params.MinActivation) + ")"
			}
		case why.Claimed:
			d += id(h.ToNode.ID) + " was claimed"
			if c := a.ClaimedBy; c != nil {
				d += fmt.Sprintf(" by %s (%s T=%s)", id(c.ParentID), arrow(c.ParentID, c.NeighborNode.ID), Num(c.TransferEnergy))
			}
		case why.BranchLimit:
			parts := make([]string, len(a.Siblings))
			for i, c := range a.Siblings {
				parts[i] = id(c.NeighborNode.ID) + " T=" + Num(c.TransferEnergy)
			}
			d += fmt.Sprintf("%s had already kept MAX_BRANCHES %d: %s", id(h.FromNode.ID), a.Params.MaxBranches, strings.Join(parts, ", "))
		case why.VisitedEarlier:
			ids := activation.Path{Steps: a.VisitedVia}.NodeIDs()
			for i := range ids {
				ids[i] = id(ids[i])
			}
			d += fmt.Sprintf("%s was reached at level %d by %s", id(h.ToNode.ID), len(a.VisitedVia), strings.Join(ids, " → "))
		}
	}
	if !a.Exact {
		d += " (the search ran out of budget: a better route may exist)"
	}
	return d
}

// WhyText writes an answer for people: a headline, the route hop by hop
// (each with T, w, tag_sim and d, and whether the run kept it), and the
// detail. Every id goes through DisplayID.
//
//	N2012: not in the result (below_threshold)
//	best route from seed N2006 R=0.85, at most 5 hops:
//	  ✓ N2006 → N2005 T=0.06933 w=0.45 tag_sim=0.3625 d=4
//	  ✗ N2005 → N2012 T=0.0001281 w=0.01 tag_sim=0.32 d=3
//	  (✓ kept by the run, ✗ where the run parted from the route, · not reached)
//	N2005 → N2012 at level 2: T=0.0001281 is not above MIN_ACTIVATION 0.005 (3% of 0.005)
func WhyText(a why.Answer) string {
	var b strings.Builder
	switch a.Verdict {
	case why.Kept:
		fmt.Fprintf(&b, "%s: kept\n", DisplayID(a.NodeID))
		if len(a.Route) > 0 {
			fmt.Fprintf(&b, "path from seed %s R=%s:\n", DisplayID(a.Seed.NodeID), Num(a.Seed.Score))
		}
	case why.Unreachable:
		fmt.Fprintf(&b, "%s: unreachable\n", DisplayID(a.NodeID))
	default:
		fmt.Fprintf(&b, "%s: not in the result (%s)\n", DisplayID(a.NodeID), a.Verdict)
		fmt.Fprintf(&b, "best route from seed %s R=%s, at most %d hops:\n", DisplayID(a.Seed.NodeID), Num(a.Seed.Score), a.Params.MaxDepth)
	}
	for i, s := range a.Route {
		mark := "✓"
		switch {
		case a.Blocking < 0:
		case i == a.Blocking:
			mark = "✗"
		case i > a.Blocking:
			mark = "·"
		}
		fmt.Fprintf(&b, "  %s %s → %s T=%s w=%s tag_sim=%s d=%d\n", mark, DisplayID(s.FromNode.ID), DisplayID(s.ToNode.ID),
			Num(s.TransferEnergy), Num(s.Weight), Num(s.TagSim), s.Degree)
	}
	if a.Blocking >= 0 {
		b.WriteString("  (✓ kept by the run, ✗ where the run parted from the route, · not reached)\n")
	}
	b.WriteString(WhyDetail(a))
	b.WriteByte('\n')
	return b.String()
}
