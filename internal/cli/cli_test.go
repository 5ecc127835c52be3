package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func demo(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../../testdata/demo.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// run runs memoria with args against the demo graph and no Neo4j settings.
func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, DemoGraph: demo(t), Getenv: func(string) string { return "" }}
	code = Main(context.Background(), args, env)
	return code, out.String(), errb.String()
}

// scenarioA is docs/ALGORITHM.md "Worked example" on the demo graph: docs/DEMO_GRAPH.md scenario A.
var scenarioA = []string{"explore", "--seed", "N2006=0.85", "--tags", "demand_forecasting,stockout,safety_stock,inventory_policy"}

// TestExploreJSONScenarioA: the worked example of docs/ALGORITHM.md, through the CLI.
//
// Expected (docs/DEMO_GRAPH.md, scenario A, worked by the reference and by
// hand for the first hop): exactly the paths N2006→N2003→N2001→N2010,
// N2006→N2004→N2008, N2006→N2005 in that order, frontier_exhausted,
// max_depth_reached 3. First hop N2006→N2003: 0.85 × 0.82 / √4 × (0.15 +
// 0.85 × 1/6) = 0.3485 × 7/24 = 0.1016458…, d 4, tag_sim 0.291666…, w 0.82.
func TestExploreJSONScenarioA(t *testing.T) {
	code, out, errs := run(t, scenarioA...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 1 {
		t.Fatalf("want one JSON line per seed, got %d", len(lines))
	}
	var res struct {
		Seed struct {
			NodeID string `json:"node_id"`
			Score  float64
		}
		TerminatedReason string `json:"terminated_reason"`
		MaxDepthReached  int    `json:"max_depth_reached"`
		Paths            []struct {
			NodeIDs []string `json:"node_ids"`
			Steps   []struct {
				From, To       string
				Weight         float64
				TagSim         float64 `json:"tag_sim"`
				Degree         int
				TransferEnergy float64 `json:"transfer_energy"`
			}
		}
	}
	if err := json.Unmarshal([]byte(lines[0]), &res); err != nil {
		t.Fatal(err)
	}
	if res.Seed.NodeID != "N2006" || res.Seed.Score != 0.85 || res.TerminatedReason != "frontier_exhausted" || res.MaxDepthReached != 3 {
		t.Errorf("seed %+v reason %s depth %d", res.Seed, res.TerminatedReason, res.MaxDepthReached)
	}
	var got []string
	for _, p := range res.Paths {
		got = append(got, strings.Join(p.NodeIDs, ">"))
	}
	want := []string{"N2006>N2003>N2001>N2010", "N2006>N2004>N2008", "N2006>N2005"}
	if !slices.Equal(got, want) {
		t.Fatalf("paths %v, want %v", got, want)
	}
	s := res.Paths[0].Steps[0]
	if s.From != "N2006" || s.To != "N2003" || s.Weight != 0.82 || s.Degree != 4 || abs(s.TagSim-7.0/24) > 1e-12 || abs(s.TransferEnergy-0.3485*7/24) > 1e-12 {
		t.Errorf("first step %+v", s)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestExploreFormats: each format carries its defining text for scenario A.
//
//   - tree: the three leaves N2010, N2008, N2005 under root N2006;
//   - d3: 7 distinct nodes (N2006, N2003, N2001, N2010, N2004, N2008, N2005)
//     and 6 links (one per hop: 3 + 2 + 1);
//   - llm: "Path 1: [Seed N2006]" and three numbered paths;
//   - cypher: the 4-node query of path 1, each relationship pinned by its
//     properties (docs/EXPORTS.md, format 3).
func TestExploreFormats(t *testing.T) {
	_, tree, _ := run(t, append(scenarioA, "--format", "tree")...)
	for _, s := range []string{"N2006", "N2010", "N2008", "N2005"} {
		if !strings.Contains(tree, s) {
			t.Errorf("tree lacks %s:\n%s", s, tree)
		}
	}
	_, d3, _ := run(t, append(scenarioA, "--format", "d3")...)
	var g struct{ Nodes, Links []map[string]any }
	if err := json.Unmarshal([]byte(d3), &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Nodes) != 7 || len(g.Links) != 6 {
		t.Errorf("d3: %d nodes %d links, want 7 and 6", len(g.Nodes), len(g.Links))
	}
	_, llm, _ := run(t, append(scenarioA, "--format", "llm")...)
	if !strings.Contains(llm, "Path 1: [Seed N2006]") || !strings.Contains(llm, "Path 3:") || strings.Contains(llm, "Path 4:") {
		t.Errorf("llm:\n%s", llm)
	}
	_, cy, _ := run(t, append(scenarioA, "--format", "cypher")...)
	if !strings.Contains(cy, "MATCH p = (n0 {id: $id0})-[r0:RELATES]-(n1 {id: $id1})-[r1:RELATES]-(n2 {id: $id2})-[r2:RELATES]-(n3 {id: $id3})"+
		" WHERE properties(r0) = $r0 AND properties(r1) = $r1 AND properties(r2) = $r2 RETURN p") {
		t.Errorf("cypher:\n%s", cy)
	}
}

// TestExploreStreamsSeveralSeeds: one line per seed; an unknown seed is a
// result with seed_not_found and exit 0.
func TestExploreStreamsSeveralSeeds(t *testing.T) {
	code, out, _ := run(t, "explore", "--seed", "N2006", "--seed", "NOPE=0.5", "--seed", "T3000=0.9")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	reasons := map[string]string{}
	for sc.Scan() {
		var r struct {
			Seed struct {
				NodeID string `json:"node_id"`
			}
			TerminatedReason string `json:"terminated_reason"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		reasons[r.Seed.NodeID] = r.TerminatedReason
	}
	if len(reasons) != 3 || reasons["NOPE"] != "seed_not_found" || reasons["N2006"] == "" || reasons["T3000"] == "" {
		t.Errorf("reasons %v", reasons)
	}
}

// TestUsageErrors: each mistake exits 2 with a message naming it.
func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"explore"}, "--seed"},
		{[]string{"explore", "--seed", "N2006=0"}, "score"},
		{[]string{"explore", "--seed", "N2006=1.5"}, "score must be a finite number in (0, 1], got 1.5"},
		{[]string{"explore", "--seed", "N2006=1e999"}, "is not a number"},
		{[]string{"explore", "--seed", "=0.5"}, "empty node id"},
		{[]string{"explore", "--seed", "N2006", "--format", "xml"}, `"xml"`},
		{[]string{"explore", "--seed", "N2006", "--max-depth", "13"}, "max_depth"},
		{[]string{"explore", "--seed", "N2006", "--min-activation", "-1"}, "min_activation"},
		{[]string{"explore", "--seed", "N2006", "--bogus"}, "bogus"},
		{[]string{"explore", "--seed", "N2006", "--graph", "x.jsonl", "--uri", "bolt://h:1"}, "choose one"},
		{[]string{"explore", "--seed", "N2006", "--uri", "http://h:7474"}, `scheme "http"`},
		{[]string{"explore", "--seed", "N2006", "--uri", "bolt://neo4j:secret@h:7687"}, "credentials"},
		{[]string{"explore", "--seed", "N2006", "extra"}, `"extra"`},
		{[]string{"explore", "--seed", "N2006", "--database", "sales"}, "applies to Neo4j only"},
	} {
		code, _, errs := run(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
		if strings.Contains(errs, "secret") {
			t.Errorf("%v: password echoed: %q", c.args, errs)
		}
	}
}

// TestBadGraphFile: a broken file is a runtime error (exit 1) naming the
// line; nothing is printed on stdout.
func TestBadGraphFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bad.jsonl")
	data := `{"type":"node","id":"0","labels":["Event"],"properties":{"id":"A"}}
{"type":"relationship","id":"0","label":"RELATES","properties":{"weight":"high"},"start":{"id":"0"},"end":{"id":"0"}}
`
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, "explore", "--graph", p, "--seed", "A")
	if code != 1 || !strings.Contains(errs, "line 2") || !strings.Contains(errs, "weight") || out != "" {
		t.Errorf("exit %d stdout %q stderr %q", code, out, errs)
	}
	code, _, errs = run(t, "explore", "--graph", filepath.Join(t.TempDir(), "missing.jsonl"), "--seed", "A")
	if code != 1 || !strings.Contains(errs, "missing.jsonl") {
		t.Errorf("missing file: exit %d stderr %q", code, errs)
	}
}

// TestHelp: --help documents every flag and exits 0.
func TestHelp(t *testing.T) {
	code, out, _ := run(t, "explore", "--help")
	for _, f := range []string{"-seed", "-tags", "-max-depth", "-min-activation", "-tag-sim-floor", "-max-branches", "-format", "-graph", "-uri", "-username", "-database"} {
		if !strings.Contains(out, f) {
			t.Errorf("explore --help lacks %s", f)
		}
	}
	if code != 0 {
		t.Errorf("exit %d", code)
	}
	code, out, _ = run(t, "--help")
	if code != 0 || !strings.Contains(out, "memoria explore") || !strings.Contains(out, "NEO4J_PASSWORD") {
		t.Errorf("memoria --help: exit %d\n%s", code, out)
	}
	// The explorer's own flags were listed only by `memoria --max-seeds 2
	// --help` (issue 11, item 7).
	for _, f := range []string{"--no-color", "--out-dir", "--max-seeds"} {
		if !strings.Contains(out, f) {
			t.Errorf("memoria --help lacks %s", f)
		}
	}
}

// TestExplorerNeedsTerminal: started with stdin and stdout that are not a
// terminal (a pipe, a file, a test buffer), the explorer fails with exit 2
// and one sentence naming the problem, before writing anything: Bubble Tea
// wrote its alternate-screen escapes to stdout and then failed with "error
// creating cancel reader".
func TestExplorerNeedsTerminal(t *testing.T) {
	code, out, errs := run(t)
	if code != ExitUsage || out != "" {
		t.Errorf("exit %d, stdout %q; want 2 and nothing", code, out)
	}
	if !strings.Contains(errs, "the explorer needs a terminal") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("stderr %q, want one line saying the explorer needs a terminal", errs)
	}
}

// TestInterrupted: a cancelled context (ctrl+c in a shell) ends explore
// with "interrupted" and exit 130, not a runtime error.
func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	env := Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, DemoGraph: demo(t), Getenv: func(string) string { return "" }}
	if code := Main(ctx, []string{"explore", "--seed", "N2006"}, env); code != ExitInterrupted || !strings.Contains(errb.String(), "interrupted") {
		t.Errorf("exit %d, stderr %q; want 130 and interrupted", code, errb.String())
	}
}
