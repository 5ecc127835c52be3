package activation

import (
	"encoding/json"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
)

// Step is one hop of a path: the edge from FromNode to ToNode and the
// numbers the retriever computed for it.
type Step struct {
	FromNode graph.Node `json:"from_node"`
	Edge     graph.Edge `json:"edge"`
	ToNode   graph.Node `json:"to_node"`
	// Weight is the weight the retriever used: the edge's, or its default
	// when the edge has none (docs/ALGORITHM.md, rule 1). It is written as
	// the flat `weight` key.
	Weight         float64 `json:"-"`
	Activation     float64 `json:"activation"`
	Degree         int64   `json:"degree"`
	TagSim         float64 `json:"tag_sim"`
	TransferEnergy float64 `json:"transfer_energy"`
}

// stepJSON is the wire form of a step: the struct's fields plus the ids and
// the weight used, so scripts need not dig into nested objects.
type stepJSON struct {
	From   string  `json:"from"`
	To     string  `json:"to"`
	Weight float64 `json:"weight"`
	stepAlias
}

type stepAlias Step

// MarshalJSON writes the step with flat `from`, `to` and `weight` keys first.
func (s Step) MarshalJSON() ([]byte, error) {
	return json.Marshal(stepJSON{From: s.FromNode.ID, To: s.ToNode.ID, Weight: s.Weight, stepAlias: stepAlias(s)})
}

// UnmarshalJSON reads what MarshalJSON writes; `from` and `to` are derived
// from the nodes and ignored.
func (s *Step) UnmarshalJSON(b []byte) error {
	var a stepJSON
	if err := json.Unmarshal(b, &a); err != nil {
		return err
	}
	*s = Step(a.stepAlias)
	s.Weight = a.Weight
	return nil
}

// EndReason says why a path stopped growing.
type EndReason string

const (
	// EndMaxDepth: the path reached MAX_DEPTH hops.
	EndMaxDepth EndReason = "max_depth"
	// EndNoCandidates: the last node had no unvisited neighbour whose
	// transfer energy exceeded MIN_ACTIVATION.
	EndNoCandidates EndReason = "no_candidates"
	// EndAllClaimed: the last node had candidates, but every one was claimed
	// by another parent at the same level.
	EndAllClaimed EndReason = "all_claimed"

	// The exact forms of EndNoCandidates, given when the engine reports
	// what lay below the threshold (docs/ALGORITHM.md rule 6):
	//
	// EndBelowThreshold: unvisited neighbours there were, all at or below
	// MIN_ACTIVATION; Path.NearMiss is the best of them.
	EndBelowThreshold EndReason = "below_threshold"
	// EndAllVisited: every RELATES neighbour with an id was already
	// visited (a path's last node always has its parent among them, so a
	// path never ends for want of neighbours).
	EndAllVisited EndReason = "all_visited"
)

// Coarse is the reason as the JSON output has always given it: the exact
// forms of EndNoCandidates are reported as EndNoCandidates.
func (r EndReason) Coarse() EndReason {
	switch r {
	case EndBelowThreshold, EndAllVisited:
		return EndNoCandidates
	}
	return r
}

// Path is a completed path from the seed to a leaf.
type Path struct {
	Steps             []Step  `json:"steps"`
	MaxTransferEnergy float64 `json:"max_transfer_energy"`
	MinTransferEnergy float64 `json:"min_transfer_energy"`
	// EndReason says why the path stopped growing.
	EndReason EndReason `json:"end_reason,omitempty"`
	// NearMiss is, when EndReason is EndBelowThreshold, the best hop from
	// the path's last node that stayed at or below MIN_ACTIVATION.
	NearMiss *Step `json:"near_miss,omitempty"`
}

type pathJSON struct {
	NodeIDs []string `json:"node_ids"`
	pathAlias
}

type pathAlias Path

// MarshalJSON writes the path with its ordered node ids first.
func (p Path) MarshalJSON() ([]byte, error) {
	steps := p.Steps
	if steps == nil {
		steps = []Step{}
	}
	a := pathAlias(p)
	a.Steps = steps
	return json.Marshal(pathJSON{NodeIDs: p.NodeIDs(), pathAlias: a})
}

// UnmarshalJSON reads what MarshalJSON writes; node_ids is derived and ignored.
func (p *Path) UnmarshalJSON(b []byte) error {
	var a pathAlias
	if err := json.Unmarshal(b, &a); err != nil {
		return err
	}
	*p = Path(a)
	return nil
}

// Len is the path's length in hops.
func (p Path) Len() int { return len(p.Steps) }

// NodeIDs lists the path's node ids in order: the seed, then each step's target.
func (p Path) NodeIDs() []string {
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
func (p Path) Extend(step Step) Path {
	steps := make([]Step, len(p.Steps), len(p.Steps)+1)
	copy(steps, p.Steps)
	steps = append(steps, step)
	out := Path{Steps: steps, MaxTransferEnergy: step.TransferEnergy, MinTransferEnergy: step.TransferEnergy}
	if len(p.Steps) > 0 {
		out.MaxTransferEnergy = max(p.MaxTransferEnergy, step.TransferEnergy)
		out.MinTransferEnergy = min(p.MinTransferEnergy, step.TransferEnergy)
	}
	return out
}

// Termination says why a seed's exploration ended (docs/ALGORITHM.md, rule 6).
type Termination string

const (
	TerminatedSeedNotFound      Termination = "seed_not_found"
	TerminatedFrontierExhausted Termination = "frontier_exhausted"
	TerminatedMaxDepth          Termination = "max_depth"
	TerminatedCancelled         Termination = "cancelled"
	TerminatedError             Termination = "error"
)

// Result is the outcome of one seed's exploration.
type Result struct {
	Seed             retriever.Seed `json:"seed"`
	SeedNode         *graph.Node    `json:"seed_node"`
	TerminatedReason Termination    `json:"terminated_reason"`
	MaxDepthReached  int            `json:"max_depth_reached"`
	Paths            []Path         `json:"paths"`
	// Error is the message of the error that ended the exploration, when
	// TerminatedReason is TerminatedError.
	Error string `json:"error,omitempty"`
}
