package tui

import (
	"context"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/tui/common"
	"github.com/memoria-graph/memoria/tui/components/status"
)

// Graph metrics in the explorer (docs/EXPLORER.md, "Graph metrics"): the
// source's graph.Metrics are computed once, in a command started when the
// explorer opens (statsCmd, under an id and a cancellable context); the
// explorer works meanwhile. Once they arrive every pane marks the hubs
// (graph.Metrics.IsHub: degree ≥ p99, p99 above the median) with the
// Styles' HubMark, and the detail pane gives the selected node's degree and
// percentile rank, looked up in a command of its own the first time the
// node is shown (degreeCmd; kept for the explorer's life). M opens an
// overlay with the metrics (statsView).

// graphStats is the metrics and the degrees looked up, shared by the panes
// (one pointer, like naming). Only the root's Update changes it.
type graphStats struct {
	id     int // the load's id: a message of another is dropped
	cancel context.CancelFunc
	state  common.StatsState
	m      graph.Metrics
	err    string
	// degree holds the degrees known (the hubs', then every node looked
	// up); asked the ids looked up or being looked up; failed those whose
	// lookup failed (never asked again).
	degree map[string]int64
	asked  map[string]bool
	failed map[string]string
}

func newGraphStats() *graphStats {
	return &graphStats{degree: map[string]int64{}, asked: map[string]bool{}, failed: map[string]string{}}
}

// statsMsg carries the metrics of load id.
type statsMsg struct {
	id  int
	m   graph.Metrics
	err error
}

// degreesMsg carries the degrees of ids (absent: no such node).
type degreesMsg struct {
	ids     []string
	degrees map[string]int64
	err     error
}

// statsCmd computes the metrics inside the command.
func statsCmd(ctx context.Context, id int, mr graph.MetricsReader) tea.Cmd {
	return common.SafeCmd(func() tea.Msg {
		m, err := mr.Metrics(ctx, graph.MetricsOptions{})
		return statsMsg{id: id, m: m, err: err}
	})
}

// degreeCmd looks the degrees of ids up inside the command.
func degreeCmd(ctx context.Context, mr graph.MetricsReader, ids []string) tea.Cmd {
	return common.SafeCmd(func() tea.Msg {
		d, err := mr.Degrees(ctx, ids)
		return degreesMsg{ids: ids, degrees: d, err: err}
	})
}

// start begins the load (or notes that src computes no metrics).
func (g *graphStats) start(ctx context.Context, src graph.Source) tea.Cmd {
	mr, ok := src.(graph.MetricsReader)
	if !ok {
		g.state = common.StatsUnsupported
		return nil
	}
	g.stop()
	g.id++
	g.state = common.StatsLoading
	ctx, g.cancel = context.WithCancel(ctx)
	return statsCmd(ctx, g.id, mr)
}

// stop cancels a load in flight.
func (g *graphStats) stop() {
	if g.cancel != nil {
		g.cancel()
		g.cancel = nil
	}
}

// apply takes a load's answer; false when it is stale.
func (g *graphStats) apply(msg statsMsg) bool {
	if msg.id != g.id || g.state != common.StatsLoading {
		return false
	}
	g.stop()
	if msg.err != nil {
		g.state, g.err = common.StatsFailed, msg.err.Error()
		return true
	}
	g.state, g.m = common.StatsReady, msg.m
	for _, h := range msg.m.Hubs {
		g.degree[h.ID] = h.Degree
	}
	return true
}

// applyDegrees takes a lookup's answer; true when it found a hub the
// metrics did not list (their list is capped), whose mark is then due.
func (g *graphStats) applyDegrees(msg degreesMsg) (newHub bool) {
	for _, id := range msg.ids {
		if msg.err != nil {
			g.failed[id] = msg.err.Error()
			continue
		}
		if d, ok := msg.degrees[id]; ok {
			_, had := g.degree[id]
			g.degree[id] = d
			newHub = newHub || (!had && g.state == common.StatsReady && g.m.IsHub(d))
		} else {
			g.failed[id] = "no such node"
		}
	}
	return newHub
}

// IsHub reports whether the node id is a hub: a node the metrics list as
// one, or whose looked-up degree is a hub's (the list is capped).
func (g *graphStats) IsHub(id string) bool {
	if g == nil || g.state != common.StatsReady {
		return false
	}
	d, ok := g.degree[id]
	return ok && g.m.IsHub(d)
}

// need says which id to look up for the detail pane: "" when none.
func (g *graphStats) need(id string) string {
	if g == nil || g.state != common.StatsReady || id == "" || g.asked[id] {
		return ""
	}
	if _, ok := g.degree[id]; ok {
		return ""
	}
	return id
}

// Metrics is where the metrics are, the metrics once ready and the
// failure's text.
func (g *graphStats) Metrics() (common.StatsState, graph.Metrics, string) { return g.state, g.m, g.err }

// DetailLine is the detail pane's line for node id: "degree 12, p99.2",
// with the hub mark for a hub; "" before the metrics (or without them).
func (g *graphStats) DetailLine(st *Styles, id string) string {
	if g == nil || g.state != common.StatsReady {
		return ""
	}
	if e, ok := g.failed[id]; ok {
		return st.Dim.Render("degree unknown: " + textsafe.Escape(status.OneLine(e)))
	}
	d, ok := g.degree[id]
	if !ok {
		return st.Dim.Render("degree …")
	}
	line := st.Metric.Render(fmt.Sprintf("degree %d, p%s", d, trimTenths(g.m.PercentileRank(d))))
	if g.m.IsHub(d) {
		line += " " + st.Hub.Render(st.HubMark)
	}
	return line
}

// trimTenths writes a percentile rank with its tenth, without a zero one:
// 99.2, 75, 100.
func trimTenths(p float64) string {
	return strings.TrimSuffix(fmt.Sprintf("%.1f", p), ".0")
}

// wantDegree starts the lookup of the detail pane's node, if it needs one.
func (m *Model) wantDegree() tea.Cmd {
	id := m.detail.SubjectID()
	if m.graphStats().need(id) == "" {
		return nil
	}
	mr, ok := m.Source.(graph.MetricsReader)
	if !ok {
		return nil
	}
	m.graphStats().asked[id] = true
	return degreeCmd(m.Ctx, mr, []string{id})
}

// statsArrived redraws what shows hubs and degrees after the metrics (or a
// degree) arrived.
func (m *Model) statsArrived() {
	m.tree.Rebuild()
	m.detail.Redraw()
	m.ov.statsView.Refresh()
}

// openStats puts the metrics on top, scrolled to their start.
func (m *Model) openStats() tea.Cmd {
	m.push(m.ov.statsView)
	m.ov.statsView.Open()
	return nil
}
