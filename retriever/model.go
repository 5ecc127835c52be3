// Package retriever implements the Activation Energy graph retriever: the
// transfer-energy math, the breadth-first traversal state and an orchestrator
// that explores each seed in its own goroutine. It reaches a graph only through
// the Connector interface, so the Neo4j connector and the in-memory engine are
// interchangeable. It knows nothing of terminals.
package retriever

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// RelType is the only relationship type the algorithm follows.
const RelType = "RELATES"

// MissingWeight is the weight used for an edge without a weight property
// (the seed's `coalesce(r.weight, 0.01)`).
const MissingWeight = 0.01

// SeedInput is one seed from the upstream vector search; Score is R(seed).
type SeedInput struct {
	NodeID string  `json:"node_id"`
	Score  float64 `json:"score"`
}

// GraphNode is a node as the graph returns it. ID is its application id
// (the `id` property).
type GraphNode struct {
	ID         string         `json:"id"`
	Labels     []string       `json:"labels"`
	Properties map[string]any `json:"properties"`
}

// Label returns the node's first label, or "" when it has none.
func (n GraphNode) Label() string {
	if len(n.Labels) == 0 {
		return ""
	}
	return n.Labels[0]
}

// SeedFetchResult is the outcome of fetching a seed node. Found is false when
// no node has the seed's id.
type SeedFetchResult struct {
	Node   *GraphNode `json:"node"`
	Labels []string   `json:"labels"`
	Found  bool       `json:"found"`
}

// GraphEdge is a directed view of an undirected RELATES edge: SourceID is the
// node the traversal came from, TargetID the node it reached.
type GraphEdge struct {
	SourceID   string         `json:"source_id"`
	TargetID   string         `json:"target_id"`
	Type       string         `json:"type"`
	Properties map[string]any `json:"properties"`
	// Weight is nil when the edge has no weight property.
	Weight *float64 `json:"weight"`
	Tags   []string `json:"tags"`
}

// EffectiveWeight is the weight the math uses: the edge's weight, or
// MissingWeight when it has none.
func (e GraphEdge) EffectiveWeight() float64 {
	if e.Weight == nil {
		return MissingWeight
	}
	return *e.Weight
}

// ExpansionCandidate is a possible next hop, produced by a connector before
// the per-parent selection. Degree is the parent's degree and TagSim the
// tag similarity used; Activation is the parent's activation R.
type ExpansionCandidate struct {
	ParentID       string    `json:"parent_id"`
	NeighborNode   GraphNode `json:"neighbor_node"`
	Edge           GraphEdge `json:"edge"`
	Activation     float64   `json:"activation"`
	Degree         int64     `json:"degree"`
	TagSim         float64   `json:"tag_sim"`
	TransferEnergy float64   `json:"transfer_energy"`
}

// GraphStep is one hop of a path.
type GraphStep struct {
	FromNode       GraphNode `json:"from_node"`
	Edge           GraphEdge `json:"edge"`
	ToNode         GraphNode `json:"to_node"`
	Activation     float64   `json:"activation"`
	Degree         int64     `json:"degree"`
	TagSim         float64   `json:"tag_sim"`
	TransferEnergy float64   `json:"transfer_energy"`
}

// stepJSON is the wire form of a step: the struct's fields plus the ids and
// the effective weight, so scripts need not dig into nested objects.
type stepJSON struct {
	From   string  `json:"from"`
	To     string  `json:"to"`
	Weight float64 `json:"weight"`
	stepAlias
}

type stepAlias GraphStep

// MarshalJSON writes the step with flat `from`, `to` and `weight` keys first.
func (s GraphStep) MarshalJSON() ([]byte, error) {
	return json.Marshal(stepJSON{From: s.FromNode.ID, To: s.ToNode.ID, Weight: s.Edge.EffectiveWeight(), stepAlias: stepAlias(s)})
}

// UnmarshalJSON reads what MarshalJSON writes; the flat keys are derived and ignored.
func (s *GraphStep) UnmarshalJSON(b []byte) error {
	var a stepAlias
	if err := json.Unmarshal(b, &a); err != nil {
		return err
	}
	*s = GraphStep(a)
	return nil
}

// StepFromCandidate turns a kept candidate into a path step from parent.
func StepFromCandidate(parent GraphNode, c ExpansionCandidate) GraphStep {
	return GraphStep{
		FromNode: parent, Edge: c.Edge, ToNode: c.NeighborNode,
		Activation: c.Activation, Degree: c.Degree, TagSim: c.TagSim, TransferEnergy: c.TransferEnergy,
	}
}

// Why a path ended.
const (
	// EndMaxDepth: the path reached MAX_DEPTH hops.
	EndMaxDepth = "max_depth"
	// EndNoCandidates: the last node had no unvisited neighbour whose transfer
	// energy exceeded MIN_ACTIVATION (below threshold or all visited; the
	// connector does not say which).
	EndNoCandidates = "no_candidates"
	// EndAllClaimed: the last node had candidates, but every one was claimed
	// by another parent at the same level.
	EndAllClaimed = "all_claimed"
)

