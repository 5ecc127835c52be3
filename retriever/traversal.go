package retriever

import (
	"cmp"
	"slices"
)

// Fate is what became of an above-threshold candidate at its level.
type Fate string

const (
	// FateKept: the neighbour joined the next frontier.
	FateKept Fate = "kept"
	// FateBranchLimit: its parent had already kept MAX_BRANCHES neighbours.
	FateBranchLimit Fate = "branch_limit"
	// FateClaimed: another candidate with higher priority took the neighbour.
	FateClaimed Fate = "claimed"
)

// CandidateOutcome is a candidate with its fate. ClaimedBy names the parent
// that won the neighbour when Fate is FateClaimed.
type CandidateOutcome struct {
	Candidate ExpansionCandidate `json:"candidate"`
	Fate      Fate               `json:"fate"`
	ClaimedBy string             `json:"claimed_by,omitempty"`
}

// FrontierUpdate is the result of one level's selection.
type FrontierUpdate struct {
	// Next is the new frontier, grouped by parent in frontier order, each
	// group by transfer energy descending.
	Next []FrontierNode
	// Completed holds the paths of frontier nodes that kept nothing.
	Completed []GraphPath
	// NewlyVisited lists the ids that joined the visited set.
	NewlyVisited []string
	// Outcomes lists every candidate in claim order with its fate.
	Outcomes []CandidateOutcome
}

// TraversalState is one seed's BFS state: the visited set and the branch
// limit. It is not safe for concurrent use; each exploration owns one.
type TraversalState struct {
	maxBranches int
	seed        GraphNode
	visited     map[string]struct{}
}

// NewTraversalState starts a traversal at seed with the seed already visited.
func NewTraversalState(maxBranches int, seed GraphNode) *TraversalState {
	return &TraversalState{maxBranches: maxBranches, seed: seed, visited: map[string]struct{}{seed.ID: {}}}
}

// Visited returns the visited set. Callers must not modify it.
func (s *TraversalState) Visited() map[string]struct{} { return s.visited }

// InitialFrontier is the frontier at depth 0: the seed with activation score.
func (s *TraversalState) InitialFrontier(score float64) []FrontierNode {
	return []FrontierNode{{NodeID: s.seed.ID, Activation: score, Node: s.seed}}
}

// BuildFrontierInputs reduces frontier nodes to what a connector needs.
func BuildFrontierInputs(frontier []FrontierNode) []FrontierInput {
	in := make([]FrontierInput, len(frontier))
	for i, f := range frontier {
		in[i] = FrontierInput{NodeID: f.NodeID, Activation: f.Activation}
	}
	return in
}

// GroupByParent groups candidates by parent id, keeping their order.
func GroupByParent(cands []ExpansionCandidate) map[string][]ExpansionCandidate {
	out := make(map[string][]ExpansionCandidate)
	for _, c := range cands {
		out[c.ParentID] = append(out[c.ParentID], c)
	}
	return out
}

// claimOrder is the normative order of rule 4: transfer energy descending,
// then parent id, then neighbour id. Parallel edges that tie on all three
// are ordered by EdgeKey, so the edge a kept hop records does not depend on
// the order a connector's storage returned them in.
func claimOrder(a, b ExpansionCandidate) int {
	if c := cmp.Compare(b.TransferEnergy, a.TransferEnergy); c != 0 {
		return c
	}
	if c := cmp.Compare(a.ParentID, b.ParentID); c != 0 {
		return c
	}
	if c := cmp.Compare(a.NeighborNode.ID, b.NeighborNode.ID); c != 0 {
		return c
	}
	return cmp.Compare(EdgeKey(a.Edge), EdgeKey(b.Edge))
}

// SelectNextFrontier applies the claim rule to one level. Candidates of
// parents not in frontier and candidates whose neighbour is already visited
// are ignored (a connector must not return them). Kept neighbours join the
// visited set before it returns.
func (s *TraversalState) SelectNextFrontier(frontier []FrontierNode, candidatesByParent map[string][]ExpansionCandidate) FrontierUpdate {
	var all []ExpansionCandidate
	for _, f := range frontier {
		for _, c := range candidatesByParent[f.NodeID] {
			if _, seen := s.visited[c.NeighborNode.ID]; !seen {
				all = append(all, c)
			}
		}
	}
	slices.SortStableFunc(all, claimOrder)

	var up FrontierUpdate
	claimedBy := make(map[string]string)
	kept := make(map[string][]ExpansionCandidate)
	had := make(map[string]bool)
	for _, c := range all {
		had[c.ParentID] = true
		o := CandidateOutcome{Candidate: c}
		switch winner, taken := claimedBy[c.NeighborNode.ID]; {
		case taken:
			o.Fate, o.ClaimedBy = FateClaimed, winner
		case len(kept[c.ParentID]) >= s.maxBranches:
			o.Fate = FateBranchLimit
		default:
			o.Fate = FateKept
			claimedBy[c.NeighborNode.ID] = c.ParentID
			kept[c.ParentID] = append(kept[c.ParentID], c)
		}
		up.Outcomes = append(up.Outcomes, o)
	}

	for _, f := range frontier {
		ks := kept[f.NodeID]
		if len(ks) == 0 {
			if len(f.Path.Steps) > 0 {
				p := f.Path
				p.EndReason = EndNoCandidates
				if had[f.NodeID] {
					p.EndReason = EndAllClaimed
				}
				up.Completed = append(up.Completed, p)
			}
			continue
		}
		for _, c := range ks {
			up.Next = append(up.Next, FrontierNode{
				NodeID:     c.NeighborNode.ID,
				Activation: c.TransferEnergy,
				Path:       f.Path.Extend(StepFromCandidate(f.Node, c)),
				Node:       c.NeighborNode,
			})
			up.NewlyVisited = append(up.NewlyVisited, c.NeighborNode.ID)
		}
	}
	for _, id := range up.NewlyVisited {
		s.visited[id] = struct{}{}
	}
	return up
}

// FinalizeRemaining completes the non-empty paths of the frontier left at
// MAX_DEPTH.
func FinalizeRemaining(frontier []FrontierNode) []GraphPath {
	var out []GraphPath
	for _, f := range frontier {
		if len(f.Path.Steps) > 0 {
			p := f.Path
			p.EndReason = EndMaxDepth
			out = append(out, p)
		}
	}
	return out
}

// SortPathsTreeOrder orders completed paths as a depth-first walk of the
// result tree, siblings by transfer energy descending then id: the order a
// reader expects (seed 000 §5 lists paths A, B, C this way).
func SortPathsTreeOrder(paths []GraphPath) {
	slices.SortStableFunc(paths, func(a, b GraphPath) int {
		for i := 0; i < len(a.Steps) && i < len(b.Steps); i++ {
			sa, sb := a.Steps[i], b.Steps[i]
			if sa.ToNode.ID == sb.ToNode.ID {
				continue
			}
			if c := cmp.Compare(sb.TransferEnergy, sa.TransferEnergy); c != 0 {
				return c
			}
			return cmp.Compare(sa.ToNode.ID, sb.ToNode.ID)
		}
		return cmp.Compare(len(a.Steps), len(b.Steps))
	})
}
