package eval

import (
	"math"
	"strings"
	"testing"
)

// metricCase is one ranking, its judgments and every metric worked by
// hand (trec_eval's definitions, metrics.go).
type metricCase struct {
	name   string
	ranked []string
	judged map[string]int
	k      int
	p, r   float64 // P@k, Recall@k
	ndcg   float64 // nDCG@k
	rr, ap float64
}

// TestMetricsByHand checks each metric against numbers worked by hand.
//
// Graded: ranked [A B C], judged {A: 2, C: 1, D: 1}, R = 3.
//
//	k = 2: P = 1/2 (A); Recall = 1/3; DCG = 2/log2 2 = 2 (B is not judged),
//	       IDCG = 2/log2 2 + 1/log2 3 = 2.63093, nDCG = 0.76019
//	k = 5: P = 2/5 (over 5 though 3 came back: fewer hits than k);
//	       Recall = 2/3; DCG = 2 + 1/log2 4 = 2.5,
//	       IDCG = 2 + 1/log2 3 + 1/log2 4 = 3.13093, nDCG = 0.79848
//	RR = 1 (A at rank 1); AP = (1/1 + 2/3) / 3 = 0.55556 (D never found
//	counts 0)
//
// Graded deeper: ranked [C A B D], judged {A: 3, B: 1, D: 2}, R = 3, k = 3:
//
//	P = 2/3 (A, B); Recall = 2/3;
//	DCG = 3/log2 3 + 1/log2 4 = 1.89279 + 0.5 = 2.39279,
//	IDCG = 3/log2 2 + 2/log2 3 + 1/log2 4 = 3 + 1.26186 + 0.5 = 4.76186,
//	nDCG = 0.50249; RR = 1/2; AP = (1/2 + 2/3 + 3/4) / 3 = 0.63889
//	(nDCG@5 would add D's 2/log2 5: 3.25415 / 4.76186 = 0.68338)
//
// No relevant found: ranked [B E], judged {A: 1, C: 3}: everything 0.
//
// Fewer hits than k: ranked [A], judged {A: 1}, k = 5: P = 1/5, Recall = 1,
// nDCG = 1 (the ideal is A alone), RR = 1, AP = 1.
//
// Grades 0 and below are judged not relevant: ranked [A B C], judged
// {A: 0, B: −1, C: 2}, k = 3: P = 1/3; Recall = 1; DCG = 2/log2 4 = 1,
// IDCG = 2, nDCG = 0.5; RR = 1/3; AP = (1/3) / 1 = 1/3.
//
// Ties: the metrics take the ranking in memoria's order, which breaks a
// tie of scores by node id ascending: ranked [A B] (both scored 0.5),
// judged {B: 1}, k = 1: P = 0, Recall = 0, nDCG = 0, RR = 1/2, AP = 1/2.
// (trec_eval would put B first, by docid descending, if the run file tied
// them: RunScores writes them apart, TestRunTiesKeepMemoriasOrder.)
//
// Empty ranking: ranked [], judged {A: 1}, k = 1: everything 0.
func TestMetricsByHand(t *testing.T) {
	l := math.Log2
	graded := map[string]int{"A": 2, "C": 1, "D": 1}
	deeper := map[string]int{"A": 3, "B": 1, "D": 2}
	cases := []metricCase{
		{"graded k=2", []string{"A", "B", "C"}, graded, 2, 0.5, 1.0 / 3, 2 / (2 + 1/l(3)), 1, (1 + 2.0/3) / 3},
		{"graded k=5", []string{"A", "B", "C"}, graded, 5, 0.4, 2.0 / 3, 2.5 / (2 + 1/l(3) + 0.5), 1, (1 + 2.0/3) / 3},
		{"deeper k=3", []string{"C", "A", "B", "D"}, deeper, 3, 2.0 / 3, 2.0 / 3, (3/l(3) + 0.5) / (3 + 2/l(3) + 0.5), 0.5, (0.5 + 2.0/3 + 0.75) / 3},
		{"deeper k=5", []string{"C", "A", "B", "D"}, deeper, 5, 3.0 / 5, 1, (3/l(3) + 0.5 + 2/l(5)) / (3 + 2/l(3) + 0.5), 0.5, (0.5 + 2.0/3 + 0.75) / 3},
		{"none found", []string{"B", "E"}, map[string]int{"A": 1, "C": 3}, 2, 0, 0, 0, 0, 0},
		{"fewer hits than k", []string{"A"}, map[string]int{"A": 1}, 5, 0.2, 1, 1, 1, 1},
		{"grades 0 and below", []string{"A", "B", "C"}, map[string]int{"A": 0, "B": -1, "C": 2}, 3, 1.0 / 3, 1, 0.5, 1.0 / 3, 1.0 / 3},
		{"ties in memoria's order", []string{"A", "B"}, map[string]int{"B": 1}, 1, 0, 0, 0, 0.5, 0.5},
		{"empty ranking", nil, map[string]int{"A": 1}, 1, 0, 0, 0, 0, 0},
	}
	// The decimals of the doc comment, so that a wrong formula above
	// cannot agree with a wrong implementation.
	decimals := map[string]float64{"graded k=2": 0.76019, "graded k=5": 0.79848, "deeper k=3": 0.50249, "deeper k=5": 0.68338}
	for _, c := range cases {
		got := []float64{Precision(c.ranked, c.judged, c.k), Recall(c.ranked, c.judged, c.k), NDCG(c.ranked, c.judged, c.k),
			ReciprocalRank(c.ranked, c.judged), AveragePrecision(c.ranked, c.judged)}
		want := []float64{c.p, c.r, c.ndcg, c.rr, c.ap}
		for i, name := range []string{"P", "recall", "nDCG", "RR", "AP"} {
			if math.Abs(got[i]-want[i]) > 1e-12 {
				t.Errorf("%s: %s = %.17g, want %.17g", c.name, name, got[i], want[i])
			}
		}
		if d, ok := decimals[c.name]; ok && math.Abs(got[2]-d) > 5e-6 {
			t.Errorf("%s: nDCG = %.6f, worked by hand %.5f", c.name, got[2], d)
		}
	}
}

