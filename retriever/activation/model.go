package activation

import (
	"slices"
	"sort"
	"strings"

	"github.com/memoria-graph/memoria/graph"
)

// MissingWeight is the weight used for an edge without a weight property
// (docs/ALGORITHM.md, rule 1).
const MissingWeight = graph.MissingRelatesWeight

// EffectiveWeight is the weight the math uses: the edge's weight, or
// MissingWeight when it has none.
func EffectiveWeight(e graph.Edge) float64 {
	if e.Weight == nil {
		return MissingWeight
	}
	return *e.Weight
}

// Candidate is a possible next hop, produced by an Expander before the
// per-parent selection. Degree is the parent's degree and TagSim the tag
// similarity used; Activation is the parent's activation R.
type Candidate struct {
	ParentID       string     `json:"parent_id"`
	NeighborNode   graph.Node `json:"neighbor_node"`
	Edge           graph.Edge `json:"edge"`
	Activation     float64    `json:"activation"`
	Degree         int64      `json:"degree"`
	TagSim         float64    `json:"tag_sim"`
	TransferEnergy float64    `json:"transfer_energy"`
	// NeighborDegree is the neighbour's degree, counted as Degree is, when
	// the expansion was asked for it (Near.Degrees); 0 when not known.
	NeighborDegree int64 `json:"-"`
}

// StepFromCandidate turns a kept candidate into a path step from parent.
func StepFromCandidate(parent graph.Node, c Candidate) Step {
	return Step{
		FromNode: parent, Edge: c.Edge, ToNode: c.NeighborNode, Weight: EffectiveWeight(c.Edge),
		Activation: c.Activation, Degree: c.Degree, TagSim: c.TagSim, TransferEnergy: c.TransferEnergy,
	}
}

// frontierNode is an element of the BFS frontier: a node reached with
// Activation (the transfer energy it received, or the seed score) along Path.
type frontierNode struct {
	NodeID     string
	Activation float64
	Path       Path
	// Node is the frontier node itself (the seed, or the last step's target).
	Node graph.Node
}

// FrontierInput is what an Expander needs of a frontier node.
type FrontierInput struct {
	NodeID     string  `json:"node_id"`
	Activation float64 `json:"activation"`
}

// ExpandRequest is one batched expansion: one level of one seed.
type ExpandRequest struct {
	Frontier []FrontierInput
	// Visited holds every node id that may not be reached again.
	Visited map[string]struct{}
	// QueryTags must already be normalised (retriever.NormalizeTags).
	QueryTags     []string
	MinActivation float64
	TagSimFloor   float64
}

// VisitedIDs returns the visited set as a sorted slice (for query parameters).
func (r ExpandRequest) VisitedIDs() []string {
	ids := make([]string, 0, len(r.Visited))
	for id := range r.Visited {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// EdgeKey is a storage-independent key of an edge: graph.CanonicalProps of
// its properties, the one rule by which memoria compares property maps (an
// integer 1 and a float 1.0 differ, as Neo4j stores them; a list reads the
// same whether an engine holds it as []any or []string). Parallel edges
// that tie on parent, transfer energy and neighbour are ordered by it
// (docs/ALGORITHM.md, rule 4), so every engine records the same edge for a
// kept hop whatever order its storage returns them in.
func EdgeKey(e graph.Edge) string { return graph.CanonicalProps(e.Properties) }

// SortTiedEdges orders, stably, each run of consecutive candidates that
// tie on parent, transfer energy and neighbour (parallel edges) by EdgeKey.
// Expanders call it on their sorted output so that every engine lists
// tied edges alike, whatever order its storage returned them in.
func SortTiedEdges(cands []Candidate) {
	type keyed struct {
		key string
		c   Candidate
	}
	for i := 0; i < len(cands); {
		j := i + 1
		for j < len(cands) && cands[j].ParentID == cands[i].ParentID &&
			cands[j].TransferEnergy == cands[i].TransferEnergy && cands[j].NeighborNode.ID == cands[i].NeighborNode.ID {
			j++
		}
		if j-i > 1 {
			run := make([]keyed, j-i)
			for k := range run {
				run[k] = keyed{EdgeKey(cands[i+k].Edge), cands[i+k]}
			}
			slices.SortStableFunc(run, func(a, b keyed) int { return strings.Compare(a.key, b.key) })
			for k := range run {
				cands[i+k] = run[k].c
			}
		}
		i = j
	}
}
