package render

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// idPath is a path through ids with T = 0.1 on every hop (the diff looks
// at ids only).
func idPath(ids ...string) activation.Path {
	var p activation.Path
	for i := 1; i < len(ids); i++ {
		p = p.Extend(activation.Step{FromNode: graph.Node{ID: ids[i-1]}, ToNode: graph.Node{ID: ids[i]}, TransferEnergy: 0.1})
	}
	return p
}

// diffFixture compares the worked example's three paths (A) with a run (B)
// where N2010 hangs straight under N2003 and N2007 joined:
//
//	A: N2006→N2003→N2001→N2010, N2006→N2004→N2008, N2006→N2005
//	B: N2006→N2003→N2010, N2006→N2004→N2008, N2006→N2005, N2006→N2007
//
// Entered: N2006→N2003→N2010 and N2006→N2007; left: N2006→N2003→N2001→N2010.
// Moved: N2010, from under N2001 at depth 3 to under N2003 at depth 2.
// Nodes: A {N2003, N2001, N2010, N2004, N2008, N2005} = 6, B {N2003, N2010,
// N2004, N2008, N2005, N2007} = 6; both 5, either 7: Jaccard 5/7 = 0.714…,
// "0.71" at 2 significant digits.
func diffFixture() activation.ResultDiff {
	seed := retriever.Seed{NodeID: "N2006", Score: 0.85}
	a := activation.Result{Seed: seed, Paths: []activation.Path{
		idPath("N2006", "N2003", "N2001", "N2010"), idPath("N2006", "N2004", "N2008"), idPath("N2006", "N2005")}}
	b := activation.Result{Seed: seed, Paths: []activation.Path{
		idPath("N2006", "N2003", "N2010"), idPath("N2006", "N2004", "N2008"), idPath("N2006", "N2005"), idPath("N2006", "N2007")}}
	return activation.Diff(a, b)
}

// TestDiffText draws diffFixture against a baseline named "a.jsonl".
// Expected (also testdata/diff_text.golden): the summary of diffFixture's
// working, then the two entered paths in B's order, the one that left, and
// the move.
func TestDiffText(t *testing.T) {
	want := `seed N2006 R=0.85 vs a.jsonl: +2 paths −1 · 1 moved · nodes 6 → 6 (Jaccard 0.71)
  + N2006 → N2003 → N2010
  + N2006 → N2007
  − N2006 → N2003 → N2001 → N2010
  ~ N2010: under N2001 at depth 3 → under N2003 at depth 2
`
	got := DiffText("a.jsonl", []activation.ResultDiff{diffFixture()})
	if got != want {
		t.Errorf("DiffText =\n%s\nwant\n%s", got, want)
	}
	golden(t, "diff_text", got)
}

// TestDiffJSON: the wire form of diffFixture (testdata/diff_json.golden):
// paths as node-id lists, the move with both placements, Jaccard in full
// precision (5/7 = 0.7142857142857143) and the summary line.
func TestDiffJSON(t *testing.T) {
	b, err := json.Marshal(ToDiffJSON("a.jsonl", diffFixture()))
	if err != nil {
		t.Fatal(err)
	}
	got := string(b) + "\n"
	for _, frag := range []string{
		`"entered":[["N2006","N2003","N2010"],["N2006","N2007"]]`,
		`"left":[["N2006","N2003","N2001","N2010"]]`,
		`"moved":[{"node_id":"N2010","from":{"parent":"N2001","depth":3},"to":{"parent":"N2003","depth":2}}]`,
		`"jaccard":0.7142857142857143`,
	} {
		if !strings.Contains(got, frag) {
			t.Errorf("DiffJSON lacks %s:\n%s", frag, got)
		}
	}
	golden(t, "diff_json", got)
}

// TestDiffTextHostile: a baseline name and ids with terminal controls are
// escaped (internal/textsafe), never written raw.
func TestDiffTextHostile(t *testing.T) {
	seed := retriever.Seed{NodeID: "S\x1b]0;x\a", Score: 1}
	d := activation.Diff(activation.Result{Seed: seed}, activation.Result{Seed: seed, Paths: []activation.Path{idPath("S\x1b]0;x\a", "N\r")}})
	got := DiffText("f\x1b[2J", []activation.ResultDiff{d})
	if strings.ContainsAny(got, "\x1b\a\r") {
		t.Errorf("DiffText wrote a control character raw: %q", got)
	}
	if !strings.Contains(got, `+ "S\x1b]0;x\a" → "N\r"`) {
		t.Errorf("DiffText = %q, want the ids quoted", got)
	}
}