// TestMetricNames: the report's names and trec_eval's, in Metrics' order.
func TestMetricNames(t *testing.T) {
	var names, trec []string
	for _, m := range Metrics([]int{5, 10}) {
		names = append(names, m.Name())
		trec = append(trec, m.TrecName())
	}
	want := "P@5 P@10 recall@5 recall@10 nDCG@5 nDCG@10 MRR MAP"
	wantTrec := "P_5 P_10 recall_5 recall_10 ndcg_cut_5 ndcg_cut_10 recip_rank map"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("names %q, want %q", got, want)
	}
	if got := strings.Join(trec, " "); got != wantTrec {
		t.Errorf("trec names %q, want %q", got, wantTrec)
	}
}

// TestRandomizationTest: identical runs give p = 1; a clear difference
// (12 queries, the second run better by 0.5 on each) gives p < 0.01 —
// only the observed assignment and its mirror reach |Σd| = 6, so p ≈
// (1 + 10000 × 2/4096) / 10001 ≈ 0.0050; the same seed gives the same p
// twice and the test is symmetric; a difference on one query of 12, the
// rest equal, is far from significant (half the assignments reach it).
func TestRandomizationTest(t *testing.T) {
	a := []float64{0.2, 0.5, 0.1, 0.9, 0, 1, 0.3, 0.3, 0.7, 0.4, 0.6, 0.8}
	if p := RandomizationTest(a, a, Permutations, Seed); p != 1 {
		t.Errorf("identical runs: p = %v, want 1", p)
	}
	b := make([]float64, len(a))
	for i := range a {
		b[i] = a[i] + 0.5
	}
	p := RandomizationTest(a, b, Permutations, Seed)
	if p >= 0.01 {
		t.Errorf("clear difference: p = %v, want < 0.01", p)
	}
	if p < 1.0/(Permutations+1) {
		t.Errorf("p = %v below 1/(N+1)", p)
	}
	if math.Abs(p-(1+10000*2.0/4096)/10001) > 0.003 {
		t.Errorf("clear difference: p = %v, want about 0.0050", p)
	}
	if again := RandomizationTest(a, b, Permutations, Seed); again != p {
		t.Errorf("same seed: p = %v then %v", p, again)
	}
	if rev := RandomizationTest(b, a, Permutations, Seed); rev != p {
		t.Errorf("two-sided: p(a,b) = %v, p(b,a) = %v", p, rev)
	}
	one := append([]float64(nil), a...)
	one[3] = 0.1
	if p := RandomizationTest(a, one, Permutations, Seed); p < 0.4 {
		t.Errorf("one query of 12 differs: p = %v, want about 1", p)
	}
	if p := RandomizationTest(nil, nil, Permutations, Seed); p != 1 {
		t.Errorf("no queries: p = %v", p)
	}
}

// BenchmarkRandomizationTest is one test of two runs over 1,000 queries,
// as eval makes one per retriever beyond the first and metric (24 for
// four retrievers at --k 5,10).
func BenchmarkRandomizationTest(b *testing.B) {
	a, c := make([]float64, 1000), make([]float64, 1000)
	for i := range a {
		a[i], c[i] = float64(i%7)/7, float64(i%5)/5
	}
	for b.Loop() {
		RandomizationTest(a, c, Permutations, Seed)
	}
}

