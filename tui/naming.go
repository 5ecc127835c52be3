package tui

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/tui/common"
)

// Naming nodes: the choice and its rules are common.Naming's
// (tui/common/naming.go); the root cycles it and redraws the panes.

// nameKeysMsg carries Catalog.NameKeys.
type nameKeysMsg struct {
	keys []string
	err  error
}

// nameKeysCmd asks the catalog which string properties the nodes have.
func nameKeysCmd(ctx context.Context, cat graph.Catalog) tea.Cmd {
	return common.SafeCmd(func() tea.Msg {
		keys, err := cat.NameKeys(ctx)
		return nameKeysMsg{keys: keys, err: err}
	})
}

// changeNaming cycles the choice and redraws every pane that names nodes.
func (m *Model) changeNaming() tea.Cmd {
	msg := m.Names.Next()
	m.tree.Rebuild()
	m.detail.Redraw()
	return common.Notify(msg)
}
