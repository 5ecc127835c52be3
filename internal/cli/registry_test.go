package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/registry"
)

// degreeParams are the toy retriever's parameters: the least RELATES
// degree a node needs, and K.
type degreeParams struct{ MinDegree, TopK int }

// degreeSpec is a toy retriever written the way a new one would be (its
// own package's one file, then one line in the registry; here
// registry.Register stands for that line): the seeds and the nodes one
// RELATES hop from them, each scored by its RELATES degree, those of at
// least --min-degree kept, ranked by the one ranking rule.
var degreeSpec = retriever.Define(retriever.Definition[degreeParams]{
	Name:     "degree",
	Purpose:  "the nodes within one hop of the seeds, by degree",
	Defaults: func() degreeParams { return degreeParams{MinDegree: 1, TopK: 10} },
	Rows: []retriever.Row[degreeParams]{
		{Param: retriever.Param{Flag: "min-degree", Label: "MIN_DEGREE", Range: "≥0", Whole: true, Usage: "the least degree `D` kept",
			Grid: retriever.Grid{From: 1, To: 5, Steps: 5}, Step: retriever.StepWhole(0, 100)},
			Get: func(p degreeParams) float64 { return float64(p.MinDegree) }, Set: func(p *degreeParams, v float64) { p.MinDegree = int(v) }},
		retriever.TopKRow(func(p degreeParams) int { return p.TopK }, func(p *degreeParams, k int) { p.TopK = k }),
	},
	Validate: func(p degreeParams) error {
		if p.MinDegree < 0 || p.TopK < 1 {
			return fmt.Errorf("min degree must be at least 0 and top k at least 1, got %d and %d", p.MinDegree, p.TopK)
		}
		return nil
	},
	Equal: func(a, b degreeParams) bool { return a == b },
	Fields: func(p degreeParams) retriever.Fields {
		return retriever.Fields{{Name: "min_degree", Value: p.MinDegree}, {Name: "top_k", Value: p.TopK}}
	},
	TopK:    func(p degreeParams) int { return p.TopK },
	SetTopK: func(p *degreeParams, k int) { p.TopK = k },
	Run: func(ctx context.Context, env retriever.Env, q retriever.Query, p degreeParams) (retriever.Ranking, error) {
		out := retriever.Ranking{Retriever: "degree", Params: retriever.Fields{{Name: "min_degree", Value: p.MinDegree}, {Name: "top_k", Value: p.TopK}}}
		err := env.Neighbourhood.Read(ctx, func(r graph.Reader) error {
			ids := make([]string, len(q.Seeds))
			for i, s := range q.Seeds {
				ids[i] = s.NodeID
			}
			seeds, err := r.Nodes(ctx, ids)
			if err != nil {
				return err
			}
			rels, err := r.Around(ctx, seeds)
			if err != nil {
				return err
			}
			nodes, seen := slices.Clone(seeds), map[string]bool{}
			for _, s := range seeds {
				seen[s.Node.ID] = true
			}
			for _, rel := range rels {
				if rel.Edge.Type == graph.Relates && !seen[rel.To.Node.ID] {
					seen[rel.To.Node.ID] = true
					nodes = append(nodes, rel.To)
				}
			}
			deg, err := r.Degrees(ctx, nodes, graph.Relates)
			if err != nil {
				return err
			}
			var hits []retriever.Hit
			for i, n := range nodes {
				if deg[i] >= int64(p.MinDegree) {
					hits = append(hits, retriever.Hit{NodeID: n.Node.ID, Score: float64(deg[i]), Labels: n.Node.Labels, Seed: n.Node.ID,
						Origin: retriever.OriginExpanded, Terms: []retriever.Term{{Name: "degree", Value: float64(deg[i])}}, Node: n.Node})
				}
			}
			out.Hits, _ = retriever.Rank(hits, p.TopK)
			return nil
		})
		return out, err
	},
})

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
// min-degree (a point per value), why --retriever (a verdict), and fusion,
// which can fuse it.
func TestRegistryAddsARetriever(t *testing.T) {
	unregister := registry.Register(&degreeSpec)
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
