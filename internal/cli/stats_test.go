package cli

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
)

// independentStats computes from the APOC graph what `memoria stats`
// prints, by the definitions and with none of the engine's code: sorted
// RELATES degrees (a self-loop once), and the clustering on neighbour sets
// (the simple graph).
func independentStats(t *testing.T, g *apoc.Graph) (degs []int64, clustering float64, over int) {
	t.Helper()
	deg := map[string]int64{}
	nb := map[string]map[string]bool{}
	for _, n := range g.Nodes {
		deg[n.InternalID] = 0
		nb[n.InternalID] = map[string]bool{}
	}
	for _, r := range g.Rels {
		if r.Type != "RELATES" {
			continue
		}
		deg[r.Start]++
		if r.End != r.Start {
			deg[r.End]++
			nb[r.Start][r.End], nb[r.End][r.Start] = true, true
		}
	}
	for _, d := range deg {
		degs = append(degs, d)
	}
	slices.Sort(degs)
	var sum float64
	for _, ns := range nb {
		var list []string
		for v := range ns {
			list = append(list, v)
		}
		if len(list) < 2 {
			continue
		}
		links := 0
		for i := range list {
			for j := i + 1; j < len(list); j++ {
				if nb[list[i]][list[j]] {
					links++
				}
			}
		}
		sum += 2 * float64(links) / float64(len(list)*(len(list)-1))
		over++
	}
	return degs, sum / float64(over), over
}

// TestStatsDemo: `memoria stats` on the demo graph (docs/DEMO_GRAPH.md §1:
// 57 nodes, 69 relationships = 67 RELATES + 2 MENTIONS, one self-loop on
// T4030; degrees 1: 13 nodes, 2: 21, 3: 15, 4: 7, 5: 1). By hand: degree
// sum 13 + 42 + 45 + 28 + 5 = 133 = 2 × 67 − 1, average 133 / 57 = 7/3 ≈
// 2.333; nearest ranks p50 ⌈28.5⌉ = 29 (cumulative 13, 34: degree 2), p90
// ⌈51.3⌉ = 52 (13, 34, 49, 56: degree 4), p99 ⌈56.43⌉ = 57: 5, the maximum;
// 5 > 2, so T3001 (degree 5) is the one hub. Tags: 10 + 6 + 12 = 28
// distinct. Clustering: the 44 nodes of degree ≥ 2 less T4030 (one
// neighbour and the self-loop) are 43, and independentStats computes the
// average over them from the file.
func TestStatsDemo(t *testing.T) {
	code, out, errs := run(t, "stats", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var m graph.Metrics
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	g, err := apoc.Parse(bytes.NewReader(demo(t)))
	if err != nil {
		t.Fatal(err)
	}
	degs, c, over := independentStats(t, g)
	if len(degs) != 57 || degs[28] != 2 || degs[51] != 4 || degs[56] != 5 {
		t.Fatalf("independent degrees %v", degs)
	}
	want := graph.Metrics{Nodes: 57, Relationships: 69,
		ByType:  []graph.TypeCount{{Type: "MENTIONS", Count: 2}, {Type: "RELATES", Count: 67}},
		Relates: 67, SelfLoops: 1, AverageDegree: 133.0 / 57,
		Degree: graph.DegreePercentiles{P50: 2, P90: 4, P99: 5, Max: 5},
		Histogram: []graph.DegreeCount{{Degree: 1, Nodes: 13}, {Degree: 2, Nodes: 21}, {Degree: 3, Nodes: 15},
			{Degree: 4, Nodes: 7}, {Degree: 5, Nodes: 1}},
		Tags: 28, HubDegree: 5, HubCount: 1, Hubs: []graph.NodeDegree{{ID: "T3001", Degree: 5}}}
	gotC := m.Clustering
	m.Clustering = graph.Clustering{}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("got\n%+v\nwant\n%+v", m, want)
	}
	if over != 43 || gotC.Nodes != 43 || gotC.Sampled || math.Abs(gotC.Coefficient-c) > 1e-12 {
		t.Errorf("clustering %+v; independently %v over %d", gotC, c, over)
	}

	code, out, errs = run(t, "stats")
	if code != 0 {
		t.Fatalf("text: exit %d: %s", code, errs)
	}
	for _, w := range []string{"nodes                  57\n", "  MENTIONS             2\n", "  RELATES              67 (1 self-loop)\n",
		"average degree         2.333 ", "degree p50/p90/p99     2 / 4 / 5 ", "max degree             5\n", "distinct tags          28\n",
		"clustering             0.2411 (exact, over the 43 nodes with 2+ neighbours)", "1 node of degree ≥ 5 (p99): T3001 (5)"} {
		if !strings.Contains(out, w) {
			t.Errorf("text output lacks %q:\n%s", w, out)
		}
	}
	if math.Abs(c-0.2411) > 0.00005 {
		t.Errorf("independent clustering %v does not print as 0.2411", c)
	}
}

// TestStatsUsageAndHostile: bad flags are usage errors; a hub whose id and
// a relationship type holding terminal escapes print escaped. The graph:
// a star of 3 RELATES (and one "EVIL\x1b[2J" relationship) around the node
// "H\x1b]0;x\x07": degrees 3, 1, 1, 1, p50 = 1 < p99 = 3, so H is a hub.
func TestStatsUsageAndHostile(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"stats", "--format", "xml"}, `"xml"`},
		{[]string{"stats", "--sample", "0"}, "--sample"},
		{[]string{"stats", "extra"}, `"extra"`},
	} {
		code, _, errs := run(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
	data := `{"type":"node","id":"0","labels":["Event"],"properties":{"id":"H\u001b]0;x\u0007"}}
{"type":"node","id":"1","labels":["Event"],"properties":{"id":"A"}}
{"type":"node","id":"2","labels":["Event"],"properties":{"id":"B"}}
{"type":"node","id":"3","labels":["Event"],"properties":{"id":"C"}}
{"type":"relationship","id":"0","label":"RELATES","properties":{},"start":{"id":"0"},"end":{"id":"1"}}
{"type":"relationship","id":"1","label":"RELATES","properties":{},"start":{"id":"0"},"end":{"id":"2"}}
{"type":"relationship","id":"2","label":"RELATES","properties":{},"start":{"id":"3"},"end":{"id":"0"}}
{"type":"relationship","id":"3","label":"EVIL\u001b[2J","properties":{},"start":{"id":"3"},"end":{"id":"1"}}
`
	p := filepath.Join(t.TempDir(), "hostile.jsonl")
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "json"} {
		code, out, errs := run(t, "stats", "--graph", p, "--format", format)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, errs)
		}
		if strings.ContainsAny(out, "\x1b\x07") {
			t.Errorf("%s: raw control characters in %q", format, out)
		}
		if format == "text" && (!strings.Contains(out, "1 node of degree ≥ 3") || !strings.Contains(out, `"H\x1b]0;x\a" (3)`)) {
			t.Errorf("text: %s", out)
		}
	}
}
