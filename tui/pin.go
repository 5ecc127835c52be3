package tui

import (
	"errors"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/tui/common"
	"github.com/memoria-graph/memoria/tui/components/tree"
)

// baseline is what the current run is compared with: the pinned run, else
// the previous complete one (nil before the second run).
func (m *Model) baseline() *tree.Baseline {
	if m.runs.pinned != nil {
		return m.runs.pinned
	}
	return m.runs.prev
}

// togglePin pins the current run as the baseline of the runs that follow,
// or, when one is pinned, unpins it (runs compare with the previous run
// again).
func (m *Model) togglePin() tea.Cmd {
	if m.runs.pinned != nil {
		m.runs.pinned = nil
		if m.actRun().trees != nil {
			m.actRun().trees.SetBase(m.baseline())
			m.afterTreeChange(false)
		}
		return common.Notify("unpinned: each run is compared with the previous one")
	}
	b := tree.NewBaseline(m.actRun().trees, "pinned")
	if b == nil {
		return common.NotifyErr(errors.New("nothing to pin: wait until every seed's run has finished"))
	}
	m.runs.pinned = b
	m.actRun().trees.SetBase(b)
	m.afterTreeChange(false)
	return common.Notify(fmt.Sprintf("pinned run %d: later runs are compared with it (%s unpins)", m.actRun().id, m.KM.Pin.Help().Key))
}
