package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeRun runs explore with args and saves its JSON lines to dir/name.
func writeRun(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	code, out, errs := run(t, append([]string{"explore", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("explore %v: exit %d: %s", args, code, errs)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDiffDemoThresholdStep: scenario A (seed N2006, R 0.85, the four query
// tags) at MIN_ACTIVATION 0.005 (A) and 0.002 (B).
//
// Expected (docs/DEMO_GRAPH.md, scenario A's table): the only candidate
// between 0.002 and 0.005 is N2005→N2007, T = 0.002402, so B extends
// N2006→N2005 to N2006→N2005→N2007: one path entered, one left, nothing
// moved; reached nodes go from 6 (N2003, N2001, N2010, N2004, N2008, N2005)
// to 7 (plus N2007), Jaccard 6/7 = 0.857 → "0.86".
func TestDiffDemoThresholdStep(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--seed", "N2006=0.85", "--tags", "demand_forecasting,stockout,safety_stock,inventory_policy"}
	a := writeRun(t, dir, "a.jsonl", args...)
	b := writeRun(t, dir, "b.jsonl", append(args, "--min-activation", "0.002")...)
	code, out, errs := run(t, "diff", a, b)
	want := "seed N2006 R=0.85 vs " + a + ": +1 paths −1 · 0 moved · nodes 6 → 7 (Jaccard 0.86)\n" +
		"  + N2006 → N2005 → N2007\n" +
		"  − N2006 → N2005\n"
	if code != 0 || out != want {
		t.Errorf("diff: exit %d, stderr %s, out\n%s\nwant\n%s", code, errs, out, want)
	}
	code, out, _ = run(t, "diff", "--format", "json", a, b)
	var d struct {
		Entered [][]string `json:"entered"`
		NodesB  int        `json:"nodes_b"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &d) != nil || len(d.Entered) != 1 || strings.Join(d.Entered[0], ",") != "N2006,N2005,N2007" || d.NodesB != 7 {
		t.Errorf("diff --format json: exit %d, %s", code, out)
	}
}

// TestDiffMoved: seed T3000 (R 0.9, tags campaign) at MAX_BRANCHES 3 then 2
// (docs/DEMO_GRAPH.md scenario B): with 2 branches T3001 is no longer kept
// at level 1 and comes under T3002 at level 2, so it is reported as moved.
func TestDiffMoved(t *testing.T) {
	dir := t.TempDir()
	a := writeRun(t, dir, "a.jsonl", "--seed", "T3000=0.9", "--tags", "campaign")
	b := writeRun(t, dir, "b.jsonl", "--seed", "T3000=0.9", "--tags", "campaign", "--max-branches", "2")
	code, out, _ := run(t, "diff", a, b)
	if code != 0 || !strings.Contains(out, "  ~ T3001: under T3000 at depth 1 → under T3002 at depth 2\n") {
		t.Errorf("diff: exit %d:\n%s", code, out)
	}
}

// TestDiffBadInput: each bad input names the file and the line.
func TestDiffBadInput(t *testing.T) {
	dir := t.TempDir()
	good := writeRun(t, dir, "good.jsonl", "--seed", "N2006=0.85", "--seed", "T3000=0.9")
	lines := strings.SplitAfter(strings.TrimSpace(readFile(t, good)), "\n")
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	notJSON := write("notjson.jsonl", lines[0]+"seed N2006\n")
	badShape := write("shape.jsonl", lines[0]+`{"seed": "N2006"}`+"\n")
	oneSeed := write("one.jsonl", lines[0])
	dup := write("dup.jsonl", lines[0]+lines[0])
	empty := write("empty.jsonl", "\n")
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"diff", good, notJSON}, 1, notJSON + " line 2: not a JSON object"},
		{[]string{"diff", badShape, good}, 1, badShape + " line 2: not a result of 'memoria explore --format json'"},
		{[]string{"diff", good, oneSeed}, 1, " has no result in " + oneSeed},
		{[]string{"diff", oneSeed, good}, 1, good + " line "},
		{[]string{"diff", dup, good}, 1, dup + " line 2: seed"},
		{[]string{"diff", empty, good}, 1, empty + " holds no result"},
		{[]string{"diff", good, filepath.Join(dir, "missing.jsonl")}, 1, "missing.jsonl: no such file"},
		{[]string{"diff", good}, 2, "want two files"},
		{[]string{"diff", "--format", "xml", good, good}, 2, `unknown --format "xml"`},
	} {
		code, _, errs := run(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errs, c.code, c.msg)
		}
	}
}
