package cli

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/memoria-graph/memoria/retriever/eval"
)

// demoQueries is the demo graph's query set (docs/DEMO_GRAPH.md, "Queries
// judged by hand").
const demoQueries = "../../testdata/demo-queries.jsonl"

// evalOut is what `eval --format json` prints.
type evalOut struct {
	Metrics []string `json:"metrics"`
	Runs    []struct {
		Retriever        string             `json:"retriever"`
		Mean             map[string]float64 `json:"mean"`
		MeanHits         float64            `json:"mean_hits"`
		MeanContextChars float64            `json:"mean_context_chars"`
		Versus           *struct {
			Diff map[string]float64 `json:"diff"`
			P    map[string]float64 `json:"p"`
		} `json:"versus_first"`
		Queries []struct {
			ID           string             `json:"id"`
			Values       map[string]float64 `json:"values"`
			Hits         int                `json:"hits"`
			ContextChars int                `json:"context_chars"`
		} `json:"queries"`
	} `json:"runs"`
	Missing []struct {
		Query  string `json:"query"`
		NodeID string `json:"node_id"`
		Seed   bool   `json:"seed"`
	} `json:"missing"`
}

// readDemoQueries parses the demo query set.
func readDemoQueries(t *testing.T) []eval.Query {
	t.Helper()
	data, err := os.ReadFile(demoQueries)
	if err != nil {
		t.Fatal(err)
	}
	qs, err := eval.ParseQueries(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return qs
}

// exploreArgs are explore's arguments for query q with retriever name and
// its flags.
func exploreArgs(q eval.Query, name, format string, own ...string) []string {
	args := []string{"explore", "--retriever", name, "--format", format}
	for _, s := range q.Seeds {
		args = append(args, "--seed", s.NodeID+"="+strconv.FormatFloat(s.Score, 'g', -1, 64))
	}
	if len(q.Tags) > 0 {
		args = append(args, "--tags", strings.Join(q.Tags, ","))
	}
	return append(args, own...)
}

// TestEvalAgreesWithExplore: `memoria eval` of the demo query set with
// four retrievers (each with a flag of its own) gives, for every query
// and retriever, the metrics computed from the ranking `explore --retriever
// NAME --format ranking` prints for that query's seeds and tags, the hits
// it holds and the characters `explore --format llm` prints; the means are
// those rows' means; the first retriever has no comparison, the others
// one per metric with p in (0, 1].
func TestEvalAgreesWithExplore(t *testing.T) {
	names := []string{"activation", "expansion", "spreading", "ppr"}
	own := map[string][]string{
		"activation": {"--max-depth", "4"},
		"expansion":  {"--max-hops", "2", "--top-k", "8"},
		"spreading":  {"--pulses", "3", "--top-k", "8"},
		"ppr":        {"--damping", "0.6", "--top-k", "8"},
	}
	code, out, errs := run(t, "eval", "--queries", demoQueries, "--retrievers", strings.Join(names, ","), "--format", "json",
		"--k", "3,5", "--top-k", "8", "--max-depth", "4", "--max-hops", "2", "--pulses", "3", "--damping", "0.6")
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, errs)
	}
	got := decodeJSON[evalOut](t, out)
	qs := readDemoQueries(t)
	metrics := eval.Metrics([]int{3, 5})
	if len(got.Runs) != len(names) || len(got.Metrics) != len(metrics) {
		t.Fatalf("%d runs, metrics %v", len(got.Runs), got.Metrics)
	}
	for r, name := range names {
		rep := got.Runs[r]
		if rep.Retriever != name || len(rep.Queries) != len(qs) {
			t.Fatalf("run %d: %s with %d queries", r, rep.Retriever, len(rep.Queries))
		}
		if (r == 0) != (rep.Versus == nil) {
			t.Errorf("%s: versus_first %v", name, rep.Versus)
		}
		means := make([]float64, len(metrics))
		for i, q := range qs {
			code, eout, eerrs := run(t, exploreArgs(q, name, "ranking", own[name]...)...)
			if code != 0 {
				t.Fatalf("explore %s %s: exit %d: %s", name, q.ID, code, eerrs)
			}
			var ids []string
			for _, h := range decodeRanking(t, eout).Hits {
				ids = append(ids, h.NodeID)
			}
			row := rep.Queries[i]
			if row.ID != q.ID || row.Hits != len(ids) {
				t.Errorf("%s %s: row %s with %d hits, explore %d", name, q.ID, row.ID, row.Hits, len(ids))
			}
			for m, metric := range metrics {
				want := metric.Value(ids, q.Relevant)
				if g := row.Values[metric.Name()]; math.Abs(g-want) > 1e-12 {
					t.Errorf("%s %s %s = %v, from explore's ranking %v", name, q.ID, metric.Name(), g, want)
				}
				means[m] += want / float64(len(qs))
			}
			_, llm, _ := run(t, exploreArgs(q, name, "llm", own[name]...)...)
			if name == "activation" {
				llm = strings.TrimSuffix(llm, "\n") // explore's Println after the context
			}
			if n := utf8.RuneCountInString(llm); row.ContextChars != n {
				t.Errorf("%s %s: context %d characters, explore --format llm %d", name, q.ID, row.ContextChars, n)
			}
		}
		for m, metric := range metrics {
			if g := rep.Mean[metric.Name()]; math.Abs(g-means[m]) > 1e-12 {
				t.Errorf("%s mean %s = %v, want %v", name, metric.Name(), g, means[m])
			}
			if rep.Versus != nil {
				p := rep.Versus.P[metric.Name()]
				diff := rep.Versus.Diff[metric.Name()]
				if p <= 0 || p > 1 || math.Abs(diff-(rep.Mean[metric.Name()]-got.Runs[0].Mean[metric.Name()])) > 1e-12 {
					t.Errorf("%s %s: diff %v, p %v", name, metric.Name(), diff, p)
				}
			}
		}
	}
	if len(got.Missing) != 0 {
		t.Errorf("the demo queries name nodes the graph lacks: %v", got.Missing)
	}
	// The text report is the same report: the same query set twice gives
	// the same text (the randomization test's seed is fixed).
	_, a, _ := run(t, "eval", "--queries", demoQueries, "--retrievers", "activation,ppr")
	_, b, _ := run(t, "eval", "--queries", demoQueries, "--retrievers", "activation,ppr")
	if a != b || !strings.HasPrefix(a, "8 queries, ") {
		t.Errorf("two runs of the text report differ or it starts wrong:\n%s\n%s", a, b)
	}
}