// GraphPath is a completed path from the seed to a leaf.
type GraphPath struct {
	Steps             []GraphStep `json:"steps"`
	MaxTransferEnergy float64     `json:"max_transfer_energy"`
	MinTransferEnergy float64     `json:"min_transfer_energy"`
	// EndReason says why the path stopped growing (EndMaxDepth, ...).
	EndReason string `json:"end_reason,omitempty"`
}

type pathJSON struct {
	NodeIDs []string `json:"node_ids"`
	pathAlias
}

type pathAlias GraphPath

// MarshalJSON writes the path with its ordered node ids first.
func (p GraphPath) MarshalJSON() ([]byte, error) {
	steps := p.Steps
	if steps == nil {
		steps = []GraphStep{}
	}
	a := pathAlias(p)
	a.Steps = steps
	return json.Marshal(pathJSON{NodeIDs: p.NodeIDs(), pathAlias: a})
}

// UnmarshalJSON reads what MarshalJSON writes; node_ids is derived and ignored.
func (p *GraphPath) UnmarshalJSON(b []byte) error {
	var a pathAlias
	if err := json.Unmarshal(b, &a); err != nil {
		return err
	}
	*p = GraphPath(a)
	return nil
}

// Len is the path's length in hops.
func (p GraphPath) Len() int { return len(p.Steps) }

// NodeIDs lists the path's node ids in order: the seed, then each step's target.
func (p GraphPath) NodeIDs() []string {
	if len(p.Steps) == 0 {
		return []string{}
	}
	ids := make([]string, 0, len(p.Steps)+1)
	ids = append(ids, p.Steps[0].FromNode.ID)
	for _, s := range p.Steps {
		ids = append(ids, s.ToNode.ID)
	}
	return ids
}

// Extend returns a new path with step appended; p is not modified.
func (p GraphPath) Extend(step GraphStep) GraphPath {
	steps := make([]GraphStep, len(p.Steps), len(p.Steps)+1)
	copy(steps, p.Steps)
	steps = append(steps, step)
	out := GraphPath{Steps: steps, MaxTransferEnergy: step.TransferEnergy, MinTransferEnergy: step.TransferEnergy}
	if len(p.Steps) > 0 {
		out.MaxTransferEnergy = max(p.MaxTransferEnergy, step.TransferEnergy)
		out.MinTransferEnergy = min(p.MinTransferEnergy, step.TransferEnergy)
	}
	return out
}

// FrontierNode is an element of the BFS frontier: a node reached with
// Activation (the transfer energy it received, or the seed score) along Path.
type FrontierNode struct {
	NodeID     string    `json:"node_id"`
	Activation float64   `json:"activation"`
	Path       GraphPath `json:"path"`
	// Node is the frontier node itself (the seed, or the last step's target).
	Node GraphNode `json:"node"`
}

// FrontierInput is what a connector needs of a frontier node.
type FrontierInput struct {
	NodeID     string  `json:"node_id"`
	Activation float64 `json:"activation"`
}

// ExpandRequest is one batched expansion: one level of one seed.
type ExpandRequest struct {
	Frontier []FrontierInput
	// Visited holds every node id that may not be reached again.
	Visited map[string]struct{}
	// QueryTags must already be normalised (NormalizeTags).
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

// Why a seed's exploration ended.
const (
	TerminatedSeedNotFound      = "seed_not_found"
	TerminatedFrontierExhausted = "frontier_exhausted"
	TerminatedMaxDepth          = "max_depth"
	TerminatedCancelled         = "cancelled"
	TerminatedError             = "error"
)

// RetrievalResult is the outcome of one seed's exploration.
type RetrievalResult struct {
	Seed             SeedInput   `json:"seed"`
	SeedNode         *GraphNode  `json:"seed_node"`
	TerminatedReason string      `json:"terminated_reason"`
	MaxDepthReached  int         `json:"max_depth_reached"`
	Paths            []GraphPath `json:"paths"`
	// Error is the message of the error that ended the exploration, when
	// TerminatedReason is TerminatedError.
	Error string `json:"error,omitempty"`
}

// EdgeKey is a storage-independent key of an edge: its properties in key
// order, each as `"key":value` with the value in JSON (so a list reads the
// same whether a connector holds it as []any or []string, and 1 and 1.0
// alike). A value JSON cannot hold (NaN, infinities) is written with %v
// rather than spoiling the key. Connectors order parallel edges that tie on
// parent, transfer energy and neighbour by it, so every engine records the
// same edge for a kept hop whatever order its storage returns them in.
func EdgeKey(e GraphEdge) string {
	keys := make([]string, 0, len(e.Properties))
	for k := range e.Properties {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(k))
		b.WriteByte(':')
		if j, err := json.Marshal(e.Properties[k]); err == nil {
			b.Write(j)
		} else {
			fmt.Fprintf(&b, "%v", e.Properties[k])
		}
	}
	return b.String()
}

// SortTiedEdges orders, stably, each run of consecutive candidates that
// tie on parent, transfer energy and neighbour (parallel edges) by EdgeKey.
// Connectors call it on their sorted output so that every engine lists
// tied edges alike, whatever order its storage returned them in.
func SortTiedEdges(cands []ExpansionCandidate) {
	type keyed struct {
		key string
		c   ExpansionCandidate
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
