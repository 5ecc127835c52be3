package tree

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/tui/theme"
)

// TestNoBaselineFromAnUnfinishedRun: a run cut short (a seed still running,
// cancelled or failed) is no baseline, since the paths it had not found yet would
// show as changes; a finished one is.
func TestNoBaselineFromAnUnfinishedRun(t *testing.T) {
	rt := NewTrees([]retriever.Seed{{NodeID: "A", Score: 1}, {NodeID: "B", Score: 1}})
	if NewBaseline(rt, "previous") != nil {
		t.Fatal("a running run became a baseline")
	}
	for _, st := range rt.Seeds {
		st.applyResult(activation.Result{Seed: st.Seed, TerminatedReason: activation.TerminatedMaxDepth})
	}
	rt.Seeds[1].State = SeedCancelled
	if NewBaseline(rt, "previous") != nil {
		t.Fatal("a cancelled run became a baseline")
	}
	rt.Seeds[1].State = SeedFailed
	if NewBaseline(rt, "previous") != nil {
		t.Fatal("a failed run became a baseline")
	}
	rt.Seeds[1].State = SeedDone
	if b := NewBaseline(rt, "previous"); b == nil || len(b.Results) != 2 {
		t.Fatalf("finished run: baseline %+v", b)
	}
}

// TestNodeTextAsInCLI renders tree rows for nodes whose text is not a
// plain ASCII `text` property: one with only a `title`, one with 60 "é"
// (2 bytes each) and no spaces, one with runs of white space. Expected:
// each row shows render.NodeText cut by render.Truncate to 48 runes (the
// CLI's text), valid UTF-8. Why: the tree read only `text` (a title-only
// node showed nothing) and cut by bytes, splitting a rune in two.
func TestNodeTextAsInCLI(t *testing.T) {
	st := theme.NewStyles(nil, true)
	for _, c := range []struct {
		props map[string]any
		want  string
	}{
		{map[string]any{"title": "Quarterly safety stock review"}, "Quarterly safety stock review"},
		{map[string]any{"text": strings.Repeat("é", 60)}, strings.Repeat("é", 47) + "…"},
		{map[string]any{"text": "  spaced \n\t out  ", "name": "ignored"}, "spaced out"},
		{map[string]any{"description": strings.Repeat("ü ", 40)}, strings.TrimSpace(strings.Repeat("ü ", 24)) + "…"},
	} {
		n := graph.Node{ID: "X1", Labels: []string{"Event"}, Properties: c.props}
		want, _ := render.NodeText(n)
		if want = render.Truncate(want, treeTextWidth); want != c.want {
			t.Fatalf("render gives %q, the test expects %q", want, c.want)
		}
		rt := NewTrees([]retriever.Seed{{NodeID: "X1", Score: 1}})
		rt.Apply(activation.Event{Kind: activation.EventSeed, SeedNode: &n})
		b := rowBuilder{st: &st, folded: map[RowKey]bool{}}
		row := b.build(rt)[0].Plain
		if !utf8.ValidString(row) || !strings.HasSuffix(row, "X1 Event  "+c.want) {
			t.Errorf("row %q, want it to end with %q", row, "X1 Event  "+c.want)
		}
	}
}
