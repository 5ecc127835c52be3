package tui

import (
	"context"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/sahilm/fuzzy"
)

// nodesLoadedMsg is a page of Catalog.ListNodes for filter at offset.
type nodesLoadedMsg struct {
	filter string
	offset int
	nodes  []retriever.NodeSummary
	more   bool
	err    error
}

// listNodesCmd fetches one page inside a command.
func listNodesCmd(ctx context.Context, cat retriever.Catalog, filter string, offset int) tea.Cmd {
	return safeCmd(func() tea.Msg {
		nodes, more, err := cat.ListNodes(ctx, filter, offset, nodePageSize)
		return nodesLoadedMsg{filter: filter, offset: offset, nodes: nodes, more: more, err: err}
	})
}

// nodeStream is the nodes loaded so far for one filter, contiguous from 0.
type nodeStream struct {
	filter  string
	nodes   []retriever.NodeSummary
	more    bool
	loading bool
}

func (p *seedPicker) loaded(msg nodesLoadedMsg) tea.Cmd {
	s := &p.all
	if msg.filter != "" {
		s = &p.match
	}
	if msg.filter != s.filter || msg.offset != len(s.nodes) {
		return nil // a page for an older filter, or a duplicate
	}
	s.loading = false
	if msg.err != nil {
		return notifyErr(fmt.Errorf("listing nodes: %w", msg.err))
	}
	s.nodes = append(s.nodes, msg.nodes...)
	s.more = msg.more
	for _, n := range msg.nodes {
		p.known[n.ID] = n
	}
	p.refilter()
	return p.maybeLoad()
}

// refilter recomputes the visible rows from the loaded nodes.
func (p *seedPicker) refilter() {
	q := strings.TrimSpace(p.filter.Value())
	if q == "" {
		p.visible = p.all.nodes
	} else {
		pool := make([]retriever.NodeSummary, 0, len(p.all.nodes)+len(p.match.nodes))
		seen := map[string]bool{}
		for _, s := range [][]retriever.NodeSummary{p.match.nodes, p.all.nodes} {
			for _, n := range s {
				if !seen[n.ID] {
					seen[n.ID] = true
					pool = append(pool, n)
				}
			}
		}
		matches := fuzzy.FindFrom(q, summarySource(pool))
		p.visible = make([]retriever.NodeSummary, len(matches))
		for i, m := range matches {
			p.visible[i] = pool[m.Index]
		}
	}
	p.cursor = max(0, min(p.cursor, len(p.visible)-1))
	p.clampOffset()
}

type summarySource []retriever.NodeSummary

func (s summarySource) String(i int) string {
	return s[i].ID + " " + strings.Join(s[i].Labels, " ") + " " + s[i].Text
}

func (s summarySource) Len() int { return len(s) }

// maybeLoad asks for the next page when the cursor nears the end of what is
// loaded.
func (p *seedPicker) maybeLoad() tea.Cmd {
	s := &p.all
	if q := strings.TrimSpace(p.filter.Value()); q != "" {
		s = &p.match
	}
	if !s.more || s.loading || p.cursor < len(p.visible)-loadAheadRows-p.listHeight() {
		return nil
	}
	s.loading = true
	return listNodesCmd(p.ctx, p.cat, s.filter, len(s.nodes))
}

// filterChanged starts a server-side search for the new filter (substring,
// paged) while the loaded nodes are fuzzy-filtered at once.
func (p *seedPicker) filterChanged() tea.Cmd {
	q := strings.TrimSpace(p.filter.Value())
	p.cursor, p.offset = 0, 0
	if q == p.match.filter && (q == "" || p.match.nodes != nil || p.match.loading) {
		p.refilter()
		return nil
	}
	p.match = nodeStream{filter: q}
	p.refilter()
	if q == "" {
		return p.maybeLoad()
	}
	p.match.loading = true
	return listNodesCmd(p.ctx, p.cat, q, 0)
}
