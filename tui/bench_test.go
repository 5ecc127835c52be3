package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/expansion"
	"github.com/memoria-graph/memoria/retriever/ppr"
	"github.com/memoria-graph/memoria/retriever/spreading"
	"github.com/memoria-graph/memoria/tui/components/tree"
)

// bigTree feeds a synthetic exploration of n nodes (a seed, then levels of
// three children per node) into the model, as events.
func bigTree(m *Model, n int) {
	seed := retriever.Seed{NodeID: "S", Score: 1}
	m.actRun().trees = tree.NewTrees([]retriever.Seed{seed})
	for _, ev := range bigTreeEvents(n) {
		m.actRun().trees.Apply(ev)
	}
	m.afterTreeChange(true)
}

// bigTreeEvents is a synthetic exploration of n nodes: the seed event, then
// one level event per depth in which every frontier node keeps three
// children, loses a fourth candidate to the branch limit and has one near
// miss; the last level's nodes end their paths.
func bigTreeEvents(n int) []activation.Event {
	node, cand := synthNode, synthCand
	root := node("S")
	evs := []activation.Event{{Kind: activation.EventSeed, SeedNode: &root}}
	frontier, count := []string{"S"}, 1
	for depth := 1; count < n; depth++ {
		lv := &activation.LevelEvent{Depth: depth}
		var next []string
		for _, p := range frontier {
			for k := 0; k < 3 && count < n; k++ {
				id := fmt.Sprintf("N%d", count)
				count++
				lv.Outcomes = append(lv.Outcomes, activation.Outcome{Fate: activation.FateKept, Candidate: cand(p, id, 0.06)})
				next = append(next, id)
			}
			lv.Outcomes = append(lv.Outcomes, activation.Outcome{Fate: activation.FateBranchLimit, Candidate: cand(p, "L"+p, 0.05)})
			lv.NearMisses = append(lv.NearMisses, cand(p, "M"+p, 0.001))
		}
		evs = append(evs, activation.Event{Kind: activation.EventLevel, Level: lv})
		frontier = next
	}
	return evs
}

func synthNode(id string) graph.Node {
	return graph.Node{ID: id, Labels: []string{"Event"}, Properties: map[string]any{"id": id,
		"text": "A memory of something that happened, long enough to be cut in the tree view " + id}}
}

func synthCand(p, id string, t float64) activation.Candidate {
	w := 0.8
	return activation.Candidate{ParentID: p, NeighborNode: synthNode(id), Activation: 0.5, Degree: 4, TagSim: 0.3, TransferEnergy: t,
		Edge: graph.Edge{SourceID: p, TargetID: id, Type: "RELATES", Weight: &w, Tags: []string{"a"}}}
}

// growLevel is a level event at depth that gives each of parents three
// kept children (ids prefixed with prefix), a branch-limit loser and a near
// miss.
func growLevel(depth int, prefix string, parents []string) activation.Event {
	lv := &activation.LevelEvent{Depth: depth}
	for i, p := range parents {
		for k := range 3 {
			lv.Outcomes = append(lv.Outcomes, activation.Outcome{Fate: activation.FateKept, Candidate: synthCand(p, fmt.Sprintf("%s%d.%d", prefix, i, k), 0.06)})
		}
		lv.Outcomes = append(lv.Outcomes, activation.Outcome{Fate: activation.FateBranchLimit, Candidate: synthCand(p, prefix+"L"+p, 0.05)})
		lv.NearMisses = append(lv.NearMisses, synthCand(p, prefix+"M"+p, 0.001))
	}
	return activation.Event{Kind: activation.EventLevel, Level: lv}
}

// BenchmarkView1000 renders the whole screen (120×40) with a 1,000-node
// result tree; the rows are cached, so View costs only the visible lines.
// Target: under 4 ms.
func BenchmarkView1000(b *testing.B) {
	src := loadDemo(b)
	m, err := New(context.Background(), Options{Source: src, Backend: src, NoColor: true, Out: newOutput()})
	if err != nil {
		b.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	bigTree(m, 1000)
	if got := len(m.actRun().trees.Seeds[0].Nodes); got != 1000 {
		b.Fatalf("tree has %d nodes", got)
	}
	m.setFocus(focusTree)
	m.Update(keyMsg("j"))
	if !strings.Contains(m.View(), "N1 Event") {
		b.Fatal("tree not shown")
	}
	b.ResetTimer()
	for range b.N {
		_ = m.View()
	}
}

// BenchmarkTreeRebuild1000 re-renders every row of a 1,000-node tree (done
// in Update when the tree changes, not in View).
func BenchmarkTreeRebuild1000(b *testing.B) {
	src := loadDemo(b)
	m, _ := New(context.Background(), Options{Source: src, Backend: src, NoColor: true, Out: newOutput()})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	bigTree(m, 1000)
	b.ResetTimer()
	for range b.N {
		m.actRun().trees.Version++
		m.tree.Changed()
	}
}

// BenchmarkLevelEvent1000 is what Update spends on one level event (36
// new nodes, their losers and near misses) arriving on a result tree of
// 1,000 nodes that is on screen: the rows of the nodes the event did not
// touch are reused. Target (issue: a tree that grows cheaply): 2 ms.
func BenchmarkLevelEvent1000(b *testing.B) {
	src := loadDemo(b)
	evs := bigTreeEvents(1000)
	// 12 of the deepest nodes (depth 6: N364 on) get three children each.
	var parents []string
	for i := range 12 {
		parents = append(parents, fmt.Sprintf("N%d", 400+i))
	}
	last := growLevel(7, "X", parents)
	for range b.N {
		b.StopTimer()
		m, _ := New(context.Background(), Options{Source: src, Backend: src, NoColor: true, Out: newOutput()})
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		m.setFocus(focusTree)
		m.tree.ToggleExplain()
		m.actRun().trees = tree.NewTrees([]retriever.Seed{{NodeID: "S", Score: 1}})
		for _, ev := range evs {
			m.actRun().trees.Apply(ev)
		}
		m.afterTreeChange(true)
		m.actRun().ch = make(chan activation.Event)
		if got := len(m.actRun().trees.Seeds[0].Nodes); got != 1000 {
			b.Fatalf("tree has %d nodes before the event", got)
		}
		b.StartTimer()
		m.Update(runEventMsg{id: m.actRun().ref(), ev: last})
		b.StopTimer()
		if got := len(m.actRun().trees.Seeds[0].Nodes); got != 1036 {
			b.Fatalf("tree has %d nodes after the event", got)
		}
		b.StartTimer()
	}
}

// runSync runs cmd and every command that follows, synchronously, until the
// current run's channel is closed and applied.
func runSync(tb testing.TB, m *Model, cmd tea.Cmd) {
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		default:
			_, next := m.Update(msg)
			queue = append(queue, next)
			if _, closed := msg.(runClosedMsg); closed && m.actRun().ch == nil {
				return
			}
		}
	}
}

