package seeds

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/tui/common"
)

// FilterDebounce is how long the filter must rest before the server is
// searched: a word typed quickly costs one ListNodes (on Neo4j a scan of
// every node), not one per keystroke. It is the default of
// Picker.debounce.
const FilterDebounce = 150 * time.Millisecond

// NodesLoadedMsg is a page of Catalog.ListNodes for filter at offset, for
// the node stream numbered seq.
type NodesLoadedMsg struct {
	Seq    int
	Filter string
	Offset int
	Nodes  []graph.NodeSummary
	More   bool
	Err    error
}

// FilterTickMsg ends the debounce of filter edit number id.
type FilterTickMsg struct{ ID int }

// TickFunc starts a timer: tea.Tick, or a fake clock in tests.
type TickFunc func(time.Duration, func(time.Time) tea.Msg) tea.Cmd

// listNodesCmd fetches one page inside a command.
func listNodesCmd(ctx context.Context, cat graph.Catalog, seq int, filter string, offset int) tea.Cmd {
	return common.SafeCmd(func() tea.Msg {
		nodes, more, err := cat.ListNodes(ctx, filter, offset, NodePageSize)
		return NodesLoadedMsg{Seq: seq, Filter: filter, Offset: offset, Nodes: nodes, More: more, Err: err}
	})
}

// nodeStream is the nodes loaded so far for one filter, contiguous from 0.
// Its pages are fetched under ctx, cancelled when the stream is replaced;
// seq tells its pages from those of the streams before it (0: not started).
// err is the failure of the last page asked for (the first page or a
// later one): the next fetch (scrolling to the end, or Reload) retries it.
type nodeStream struct {
	filter  string
	nodes   []graph.NodeSummary
	more    bool
	loading bool
	err     error
	seq     int
	ctx     context.Context
	cancel  context.CancelFunc
}

// stop cancels the stream's requests in flight.
func (s *nodeStream) stop() {
	if s.cancel != nil {
		s.cancel()
	}
}

// startStream replaces *s with a new stream for filter, cancelling the old
// one's requests, and fetches its first page.
func (p *Picker) startStream(s *nodeStream, filter string) tea.Cmd {
	s.stop()
	p.seq++
	ctx, cancel := context.WithCancel(p.Ctx)
	*s = nodeStream{filter: filter, seq: p.seq, ctx: ctx, cancel: cancel}
	return p.fetch(s)
}

// fetch asks for the page of s after the nodes it has.
func (p *Picker) fetch(s *nodeStream) tea.Cmd {
	s.loading, s.err = true, nil
	return listNodesCmd(s.ctx, p.cat, s.seq, s.filter, len(s.nodes))
}

func (p *Picker) loaded(msg NodesLoadedMsg) tea.Cmd {
	var s *nodeStream
	switch msg.Seq {
	case p.all.seq:
		s = &p.all
	case p.match.seq:
		s = &p.match
	default:
		return nil // a page of a replaced (cancelled) stream
	}
	if msg.Offset != len(s.nodes) {
		return nil // a duplicate
	}
	s.loading = false
	if msg.Err != nil {
		s.err = msg.Err
		what := "listing nodes"
		if msg.Filter != "" {
			what = fmt.Sprintf("searching nodes for %q", msg.Filter)
		}
		return common.NotifyErr(fmt.Errorf("%s: %w (%s or scrolling down retries)", what, msg.Err, p.KM.Reload.Help().Key))
	}
	s.nodes = append(s.nodes, msg.Nodes...)
	s.more = msg.More
	for _, n := range msg.Nodes {
		p.known[n.ID] = n
	}
	p.refilter()
	return p.maybeLoad()
}

// refilter recomputes the visible rows. Without a filter they are the
// nodes loaded so far, by id. With one they are the catalog's matches in
// its order (ranked: graph.MatchFields) as soon as its first page is in;
// until then (while the debounce runs and the search is on its way) the
// loaded nodes the filter matches, ranked the same way on what a summary
// holds (rankLoaded), so typing shows matches at once.
func (p *Picker) refilter() {
	q := graph.NormalizeFilter(p.filter.Value())
	switch {
	case q == "":
		p.visible = p.all.nodes
	case len(p.match.nodes) > 0 || (p.match.seq != 0 && !p.match.loading):
		p.visible = p.match.nodes
	default:
		p.visible = rankLoaded(q, p.all.nodes)
	}
	p.cursor = max(0, min(p.cursor, len(p.visible)-1))
	p.clampOffset()
}

