package naive

import (
	"fmt"
	"slices"
	"strings"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// FromAPOC converts an APOC graph.
func FromAPOC(g *apoc.Graph) *Graph {
	ng := &Graph{}
	index := map[string]int{}
	for i, n := range g.Nodes {
		id, ok := n.Properties["id"].(string)
		ng.Nodes = append(ng.Nodes, Node{ID: id, HasID: ok, Labels: n.Labels, Props: n.Properties})
		index[n.InternalID] = i
	}
	for _, r := range g.Rels {
		e := Edge{From: index[r.Start], To: index[r.End], ID: r.InternalID, Type: r.Type, Props: r.Properties}
		if w, ok := apoc.Number(r.Properties["weight"]); ok {
			e.Weight = &w
		}
		if tags, ok := apoc.StringList(r.Properties["tags"]); ok {
			e.Tags = tags
		}
		ng.Edges = append(ng.Edges, e)
	}
	return ng
}

// Diff compares a real exploration (its result and level events) with the
// naive one and describes the first difference, or returns "". Paths are
// compared as sets of node-id sequences with every hop's energy bit for
// bit; level outcomes in order.
func Diff(got activation.Result, levels []activation.LevelEvent, want Result) string {
	if got.TerminatedReason != want.Terminated {
		return fmt.Sprintf("terminated %s, naive %s", got.TerminatedReason, want.Terminated)
	}
	var pg, pw []string
	for _, p := range got.Paths {
		var e []string
		for _, s := range p.Steps {
			e = append(e, fmt.Sprint(s.TransferEnergy))
		}
		pg = append(pg, strings.Join(p.NodeIDs(), ">")+" "+strings.Join(e, ","))
	}
	for _, p := range want.Paths {
		var e []string
		for _, x := range p.Energies {
			e = append(e, fmt.Sprint(x))
		}
		pw = append(pw, strings.Join(p.IDs, ">")+" "+strings.Join(e, ","))
	}
	slices.Sort(pg)
	slices.Sort(pw)
	if !slices.Equal(pg, pw) {
		return fmt.Sprintf("paths\n%v\nnaive\n%v", pg, pw)
	}
	if len(levels) != len(want.Levels) {
		return fmt.Sprintf("%d levels, naive %d", len(levels), len(want.Levels))
	}
	for i := range levels {
		if len(levels[i].Outcomes) != len(want.Levels[i]) {
			return fmt.Sprintf("level %d: %d candidates, naive %d", i+1, len(levels[i].Outcomes), len(want.Levels[i]))
		}
		for j, o := range levels[i].Outcomes {
			c, nc := o.Candidate, want.Levels[i][j]
			if c.ParentID != nc.Parent || c.NeighborNode.ID != nc.Neighbor || c.TransferEnergy != nc.T || o.Fate != nc.Fate || o.ClaimedBy != nc.ClaimedBy {
				return fmt.Sprintf("level %d outcome %d: %s->%s %v %s %s, naive %s->%s %v %s %s", i+1, j,
					c.ParentID, c.NeighborNode.ID, c.TransferEnergy, o.Fate, o.ClaimedBy, nc.Parent, nc.Neighbor, nc.T, nc.Fate, nc.ClaimedBy)
			}
		}
	}
	return ""
}