// BenchmarkParamKeyToTree is the time from a MIN_ACTIVATION key to the new
// demo tree (scenario A) on screen: Update with the key, the run's commands
// run synchronously until its results are applied, then View. Target:
// under 16 ms.
func BenchmarkParamKeyToTree(b *testing.B) {
	src := loadDemo(b)
	m, err := New(context.Background(), Options{Source: src, Backend: src, NoColor: true, Out: newOutput(),
		Seeds: []retriever.Seed{demoSeed}, Tags: demoTags})
	if err != nil {
		b.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	runSync(b, m, m.Init())
	m.setFocus(focusParams)
	m.Update(keyMsg("j")) // MIN_ACTIVATION
	b.ResetTimer()
	for i := range b.N {
		k := "+"
		if i%2 == 1 {
			k = "-"
		}
		_, cmd := m.Update(keyMsg(k))
		runSync(b, m, cmd)
		_ = m.View()
	}
	b.StopTimer()
	if st := m.actRun().trees.Seeds[0]; st.State != tree.SeedDone {
		b.Fatalf("run not done: %v", st.State)
	}
}

// compareRankings are three synthetic rankings of 500 hits each over
// nodes C0…C999, overlapping by half (C0–C499, C250–C749, C500–C999), so
// that their union is 1,000 rows; each has K = 500.
func compareRankings() []retriever.Ranking {
	out := make([]retriever.Ranking, 3)
	for c := range out {
		r := retriever.Ranking{Params: retriever.Fields{{Name: "top_k", Value: 500}}}
		for i := range 500 {
			id := fmt.Sprintf("C%d", c*250+i)
			r.Hits = append(r.Hits, retriever.Hit{Rank: i + 1, NodeID: id, Score: 1 / float64(i+1), Node: synthNode(id),
				Labels: []string{"Event"}, Seed: "C0", Origin: retriever.OriginExpanded,
				Route: []retriever.Hop{{From: "C0", To: id, Type: "RELATES", Weight: 0.5, Factor: 0.5}}})
		}
		out[c] = r
	}
	return out
}

// BenchmarkCompareResult1000 is the compare view's redraw when a result
// arrives on a 1,000-row union (issue 20's target: within 16 ms): Update
// with one retriever's rankingMsg (the table rebuilt through
// retriever/overlap, sorted, the detail's side-by-side columns for the
// selected row), then View. The expansion, spreading activation and ppr are
// compared (compareRankings); each iteration one of them answers a run.
func BenchmarkCompareResult1000(b *testing.B) {
	src := loadDemo(b)
	nb, _ := src.Source.(graph.Neighbourhood)
	names := []string{expansion.Name, spreading.Name, ppr.Name}
	m, err := New(context.Background(), Options{Source: src, Backend: src, NoColor: true, Out: newOutput(),
		Neighbourhood: nb, Compare: names})
	if err != nil {
		b.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 50})
	rs := compareRankings()
	for i, name := range names {
		s := m.runs.slots[name]
		s.started, s.ranking = true, &rs[i]
	}
	m.cmpRefresh()
	m.setFocus(focusTree)
	m.Update(keyMsg("j"))
	if n := len(m.cmp.TableRows()); n != 1000 {
		b.Fatalf("%d rows, want a union of 1000", n)
	}
	b.ResetTimer()
	for i := range b.N {
		name := names[i%len(names)]
		s := m.runs.slots[name]
		s.id++
		s.loading = true // its run in flight
		m.Update(rankingMsg{ref: s.ref(), ranking: rs[i%len(names)]})
		_ = m.View()
	}
	b.StopTimer()
	if n := len(m.cmp.TableRows()); n != 1000 || m.runs.slots[names[0]].loading {
		b.Fatalf("%d rows, loading %v", n, m.runs.slots[names[0]].loading)
	}
}
