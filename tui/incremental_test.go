package tui

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/tui/components/tree"
	"github.com/muesli/termenv"
)

// TestInkMatchesRender: an Ink (the tree's fast style) writes exactly what
// lipgloss's Render writes for every tree style, on a light and a dark
// background, with a true-colour, a 256-colour and no colour profile, for
// texts with spaces, wide runes, an ellipsis and tree guides.
func TestInkMatchesRender(t *testing.T) {
	texts := []string{"x", "N2006", "  T=0.1016 w=0.82", "日本語 text", "…", "├─ ", "│  ", "a  b   c "}
	for _, prof := range []termenv.Profile{termenv.TrueColor, termenv.ANSI256, termenv.Ascii} {
		for _, dark := range []bool{false, true} {
			r := lipgloss.NewRenderer(&bytes.Buffer{})
			r.SetColorProfile(prof)
			r.SetHasDarkBackground(dark)
			st := NewStyles(r, false)
			pairs := map[string]struct {
				s lipgloss.Style
				k Ink
			}{
				"Dim": {st.Dim, st.Tree.Dim}, "ID": {st.ID, st.Tree.ID}, "Label": {st.Label, st.Tree.Label},
				"Metric": {st.Metric, st.Tree.Metric}, "End": {st.End, st.Tree.End}, "Loser": {st.Loser, st.Tree.Loser},
				"Running": {st.Running, st.Tree.Running}, "Error": {st.Error, st.Tree.Error},
				"Entered": {st.OK.Bold(true), st.Tree.Entered}, "Moved": {st.Running.Bold(true), st.Tree.Moved},
			}
			for name, p := range pairs {
				for _, text := range texts {
					if got, want := p.k.Render(text), p.s.Render(text); got != want {
						t.Errorf("profile %v dark %v %s: Ink %q, Render %q", prof, dark, name, got, want)
					}
				}
				if p.k.Render("") != "" {
					t.Errorf("%s: Ink of an empty text is not empty", name)
				}
			}
		}
	}
}

// TestIncrementalRowsEqualFreshRows: the tree re-renders only the nodes an
// event touched and reuses the other rows; after every event of a run (and
// after folds, the explain view and path ends) its rows must be exactly
// what a fresh render, with no cache, gives. The synthetic run gives every
// frontier node three children, a branch-limit loser and a near miss, so
// each event changes earlier nodes' guides (a node gains children) as well
// as adding rows.
func TestIncrementalRowsEqualFreshRows(t *testing.T) {
	src := loadDemo(t)
	r := lipgloss.NewRenderer(&bytes.Buffer{})
	r.SetColorProfile(termenv.TrueColor) // styled rows compared too
	st := NewStyles(r, false)
	o, err := Options{Source: src, Backend: src, Out: newOutput()}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	m := newModel(context.Background(), o, &st)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m.setFocus(focusTree)
	m.actRun().trees = tree.NewTrees([]retriever.Seed{{NodeID: "S", Score: 1}})
	m.afterTreeChange(true)
	check := func(when string) {
		t.Helper()
		want := m.tree.FreshRows()
		got := m.tree.Rows()
		if len(got) != len(want) {
			t.Fatalf("%s: %d rows, fresh render has %d", when, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: row %d is\n%q\nfresh render:\n%q", when, i, got[i].Styled, want[i].Styled)
			}
		}
	}
	evs := bigTreeEvents(200)
	for i, ev := range evs {
		m.actRun().trees.Apply(ev)
		m.afterTreeChange(false)
		check(fmt.Sprintf("event %d", i))
		switch i {
		case 3: // the first events ran without losers shown
			m.tree.ToggleExplain()
			check("explain on")
		case 4:
			m.tree.SetFolded(tree.RowKey{Seed: "S", ID: "N2", Loser: -1}, true)
			check("N2 folded")
		}
	}
	// Paths end at two leaves: their annotation gains the end.
	leaf := m.actRun().trees.Seeds[0].Nodes["N150"]
	p := leaf.Path()
	p.EndReason = activation.EndMaxDepth
	m.actRun().trees.Apply(activation.Event{Kind: activation.EventResult, Result: &activation.Result{Seed: retriever.Seed{NodeID: "S", Score: 1}, Paths: []activation.Path{p}}})
	m.afterTreeChange(false)
	if leaf.End != activation.EndMaxDepth {
		t.Fatalf("N150's end is %q", leaf.End)
	}
	check("N150 ends")
	m.tree.ToggleExplain()
	check("explain off")
	m.Update(tea.WindowSizeMsg{Width: 70, Height: 30})
	check("narrower")

	// A baseline: a run that reached N2 and N5 from S and a node G under
	// N2 that this run lacks. N2 is in both at the same place, N5 moved
	// (the baseline had it under S), every other node entered, and G is a
	// ghost row under N2 once N2 is unfolded.
	w := 0.8
	hopTo := func(from, to string) activation.Step {
		return activation.Step{FromNode: synthNode(from), ToNode: synthNode(to), TransferEnergy: 0.05,
			Edge: graph.Edge{SourceID: from, TargetID: to, Type: "RELATES", Weight: &w}}
	}
	var p1, p2 activation.Path
	p1 = p1.Extend(hopTo("S", "N2")).Extend(hopTo("N2", "G"))
	p2 = p2.Extend(hopTo("S", "N5"))
	res := m.actRun().trees.Seeds[0].Result
	m.actRun().trees.SetBase(&tree.Baseline{Label: "pinned", Results: map[string]activation.Result{"S": {Seed: res.Seed, Paths: []activation.Path{p1, p2}}}})
	m.afterTreeChange(false)
	check("baseline set")
	m.tree.SetFolded(tree.RowKey{Seed: "S", ID: "N2", Loser: -1}, false)
	check("N2 unfolded, with its ghost")
	txt := strings.Join(rowTexts(m.tree.Rows()), "\n")
	if !strings.Contains(txt, "− G Event") || !strings.Contains(txt, "~ N5 Event (was under S") || !strings.Contains(txt, "+ N1 Event") {
		t.Fatalf("marks missing:\n%s", txt)
	}
	m.changeNaming()
	check("nodes named by another property")
}

// rowTexts are the rows' plain texts.
func rowTexts(rows []tree.Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.Plain
	}
	return out
}
