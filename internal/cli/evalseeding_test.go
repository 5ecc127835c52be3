package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/retriever/registry"
	"github.com/memoria-graph/memoria/testkit/toyretriever"
)

// vpnQuery is the demo graph's "vpn" query (testdata/demo-queries.jsonl)
// with a question: "T4004", which with --name-properties id the exact
// matcher scores 1 on node T4004 alone (no text holds the token t4004, so
// bm25 finds nothing, and token's Jaccard is 1 there and 0 elsewhere): the
// gather's one seed is T4004, R 1.
const vpnQuery = `{"id": "vpn", "seeds": [{"node_id": "T4003", "score": 1}], "query": "T4004", "tags": ["it_support", "vpn"], "relevant": {"T4006": 2, "T4005": 2, "T4004": 1, "T4007": 1}}` + "\n"

// vpnFiles writes vpnQuery and a retrieval log, "prod", answering the vpn
// query with T4005 and X.
func vpnFiles(t *testing.T) (queries, log string) {
	t.Helper()
	dir := t.TempDir()
	queries, log = filepath.Join(dir, "q.jsonl"), filepath.Join(dir, "prod.jsonl")
	if err := os.WriteFile(queries, []byte(vpnQuery), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(log, []byte(`{"query": "vpn", "hits": [{"node_id": "T4005", "score": 1}, {"node_id": "X", "score": 0.5}]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return queries, log
}

type whereRow struct {
	Retriever string             `json:"retriever"`
	Mean      map[string]float64 `json:"mean"`
	Seeded    int                `json:"seeded"`
	Found     int                `json:"found"`
	Lost      map[string]int     `json:"lost"`
}

// TestEvalSeedingBothAndWhere works --seeding both and where the relevant
// nodes went by hand, on the demo graph's vpn component: T4003 -0.9->
// T4004 -0.7-> T4005 -0.66-> T4006, T4004 -0.4-> T4003, and T4003 -> T4007
// with no weight (0.01, the memoria schema's default). Relevant: T4006 2,
// T4005 2, T4004 1, T4007 1 (R = 4). --top-k 2, --k 2.
//
//   - expansion (one hop), from T4003 (given): the whole ranking is T4003,
//     T4004 (1 × 0.9 × 0.6 × 0.8 = 0.432), T4007 (0.01 × 0.48 = 0.0048); the
//     top 2 are T4003, T4004: found 1 (T4004), cut 1 (T4007), unreached 2
//     (T4005 and T4006 are two and three hops away).
//   - expansion from T4004 (gathered): T4004 (1), T4003 (0.432), T4005
//     (0.7 × 0.48 = 0.336): seeded 1 (T4004), found 0, cut 1 (T4005),
//     unreached 2 (T4006, T4007: two hops).
//   - ppr ranks the whole component (5 nodes) from either seed; its top 2
//     are the seed and its heaviest neighbour (T4004 from T4003; T4003,
//     with 0.9 + 0.4 against T4005's 0.7, from T4004): given found 1, cut
//     3; gathered seeded 1, found 0, cut 3; unreached 0 both.
//   - Metrics, grades as gains (trec_eval): IDCG@2 = 2 + 2/log2 3 = 3.2619.
//     Given, T4004 at rank 2: nDCG@2 = (1/log2 3)/3.2619 = 0.1934, MRR 1/2,
//     AP = (1/2)/4 = 0.125. Gathered, T4004 at rank 1: nDCG@2 = 1/3.2619 =
//     0.3066, MRR 1, AP = 1/4 = 0.25. The gather's cost for expansion:
//     nDCG@2 +0.1131, MRR +0.5, MAP +0.125, P@2 0 (1/2 both).
//   - A logged run answering T4005 and X: seeded 0 (against the given seed
//     T4003), found 1, not found 3.
func TestEvalSeedingBothAndWhere(t *testing.T) {
	qs, logf := vpnFiles(t)
	code, out, errs := run(t, "eval", "--queries", qs, "--retrievers", "expansion,ppr", "--top-k", "2", "--k", "2",
		"--seeding", "both", "--name-properties", "id", "--run", logf, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Seeding    string     `json:"seeding"`
		Runs       []whereRow `json:"runs"`
		GatherCost []struct {
			Retriever string             `json:"retriever"`
			Diff      map[string]float64 `json:"diff"`
		} `json:"gather_cost"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name                  string
		seeded, found         int
		lost                  map[string]int
		ndcg, mrr, apAtQuery4 float64
	}{
		{"expansion", 0, 1, map[string]int{"cut": 1, "unreached": 2}, 0.1934, 0.5, 0.125},
		{"ppr", 0, 1, map[string]int{"cut": 3, "unreached": 0}, 0.1934, 0.5, 0.125},
		{"expansion@gathered", 1, 0, map[string]int{"cut": 1, "unreached": 2}, 0.3066, 1, 0.25},
		{"ppr@gathered", 1, 0, map[string]int{"cut": 3, "unreached": 0}, 0.3066, 1, 0.25},
		{"prod", 0, 1, map[string]int{"not_found": 3}, -1, -1, -1},
	}
	if rep.Seeding != "both" || len(rep.Runs) != len(want) {
		t.Fatalf("seeding %q, rows %+v", rep.Seeding, rep.Runs)
	}
	for i, w := range want {
		r := rep.Runs[i]
		if r.Retriever != w.name || r.Seeded != w.seeded || r.Found != w.found || !sameCounts(r.Lost, w.lost) {
			t.Errorf("row %d: %+v, want %s seeded %d found %d lost %v", i, r, w.name, w.seeded, w.found, w.lost)
		}
		if w.ndcg >= 0 && (round4(r.Mean["nDCG@2"]) != w.ndcg || r.Mean["MRR"] != w.mrr || r.Mean["MAP"] != w.apAtQuery4) {
			t.Errorf("%s: nDCG@2 %v MRR %v MAP %v", w.name, r.Mean["nDCG@2"], r.Mean["MRR"], r.Mean["MAP"])
		}
	}
	if len(rep.GatherCost) != 2 || rep.GatherCost[0].Retriever != "expansion" {
		t.Fatalf("gather_cost %+v", rep.GatherCost)
	}
	if d := rep.GatherCost[0].Diff; round4(d["nDCG@2"]) != 0.1131 || d["MRR"] != 0.5 || d["MAP"] != 0.125 || d["P@2"] != 0 {
		t.Errorf("expansion's gather cost %v", d)
	}
	// The text says the same, in its table of where the nodes went.
	code, out, _ = run(t, "eval", "--queries", qs, "--retrievers", "expansion", "--top-k", "2", "--k", "2",
		"--seeding", "gathered", "--name-properties", "id")
	if code != 0 || !strings.Contains(out, "expansion  1       0      1    2          -") {
		t.Errorf("exit %d, text:\n%s", code, out)
	}
}

func sameCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if bv, ok := b[k]; !ok || bv != v {
			return false
		}
	}
	return true
}