// TestEvalTrec: --format trec writes one run file per retriever and the
// qrels: one line per hit of the JSON report's rows, ranks from 1, scores
// strictly decreasing also as float32, no temporary file left; the qrels
// file holds every judgment of the query set. trec_eval -c over them gives
// the report's means (checked by hand in docs/EVALUATION.md; here the
// lines).
func TestEvalTrec(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs")
	args := []string{"eval", "--queries", demoQueries, "--retrievers", "activation,ppr,fusion"}
	code, out, errs := run(t, append(args, "--format", "trec", "--out", dir)...)
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, errs)
	}
	want := filepath.Join(dir, "activation.run") + "\n" + filepath.Join(dir, "ppr.run") + "\n" + filepath.Join(dir, "fusion.run") + "\n" + filepath.Join(dir, "qrels") + "\n"
	if out != want {
		t.Errorf("printed %q, want %q", out, want)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 4 {
		t.Errorf("%d files in --out: %v", len(entries), entries)
	}
	_, js, _ := run(t, append(args, "--format", "json")...)
	report := decodeJSON[evalOut](t, js)
	qs := readDemoQueries(t)
	for _, r := range report.Runs {
		data, err := os.ReadFile(filepath.Join(dir, r.Retriever+".run"))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		k := 0
		for _, row := range r.Queries {
			prev := float32(math.Inf(1))
			for rank := 1; rank <= row.Hits; rank++ {
				f := strings.Fields(lines[k])
				k++
				if len(f) != 6 || f[0] != row.ID || f[1] != "Q0" || f[3] != strconv.Itoa(rank) || f[5] != r.Retriever {
					t.Fatalf("%s line %d: %q", r.Retriever, k, lines[k-1])
				}
				s, err := strconv.ParseFloat(f[4], 32)
				if err != nil || float32(s) >= prev {
					t.Errorf("%s line %d: score %s not below %v", r.Retriever, k, f[4], prev)
				}
				prev = float32(s)
			}
		}
		if k != len(lines) {
			t.Errorf("%s: %d lines, %d hits", r.Retriever, len(lines), k)
		}
	}
	qrels, err := os.ReadFile(filepath.Join(dir, "qrels"))
	if err != nil {
		t.Fatal(err)
	}
	judged := 0
	for _, q := range qs {
		judged += len(q.Relevant)
		for id, g := range q.Relevant {
			if line := q.ID + " 0 " + id + " " + strconv.Itoa(g) + "\n"; !strings.Contains(string(qrels), line) {
				t.Errorf("qrels lack %q", line)
			}
		}
	}
	if n := strings.Count(string(qrels), "\n"); n != judged {
		t.Errorf("qrels has %d lines, %d judgments", n, judged)
	}
}

