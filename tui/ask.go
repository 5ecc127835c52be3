package tui

import (
	"context"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/tui/common"
	"github.com/memoria-graph/memoria/tui/overlays/query"
)

// The query line (docs/EXPLORER.md, "Asking a question"): a opens it over
// the panes (tui/overlays/query), the question's candidates fill in as it
// is typed, and enter hands back the seeds and tags it took (AppliedMsg),
// which replace the seeds and join the tags here, and the shown retriever
// runs again.

// queryConfig is what the query line gathers on: the source when it can
// be read node by node (the embedded engine), the fields and settings of
// opts (completed).
func queryConfig(ctx context.Context, opts Options) query.Config {
	scan, _ := opts.Source.(graph.NodeScanner)
	return query.Config{Ctx: ctx, Scan: scan, Fields: opts.GatherFields, Options: opts.Gather}
}

// noGather refuses a (Ask) on a source the gather stage cannot read.
func noGather(m *Model, b key.Binding) string {
	return m.ov.query.Unavailable(b)
}

// openQuery opens the query line, with the graph's tags for the tags the
// question names.
func (m *Model) openQuery() tea.Cmd {
	m.push(m.ov.query)
	return m.ov.query.Open(m.tags.Known())
}

// applyQuery makes the question's seeds the seeds and adds the tags it
// took; the retriever shown runs again when they changed.
func (m *Model) applyQuery(msg query.AppliedMsg) tea.Cmd {
	if err := m.seeds.Replace(msg.Seeds); err != nil {
		return common.NotifyErr(err)
	}
	m.ov.why.SetGathered(msg.Gathered) // w says first whether its node was gathered
	added := m.tags.Choose(msg.Tags)
	m.resize(m.W, m.H) // the chips may need more lines
	ids := make([]string, len(msg.Seeds))
	for i, s := range msg.Seeds {
		ids[i] = textsafe.Escape(s.NodeID) + " R=" + render.Num(s.Score)
	}
	text := fmt.Sprintf("seeds from the question: %s", strings.Join(ids, ", "))
	if len(added) > 0 {
		esc := make([]string, len(added))
		for i, t := range added {
			esc[i] = textsafe.Escape(t)
		}
		text += "; tags added: " + strings.Join(esc, ", ")
	}
	return m.restartIfInputsChanged(common.Notify(text))
}
