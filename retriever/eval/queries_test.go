package eval

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestParseQueries reads a query set with every member, a blank line, and
// tags normalised.
func TestParseQueries(t *testing.T) {
	in := `{"id": "q1", "seeds": [{"node_id": "N2006", "score": 0.85}], "tags": [" stockout", "stockout"], "relevant": {"N2003": 2, "N2010": 1}}

{"id": "q2", "seeds": [{"node_id": "T3000", "score": 1}, {"node_id": "T3001", "score": 0.5}], "query_vector": [0.1, 0, 2]}
`
	qs, err := ParseQueries(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 2 || qs[0].ID != "q1" || qs[1].ID != "q2" || qs[0].Line != 1 || qs[1].Line != 3 {
		t.Fatalf("queries %+v", qs)
	}
	if !slices.Equal(qs[0].Tags, []string{"stockout"}) || qs[0].Relevant["N2003"] != 2 || qs[0].Seeds[0].Score != 0.85 {
		t.Errorf("q1 %+v", qs[0])
	}
	if len(qs[1].Seeds) != 2 || !slices.Equal(qs[1].QueryVector, []float64{0.1, 0, 2}) || qs[1].Relevant != nil {
		t.Errorf("q2 %+v", qs[1])
	}
}

// TestParseQueriesRefusesByLine: each bad line is refused with its number
// and what is wrong.
func TestParseQueriesRefusesByLine(t *testing.T) {
	ok := `{"id": "q1", "seeds": [{"node_id": "A", "score": 1}], "relevant": {"B": 1}}` + "\n"
	cases := []struct{ line, want string }{
		{`{"id": "q2", "seeds": [{"node_id": "A", "score": 1}]`, "not a query"},
		{`not json`, "not a query"},
		{`{"id": "q2", "seeds": [{"node_id": "A", "score": 1}], "relevent": {"B": 1}}`, "relevent"},
		{`{"id": "q2", "id": "q3", "seeds": [{"node_id": "A", "score": 1}]}`, "duplicate"},
		{`{"id": "q1", "seeds": [{"node_id": "A", "score": 1}]}`, `query id "q1" repeats line 1's`},
		{`{"id": "", "seeds": [{"node_id": "A", "score": 1}]}`, "query id is empty"},
		{`{"id": "q 2", "seeds": [{"node_id": "A", "score": 1}]}`, "white space"},
		{`{"id": "q2", "seeds": []}`, "gives no seeds and no question"},
		{`{"id": "q2", "relevant": {"B": 1}}`, "gives no seeds and no question"},
		{`{"id": "q2", "query": 7}`, `"query" is neither a string nor a list of strings`},
		{`{"id": "q2", "query": ["stock", "  "]}`, `"query" text 2 is blank`},
		{`{"id": "q2", "query": "stock", "vector": [0, 0]}`, "vector: the query vector is all zeros"},
		{`{"id": "q2", "seeds": [{"node_id": "A", "score": 1}], "vector": [1, 0]}`, `starts from a "query" text`},
		{`{"id": "q2", "seeds": [{"node_id": "A", "score": 1.5}]}`, "score must be"},
		{`{"id": "q2", "seeds": [{"node_id": "A", "score": 1}, {"node_id": "A", "score": 0.5}]}`, "given twice"},
		{`{"id": "q2", "seeds": [{"node_id": "A", "score": 1}], "query_vector": [0, 0]}`, "all zeros"},
		{`{"id": "q2", "seeds": [{"node_id": "A", "score": 1}], "relevant": {"B": 1.5}}`, "not a query"},
		{`{"id": "q2", "seeds": [{"node_id": "A", "score": 1}], "relevant": {"B": 200}}`, "outside [-127, 127]"},
		{`{"id": "q2", "seeds": [{"node_id": "A", "score": 1}], "relevant": {"": 1}}`, "relevant node id is empty"},
	}
	for _, c := range cases {
		_, err := ParseQueries(strings.NewReader(ok + "\n" + c.line + "\n"))
		var le *LineError
		if !errors.As(err, &le) || le.Line != 3 {
			t.Errorf("%s: error %v, want one on line 3", c.line, err)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "line 3: ") {
			t.Errorf("%s: error %q lacks %q", c.line, err, c.want)
		}
	}
	if _, err := ParseQueries(strings.NewReader("\n\n")); err == nil || !strings.Contains(err.Error(), "no query") {
		t.Errorf("empty file: %v", err)
	}
}

// TestParseQueriesText: "query" is a string or a list of strings and
// stands in for "seeds"; "vector" is the gather's vector, which
// GatherVector falls back from to "query_vector".
func TestParseQueriesText(t *testing.T) {
	set, err := ParseQueries(strings.NewReader(`{"id": "a", "query": "safety stock", "relevant": {"B": 1}}
{"id": "b", "query": ["safety stock", "stockout"], "vector": [1, 0], "relevant": {"B": 1}}
{"id": "c", "seeds": [{"node_id": "A", "score": 1}], "query": "x", "query_vector": [0, 1], "relevant": {"B": 1}}
`))
	if err != nil {
		t.Fatal(err)
	}
	if got := set[0].Text; len(got) != 1 || got[0] != "safety stock" || set[0].HasSeeds() || !set[0].HasText() {
		t.Errorf("a: %+v", set[0])
	}
	if got := set[1].Text; len(got) != 2 || got[1] != "stockout" || set[1].GatherVector()[0] != 1 {
		t.Errorf("b: %+v", set[1])
	}
	if !set[2].HasSeeds() || !set[2].HasText() || set[2].GatherVector()[1] != 1 {
		t.Errorf("c: %+v", set[2])
	}
}

// TestParseQrels reads qrels and refuses bad lines by number.
func TestParseQrels(t *testing.T) {
	q, err := ParseQrels(strings.NewReader("q1 0 A 2\n\nq1 0 B 0\nq2\t0\tC\t-1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if q["q1"]["A"] != (Judgment{2, 1}) || q["q1"]["B"] != (Judgment{0, 3}) || q["q2"]["C"] != (Judgment{-1, 4}) {
		t.Errorf("qrels %v", q)
	}
	cases := []struct{ in, want string }{
		{"q1 0 A 1\nq1 0 B\n", "line 2: want 4 fields, qid iter docid rel, got 3"},
		{"q1 0 A 1\n\nq1 0 B 1 x\n", "line 3: want 4 fields"},
		{"q1 0 A one\n", `line 1: rel "one" is not an integer in [-127, 127]`},
		{"q1 0 A 1.0\n", `line 1: rel "1.0" is not an integer`},
		{"q1 0 A 128\n", `line 1: rel "128"`},
		{"q1 0 A 1\nq2 0 A 1\nq1 0 A 2\n", `line 3: query "q1" judges "A" again (line 1)`},
	}
	for _, c := range cases {
		_, err := ParseQrels(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
	}
}

// TestJudge merges qrels into the query set, refuses a conflict and a
// query left with nothing relevant, and reports qrels of unknown queries.
func TestJudge(t *testing.T) {
	qs := []Query{{ID: "q1", Line: 1, Relevant: map[string]int{"A": 2}}, {ID: "q2", Line: 2}}
	qrels := Qrels{"q1": {"A": {2, 1}, "B": {1, 2}}, "q2": {"C": {1, 3}}, "q9": {"D": {1, 4}}, "q0": {"E": {1, 5}}}
	got, unknown, err := Judge(qs, qrels)
	if err != nil {
		t.Fatal(err)
	}
	if len(got[0].Relevant) != 2 || got[0].Relevant["B"] != 1 || got[1].Relevant["C"] != 1 {
		t.Errorf("judged %+v", got)
	}
	if len(qs[0].Relevant) != 1 {
		t.Error("Judge changed its input")
	}
	if !slices.Equal(unknown, []string{"q0", "q9"}) {
		t.Errorf("unknown %v", unknown)
	}
	_, _, err = Judge(qs, Qrels{"q1": {"A": {1, 7}}, "q2": {"C": {1, 8}}})
	if err == nil || err.Error() != `line 1: query "q1" grades "A" 2, and the qrels' line 7 grades it 1` {
		t.Errorf("conflict: %v", err)
	}
	_, _, err = Judge(qs, Qrels{"q2": {"C": {0, 3}}})
	if err == nil || !strings.HasPrefix(err.Error(), `line 2: query "q2" has no relevant node`) {
		t.Errorf("nothing relevant: %v", err)
	}
}
