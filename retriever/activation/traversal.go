package activation

import (
	"cmp"
	"slices"

	"github.com/memoria-graph/memoria/graph"
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
	// FateBelowThreshold marks a near miss (Expansion.NearMisses) where
	// front ends list it beside the candidates; the traversal never gives
	// it, since a near miss is never a candidate.
	FateBelowThreshold Fate = "below_threshold"
)

// Outcome is a candidate with its fate. ClaimedBy names the parent
// that won the neighbour when Fate is FateClaimed.
type Outcome struct {
	Candidate Candidate `json:"candidate"`
	Fate      Fate      `json:"fate"`
	ClaimedBy string    `json:"claimed_by,omitempty"`
}

// frontierUpdate is the result of one level's selection.
type frontierUpdate struct {
	// Next is the new frontier, grouped by parent in frontier order, each
	// group by transfer energy descending.
	Next []frontierNode
	// Completed holds the paths of frontier nodes that kept nothing.
	Completed []Path
	// NewlyVisited lists the ids that joined the visited set.
	NewlyVisited []string
	// Outcomes lists every candidate in claim order with its fate.
	Outcomes []Outcome
}

// traversalState is one seed's BFS state: the visited set and the branch
// limit. It is not safe for concurrent use; each exploration owns one.
type traversalState struct {
	maxBranches int
	seed        graph.Node
	visited     map[string]struct{}
}

// newTraversalState starts a traversal at seed with the seed already visited.
func newTraversalState(maxBranches int, seed graph.Node) *traversalState {
	return &traversalState{maxBranches: maxBranches, seed: seed, visited: map[string]struct{}{seed.ID: {}}}
}

// Visited returns the visited set. Callers must not modify it.
func (s *traversalState) Visited() map[string]struct{} { return s.visited }

// InitialFrontier is the frontier at depth 0: the seed with activation score.
func (s *traversalState) InitialFrontier(score float64) []frontierNode {
	return []frontierNode{{NodeID: s.seed.ID, Activation: score, Node: s.seed}}
}

// buildFrontierInputs reduces frontier nodes to what a connector needs.
func buildFrontierInputs(frontier []frontierNode) []FrontierInput {
	in := make([]FrontierInput, len(frontier))
	for i, f := range frontier {
		in[i] = FrontierInput{NodeID: f.NodeID, Activation: f.Activation}
	}
	return in
}

// groupByParent groups candidates by parent id, keeping their order. The
// groups share cands's array when each parent's candidates are contiguous
// (as every expander lists them), so no candidate is copied; callers
// only read them.
func groupByParent(cands []Candidate) map[string][]Candidate {
	out := make(map[string][]Candidate)
	for i := 0; i < len(cands); {
		j := i + 1
		for j < len(cands) && cands[j].ParentID == cands[i].ParentID {
			j++
		}
		if _, again := out[cands[i].ParentID]; again {
			return groupByParentCopy(cands)
		}
		out[cands[i].ParentID] = cands[i:j:j]
		i = j
	}
	return out
}

// groupByParentCopy is groupByParent for candidates whose parents
// interleave.
func groupByParentCopy(cands []Candidate) map[string][]Candidate {
	out := make(map[string][]Candidate)
	for _, c := range cands {
		out[c.ParentID] = append(out[c.ParentID], c)
	}
	return out
}

