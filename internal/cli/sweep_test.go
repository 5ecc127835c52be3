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
func TestSweepJSONEqualsExplore(t *testing.T) {
	seeds := []string{"--seed", "N2006=0.85", "--seed", "T3000=0.9", "--tags", "campaign,stockout"}
	code, out, errs := run(t, append([]string{"sweep", "--param", "max-branches", "--values", "1,2,5", "--format", "json"}, seeds...)...)
	if code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3:\n%s", len(lines), out)
	}
	for i, v := range []string{"1", "2", "5"} {
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
func TestSweepCSVDemo(t *testing.T) {
	code, out, errs := run(t, "sweep", "--seed", "N2006=0.85", "--tags", "demand_forecasting,stockout,safety_stock,inventory_policy",
		"--param", "max-depth", "--values", "2,1", "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rows := strings.Split(strings.TrimSpace(out), "\n")
	if len(rows) != 3 || rows[0] != "param,value,breakpoint,paths,nodes_reached,summed_energy" ||
		!strings.HasPrefix(rows[1], "max-depth,1,false,3,3,0.2603") || !strings.HasPrefix(rows[2], "max-depth,2,false,3,5,") {
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
	} {
		code, _, errs := run(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.msg)
		}
	}
}
