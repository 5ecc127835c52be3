package cli

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/retriever/registry"
	"github.com/memoria-graph/memoria/testkit/toyretriever"
)

// naiveDegree is the toy retriever worked independently from the APOC
// file: the seed's RELATES neighbours by a scan of every relationship,
// each one's RELATES degree counted the same way (a self-loop once),
// sorted by degree, then id.
func naiveDegree(t *testing.T, seed string, minDegree int) []string {
	t.Helper()
	g, err := apoc.Parse(strings.NewReader(string(demo(t))))
	if err != nil {
		t.Fatal(err)
	}
	idOf := map[string]string{}
	for _, n := range g.Nodes {
		idOf[n.InternalID], _ = n.Properties["id"].(string)
	}
	deg := map[string]int{}
	near := map[string]bool{seed: true}
	for _, r := range g.Rels {
		if r.Type != graph.Relates {
			continue
		}
		a, b := idOf[r.Start], idOf[r.End]
		deg[a]++
		if a != b {
			deg[b]++
		}
		if a == seed {
			near[b] = true
		}
		if b == seed {
			near[a] = true
		}
	}
	var ids []string
	for id := range near {
		if deg[id] >= minDegree {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(a, b string) int {
		if deg[a] != deg[b] {
			return deg[b] - deg[a]
		}
		return strings.Compare(a, b)
	})
	return ids
}

// TestRegistryAddsARetriever: a retriever registered with no other edit
// appears, with its parameters, everywhere the registry feeds: explore
// (its ranking agrees with naiveDegree), the flag checks (its --min-degree
// is refused with another retriever, another's flag with it), compare
// --retrievers, eval (a row of its own), sweep --queries --param
// min-degree (a point per value), tune --param min-degree (a row per
// setting), why --retriever (a verdict), and fusion,
// which can fuse it.
func TestRegistryAddsARetriever(t *testing.T) {
	unregister := registry.Register(&toyretriever.DegreeSpec)
	defer unregister()

	code, out, errs := run(t, "explore", "--seed", "N2006", "--retriever", "degree", "--min-degree", "4", "--format", "ranking")
	if code != 0 {
		t.Fatalf("explore: exit %d: %s", code, errs)
	}
	var r struct {
		Hits []struct {
			NodeID string `json:"node_id"`
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range r.Hits {
		got = append(got, h.NodeID)
	}
	if want := naiveDegree(t, "N2006", 4); !slices.Equal(got, want) || len(want) < 2 {
		t.Errorf("explore --retriever degree --min-degree 4: %v, want %v (from the file)", got, want)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"explore", "--seed", "N2006", "--retriever", "ppr", "--min-degree", "2"}, "--min-degree does not apply to --retriever ppr"},
		{[]string{"explore", "--seed", "N2006", "--retriever", "degree", "--damping", "0.3"}, "--damping does not apply to --retriever degree"},
		{[]string{"explore", "--seed", "N2006", "--retriever", "degree", "--min-degree", "-1"}, "min degree must be at least 0"},
		{[]string{"explore", "--seed", "N2006", "--retriever", "nope"}, "(want activation, expansion, spreading, ppr, fusion, degree)"},
	} {
		code, _, errs := run(t, c.args...)
		if code != ExitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 saying %q", c.args, code, errs, c.want)
		}
	}

	code, out, errs = run(t, "compare", "--seed", "N2006", "--retrievers", "ppr,degree", "--format", "json")
	if code != 0 || !strings.Contains(out, `"retriever":"degree"`) || !strings.Contains(out, `"a":"ppr","b":"degree"`) {
		t.Errorf("compare --retrievers ppr,degree: exit %d, %s%s", code, errs, out)
	}

	code, out, errs = run(t, "eval", "--queries", "../../testdata/demo-queries.jsonl", "--retrievers", "degree,ppr", "--format", "json")
	if code != 0 || !strings.Contains(out, `"retriever":"degree"`) {
		t.Errorf("eval --retrievers degree,ppr: exit %d, %s%s", code, errs, out)
	}

	code, out, errs = run(t, "sweep", "--queries", "../../testdata/demo-queries.jsonl", "--retriever", "degree", "--param", "min-degree", "--values", "1,3", "--format", "csv")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[1], "min-degree,1,") || !strings.HasPrefix(lines[2], "min-degree,3,") {
		t.Errorf("sweep --param min-degree --values 1,3: exit %d, %s%s", code, errs, out)
	}
	code, _, errs = run(t, "sweep", "--queries", "../../testdata/demo-queries.jsonl", "--retriever", "degree", "--param", "pulses")
	if code != ExitUsage || !strings.Contains(errs, "want one of min-degree, top-k") {
		t.Errorf("sweep --retriever degree --param pulses: exit %d, %s", code, errs)
	}
	code, out, errs = run(t, "tune", "--queries", "../../testdata/demo-queries.jsonl", "--retriever", "degree", "--param", "min-degree", "--values", "1,3", "--folds", "2", "--format", "csv")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); code != 0 || len(lines) < 3 || lines[0] != "min-degree,mean,mean_context_chars,default,chosen,folds,fold_lo,fold_hi" {
		t.Errorf("tune --param min-degree --values 1,3: exit %d, %s%s", code, errs, out)
	}

	// N2003 is one hop from N2006 with RELATES degree 4 (naiveDegree):
	// kept by the degree ranking at K 10.
	code, out, errs = run(t, "why", "--seed", "N2006", "--node", "N2003", "--retriever", "degree", "--format", "json")
	if code != 0 || !strings.Contains(out, `"verdict":"kept"`) {
		t.Errorf("why --retriever degree: exit %d, %s%s", code, errs, out)
	}

	code, out, errs = run(t, "explore", "--seed", "N2006", "--retriever", "fusion", "--fuse", "degree,ppr", "--format", "ranking")
	if code != 0 || !strings.Contains(out, `"fuse":["degree","ppr"]`) {
		t.Errorf("fusion --fuse degree,ppr: exit %d, %s%s", code, errs, out)
	}

	code, out, _ = run(t, "explore", "--help")
	if code != 0 || !strings.Contains(out, "degree: the least degree D kept (default 1)") {
		t.Errorf("explore --help does not list --min-degree:\n%s", out)
	}
}