// claimOrder is the normative order of rule 4: transfer energy descending,
// then parent id, then neighbour id. Parallel edges that tie on all three
// are ordered by EdgeKey, so the edge a kept hop records does not depend on
// the order a connector's storage returned them in.
func claimOrder(a, b *Candidate) int {
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
//
// x (a traced level, or the zero Expansion) makes the end of a path whose
// node kept nothing exact: below threshold (with its best near miss), all
// neighbours visited (docs/ALGORITHM.md rule 6).
func (s *traversalState) SelectNextFrontier(frontier []frontierNode, candidatesByParent map[string][]Candidate, x Expansion) frontierUpdate {
	n := 0
	for _, f := range frontier {
		n += len(candidatesByParent[f.NodeID])
	}
	// Each parent by its place in the frontier (the first, should an id
	// come twice), so that the claim needs no map but claimedBy.
	fidx := make(map[string]int32, len(frontier))
	for i, f := range frontier {
		if _, ok := fidx[f.NodeID]; !ok {
			fidx[f.NodeID] = int32(i)
		}
	}
	all := make([]*Candidate, 0, n)
	par := make([]int32, 0, n) // all[k]'s parent's place
	for _, f := range frontier {
		fi := fidx[f.NodeID]
		cs := candidatesByParent[f.NodeID]
		for i := range cs {
			if _, seen := s.visited[cs[i].NeighborNode.ID]; !seen {
				all = append(all, &cs[i])
				par = append(par, fi)
			}
		}
	}
	// Stable in claimOrder: the positions sorted, ties by position, so
	// that no 256-byte candidate is moved (a stable sort of the
	// candidates themselves took half of a sweep's CPU at 10^6 edges,
	// docs/PERFORMANCE.md).
	order := make([]int32, len(all))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		return cmp.Or(claimOrder(all[a], all[b]), cmp.Compare(a, b))
	})

	var up frontierUpdate
	if len(all) > 0 {
		up.Outcomes = make([]Outcome, 0, len(all))
	}
	claimedBy := make(map[string]string, len(all))
	nkept := make([]int, len(frontier))
	had := make([]bool, len(frontier))
	var keptOrder []int32 // the kept, in claim order
	for _, k := range order {
		c, fi := all[k], par[k]
		had[fi] = true
		o := Outcome{Candidate: *c}
		switch winner, taken := claimedBy[c.NeighborNode.ID]; {
		case taken:
			o.Fate, o.ClaimedBy = FateClaimed, winner
		case nkept[fi] >= s.maxBranches:
			o.Fate = FateBranchLimit
		default:
			o.Fate = FateKept
			claimedBy[c.NeighborNode.ID] = c.ParentID
			nkept[fi]++
			keptOrder = append(keptOrder, k)
		}
		up.Outcomes = append(up.Outcomes, o)
	}
	// Each parent's kept, in claim order: keptBy[start[fi]:start[fi+1]].
	start := make([]int, len(frontier)+1)
	for fi, c := range nkept {
		start[fi+1] = start[fi] + c
	}
	next := slices.Clone(start)
	keptBy := make([]*Candidate, len(keptOrder))
	for _, k := range keptOrder {
		keptBy[next[par[k]]] = all[k]
		next[par[k]]++
	}

	for _, f := range frontier {
		fi := fidx[f.NodeID]
		ks := keptBy[start[fi]:start[fi+1]]
		if len(ks) == 0 {
			if len(f.Path.Steps) > 0 {
				p := f.Path
				p.EndReason = EndNoCandidates
				if had[fi] {
					p.EndReason = EndAllClaimed
				} else if t, ok := x.Tallies[f.NodeID]; ok {
					switch {
					case t.Below > 0:
						p.EndReason = EndBelowThreshold
						if i := slices.IndexFunc(x.NearMisses, func(c Candidate) bool { return c.ParentID == f.NodeID }); i >= 0 {
							st := StepFromCandidate(f.Node, x.NearMisses[i])
							p.NearMiss = &st
						}
					case t.Visited > 0: // always, when nothing was below: the parent is a visited neighbour
						p.EndReason = EndAllVisited
					}
				}
				up.Completed = append(up.Completed, p)
			}
			continue
		}
		for _, c := range ks {
			up.Next = append(up.Next, frontierNode{
				NodeID:     c.NeighborNode.ID,
				Activation: c.TransferEnergy,
				Path:       f.Path.Extend(StepFromCandidate(f.Node, *c)),
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

// finalizeRemaining completes the non-empty paths of the frontier left at
// MAX_DEPTH.
func finalizeRemaining(frontier []frontierNode) []Path {
	var out []Path
	for _, f := range frontier {
		if len(f.Path.Steps) > 0 {
			p := f.Path
			p.EndReason = EndMaxDepth
			out = append(out, p)
		}
	}
	return out
}

// sortPathsTreeOrder orders completed paths as a depth-first walk of the
// result tree, siblings by transfer energy descending then id: the order a
// reader expects (docs/ALGORITHM.md "Worked example" lists paths A, B, C this way).
func sortPathsTreeOrder(paths []Path) {
	slices.SortStableFunc(paths, func(a, b Path) int {
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