// TestEvalTrecAllOrNothing: on the hostile graph the first hit, the seed,
// has an id holding ESC and BEL, control characters a run file may not
// hold (and the next a carriage return): eval fails naming it (escaped)
// and --out holds no file, not even the qrels it could write.
func TestEvalTrecAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	qf := filepath.Join(dir, "q.jsonl")
	if err := os.WriteFile(qf, []byte(`{"id": "h", "seeds": [{"node_id": "H0\u001b]52;c;SEFDS0VE\u0007", "score": 1}], "relevant": {"H2\u202ecod.exe": 1}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, _, errs := run(t, "eval", "--graph", "../../testdata/hostile.jsonl", "--queries", qf, "--retrievers", "ppr", "--format", "trec", "--out", out)
	if code != ExitRuntime || !strings.Contains(errs, `node id "H0\x1b]52;c;SEFDS0VE\a" holds a control character`) {
		t.Errorf("exit %d: %s", code, errs)
	}
	if strings.ContainsAny(errs, "\x1b\x07\r") {
		t.Errorf("raw control characters on stderr: %q", errs)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("--out holds %v", entries)
	}
	// The text report escapes the ids.
	code, text, errs := run(t, "eval", "--graph", "../../testdata/hostile.jsonl", "--queries", qf, "--retrievers", "ppr")
	if code != 0 || strings.ContainsAny(text, "\x1b\x07\r\u202e") {
		t.Errorf("exit %d: %q %s", code, text, errs)
	}
}

// TestEvalRefusals: usage mistakes exit 2 naming the flag; a bad query set
// or qrels file exits 1 naming the file and the line.
func TestEvalRefusals(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := `{"id": "q1", "seeds": [{"node_id": "N2006", "score": 0.85}], "relevant": {"N2003": 1}}` + "\n"
	qs := write("q.jsonl", good)
	bad := write("bad.jsonl", good+`{"id": "q2", "seeds": [{"node_id": "N2006", "score": 2}], "relevant": {"N2003": 1}}`+"\n")
	none := write("none.jsonl", `{"id": "q1", "seeds": [{"node_id": "N2006", "score": 0.85}], "relevant": {"N2003": 0}}`+"\n")
	qrels := write("qrels", "q1 0 N2003 1\nq1 0 N2004\n")
	conflict := write("conflict", "q1 0 N2003 2\n")
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{}, ExitUsage, "eval: --queries FILE is required"},
		{[]string{"--queries", qs, "--seed", "N2006"}, ExitUsage, "eval: --seed does not apply: --queries gives each query's seeds"},
		{[]string{"--queries", qs, "--tags", "x"}, ExitUsage, "eval: --tags does not apply"},
		{[]string{"--queries", qs, "--query-vector", "v.json"}, ExitUsage, "eval: --query-vector does not apply: --queries gives each query's query_vector"},
		{[]string{"--queries", qs, "--retriever", "ppr"}, ExitUsage, "eval: --retriever does not apply"},
		{[]string{"--queries", qs, "--k", "0"}, ExitUsage, `eval: --k "0": want cut-offs of at least 1`},
		{[]string{"--queries", qs, "--k", "5,x"}, ExitUsage, `eval: --k "5,x"`},
		{[]string{"--queries", qs, "--k", "5,5"}, ExitUsage, "eval: --k names 5 twice"},
		{[]string{"--queries", qs, "--format", "csv"}, ExitUsage, `eval: unknown --format "csv"`},
		{[]string{"--queries", qs, "--format", "trec"}, ExitUsage, "eval: --format trec writes files: give --out DIR"},
		{[]string{"--queries", qs, "--out", dir}, ExitUsage, "eval: --out applies to --format trec"},
		{[]string{"--queries", qs, "--retrievers", "ppr", "--max-hops", "2"}, ExitUsage, "eval: --max-hops applies to expansion; --retrievers does not list it"},
		{[]string{"--queries", qs, "--retrievers", "ppr,nope"}, ExitUsage, `eval: unknown retriever "nope"`},
		{[]string{"--queries", qs, "extra"}, ExitUsage, `eval: unexpected argument "extra"`},
		{[]string{"--queries", filepath.Join(dir, "missing.jsonl")}, ExitRuntime, "eval: --queries: open"},
		{[]string{"--queries", bad}, ExitRuntime, "eval: --queries " + bad + `: line 2: query "q2": seed "N2006": score must be`},
		{[]string{"--queries", none}, ExitRuntime, `line 1: query "q1" has no relevant node`},
		{[]string{"--queries", qs, "--qrels", qrels}, ExitRuntime, "eval: --qrels " + qrels + ": line 2: want 4 fields"},
		{[]string{"--queries", qs, "--qrels", conflict}, ExitRuntime, `line 1: query "q1" grades "N2003" 1, and the qrels' line 1 grades it 2`},
	}
	for _, c := range cases {
		code, _, errs := run(t, append([]string{"eval"}, c.args...)...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("eval %v: exit %d, %q; want %d and %q", c.args, code, errs, c.code, c.want)
		}
	}
}

// TestEvalMissingAndQrels: a relevant node the graph lacks is reported and
// stays judged (recall counts it: the query's R is 2, so finding N2003 is
// recall 1/2), a seed the graph lacks is reported; the qrels add their
// grades, and judge a query the set lacks, which the report names.
func TestEvalMissingAndQrels(t *testing.T) {
	dir := t.TempDir()
	qf := filepath.Join(dir, "q.jsonl")
	qr := filepath.Join(dir, "qrels")
	os.WriteFile(qf, []byte(`{"id": "q1", "seeds": [{"node_id": "N2006", "score": 0.85}, {"node_id": "GONE", "score": 0.5}], "relevant": {"N2003": 1}}`+"\n"), 0o644)
	os.WriteFile(qr, []byte("q1 0 NOWHERE 2\nq7 0 N2003 1\n"), 0o644)
	code, text, errs := run(t, "eval", "--queries", qf, "--qrels", qr, "--retrievers", "expansion", "--k", "10")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"1 queries, 2 judged nodes, 2 relevant", "q1     0.1000  0.5000",
		"  q1 seed GONE\n  q1 relevant NOWHERE\n", "ignored: the qrels judge queries the query set lacks: q7"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
}
