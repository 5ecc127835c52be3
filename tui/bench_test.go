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
)

// bigTree feeds a synthetic exploration of n nodes (a seed, then levels of
// three children per node) into the model, as events.
func bigTree(m *Model, n int) {
	seed := retriever.Seed{NodeID: "S", Score: 1}
	m.trees = newResultTrees([]retriever.Seed{seed})
	node := func(id string) graph.Node {
		return graph.Node{ID: id, Labels: []string{"Event"}, Properties: map[string]any{"id": id,
			"text": "A memory of something that happened, long enough to be cut in the tree view " + id}}
	}
	root := node("S")
	m.trees.apply(activation.Event{Kind: activation.EventSeed, SeedNode: &root})
	frontier, count := []string{"S"}, 1
	for depth := 1; count < n; depth++ {
		var outs []activation.Outcome
		var next []string
		for _, p := range frontier {
			for k := 0; k < 3 && count < n; k++ {
				id := fmt.Sprintf("N%d", count)
				count++
				w := 0.8
				outs = append(outs, activation.Outcome{Fate: activation.FateKept, Candidate: activation.Candidate{
					ParentID: p, NeighborNode: node(id), Activation: 0.5, Degree: 4, TagSim: 0.3, TransferEnergy: 0.06,
					Edge: graph.Edge{SourceID: p, TargetID: id, Type: "RELATES", Weight: &w, Tags: []string{"a"}}}})
				next = append(next, id)
			}
		}
		m.trees.apply(activation.Event{Kind: activation.EventLevel, Level: &activation.LevelEvent{Depth: depth, Outcomes: outs}})
		frontier = next
	}
	m.afterTreeChange(true)
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
	if got := len(m.trees.seeds[0].nodes); got != 1000 {
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
		m.trees.version++
		m.tree.Changed()
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
			if _, closed := msg.(runClosedMsg); closed && m.ch == nil {
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
	if st := m.trees.seeds[0]; st.state != seedDone {
		b.Fatalf("run not done: %v", st.state)
	}
}
