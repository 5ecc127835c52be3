package eval

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
)

// trecEvalNames maps trec_eval's measure names to memoria's metrics'.
func trecEvalName(m string) (string, bool) {
	switch {
	case m == "map":
		return "MAP", true
	case m == "recip_rank":
		return "MRR", true
	case strings.HasPrefix(m, "P_"):
		return "P@" + m[2:], true
	case strings.HasPrefix(m, "recall_"):
		return "recall@" + m[7:], true
	case strings.HasPrefix(m, "ndcg_cut_"):
		return "nDCG@" + m[9:], true
	}
	return "", false
}

// TestTrecEvalSuite: trec_eval's own test suite (testdata/trec_eval, its
// README says where from): the run results.test, read by ParseRun and
// ranked as trec_eval ranks it, measured against qrels.test by Evaluate,
// gives every P_k, recall_k and ndcg_cut_k (k = 5 … 1000), recip_rank and
// map that `trec_eval -m all_trec -q` printed in out.test.aq, to the four
// decimals it prints, for each of the three queries and for all.
func TestTrecEvalSuite(t *testing.T) {
	open := func(name string) *os.File {
		f, err := os.Open("testdata/trec_eval/" + name)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	runs, err := ParseRun(open("results.test"))
	if err != nil || len(runs) != 1 || runs[0].Name != "STANDARD" {
		t.Fatalf("results.test: %d runs, %v", len(runs), err)
	}
	qrels, err := ParseQrels(open("qrels.test"))
	if err != nil {
		t.Fatal(err)
	}
	queries := QueriesOf(qrels)
	ks := []int{5, 10, 15, 20, 30, 100, 200, 500, 1000}
	rep := Evaluate(queries, []string{runs[0].Name}, [][]Outcome{runs[0].Outcomes(queries)}, ks)
	got := map[[2]string]string{}
	for j, m := range rep.Metrics {
		run := rep.Runs[0]
		got[[2]string{m.Name(), "all"}] = fmt.Sprintf("%.4f", run.Mean[j])
		for _, row := range run.Rows {
			got[[2]string{m.Name(), row.Query}] = fmt.Sprintf("%.4f", row.Values[j])
		}
	}
	checked := 0
	sc := bufio.NewScanner(open("out.test.aq"))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 3 {
			continue
		}
		name, ok := trecEvalName(f[0])
		if !ok {
			continue
		}
		v, ok := got[[2]string{name, f[1]}]
		if !ok {
			t.Errorf("%s %s: memoria does not give it", f[0], f[1])
			continue
		}
		if v != f[2] {
			t.Errorf("%s for %s: memoria %s, trec_eval %s", f[0], f[1], v, f[2])
		}
		checked++
	}
	// 29 measures (9 cut-offs × 3, recip_rank, map) for 3 queries and all.
	if checked != 29*4 {
		t.Errorf("checked %d figures of out.test.aq, want %d", checked, 29*4)
	}
}
