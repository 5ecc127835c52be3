package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// evalReport is what the run tests read of eval's JSON: each row's name
// and means.
type evalReport struct {
	Runs []struct {
		Retriever string             `json:"retriever"`
		Mean      map[string]float64 `json:"mean"`
	} `json:"runs"`
}

func evalMeans(t *testing.T, out string) evalReport {
	t.Helper()
	var rep evalReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestEvalRunsAlone: `eval --qrels --run` with no graph and no query set,
// on trec_eval's own test files (retriever/eval/testdata/trec_eval): the
// STANDARD run's P@10, recall@10, nDCG@10, MRR and MAP over the three
// queries are what `trec_eval -m all_trec -q` printed for all (out.test.aq:
// 0.3000, 0.0317, 0.3016, 0.4064, 0.1785).
func TestEvalRunsAlone(t *testing.T) {
	const dir = "../../retriever/eval/testdata/trec_eval/"
	code, out, errs := run(t, "eval", "--qrels", dir+"qrels.test", "--run", dir+"results.test", "--k", "10", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rep := evalMeans(t, out)
	if len(rep.Runs) != 1 || rep.Runs[0].Retriever != "STANDARD" {
		t.Fatalf("runs %+v", rep.Runs)
	}
	for m, want := range map[string]string{"P@10": "0.3000", "recall@10": "0.0317", "nDCG@10": "0.3016", "MRR": "0.4064", "MAP": "0.1785"} {
		if got := fmt.Sprintf("%.4f", rep.Runs[0].Mean[m]); got != want {
			t.Errorf("%s: %s, trec_eval %s", m, got, want)
		}
	}
}

// TestEvalRunBeside: ppr's run on the demo query set, written by `eval
// --format trec`, its tag renamed "prod", read back with --run beside the
// retrievers ppr and spreading: the prod row is ppr's to the last digit
// (the same ranking, so a mean difference of 0 and p = 1), and a run that
// answers a query the set lacks and lacks one of the set's is named on
// stderr, the lacking query counting 0.
func TestEvalRunBeside(t *testing.T) {
	dir := t.TempDir()
	if code, _, errs := run(t, "eval", "--queries", "../../testdata/demo-queries.jsonl", "--retrievers", "ppr", "--format", "trec", "--out", dir); code != 0 {
		t.Fatalf("trec: %s", errs)
	}
	b, err := os.ReadFile(filepath.Join(dir, "ppr.run"))
	if err != nil {
		t.Fatal(err)
	}
	prod := filepath.Join(dir, "prod.run")
	if err := os.WriteFile(prod, []byte(strings.ReplaceAll(string(b), " ppr\n", " prod\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, "eval", "--queries", "../../testdata/demo-queries.jsonl", "--retrievers", "ppr,spreading", "--run", prod, "--format", "json")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rep := evalMeans(t, out)
	if len(rep.Runs) != 3 || rep.Runs[2].Retriever != "prod" {
		t.Fatalf("runs %+v", rep.Runs)
	}
	for m, v := range rep.Runs[0].Mean {
		if rep.Runs[2].Mean[m] != v {
			t.Errorf("%s: prod %v, ppr %v", m, rep.Runs[2].Mean[m], v)
		}
	}
	if !strings.Contains(out, `"against":"ppr"`) {
		t.Errorf("no comparison against ppr:\n%s", out)
	}

	odd := filepath.Join(dir, "odd.run")
	if err := os.WriteFile(odd, []byte("safety-stock Q0 N2003 1 1 odd\nnot-a-query Q0 N2003 1 1 odd\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = run(t, "eval", "--queries", "../../testdata/demo-queries.jsonl", "--retrievers", "ppr", "--run", odd)
	if code != 0 || !strings.Contains(errs, `run "odd" answers queries that are not judged, ignored: "not-a-query"`) ||
		!strings.Contains(errs, `run "odd" does not answer "reorder-points", "launch-plan"`) {
		t.Errorf("exit %d, stderr %s", code, errs)
	}
}

// TestEvalRunRefusals: --run without --queries needs --qrels and runs no
// retriever; a run named as a retriever is refused; a bad run line is
// named with its file and line.
func TestEvalRunRefusals(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.run")
	if err := os.WriteFile(bad, []byte("q1 Q0 d1 1 0.5 A\nq1 Q0 d1 1 0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	named := filepath.Join(dir, "named.run")
	if err := os.WriteFile(named, []byte("safety-stock Q0 N2003 1 1 ppr\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"eval", "--run", bad}, ExitUsage, "eval: --run without --queries measures the runs against --qrels: give --qrels FILE"},
		{[]string{"eval", "--run", bad, "--qrels", "x", "--retrievers", "ppr"}, ExitUsage, "eval: --retrievers runs retrievers on a graph, which needs --queries"},
		{[]string{"eval", "--queries", "../../testdata/demo-queries.jsonl", "--retrievers", "ppr", "--run", named}, ExitUsage, `a run or retriever is named "ppr" already`},
		{[]string{"eval", "--queries", "../../testdata/demo-queries.jsonl", "--retrievers", "ppr", "--run", bad}, ExitRuntime, "bad.run: line 2: want 6 fields"},
	} {
		code, _, errs := run(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want exit %d saying %q", c.args, code, errs, c.code, c.want)
		}
	}
}

// TestEvalHonestComparisons: eval of ppr, spreading and expansion on the
// demo query set. Each p_holm is Holm's adjustment of the two p of its
// metric (recomputed here: sorted, the smaller × 2, the larger × 1, each at
// least the one before, at most 1); the markdown table bolds each metric's
// best mean and marks † exactly the cells whose p_holm is below
// --significance; every mean lies inside its bootstrap interval.
func TestEvalHonestComparisons(t *testing.T) {
	args := []string{"eval", "--queries", "../../testdata/demo-queries.jsonl", "--retrievers", "ppr,spreading,expansion", "--k", "10"}
	code, out, errs := run(t, append(args, "--format", "json")...)
	if code != 0 {
		t.Fatal(errs)
	}
	var rep struct {
		Metrics []string `json:"metrics"`
		Runs    []struct {
			Retriever string                `json:"retriever"`
			Mean      map[string]float64    `json:"mean"`
			CI        map[string][2]float64 `json:"ci"`
			Versus    *struct {
				P     map[string]float64 `json:"p"`
				PHolm map[string]float64 `json:"p_holm"`
			} `json:"versus_first"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	for _, m := range rep.Metrics {
		p1, p2 := rep.Runs[1].Versus.P[m], rep.Runs[2].Versus.P[m]
		lo, hi := min(p1, p2), max(p1, p2)
		adjLo, adjHi := min(1, 2*lo), max(min(1, 2*lo), hi)
		want1, want2 := adjHi, adjHi
		if p1 <= p2 {
			want1 = adjLo
		} else {
			want2 = adjLo
		}
		if rep.Runs[1].Versus.PHolm[m] != want1 || rep.Runs[2].Versus.PHolm[m] != want2 {
			t.Errorf("%s: p %v %v, p_holm %v %v, want %v %v", m, p1, p2, rep.Runs[1].Versus.PHolm[m], rep.Runs[2].Versus.PHolm[m], want1, want2)
		}
		for _, r := range rep.Runs {
			if ci := r.CI[m]; !(ci[0] <= r.Mean[m] && r.Mean[m] <= ci[1]) {
				t.Errorf("%s %s: mean %v outside %v", r.Retriever, m, r.Mean[m], ci)
			}
		}
	}
	code, md, errs := run(t, append(args, "--format", "markdown", "--significance", "0.05")...)
	if code != 0 {
		t.Fatal(errs)
	}
	for i, r := range rep.Runs {
		line := ""
		for _, l := range strings.Split(md, "\n") {
			if strings.HasPrefix(l, "| "+r.Retriever+" |") {
				line = l
			}
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")[1:]
		for j, m := range rep.Metrics {
			best := true
			for _, o := range rep.Runs {
				best = best && o.Mean[m] <= r.Mean[m]
			}
			marked := i > 0 && r.Versus.PHolm[m] < 0.05
			if strings.Contains(cells[j], "**") != best || strings.Contains(cells[j], "†") != marked {
				t.Errorf("%s %s: cell %q, best %v, marked %v", r.Retriever, m, cells[j], best, marked)
			}
		}
	}
	if code, _, errs := run(t, append(args, "--significance", "1")...); code != ExitUsage || !strings.Contains(errs, "--significance must be in (0, 1)") {
		t.Errorf("--significance 1: exit %d, %s", code, errs)
	}
}
