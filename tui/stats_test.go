package tui

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/expansion"
	"github.com/memoria-graph/memoria/tui/common"
)

// statsSource is a fakeSource that computes metrics (the embedded
// engine's) and counts its degree lookups.
type statsSource struct {
	*fakeSource
	lookups atomic.Int32
}

func (s *statsSource) graph() *inmem.Graph { return s.Source.(*inmem.Graph) }

func (s *statsSource) Metrics(ctx context.Context, opt graph.MetricsOptions) (graph.Metrics, error) {
	return s.graph().Metrics(ctx, opt)
}

func (s *statsSource) Degrees(ctx context.Context, ids []string) (map[string]int64, error) {
	s.lookups.Add(1)
	return s.graph().Degrees(ctx, ids)
}

// statsHarness opens src's graph, with metrics, on opts.
func statsHarness(t *testing.T, src *fakeSource, opts Options) (*harness, *statsSource) {
	ss := &statsSource{fakeSource: src}
	opts.Source, opts.Backend = ss, src
	return newHarness(t, src, opts), ss
}

// The demo graph's metrics (docs/CLI.md, "memoria stats"): degrees 1: 13
// nodes, 2: 21, 3: 15, 4: 7, 5: 1; p50 = 2, p99 = 5, so T3001 (degree 5)
// is the one hub. Percentile ranks (nodes of degree at most d, of 57, in
// tenths rounded down): degree 5 → 100, 4 → 56/57 = 98.2, 3 → 49/57 =
// 85.9, 2 → 34/57 = 59.6. N2006 has degree 4, T3000 degree 4 (T3001,
// T3002, T3003, T3004: docs/DEMO_GRAPH.md).

// TestHubMarkInTreeAndDetail: with seeds T3000 (campaign) and N2006, the
// tree marks T3001 "[hub]" (no colour in the harness) and no other node;
// the detail pane gives T3001 "degree 5, p100 [hub]" and N2006 "degree 4,
// p98.2", each node looked up once however often it is shown.
func TestHubMarkInTreeAndDetail(t *testing.T) {
	h, ss := statsHarness(t, loadDemo(t), Options{Seeds: []retriever.Seed{{NodeID: "T3000", Score: 0.9}, demoSeed}, Tags: []string{"campaign"}})
	h.waitFor("the run to finish", func() bool { return h.m.actRun().ch == nil && !h.m.running() })
	if h.m.graphStats().state != common.StatsReady {
		t.Fatalf("metrics state %d", h.m.graphStats().state)
	}
	tree := h.treeText()
	for _, line := range strings.Split(tree, "\n") {
		if strings.Contains(line, "[hub]") != strings.Contains(line, "T3001 ") {
			t.Errorf("hub mark on the wrong row: %q", line)
		}
	}
	if !strings.Contains(tree, "T3001 [hub] Event") && !strings.Contains(tree, "T3001 [hub] ") {
		t.Fatalf("T3001 not marked:\n%s", tree)
	}
	h.selectTreeNode("T3001")
	h.settle()
	if v := h.m.View(); !strings.Contains(v, "degree 5, p100 [hub]") {
		t.Errorf("detail of T3001 lacks its degree:\n%s", v)
	}
	h.selectTreeNode("N2006")
	h.settle()
	if v := h.m.View(); !strings.Contains(v, "degree 4, p98.2") || strings.Contains(v, "p98.2 [hub]") {
		t.Errorf("detail of N2006:\n%s", v)
	}
	// Moving the cursor showed each node on the way once; going back over
	// them looks nothing up again.
	before := ss.lookups.Load()
	h.selectTreeNode("T3001")
	h.selectTreeNode("N2006")
	h.settle()
	if n := ss.lookups.Load(); n != before || before == 0 {
		t.Errorf("%d degree lookups after going back, %d before", n, before)
	}
}

