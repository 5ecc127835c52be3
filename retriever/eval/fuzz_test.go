package eval_test

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/go-json-experiment/json"

	"github.com/memoria-graph/memoria/retriever/eval"
)

// lineCount is the number of lines a bufio.Scanner finds in data.
func lineCount(data []byte) int {
	n := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// checkRefusal: a refusal is an error, with nothing returned beside it; a
// *eval.LineError names a line of the input (or the one after the last,
// for a line too long to end).
func checkRefusal(t *testing.T, data []byte, got any, err error) {
	t.Helper()
	if !reflect.ValueOf(got).IsNil() {
		t.Fatalf("refused (%v) but returned %v", err, got)
	}
	var le *eval.LineError
	if errors.As(err, &le) && (le.Line < 1 || le.Line > lineCount(data)+1) {
		t.Fatalf("error on line %d of %d: %v", le.Line, lineCount(data), err)
	}
}

// bounded runs parse and fails when it takes more than a second.
func bounded(t *testing.T, data []byte, parse func()) {
	t.Helper()
	start := time.Now()
	parse()
	if d := time.Since(start); d > time.Second {
		t.Fatalf("took %v on %d bytes", d, len(data))
	}
}

// FuzzParseQueries (make fuzz) holds the query set's reader
// (docs/EVALUATION.md, "The query set") to its word, on any input:
//
//   - it never panics and answers within a second: queries or an error;
//   - a refusal names a line of the input (a *eval.LineError), except the
//     file with no query at all, which says so;
//   - every accepted query has an id without white space that no other
//     has, a valid query (seeds), its line in the file (rising), relevant
//     grades in [MinGrade, MaxGrade], and normalised tags;
//   - the accepted queries written back as JSON lines read back the same
//     (each on its new line; an empty "relevant" as none).
func FuzzParseQueries(f *testing.F) {
	for _, s := range []string{
		// TestParseQueries's set and TestParseQueriesRefusesByLine's lines.
		`{"id": "q1", "seeds": [{"node_id": "N2006", "score": 0.85}], "tags": [" stockout", "stockout"], "relevant": {"N2003": 2, "N2010": 1}}` + "\n\n" +
			`{"id": "q2", "seeds": [{"node_id": "T3000", "score": 1}, {"node_id": "T3001", "score": 0.5}], "query_vector": [0.1, 0, 2]}` + "\n",
		`{"id": "q2", "seeds": [{"node_id": "A", "score": 1}]`,
		`not json`,
		`{"id": "q2", "seeds": [{"node_id": "A", "score": 1}], "relevent": {"B": 1}}`,
		`{"id": "q2", "id": "q3", "seeds": [{"node_id": "A", "score": 1}]}`,
		`{"id": "q1", "seeds": [{"node_id": "A", "score": 1}]}` + "\n" + `{"id": "q1", "seeds": [{"node_id": "A", "score": 1}]}`,
		`{"id": "", "seeds": [{"node_id": "A", "score": 1}]}`,
		`{"id": "q 2", "seeds": [{"node_id": "A", "score": 1}]}`,
		`{"id": "q2", "seeds": []}`,
		`{"id": "q2", "seeds": [{"node_id": "A", "score": 1.5}]}`,
		`{"id": "q2", "seeds": [{"node_id": "A", "score": 1}, {"node_id": "A", "score": 0.5}]}`,
		`{"id": "q2", "seeds": [{"node_id": "A", "score": 1}], "query_vector": [0, 0]}`,
		`{"id": "q2", "seeds": [{"node_id": "A", "score": 1}], "relevant": {"B": 1.5}}`,
		`{"id": "q2", "seeds": [{"node_id": "A", "score": 1}], "relevant": {"B": 200}}`,
		`{"id": "q2", "seeds": [{"node_id": "A", "score": 1}], "relevant": {"": 1}}`,
		"\n\n",
		"\r\n" + `{"id": "q\u00e9", "seeds": [{"node_id": "\u0000", "score": 1e-300}], "tags": ["", " "], "relevant": {"B": -127}}` + "\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var qs []eval.Query
		var err error
		bounded(t, data, func() { qs, err = eval.ParseQueries(bytes.NewReader(data)) })
		if err != nil {
			checkRefusal(t, data, qs, err)
			var le *eval.LineError
			if !errors.As(err, &le) && !strings.Contains(err.Error(), "no query") {
				t.Fatalf("a refusal naming no line: %v", err)
			}
			return
		}
		if len(qs) == 0 {
			t.Fatal("no query and no error")
		}
		seen := map[string]bool{}
		var out bytes.Buffer
		for i, q := range qs {
			if q.ID == "" || strings.IndexFunc(q.ID, unicode.IsSpace) >= 0 || seen[q.ID] {
				t.Fatalf("query id %q (seen %v)", q.ID, seen[q.ID])
			}
			seen[q.ID] = true
			if err := q.Retriever().Validate(); err != nil {
				t.Fatalf("query %q accepted with %v", q.ID, err)
			}
			if q.Line < 1 || q.Line > lineCount(data) || (i > 0 && q.Line <= qs[i-1].Line) {
				t.Fatalf("query %q on line %d of %d", q.ID, q.Line, lineCount(data))
			}
			for id, g := range q.Relevant {
				if id == "" || g < eval.MinGrade || g > eval.MaxGrade {
					t.Fatalf("query %q grades %q %d", q.ID, id, g)
				}
			}
			for _, tag := range q.Tags {
				if tag == "" || tag != strings.TrimSpace(tag) {
					t.Fatalf("query %q has tag %q", q.ID, tag)
				}
			}
			b, err := json.Marshal(q)
			if err != nil {
				t.Fatalf("query %q does not write: %v", q.ID, err)
			}
			out.Write(append(b, '\n'))
		}
		back, err := eval.ParseQueries(&out)
		if err != nil {
			t.Fatalf("written back, refused: %v\n%s", err, out.String())
		}
		// Written back, a query is on line i+1, and "relevant": {} is
		// left out (omitempty) and reads back as none, which Judge and
		// every metric treat alike.
		want := make([]eval.Query, len(qs))
		for i, q := range qs {
			q.Line = i + 1
			if len(q.Relevant) == 0 {
				q.Relevant = nil
			}
			want[i] = q
		}
		if !reflect.DeepEqual(back, want) {
			t.Fatalf("written back, reads\n%+v\nnot\n%+v", back, want)
		}
	})
}

