package render

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/retriever/eval"
)

// evalReport is two retrievers over two queries (retriever/eval's
// TestEvaluate works its numbers), with a relevant node and a seed the
// graph lacks, a query of the qrels the set lacks, and hostile text in a
// query id and a node id. The first is a retriever memoria ran, whose
// whole rankings are known: q1's A is its seed (seeded) and C among its
// hits (found), q2's X ranked below its K (cut): 1, 1, 1, 0 unreached. The
// second is another system's run: q1's C and q2's X found, q1's A not
// found: 0, 2, not found 1.
func evalReport() eval.Report {
	qs := []eval.Query{{ID: "q1", Relevant: map[string]int{"A": 2, "C": 1}}, {ID: "q2\x1b[31m", Relevant: map[string]int{"X": 1}}}
	out := [][]eval.Outcome{
		{{Ranked: []string{"A", "B", "C"}, ContextChars: 20, Seeds: []string{"A"}, Whole: true}, {ContextChars: 5, Whole: true, Below: []string{"X"}}},
		{{Ranked: []string{"C"}, ContextChars: 10}, {Ranked: []string{"Y", "X"}, ContextChars: 15}},
	}
	rep := eval.Evaluate(qs, []string{"first", "second"}, out, []int{1, 2})
	rep.Missing = []eval.Missing{{Query: "q1", NodeID: "C"}, {Query: "q2\x1b[31m", NodeID: "Z\x07 z", Seed: true}}
	rep.UnjudgedQrels = []string{"q9"}
	return rep
}

// TestEvalText: the means and cost, the comparison with the first
// retriever (nDCG@2 0.5055 − 0.3801: q1's C at rank 1 gives 1/(2 + 1/log2 3),
// q2's X at rank 2 gives 1/log2 3; MRR +0.25, MAP +1/12 = +0.0833; with two
// queries no p can go below 1/2), the per-query tables, the
// missing nodes and the ignored qrels, every id escaped.
func TestEvalText(t *testing.T) {
	text := EvalText(evalReport())
	golden(t, "eval_text", text)
	for _, want := range []string{
		"2 queries, 3 judged nodes, 3 relevant (grade ≥ 1)",
		"first      0.5000  0.2500  0.2500    0.2500    0.5000  0.3801  0.5000  0.4167  1.5   12",
		"second     diff    +0.0000  +0.2500  +0.0000   +0.5000   -0.2500  +0.1254  +0.2500  +0.0833",
		// One comparison: Holm leaves each p as it is.
		"           p_holm  1.0000   1.0000   1.0000    1.0000    1.0000   1.0000   1.0000   1.0000",
		"second     0.0000–1.0000  0.5000–0.5000",
		`q2\x1b[31m  0.0000`, `q2\x1b[31m seed "Z\a z"`, "ignored: the qrels judge queries the query set lacks: q9",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.ContainsRune(text, 0x1b) || strings.ContainsRune(text, 0x07) {
		t.Error("raw control characters in the text")
	}
}

// TestEvalJSON: the same report as JSON, metric objects in order, the
// first run without versus_first.
func TestEvalJSON(t *testing.T) {
	js, err := EvalJSON(evalReport())
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "eval_json", string(js))
	var got struct {
		Metrics []string `json:"metrics"`
		Runs    []struct {
			Mean   map[string]float64 `json:"mean"`
			Versus *struct {
				Against string             `json:"against"`
				Diff    map[string]float64 `json:"diff"`
			} `json:"versus_first"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(js, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Metrics) != 8 || got.Runs[0].Versus != nil || got.Runs[1].Versus.Against != "first" ||
		got.Runs[1].Mean["MRR"] != 0.75 || got.Runs[1].Versus.Diff["MRR"] != 0.25 {
		t.Errorf("decoded %+v", got)
	}
	if !strings.Contains(string(js), `{"P@1":0.5,"P@2":0.5,"recall@1":0.25`) {
		t.Errorf("metrics out of order: %s", js)
	}
}

// TestEvalMarkdown: three rows over two metrics, by hand: the best mean of
// each metric bold (A's 0.5 on the first, a tie of B and C at 0.8 on the
// second, both bold); a † where the Holm-adjusted p is below alpha 0.05
// (B's first metric, 0.03; C's 0.06 is not); the row name's | and * escaped.
func TestEvalMarkdown(t *testing.T) {
	rep := eval.Report{Metrics: eval.Metrics([]int{1})[:2], Queries: 12, Permutations: 10000, Alpha: 0.05, Runs: []eval.Run{
		{Retriever: "A", Mean: []float64{0.5, 0.4}},
		{Retriever: "B|*x", Mean: []float64{0.25, 0.8}, PHolm: []float64{0.03, 0.2}},
		{Retriever: "C", Mean: []float64{0.3, 0.8}, PHolm: []float64{0.06, 0.5}},
	}}
	want := "| retriever | P@1 | recall@1 |\n|---|---:|---:|\n" +
		"| A | **0.5000** | 0.4000 |\n" +
		"| B\\|\\*x | 0.2500 † | **0.8000** |\n" +
		"| C | 0.3000 | **0.8000** |\n" +
		"\n12 queries. Bold: the best mean of each metric. †: differs from A, p < 0.05 after Holm–Bonferroni over 2 comparisons (two-sided paired randomization test, 10000 permutations).\n"
	if got := EvalMarkdown(rep); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