// TestEvaluate: two retrievers over two queries, the means, cost, found
// counts and the comparison with the first worked by hand.
//
//	q1 judged {A: 2, C: 1}; q2 judged {X: 1}
//	first:  q1 [A B C] (20 chars), q2 []      (5 chars)
//	second: q1 [C]     (10 chars), q2 [Y X]   (15 chars)
//
// P@1: first q1 1, q2 0 → 0.5; second q1 1, q2 0 → 0.5; diff 0.
// MRR: first (1 + 0)/2 = 0.5; second (1 + 1/2)/2 = 0.75; diff 0.25.
// MAP: first q1 (1 + 2/3)/2 = 5/6, q2 0 → 5/12; second q1 (1/1)/2 = 1/2,
// q2 (1/2)/1 → 1/2; diff 1/12. Hits 1.5 and 1.5; context 12.5 and 12.5.
func TestEvaluate(t *testing.T) {
	qs := []Query{{ID: "q1", Relevant: map[string]int{"A": 2, "C": 1}}, {ID: "q2", Relevant: map[string]int{"X": 1}}}
	out := [][]Outcome{
		{{Ranked: []string{"A", "B", "C"}, ContextChars: 20}, {ContextChars: 5}},
		{{Ranked: []string{"C"}, ContextChars: 10}, {Ranked: []string{"Y", "X"}, ContextChars: 15}},
	}
	rep := Evaluate(qs, []string{"first", "second"}, out, []int{1})
	idx := map[string]int{}
	for i, m := range rep.Metrics {
		idx[m.Name()] = i
	}
	check := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	f, s := rep.Runs[0], rep.Runs[1]
	check("first P@1", f.Mean[idx["P@1"]], 0.5)
	check("second P@1", s.Mean[idx["P@1"]], 0.5)
	check("first MRR", f.Mean[idx["MRR"]], 0.5)
	check("second MRR", s.Mean[idx["MRR"]], 0.75)
	check("first MAP", f.Mean[idx["MAP"]], 5.0/12)
	check("second MAP", s.Mean[idx["MAP"]], 0.5)
	check("MRR diff", s.Diff[idx["MRR"]], 0.25)
	check("MAP diff", s.Diff[idx["MAP"]], 1.0/12)
	check("P@1 p", s.P[idx["P@1"]], 1)
	check("first hits", f.MeanHits, 1.5)
	check("second context", s.MeanContextChars, 12.5)
	if f.Diff != nil || f.P != nil {
		t.Error("the first run compares with itself")
	}
	if r := f.Rows[0]; r.Found != 2 || r.Relevant != 2 || r.Hits != 3 || r.ContextChars != 20 {
		t.Errorf("first q1 row %+v", r)
	}
	if rep.Queries != 2 || rep.Judged != 3 || rep.Relevant != 3 {
		t.Errorf("report counts %d queries, %d judged, %d relevant", rep.Queries, rep.Judged, rep.Relevant)
	}
}

// TestWhere places each relevant node once, in the first place that
// holds. Relevant: A 2, B 1, C 1, D 1, F 1 (E is graded 0: not counted);
// seeds [A]; the top K [A, X, B]; the whole ranking also holds C and Q
// below K. A is a seed and a hit: seeded (seeded comes first). B: found.
// C: cut. D and F: unreached. 1 + 1 + 1 + 2 = 5 relevant. The same answer
// from another system's run, whose whole ranking is not known: A seeded,
// B found, C, D and F not found.
func TestWhere(t *testing.T) {
	q := Query{ID: "q", Relevant: map[string]int{"A": 2, "B": 1, "C": 1, "D": 1, "E": 0, "F": 1}}
	ran := Outcome{Ranked: []string{"A", "X", "B"}, Seeds: []string{"A"}, Whole: true, Below: []string{"C", "Q"}}
	if got, want := where(ran, q.Relevant), (Where{Seeded: 1, Found: 1, Cut: 1, Unreached: 2}); got != want {
		t.Errorf("a retriever's: %+v, want %+v", got, want)
	}
	run := Outcome{Ranked: []string{"A", "X", "B"}, Seeds: []string{"A"}}
	if got, want := where(run, q.Relevant), (Where{Seeded: 1, Found: 1, NotFound: 3}); got != want {
		t.Errorf("a run's: %+v, want %+v", got, want)
	}
	rep := Evaluate([]Query{q, q}, []string{"r"}, [][]Outcome{{ran, run}}, []int{1})
	if got, want := rep.Runs[0].Where, (Where{Seeded: 2, Found: 2, Cut: 1, Unreached: 2, NotFound: 3}); got != want || !rep.Runs[0].Whole {
		t.Errorf("summed: %+v (whole %v), want %+v", got, rep.Runs[0].Whole, want)
	}
}
