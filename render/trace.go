package render

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/memoria-graph/memoria/retriever/activation"
)

// TraceLevel is one level of `explore --trace` (docs/EXPORTS.md, "Traces"):
// every candidate of the level with its fate, the near misses as
// below_threshold, and what each frontier node's other neighbours were.
type TraceLevel struct {
	Depth      int                         `json:"depth"`
	Candidates []TraceCandidate            `json:"candidates"`
	Parents    map[string]activation.Tally `json:"parents,omitempty"`
}

// TraceCandidate is one candidate or near miss of a traced level.
type TraceCandidate struct {
	ParentID       string  `json:"parent_id"`
	NeighborID     string  `json:"neighbor_id"`
	TransferEnergy float64 `json:"transfer_energy"`
	Weight         float64 `json:"weight"`
	TagSim         float64 `json:"tag_sim"`
	Degree         int64   `json:"degree"`
	Fate           string  `json:"fate"`
	ClaimedBy      string  `json:"claimed_by,omitempty"`
}

// FateBelowThreshold is the fate of a near miss in a trace.
const FateBelowThreshold = "below_threshold"

// Trace turns a seed's level events into its trace: each level's outcomes
// in claim order, then its near misses.
func Trace(levels []activation.LevelEvent) []TraceLevel {
	out := make([]TraceLevel, 0, len(levels))
	for _, l := range levels {
		tl := TraceLevel{Depth: l.Depth, Candidates: []TraceCandidate{}, Parents: l.Tallies}
		add := func(c activation.Candidate, fate, by string) {
			tl.Candidates = append(tl.Candidates, TraceCandidate{ParentID: c.ParentID, NeighborID: c.NeighborNode.ID,
				TransferEnergy: c.TransferEnergy, Weight: activation.EffectiveWeight(c.Edge), TagSim: c.TagSim, Degree: c.Degree, Fate: fate, ClaimedBy: by})
		}
		for _, o := range l.Outcomes {
			add(o.Candidate, string(o.Fate), o.ClaimedBy)
		}
		for _, c := range l.NearMisses {
			add(c, FateBelowThreshold, "")
		}
		out = append(out, tl)
	}
	return out
}

// TracedJSON is res as `explore --format json` writes it, with its trace
// added as a last member "levels" (the other members, and their order, are
// those of the plain output).
func TracedJSON(res activation.Result, levels []activation.LevelEvent) ([]byte, error) {
	b, err := marshalPlain(res)
	if err != nil {
		return nil, err
	}
	t, err := marshalPlain(Trace(levels))
	if err != nil {
		return nil, err
	}
	b = bytes.TrimRight(b, " \n")
	if len(b) == 0 || b[len(b)-1] != '}' {
		return nil, fmt.Errorf("a result does not encode as a JSON object")
	}
	return append(append(append(b[:len(b)-1], `,"levels":`...), t...), '}'), nil
}

// Untraced is res as an engine that does not trace reports it: what `explore
// --format json` prints without --trace, unchanged from before traces
// existed (path ends as activation.EndReason.Coarse, no near misses).
func Untraced(res activation.Result) activation.Result {
	paths := make([]activation.Path, len(res.Paths))
	for i, p := range res.Paths {
		p.EndReason, p.NearMiss = p.EndReason.Coarse(), nil
		paths[i] = p
	}
	if res.Paths != nil {
		res.Paths = paths
	}
	return res
}

// marshalPlain is json.Marshal without HTML escaping, as the CLI's encoder
// writes.
func marshalPlain(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