// rankLoaded returns the nodes of ns that q (graph.NormalizeFilter'ed)
// matches, ranked as graph.CompareMatches orders them, on the fields a
// summary carries: the id, the text and the short string properties (a
// summary has no lists, so a match by a synonym waits for the catalog).
func rankLoaded(q string, ns []graph.NodeSummary) []graph.NodeSummary {
	type hit struct {
		n graph.NodeSummary
		m graph.Match
	}
	var hits []hit
	for _, n := range ns {
		fields := []string{strings.ToLower(n.ID), strings.ToLower(n.Text)}
		for k, v := range n.Props {
			if k != "text" {
				fields = append(fields, strings.ToLower(v))
			}
		}
		if m := graph.MatchFields(q, fields); m.Rank != graph.RankNone {
			hits = append(hits, hit{n, m})
		}
	}
	slices.SortFunc(hits, func(a, b hit) int { return graph.CompareMatches(a.m, a.n.ID, b.m, b.n.ID) })
	out := make([]graph.NodeSummary, len(hits))
	for i, h := range hits {
		out[i] = h.n
	}
	return out
}

// shown is the stream the list shows: the server matches of the filter
// when there is one, else the unfiltered list.
func (p *Picker) shown() *nodeStream {
	if strings.TrimSpace(p.filter.Value()) != "" {
		return &p.match
	}
	return &p.all
}

// maybeLoad asks for the next page when the cursor nears the end of what is
// loaded, and asks again for a page that failed (even the first).
func (p *Picker) maybeLoad() tea.Cmd {
	s := p.shown()
	if s.seq == 0 || !(s.more || s.err != nil) || s.loading || p.cursor < len(p.visible)-loadAheadRows-p.listHeight() {
		return nil
	}
	return p.fetch(s)
}

// reload fetches the shown list again from its first page (Reload): the
// unfiltered list, and the filter's matches when a filter is set (at once,
// without waiting for the debounce).
func (p *Picker) reload() tea.Cmd {
	p.cursor, p.offset = 0, 0
	cmds := []tea.Cmd{p.startStream(&p.all, "")}
	if q := strings.TrimSpace(p.filter.Value()); q != "" {
		cmds = append(cmds, p.startStream(&p.match, q))
	}
	p.refilter()
	return tea.Batch(cmds...)
}

// filterChanged filters the loaded nodes at once (refilter) and, once the
// filter has rested for p.debounce, asks the catalog for its ranked
// matches (on Neo4j a search on the server, paged).
// The previous search is cancelled now, not when the new one starts.
//
// Only a change of the trimmed filter text starts a search: the match
// stream of the same text is kept whatever its state (debounce running,
// first page on its way, loaded even with no match, or failed: scrolling
// down or Reload retries that), so moving the text cursor or typing a
// trailing space costs no ListNodes.
func (p *Picker) filterChanged() tea.Cmd {
	q := strings.TrimSpace(p.filter.Value())
	if q == p.match.filter {
		p.refilter()
		return nil
	}
	p.cursor, p.offset = 0, 0
	p.match.stop()
	p.match = nodeStream{filter: q}
	p.edits++
	p.refilter()
	if q == "" {
		return p.maybeLoad()
	}
	p.match.loading = true // "loading…" while the debounce runs
	id := p.edits
	return p.tick(p.debounce, func(time.Time) tea.Msg { return FilterTickMsg{ID: id} })
}

// filterTick starts the server search when the tick is the last edit's.
func (p *Picker) filterTick(msg FilterTickMsg) tea.Cmd {
	if msg.ID != p.edits || p.match.filter == "" || p.match.seq != 0 {
		return nil // superseded by a later edit, or started by Reload
	}
	return p.startStream(&p.match, p.match.filter)
}
