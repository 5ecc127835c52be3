package tui

import "github.com/memoria-graph/memoria/tui/common"

// Common is what every component shares (tui/common); naming is its naming
// of nodes, as this package has always named it.
type (
	Common = common.Common
	naming = common.Naming
)

// judgement is the marks' judgement the root made and keeps in Common
// (the panes read it as a common.Judgement).
func (m *Model) judgement() *judgement { return m.Judged.(*judgement) }

// graphStats is the graph's metrics the root loads and keeps in Common
// (the panes read them as a common.Stats).
func (m *Model) graphStats() *graphStats { return m.Stats.(*graphStats) }