func round4(x float64) float64 {
	return float64(int64(x*10000+0.5)) / 10000
}

// TestEvalSeedingRefusals: a line without what its seeding needs is named,
// as are a mixed set without --seeding and an unknown --seeding.
func TestEvalSeedingRefusals(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	seedsOnly := `{"id": "a", "seeds": [{"node_id": "T4003", "score": 1}], "relevant": {"T4004": 1}}` + "\n"
	textOnly := `{"id": "b", "query": "vpn", "relevant": {"T4004": 1}}` + "\n"
	punct := `{"id": "c", "query": "?!", "relevant": {"T4004": 1}}` + "\n"
	for _, c := range []struct {
		name, file string
		args       []string
		want       string
	}{
		{"mixed", write("mixed.jsonl", seedsOnly+textOnly), nil, "say which to run with --seeding given, gathered or both"},
		{"given", write("text.jsonl", textOnly), []string{"--seeding", "given"}, `line 1 (query "b") has no "seeds", which --seeding given runs from`},
		{"gathered", write("seeds.jsonl", seedsOnly), []string{"--seeding", "gathered"}, `line 1 (query "a") has no "query" text`},
		{"both", write("seeds2.jsonl", seedsOnly), []string{"--seeding", "both"}, `no line of --queries`},
		{"unknown", write("seeds3.jsonl", seedsOnly), []string{"--seeding", "all"}, `unknown --seeding "all"`},
		{"punctuation", write("punct.jsonl", punct), nil, `line 1 (query "c"): query 1 has no letter or digit to match`},
	} {
		code, _, errs := run(t, append([]string{"eval", "--queries", c.file}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, stderr %q, want %q", c.name, code, errs, c.want)
		}
	}
}

// TestEvalWhyNotForRuns: a logged run on the vpn query answers T4005 and X;
// its relevant misses, by grade then id, are T4006 (2), T4004 and T4007
// (1). ppr, run from the given seed T4003 at K 2, ranks the component
// T4003, T4004, T4005, T4006, T4007 (shares 0.6038, 0.3158, 0.0629,
// 0.0153, 0.0023: `explore --retriever ppr --seed T4003`): T4006 cut at
// rank 4, T4004 kept at rank 2, T4007 cut at rank 5.
func TestEvalWhyNotForRuns(t *testing.T) {
	qs, logf := vpnFiles(t)
	code, out, errs := run(t, "eval", "--queries", qs, "--retrievers", "expansion", "--top-k", "2", "--k", "2", "--run", logf, "--why-not", "ppr", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		WhyNot struct {
			Retriever string `json:"retriever"`
			Misses    []struct {
				Run, Query string
				Answer     struct {
					NodeID  string `json:"node_id"`
					Verdict string `json:"verdict"`
					Rank    int    `json:"rank"`
				} `json:"answer"`
			} `json:"misses"`
		} `json:"why_not"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		node, verdict string
		rank          int
	}{{"T4006", "cut", 4}, {"T4004", "kept", 2}, {"T4007", "cut", 5}}
	if rep.WhyNot.Retriever != "ppr" || len(rep.WhyNot.Misses) != len(want) {
		t.Fatalf("why_not %+v", rep.WhyNot)
	}
	for i, w := range want {
		m := rep.WhyNot.Misses[i]
		if m.Run != "prod" || m.Query != "vpn" || m.Answer.NodeID != w.node || m.Answer.Verdict != w.verdict || m.Answer.Rank != w.rank {
			t.Errorf("miss %d: %+v, want %+v", i, m, w)
		}
	}
	if code, _, errs := run(t, "eval", "--queries", qs, "--why-not", "ppr"); code != 2 || !strings.Contains(errs, "give --queries and --run") {
		t.Errorf("without --run: exit %d, %s", code, errs)
	}
	if code, _, errs := run(t, "eval", "--queries", qs, "--run", logf, "--why-not", "nope"); code != 2 || !strings.Contains(errs, `unknown --why-not "nope"`) {
		t.Errorf("unknown retriever: exit %d, %s", code, errs)
	}
}

// TestEvalWhereWithoutProbe: a retriever that does not answer the query's
// Probe (the toy "degree", testkit/toyretriever: the seeds and their
// RELATES neighbours, by degree) is run again at its whole-ranking K to
// tell cut from unreached. The safety-stock query's seed N2006 has four
// RELATES neighbours, N2003, N2004, N2005 and N2007, all relevant; its
// four other relevant nodes (N2001, N2002, N2014, N2017) are not among
// them. With --top-k 2 at most two come back (found), the others of the
// four are ranked below K (cut), and those four are unreached: found + cut
// = 4, unreached = 4, seeded 0.
func TestEvalWhereWithoutProbe(t *testing.T) {
	defer registry.Register(&toyretriever.DegreeSpec)()
	qs := filepath.Join(t.TempDir(), "q.jsonl")
	line := `{"id": "safety-stock", "seeds": [{"node_id": "N2006", "score": 0.85}], "relevant": {"N2003": 2, "N2001": 2, "N2002": 2, "N2014": 1, "N2004": 1, "N2005": 1, "N2017": 1, "N2007": 1}}` + "\n"
	if err := os.WriteFile(qs, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, "eval", "--queries", qs, "--retrievers", "degree", "--top-k", "2", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Runs []whereRow `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	r := rep.Runs[0]
	if r.Seeded != 0 || r.Found+r.Lost["cut"] != 4 || r.Lost["unreached"] != 4 || r.Found > 2 || r.Lost["cut"] < 2 {
		t.Errorf("degree: %+v", r)
	}
}
