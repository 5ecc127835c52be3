package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestSweepJSONEqualsExplore: every line of `sweep --format json` carries,
// for its value, the results `explore --format json` prints with that value
// (explore prints them as seeds finish, so they are matched by seed id).
// The values asked, 1, 2 and 5, and the current value, the default 3, are
// the four lines, ascending.
func TestSweepJSONEqualsExplore(t *testing.T) {
	seeds := []string{"--seed", "N2006=0.85", "--seed", "T3000=0.9", "--tags", "campaign,stockout"}
	code, out, errs := run(t, append([]string{"sweep", "--param", "max-branches", "--values", "1,2,5", "--format", "json"}, seeds...)...)
	if code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 4:\n%.2000s", len(lines), out)
	}
	for i, v := range []string{"1", "2", "3", "5"} {
		var pt struct {
			Param   string            `json:"param"`
			Value   float64           `json:"value"`
			Results []json.RawMessage `json:"results"`
		}
		if err := json.Unmarshal([]byte(lines[i]), &pt); err != nil {
			t.Fatal(err)
		}
		if pt.Param != "max-branches" || fmt.Sprint(pt.Value) != v || len(pt.Results) != 2 {
			t.Fatalf("line %d: param %q value %v, %d results", i+1, pt.Param, pt.Value, len(pt.Results))
		}
		_, exp, _ := run(t, append([]string{"explore", "--format", "json", "--max-branches", v}, seeds...)...)
		for _, r := range pt.Results {
			if !strings.Contains(exp, string(r)+"\n") {
				t.Errorf("max-branches %s: sweep result not printed by explore:\n%s\nexplore:\n%s", v, r, exp)
			}
		}
	}
}

// TestSweepCSVDemo: MAX_DEPTH 1 and 2 for seed N2006 (scenario A's tags).
// Depth 1 keeps the three level-1 hops (N2003 0.1016, N2004 0.08936, N2005
// 0.06933; N2007 loses to the branch limit): 3 paths, 3 nodes, energy
// 0.2603 (0.1016458 + 0.0893628 + 0.0693290 per docs/DEMO_GRAPH.md's
// table). Depth 2 adds N2001 under N2003 and N2008 under N2004 (level 2):
// paths N2006→N2003→N2001, N2006→N2004→N2008, N2006→N2005 = 3, nodes 5.
// The current value, the default 5, is a row too: scenario A's three paths
// and six nodes (docs/ALGORITHM.md, "Worked example"), energy 0.1016 +
// 0.02588 + 0.006873 + 0.08936 + 0.01377 + 0.06933 = 0.3069.
func TestSweepCSVDemo(t *testing.T) {
	code, out, errs := run(t, "sweep", "--seed", "N2006=0.85", "--tags", "demand_forecasting,stockout,safety_stock,inventory_policy",
		"--param", "max-depth", "--values", "2,1", "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rows := strings.Split(strings.TrimSpace(out), "\n")
	if len(rows) != 4 || rows[0] != "param,value,breakpoint,paths,nodes_reached,summed_energy" ||
		!strings.HasPrefix(rows[1], "max-depth,1,false,3,3,0.2603") || !strings.HasPrefix(rows[2], "max-depth,2,false,3,5,") ||
		!strings.HasPrefix(rows[3], "max-depth,5,false,3,6,0.3068") {
		t.Errorf("csv:\n%s", out)
	}
}

// TestSweepUsage: mistakes in the command line exit 2 naming the flag.
func TestSweepUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"sweep", "--param", "max-depth"}, "at least one --seed"},
		{[]string{"sweep", "--seed", "N2006"}, "--param is required"},
		{[]string{"sweep", "--seed", "N2006", "--param", "depth"}, `unknown parameter "depth"`},
		{[]string{"sweep", "--seed", "N2006", "--param", "max-branches", "--values", "1,x"}, `item 2, "x", is not a number`},
		{[]string{"sweep", "--seed", "N2006", "--param", "max-branches", "--values", "1,2.5"}, "max-branches takes whole numbers, got 2.5"},
		{[]string{"sweep", "--seed", "N2006", "--param", "max-depth", "--values", "13"}, "max_depth must be between 1 and 12, got 13"},
		{[]string{"sweep", "--seed", "N2006", "--param", "min-activation", "--from", "0"}, "--from must be above 0"},
		{[]string{"sweep", "--seed", "N2006", "--param", "tag-sim-floor", "--values", "0.1", "--steps", "3"}, "not both"},
		{[]string{"sweep", "--seed", "N2006", "--param", "max-depth", "--format", "xml"}, `unknown --format "xml"`},
		{[]string{"sweep", "--seed", "N2006", "--param", "min-activation", "--max-points", "0"}, "--max-points must be at least 1, got 0"},
		{[]string{"sweep", "--seed", "N2006", "--param", "min-activation", "--budget", "-1s"}, "--budget must not be negative, got -1s"},
	} {
		code, _, errs := run(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.msg)
		}
	}
}

// TestSweepMinActivationDefault: the default min-activation sweep of
// scenario A (seed N2006, R 0.85, its four tags) is exact over the whole
// range on the demo graph, says so, and marks the current value 0.005 as a
// point of the table; every line of the same sweep as JSON (breakpoints
// included, ascending) carries the results `explore` prints at its value.
// With --max-points 1 the search for breakpoints stops at once: the text
// names the exact part around 0.005 and why it stopped.
func TestSweepMinActivationDefault(t *testing.T) {
	args := []string{"sweep", "--param", "min-activation", "--seed", "N2006=0.85", "--tags", "demand_forecasting,stockout,safety_stock,inventory_policy"}
	code, out, errs := run(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"exact over the whole range", "\n* 0.005 ", "^ min-activation 0.005"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = run(t, append(args, "--format", "json")...)
	if code != 0 {
		t.Fatalf("json: exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	breaks, last := 0, 0.0
	for i, line := range lines {
		var pt struct {
			Value      float64           `json:"value"`
			Breakpoint bool              `json:"breakpoint"`
			Results    []json.RawMessage `json:"results"`
		}
		if err := json.Unmarshal([]byte(line), &pt); err != nil {
			t.Fatal(err)
		}
		if i > 0 && pt.Value <= last {
			t.Fatalf("line %d: value %v after %v", i+1, pt.Value, last)
		}
		last = pt.Value
		if pt.Breakpoint {
			breaks++
		}
		_, exp, _ := run(t, "explore", "--format", "json", "--min-activation", fmt.Sprint(pt.Value), "--seed", "N2006=0.85",
			"--tags", "demand_forecasting,stockout,safety_stock,inventory_policy")
		if len(pt.Results) != 1 || exp != string(pt.Results[0])+"\n" {
			t.Fatalf("min-activation %v: sweep result differs from explore:\n%s\nexplore:\n%s", pt.Value, pt.Results, exp)
		}
	}
	if breaks == 0 {
		t.Fatalf("no breakpoint among %d lines", len(lines))
	}
	code, out, errs = run(t, append(args, "--max-points", "1")...)
	if code != 0 {
		t.Fatalf("--max-points 1: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "; grid only elsewhere (stopped: point limit)\n") || !strings.Contains(out, "exact in ") {
		t.Errorf("--max-points 1 does not say which part is exact:\n%s", out)
	}
}
