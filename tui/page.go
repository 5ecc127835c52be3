package tui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memoria-graph/memoria/render/subgraph"
	"github.com/memoria-graph/memoria/tui/common"
)

// exportPage writes the self-contained HTML page (render/subgraph) of what
// is on screen and names its path on the status line: the compare view's
// rankings (each retriever's hits in its colour), the shown ranking
// retriever's hits, or Activation Energy's paths. The page is built and
// written in a command, from copies taken here.
func (m *Model) exportPage() tea.Cmd {
	page, what, err := m.view.page()
	if err != nil {
		return common.NotifyErr(err)
	}
	dir, stamp := m.OutDir, m.Now().Format("20060102-150405")
	return common.SafeCmd(func() tea.Msg {
		g, err := page()
		if err != nil {
			return common.ErrMsg{Err: err}
		}
		data, err := subgraph.HTML(g)
		if err != nil {
			return common.ErrMsg{Err: err}
		}
		path, err := writeNew(dir, "memoria-page-"+stamp+".html", data)
		if err != nil {
			return common.ErrMsg{Err: fmt.Errorf("writing the page: %w", err)}
		}
		return common.StatusMsg{Text: fmt.Sprintf("wrote %s (%d bytes, %s; open it in a browser, it needs no network)", path, len(data), what)}
	})
}
