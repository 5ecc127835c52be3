package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGatherCommand: `gather --format json` on the demo graph lists the
// candidates best first with their matches, the first --seed-k marked
// seeds; `explore --query` starts from exactly those seeds with those R
// (said on stderr), a hand --seed's R winning over the gathered one; and
// the refusals name what is wrong. The demo nodes hold their words in
// `text` (bm25's field under memoria's preset), so bm25 finds them.
func TestGatherCommand(t *testing.T) {
	code, out, errs := run(t, "gather", "--query", "safety stock", "--seed-k", "3", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var res struct {
		Queries    []string `json:"queries"`
		Candidates []struct {
			NodeID  string  `json:"node_id"`
			Rank    int     `json:"rank"`
			R       float64 `json:"R"`
			Seed    bool    `json:"seed"`
			Matches []struct {
				Matcher string  `json:"matcher"`
				Score   float64 `json:"score"`
				Raw     float64 `json:"raw"`
			} `json:"matches"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Candidates) < 4 || res.Candidates[0].R != 1 || !res.Candidates[2].Seed || res.Candidates[3].Seed {
		t.Fatalf("candidates %+v", res.Candidates)
	}
	var seeds []string
	for _, c := range res.Candidates[:3] {
		if c.Matches[0].Matcher != "bm25" || c.Matches[0].Raw <= 0 || c.Rank < 1 {
			t.Errorf("%s: matches %+v", c.NodeID, c.Matches)
		}
		seeds = append(seeds, c.NodeID)
	}
	code, _, errs = run(t, "explore", "--query", "safety stock", "--seed-k", "3", "--seed", seeds[1]+"=0.2", "--retriever", "ppr", "--format", "ranking")
	if code != 0 || !strings.Contains(errs, "--query gathered 3 seeds: "+seeds[0]) {
		t.Fatalf("explore --query: exit %d, %s", code, errs)
	}
	_, out, _ = run(t, "explore", "--query", "safety stock", "--seed-k", "3", "--seed", seeds[1]+"=0.2", "--retriever", "ppr", "--format", "ranking")
	for _, id := range seeds {
		if !strings.Contains(out, `{"node_id":"`+id+`","score":`) {
			t.Errorf("explore --query: seed %s missing from %s", id, out[:min(400, len(out))])
		}
	}
	if !strings.Contains(out, `{"node_id":"`+seeds[1]+`","score":0.2,`) {
		t.Errorf("the hand seed's R 0.2 did not win: %s", out[:min(400, len(out))])
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"gather"}, "gather: at least one --query is required"},
		{[]string{"gather", "--query", "--"}, "--query: query 1 has no letter or digit to match"},
		{[]string{"gather", "--query", "x", "--match", "regex"}, `unknown matcher "regex"`},
		{[]string{"gather", "--query", "x", "--gather-min", "0"}, "gather min must be in (0, 1]"},
		{[]string{"explore", "--query", "zzzz"}, "--query: no node matched"},
		{[]string{"eval", "--queries", "../../testdata/demo-queries.jsonl", "--query", "x"}, "eval: --query does not apply"},
	} {
		code, _, errs := run(t, c.args...)
		if code != ExitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 saying %q", c.args, code, errs, c.want)
		}
	}
}

// TestGatherHostileQuery: a query holding a terminal escape and a node id
// holding one (testdata/hostile.jsonl: H1's text holds "title") reach the
// text output quoted, never raw.
func TestGatherHostileQuery(t *testing.T) {
	code, out, errs := run(t, "gather", "--graph", "../../testdata/hostile.jsonl", "--query", "evil\x1b]0;title\x07 text", "--match", "bm25,fuzzy,token")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.ContainsAny(out+errs, "\x1b\x07\r") {
		t.Errorf("a raw escape reached the output: %q %q", out, errs)
	}
	// H1's text holds "title": bm25 finds it, and the text shows its id
	// and the query escaped.
	for _, want := range []string{`"H1\r\x1b[2J"`, `"evil\x1b]0;title\a text"`} {
		if !strings.Contains(out, want) {
			t.Errorf("%s not in %q", want, out)
		}
	}
}

// TestWhyGatheredFirst: why --query says first whether the node was
// gathered. On the demo graph "safety stock" finds (bm25 over text) N2002
// (R 1) then N2001, N2013, N2006, N2003 (gather's own order, checked in
// TestGatherCommand's run): with --seed-k 2, N2006 is a candidate below
// --seed-k; with the default 5 a seed; T3001, whose text has neither
// word, is not gathered, each matcher's best shown. --tags auto picks the
// demo's tag safety_stock from "how much safety stock" and says so.
func TestWhyGatheredFirst(t *testing.T) {
	code, out, errs := run(t, "gather", "--query", "safety stock", "--format", "json")
	if code != 0 {
		t.Fatal(errs)
	}
	var res struct {
		Candidates []struct {
			NodeID string `json:"node_id"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Candidates) < 4 {
		t.Fatalf("%v %s", err, out)
	}
	fourth := res.Candidates[3].NodeID
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"why", "--query", "safety stock", "--seed-k", "2", "--node", fourth, "--retriever", "ppr"}, fourth + ": gathered, but not a seed: candidate #4 of"},
		{[]string{"why", "--query", "safety stock", "--node", fourth}, fourth + ": gathered as a seed (candidate #4 of"},
		{[]string{"why", "--query", "safety stock", "--node", "T3001", "--retriever", "spreading"}, `T3001: not gathered: no matcher scored it at least --gather-min 0.5 (its best: exact 0 for "safety stock"; token 0 for "safety stock"; bm25 0 for "safety stock")`},
	} {
		code, out, errs := run(t, c.args...)
		if code != 0 || !strings.HasPrefix(out, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want it to start %q", c.args, code, out, errs, c.want)
		}
	}
	code, _, errs = run(t, "explore", "--query", "how much safety stock", "--tags", "auto", "--format", "tree")
	if code != 0 || !strings.Contains(errs, `--tags auto chose 1 tags: "safety_stock"`) {
		t.Errorf("--tags auto: exit %d, %s", code, errs)
	}
	code, _, errs = run(t, "explore", "--seed", "N2006", "--tags", "auto")
	if code != ExitUsage || !strings.Contains(errs, "--tags auto takes the tags a --query names") {
		t.Errorf("--tags auto without --query: exit %d, %s", code, errs)
	}
}

// vectorGraph is three nodes with names and two-number embeddings, and
// RELATES between them: A "alpha" [1, 0], B "beta" [0, 1], C "gamma"
// [0.6, 0.8].
const vectorGraph = `{"type":"node","id":"0","labels":["Event"],"properties":{"id":"A","name":"alpha","embedding":[1,0]}}
{"type":"node","id":"1","labels":["Event"],"properties":{"id":"B","name":"beta","embedding":[0,1]}}
{"type":"node","id":"2","labels":["Event"],"properties":{"id":"C","name":"gamma","embedding":[0.6,0.8]}}
{"type":"relationship","id":"0","label":"RELATES","properties":{"weight":0.8},"start":{"id":"0","labels":["Event"]},"end":{"id":"1","labels":["Event"]}}
{"type":"relationship","id":"1","label":"RELATES","properties":{"weight":0.8},"start":{"id":"1","labels":["Event"]},"end":{"id":"2","labels":["Event"]}}
`

// TestQueryVectorEveryCommand: --query-vector beside --query adds the
// vector matcher on explore (Activation Energy and a ranking retriever),
// compare, why, sweep and the explorer's command line. On vectorGraph the
// query "alpha" with the vector [0, 1]: exact finds A (score 1; token and
// bm25 too), vector scores B cos 1, C 0.8 and A 0, so the vector list is
// B, C (Min 0.5) and the seeds are A (R 1, three lists: 3/61), B (R 1,
// 1/61) and C (R 0.8, 1/62), said on stderr; without --query-vector only
// A. And --query-vector with neither --query nor a retriever that reads
// it stays refused.
func TestQueryVectorEveryCommand(t *testing.T) {
	g := writeGraph(t, vectorGraph)
	vec := filepath.Join(t.TempDir(), "v.json")
	if err := os.WriteFile(vec, []byte("[0, 1]"), 0o600); err != nil {
		t.Fatal(err)
	}
	const three = "--query gathered 3 seeds: A (R 1), B (R 1), C (R 0.8)"
	for _, args := range [][]string{
		{"explore"},
		{"explore", "--retriever", "ppr"},
		{"compare", "--retrievers", "ppr,expansion"},
		{"why", "--node", "C"},
		{"sweep", "--param", "max-depth", "--values", "1,2"},
	} {
		base := append(slices.Clone(args), "--graph", g, "--query", "alpha")
		code, _, errs := run(t, append(base, "--query-vector", vec)...)
		if code != 0 || !strings.Contains(errs, three) {
			t.Errorf("%q: exit %d: %s", args, code, errs)
		}
		code, _, errs = run(t, base...)
		if code != 0 || !strings.Contains(errs, "--query gathered 1 seeds: A (R 1)\n") {
			t.Errorf("%q without the vector: exit %d: %s", args, code, errs)
		}
	}
	code, _, errs := run(t, "explore", "--graph", g, "--seed", "A", "--query-vector", vec)
	if code != ExitUsage || !strings.Contains(errs, "--query-vector does not apply to --retriever activation") {
		t.Errorf("without --query: exit %d: %s", code, errs)
	}
}

// TestQueryVectorExplorer: the explorer's command line takes --query-vector
// beside --query: with no terminal it opens the source, gathers (the seeds
// said on stderr, as TestQueryVectorEveryCommand's: A, B and C) and only
// then refuses to draw (exit 2).
func TestQueryVectorExplorer(t *testing.T) {
	g := writeGraph(t, vectorGraph)
	vec := filepath.Join(t.TempDir(), "v.json")
	if err := os.WriteFile(vec, []byte("[0, 1]"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errs := run(t, "--graph", g, "--query", "alpha", "--query-vector", vec)
	if code != ExitUsage || !strings.Contains(errs, "--query gathered 3 seeds: A (R 1), B (R 1), C (R 0.8)") || !strings.Contains(errs, "needs a terminal") {
		t.Errorf("exit %d: %s", code, errs)
	}
}

// TestGatherSaysTheAutoTags: memoria gather names the tags --tags auto
// would pick (issue 32's JSON "tags"): of the demo graph's tags, only
// safety_stock has its words ("safety", "stock") as a run of the words of
// "how much safety stock"; "stock" alone picks none (no tag is the one
// word "stock").
func TestGatherSaysTheAutoTags(t *testing.T) {
	for _, c := range []struct {
		query, tags string
	}{{"how much safety stock", `"tags":["safety_stock"]`}, {"stock", `"tags":[]`}} {
		code, out, errs := run(t, "gather", "--query", c.query, "--format", "json")
		if code != 0 || !strings.Contains(out, c.tags) {
			t.Errorf("%q: exit %d, %s %s", c.query, code, out, errs)
		}
	}
	code, out, _ := run(t, "gather", "--query", "how much safety stock")
	if code != 0 || !strings.Contains(out, `tags --tags auto picks: "safety_stock"`) {
		t.Errorf("text: %s", out)
	}
}