// FuzzParseQrels (make fuzz) holds the TREC qrels reader
// (docs/EVALUATION.md, "Qrels") to its word, on any input:
//
//   - it never panics and answers within a second: judgments or an error;
//   - a refusal names a line of the input (a *eval.LineError);
//   - every judgment has a query and a node id without white space, a
//     grade in [MinGrade, MaxGrade] and a line of its own in the input;
//   - the judgments written back, each on its own line number with blank
//     lines between, read back the same, lines included.
func FuzzParseQrels(f *testing.F) {
	for _, s := range []string{
		// TestParseQrels's files.
		"q1 0 A 2\n\nq1 0 B 0\nq2\t0\tC\t-1\n",
		"q1 0 A 1\nq1 0 B\n",
		"q1 0 A 1\n\nq1 0 B 1 x\n",
		"q1 0 A one\n",
		"q1 0 A 1.0\n",
		"q1 0 A 128\n",
		"q1 0 A 1\nq2 0 A 1\nq1 0 A 2\n",
		"",
		"q\u00e9 Q0 \xff -127\r\nq 0 A +1\x85",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var q eval.Qrels
		var err error
		bounded(t, data, func() { q, err = eval.ParseQrels(bytes.NewReader(data)) })
		if err != nil {
			checkRefusal(t, data, q, err)
			var le *eval.LineError
			if !errors.As(err, &le) {
				t.Fatalf("a refusal naming no line: %v", err)
			}
			return
		}
		if q == nil {
			t.Fatal("no judgments and no error")
		}
		lines := make([]string, lineCount(data))
		for qid, docs := range q {
			for doc, j := range docs {
				if len(strings.Fields(qid)) != 1 || len(strings.Fields(doc)) != 1 || strings.Fields(qid)[0] != qid || strings.Fields(doc)[0] != doc {
					t.Fatalf("ids %q %q", qid, doc)
				}
				if j.Grade < eval.MinGrade || j.Grade > eval.MaxGrade || j.Line < 1 || j.Line > len(lines) || lines[j.Line-1] != "" {
					t.Fatalf("judgment %+v of %q %q (%d lines)", j, qid, doc, len(lines))
				}
				lines[j.Line-1] = fmt.Sprintf("%s 0 %s %d", qid, doc, j.Grade)
			}
		}
		text := strings.Join(lines, "\n")
		back, err := eval.ParseQrels(strings.NewReader(text))
		if err != nil {
			t.Fatalf("written back, refused: %v\n%s", err, text)
		}
		if !reflect.DeepEqual(back, q) {
			t.Fatalf("written back, reads\n%v\nnot\n%v", back, q)
		}
	})
}
