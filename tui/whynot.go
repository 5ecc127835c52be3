package tui

import (
	"errors"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/retriever/activation/why"
	"github.com/memoria-graph/memoria/tui/common"
)

// whyTarget is the node the question is about: on the results tree the
// selected row's node (for a losing candidate or a near miss, the
// neighbour it would have reached), on the node list the node under the
// cursor.
func (m *Model) whyTarget() (string, bool) {
	switch m.focus {
	case focusTree:
		if g, _, ok := m.tree.SelectedGhost(); ok {
			return g.Step.ToNode.ID, true // a node that left: why is it not here now?
		}
		if o, ok := m.tree.SelectedLoser(); ok {
			return o.Candidate.NeighborNode.ID, true
		}
		if n, _ := m.tree.SelectedNode(); n != nil {
			return n.Node.ID, true
		}
	case focusSeeds:
		if n, ok := m.seeds.Current(); ok {
			return n.ID, true
		}
	}
	return "", false
}

// askWhy asks about the selected node and opens the panel on top.
func (m *Model) askWhy() tea.Cmd {
	node, ok := m.whyTarget()
	if !ok {
		return common.NotifyErr(errors.New("nothing selected: pick a node in the results or the node list"))
	}
	seeds := m.seeds.Seeds()
	if len(seeds) == 0 {
		return common.NotifyErr(errors.New("why needs seeds: pick one in the node list first"))
	}
	cfg := why.Config{Backend: safeBackend{m.runs.backend}, Params: m.params.Config(), Options: m.runs.opts,
		Seeds: seeds, Tags: m.tags.Tags(), NodeID: node} // Seeds and Tags return copies
	cmd := m.ov.why.Ask(m.Ctx, cfg)
	m.push(m.ov.why)
	return cmd
}
