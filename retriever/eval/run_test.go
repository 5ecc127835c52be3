package eval

import (
	"errors"
	"github.com/memoria-graph/memoria/testkit/endless"
	"io"
	"slices"
	"strings"
	"testing"
)

// TestParseRunRanksAsTrecEval: two tags in one file are two runs, in the
// order first met; each query's lines ranked by score, descending, equal
// scores by docno descending (trec_eval's comp_sim_docno), the rank column
// ignored even where it disagrees. Worked: run A, query q1: d1 0.5 (rank
// 1), d2 0.9 (rank 2), d3 0.5 (rank 3) → d2 (0.9), then d3 before d1 (tied
// 0.5; "d3" > "d1"); query q2 only d9. Run B answers q1 alone.
func TestParseRunRanksAsTrecEval(t *testing.T) {
	runs, err := ParseRun(strings.NewReader("q1 Q0 d1 1 0.5 A\nq1 Q0 d2 2 0.9 A\n\nq1 Q0 d3 3 0.5 A\nq1 Q0 d1 1 1 B\nq2 Q0 d9 1 -2 A\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].Name != "A" || runs[1].Name != "B" {
		t.Fatalf("runs %+v", runs)
	}
	if got := runs[0].Ranked["q1"]; !slices.Equal(got, []string{"d2", "d3", "d1"}) {
		t.Errorf("A q1: %v, want d2 d3 d1", got)
	}
	if !slices.Equal(runs[0].Queries, []string{"q1", "q2"}) || !slices.Equal(runs[1].Queries, []string{"q1"}) {
		t.Errorf("queries %v %v", runs[0].Queries, runs[1].Queries)
	}
	// A query of the qrels the run lacks has no hits: every metric 0 for
	// it (trec_eval -c). B lacks q2.
	out := runs[1].Outcomes([]Query{{ID: "q1"}, {ID: "q2"}})
	if len(out[1].Ranked) != 0 || !slices.Equal(out[0].Ranked, []string{"d1"}) {
		t.Errorf("B's outcomes %+v", out)
	}
}

// TestParseLogIsTheSameRun: a retrieval log holding the same hits as a run
// file (one line per query, hits in any order, other members ignored, as
// --format ranking writes them) ranks the same, trec_eval's rule again.
func TestParseLogIsTheSameRun(t *testing.T) {
	trec, err := ParseRun(strings.NewReader("q1 Q0 d1 1 0.5 sys\nq1 Q0 d2 2 0.9 sys\nq1 Q0 d3 3 0.5 sys\nq2 Q0 d9 1 -2 sys\n"))
	if err != nil {
		t.Fatal(err)
	}
	log, err := ParseLog(strings.NewReader(`{"query":"q1","retriever":"x","hits":[{"rank":1,"node_id":"d1","score":0.5},{"node_id":"d2","score":0.9},{"node_id":"d3","score":0.5}]}`+"\n"+
		`{"query":"q2","hits":[{"node_id":"d9","score":-2}]}`+"\n"), "sys")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"q1", "q2"} {
		if !slices.Equal(log.Ranked[q], trec[0].Ranked[q]) {
			t.Errorf("%s: log %v, run file %v", q, log.Ranked[q], trec[0].Ranked[q])
		}
	}
}

// TestBadRuns: each bad run is refused with its line and what was wrong.
func TestBadRuns(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"q1 Q0 d1 1 0.5\n", "line 1: want 6 fields, qid Q0 docno rank score tag, got 5"},
		{"q1 Q0 d1 1 high A\n", `line 1: score "high" is not a finite number`},
		{"q1 Q0 d1 1 NaN A\n", `line 1: score "NaN" is not a finite number`},
		{"q1 Q0 d1 x 0.5 A\n", `line 1: rank "x" is not an integer`},
		{"q1 Q0 d1 1 0.5 A\nq1 Q0 d1 2 0.4 A\n", `line 2: run "A" lists "d1" for query "q1" again (line 1)`},
		{"q1 Q0 d\x001 1 0.5 A\n", `line 1: node id "d\x001" holds a control character`},
		{"q\x1b1 Q0 d1 1 0.5 A\n", `line 1: query id "q\x1b1" holds a control character`},
		{"", "no run: the file has no line"},
	} {
		_, err := ParseRun(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{`{"hits":[]}`, `line 1: not {"query": ID, "hits"`},
		{`{"query":"q","hits":[{"node_id":"a"}]}`, "line 1: hit 1 has no node_id or no score"},
		{`{"query":"q","hits":[]}` + "\n" + `{"query":"q","hits":[]}`, `line 2: query "q" was logged on line 1 already`},
	} {
		_, err := ParseLog(strings.NewReader(c.in), "log")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("log %q: %v, want %q", c.in, err, c.want)
		}
	}
}

// TestRunLimits: a line without end is refused past the line limit, and
// endless short lines past the file limit, each read no further (the
// limits made small here, as the real ones are 1 MiB and 1 GiB; the
// test's endless reader fails past 64 KiB, had no limit held).
func TestRunLimits(t *testing.T) {
	_, err := parseRunFile(&endless.Reader{Pattern: []byte("x"), Stop: 1 << 16}, 1<<10, 1<<20)
	var le *LineError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "longer than 1 KiB") {
		t.Errorf("a line without end: %v", err)
	}
	lines := io.MultiReader(strings.NewReader("q Q0 d 1 1 A\n"), &endless.Reader{Pattern: []byte("\n"), Stop: 1 << 16})
	if _, err := parseRunFile(lines, 1<<10, 1<<12); err == nil || !strings.Contains(err.Error(), "the file goes on past 4 KiB") {
		t.Errorf("endless lines: %v", err)
	}
}