// TestHubMarkInRanking: the typed expansion from T3000 ranks T3001 (one
// hop) with the hub mark, and its detail gives the degree.
func TestHubMarkInRanking(t *testing.T) {
	h, _ := statsHarness(t, loadDemo(t), Options{Retriever: expansion.Name, Seeds: []retriever.Seed{{NodeID: "T3000", Score: 0.9}}})
	h.waitRanking()
	marked := 0
	for _, hit := range h.expSlot().ranking.Hits {
		row := h.m.ranked.RankRow(hit)
		if strings.Contains(row, "[hub]") {
			marked++
			if !strings.Contains(row, "T3001 [hub]") {
				t.Errorf("hub mark on %q", row)
			}
		}
	}
	if marked != 1 {
		t.Fatalf("%d rows marked, want 1 (T3001)", marked)
	}
	h.selectHit("T3001")
	h.settle()
	if v := h.m.View(); !strings.Contains(v, "T3001 [hub]") || !strings.Contains(v, "degree 5, p100 [hub]") {
		t.Errorf("screen:\n%s", v)
	}
}

// TestStatsOverlayAndLoading: before the metrics arrive the explorer
// marks nothing and M shows that they are being computed; a message of
// another load is dropped; once they arrive the overlay shows them (57
// nodes, the hub) and the tree marks the hub. ? opens the help over the
// overlay and esc closes it back to the metrics; M closes them.
func TestStatsOverlayAndLoading(t *testing.T) {
	src := loadDemo(t)
	h := newHarness(t, src, Options{Seeds: []retriever.Seed{{NodeID: "T3000", Score: 0.9}}, Tags: []string{"campaign"}})
	h.waitFor("the run to finish", func() bool { return h.m.actRun().ch == nil && !h.m.running() })
	if h.m.graphStats().state != common.StatsUnsupported {
		t.Fatalf("a source without metrics: state %d", h.m.graphStats().state)
	}
	ss := &statsSource{fakeSource: src}
	h.m.Source = ss
	cmd := h.m.graphStats().start(h.m.Ctx, ss)
	h.keys("M")
	if h.m.top() != overlay(h.m.ov.statsView) || !strings.Contains(h.m.View(), "computing the graph's metrics") {
		t.Fatalf("M while loading:\n%s", h.m.View())
	}
	if strings.Contains(h.treeText(), "[hub]") {
		t.Fatal("hub marked before the metrics arrived")
	}
	h.send(statsMsg{id: h.m.graphStats().id + 1, m: graph.Metrics{Nodes: 1}})
	if h.m.graphStats().state != common.StatsLoading {
		t.Fatal("a stale load's message was applied")
	}
	h.enqueue(cmd)
	h.settle()
	v := h.m.View()
	for _, w := range []string{"Graph metrics", "nodes                  57", "RELATES              67 (1 self-loop)", "1 node of degree ≥ 5 (p99): T3001 (5)"} {
		if !strings.Contains(v, w) {
			t.Errorf("overlay lacks %q:\n%s", w, v)
		}
	}
	if !strings.Contains(h.treeText(), "T3001 [hub]") {
		t.Errorf("tree after the metrics:\n%s", h.treeText())
	}
	h.keys("?")
	if h.m.top() != overlay(h.m.ov.helpView) {
		t.Fatal("? did not open the help over the metrics")
	}
	h.keys("esc")
	if h.m.top() != overlay(h.m.ov.statsView) {
		t.Fatal("esc did not go back to the metrics")
	}
	h.keys("M")
	if h.m.top() != nil {
		t.Fatal("M did not close the metrics")
	}
}

// TestHostileStatsEscaped: testdata/hostile.jsonl's ids and the metrics'
// relationship types reach the overlay, the tree and the detail pane
// escaped: the whole screen stays safe.
func TestHostileStatsEscaped(t *testing.T) {
	h, _ := statsHarness(t, loadHostile(t), Options{})
	h.m.graphStats().m.ByType = append(h.m.graphStats().m.ByType, graph.TypeCount{Type: "EVIL" + hostileOSC52, Count: 1})
	h.m.graphStats().m.Hubs = append(h.m.graphStats().m.Hubs, graph.NodeDegree{ID: hostileH0, Degree: 9})
	h.m.graphStats().m.HubDegree, h.m.graphStats().m.HubCount = 9, 1
	h.keys("M")
	assertCleanView(t, h, "metrics overlay", h.m.ov.statsView.Content(), `EVIL\x1b]52;c;SEFDS0VE\a`, `"H0\x1b]52;c;SEFDS0VE\a" (9)`)
}
