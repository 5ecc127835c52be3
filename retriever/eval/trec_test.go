package eval

import (
	"bytes"
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// runLine is one parsed line of a run file.
type runLine struct {
	qid, doc, run string
	rank          int
	score         string
}

func parseRun(t *testing.T, s string) []runLine {
	t.Helper()
	var out []runLine
	for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		f := strings.Fields(l)
		if len(f) != 6 || f[1] != "Q0" {
			t.Fatalf("run line %q", l)
		}
		rank, err := strconv.Atoi(f[3])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, runLine{f[0], f[2], f[5], rank, f[4]})
	}
	return out
}

// trecOrder is trec_eval's order of a run's lines: score descending (read
// as float32 when f32, else as a double), ties by docid descending.
func trecOrder(t *testing.T, lines []runLine, f32 bool) []string {
	t.Helper()
	type d struct {
		doc   string
		score float64
	}
	var ds []d
	for _, l := range lines {
		bits := 64
		if f32 {
			bits = 32
		}
		v, err := strconv.ParseFloat(l.score, bits)
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d{l.doc, v})
	}
	slices.SortStableFunc(ds, func(a, b d) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return strings.Compare(b.doc, a.doc)
	})
	var out []string
	for _, x := range ds {
		out = append(out, x.doc)
	}
	return out
}

// TestRunTiesKeepMemoriasOrder: a ranking with ties (A, B, C all 0.5,
// ranked by id ascending as memoria's rule does), two scores 1e-12 apart
// (one float32 apart they are not), a score that went up (0.9 after 0.3:
// the run keeps memoria's order), a tiny one and a negative one. The run file
// has one line per hit, ranks 1, 2, … in memoria's order, scores strictly
// decreasing read as float32 and as doubles, so trec_eval's sort (score
// descending, docid descending) gives back memoria's order either way;
// each score is the retriever's in float32 except where it tied.
func TestRunTiesKeepMemoriasOrder(t *testing.T) {
	ids := []string{"A", "B", "C", "D", "E", "F", "G", "H"}
	scores := []float64{0.5, 0.5, 0.5, 0.3 + 1e-12, 0.3, 0.9, 1e-30, -0.25}
	var buf bytes.Buffer
	if err := WriteRun(&buf, "ppr", "q1", ids, scores); err != nil {
		t.Fatal(err)
	}
	lines := parseRun(t, buf.String())
	if len(lines) != len(ids) {
		t.Fatalf("%d lines for %d hits", len(lines), len(ids))
	}
	var prev32 float32 = float32(math.Inf(1))
	prev64 := math.Inf(1)
	for i, l := range lines {
		if l.qid != "q1" || l.run != "ppr" || l.doc != ids[i] || l.rank != i+1 {
			t.Errorf("line %d: %+v", i+1, l)
		}
		v32, _ := strconv.ParseFloat(l.score, 32)
		v64, _ := strconv.ParseFloat(l.score, 64)
		if float32(v32) >= prev32 || v64 >= prev64 {
			t.Errorf("line %d: score %s not below the line above", i+1, l.score)
		}
		prev32, prev64 = float32(v32), v64
	}
	for _, f32 := range []bool{true, false} {
		if got := trecOrder(t, lines, f32); !slices.Equal(got, ids) {
			t.Errorf("trec_eval's order (float32 %v) %v, want memoria's %v", f32, got, ids)
		}
	}
	want := []string{"0.5", "0.49999997", "0.49999994", "0.3", "0.29999998", "0.29999995", "1e-30", "-0.25"}
	for i, l := range lines {
		if l.score != want[i] {
			t.Errorf("line %d: score %s, want %s", i+1, l.score, want[i])
		}
	}
	// Scored as trec_eval would score the file, the metrics are memoria's.
	judged := map[string]int{"B": 1}
	if a, b := ReciprocalRank(trecOrder(t, lines, true), judged), ReciprocalRank(ids, judged); a != b || a != 0.5 {
		t.Errorf("RR from the file %v, memoria's %v", a, b)
	}
}

// TestRunRefusals: ids a run file cannot hold, repeated ids and scores it
// cannot order are refused and nothing is written.
func TestRunRefusals(t *testing.T) {
	cases := []struct {
		run, qid string
		ids      []string
		scores   []float64
		want     string
	}{
		{"ppr", "q1", []string{"A B"}, []float64{1}, `query "q1": node id "A B" holds white space`},
		{"ppr", "q1", []string{""}, []float64{1}, "node id is empty"},
		{"ppr", "q1", []string{"A", "A"}, []float64{1, 0.5}, `node id "A" is ranked twice`},
		{"my run", "q1", []string{"A"}, []float64{1}, `run name "my run" holds white space`},
		{"ppr", "q\n1", []string{"A"}, []float64{1}, `query id "q\n1" holds white space`},
		{"ppr", "q1", []string{"A"}, []float64{math.NaN()}, "hit 1 has score NaN"},
		{"ppr", "q1", []string{"A"}, []float64{1e300}, "out of float32's range"},
	}
	for _, c := range cases {
		var buf bytes.Buffer
		err := WriteRun(&buf, c.run, c.qid, c.ids, c.scores)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.ids, err, c.want)
		}
		if buf.Len() > 0 {
			t.Errorf("%v: wrote %q", c.ids, buf.String())
		}
	}
}

// TestWriteQrels writes the judged queries back as qrels, which read back
// the same.
func TestWriteQrels(t *testing.T) {
	qs := []Query{{ID: "q2", Relevant: map[string]int{"B": 1, "A": 0}}, {ID: "q1", Relevant: map[string]int{"C": 2}}}
	var buf bytes.Buffer
	if err := WriteQrels(&buf, qs); err != nil {
		t.Fatal(err)
	}
	if want := "q2 0 A 0\nq2 0 B 1\nq1 0 C 2\n"; buf.String() != want {
		t.Errorf("qrels %q, want %q", buf.String(), want)
	}
	back, err := ParseQrels(&buf)
	if err != nil || back["q2"]["B"].Grade != 1 || back["q1"]["C"].Grade != 2 {
		t.Errorf("read back %v, %v", back, err)
	}
	if err := WriteQrels(&buf, []Query{{ID: "q1", Relevant: map[string]int{"a b": 1}}}); err == nil {
		t.Error("a relevant id with a space was written")
	}
}
