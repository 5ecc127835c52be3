// Package eval measures rankings against relevance labels
// (docs/EVALUATION.md): the query set and TREC qrels they come in, the
// metrics trec_eval defines (P@k, Recall@k, nDCG@k, MRR, MAP), the paired
// randomization test, the report of several retrievers over a query set,
// and TREC run files. It is pure: it reads and writes through io, runs no
// retriever and reads no graph; `memoria eval` (internal/cli) does those.
package eval

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/go-json-experiment/json"

	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/retriever"
)

// MaxGrade and MinGrade bound a relevance grade: trec_eval reads a qrels
// grade as an integer in [-127, 127]. A grade of 1 or more is relevant
// (trec_eval's default relevance level); 0 and below are judged not
// relevant.
const (
	MaxGrade = 127
	MinGrade = -127
)

// Query is one line of a query set: what a retriever is asked (seeds,
// tags, and for the retrievers that compare embeddings a query vector),
// or the question whose seeds the gather stage finds (Text, Vector), and
// the relevance grades of the nodes that should come back.
type Query struct {
	ID          string           `json:"id"`
	Seeds       []retriever.Seed `json:"seeds,omitempty"`
	Tags        []string         `json:"tags,omitempty"`
	QueryVector []float64        `json:"query_vector,omitempty"`
	// Text is the question as the agent asked it: "query", a string or a
	// list of strings (several queries: the gather's multi-query
	// expansion). Vector, "vector", is the question's embedding, for the
	// gather's vector matcher (docs/EVALUATION.md, "Text queries").
	Text   Texts     `json:"query,omitempty"`
	Vector []float64 `json:"vector,omitempty"`
	// Relevant are the judged nodes, node id to grade. After Judge it
	// holds the --qrels grades too.
	Relevant map[string]int `json:"relevant,omitempty"`
	// Line is the query's line in its file, from 1.
	Line int `json:"-"`
}

// Texts are a query's texts: in JSON a string or a list of strings.
type Texts []string

// UnmarshalJSON reads a string as one text, a list as several.
func (t *Texts) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*t = Texts{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return errors.New(`"query" is neither a string nor a list of strings`)
	}
	*t = many
	return nil
}

// HasSeeds says whether the line gives seeds, and HasText whether it gives
// a question the gather stage can find seeds for (its vector adds to a
// text; alone it is no question).
func (q Query) HasSeeds() bool { return len(q.Seeds) > 0 }
func (q Query) HasText() bool  { return len(q.Text) > 0 }

// GatherVector is the vector the gather's vector matcher reads: "vector",
// or else "query_vector".
func (q Query) GatherVector() []float64 {
	if q.Vector != nil {
		return q.Vector
	}
	return q.QueryVector
}

// SeedIDs are the node ids of the query's seeds.
func (q Query) SeedIDs() []string {
	ids := make([]string, len(q.Seeds))
	for i, s := range q.Seeds {
		ids[i] = s.NodeID
	}
	return ids
}

// Retriever is the query as every retriever is asked it.
func (q Query) Retriever() retriever.Query {
	return retriever.Query{Seeds: q.Seeds, Tags: q.Tags}
}

// NumRelevant is how many judged nodes are relevant (grade ≥ 1).
func (q Query) NumRelevant() int {
	n := 0
	for _, g := range q.Relevant {
		if g >= 1 {
			n++
		}
	}
	return n
}

// LineError is a refused line of a query set or a qrels file.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

func lineErr(line int, format string, args ...any) error {
	return &LineError{Line: line, Err: fmt.Errorf(format, args...)}
}

// ParseQueries reads a query set: JSON lines, one query a line,
//
//	{"id": "q1", "seeds": [{"node_id": "N2006", "score": 0.85}], "tags": ["stockout"],
//	 "query_vector": [0.1, ...], "relevant": {"N2003": 2, "N2010": 1}}
//	{"id": "q2", "query": ["how much safety stock", "stockout risk"], "vector": [0.1, ...],
//	 "relevant": {"N2003": 2}}
//
// Blank lines are skipped. A line is refused (a *LineError naming it) when
// it is not one JSON object of those members (an unknown or repeated
// member included), its id is empty, holds white space (a TREC file could
// not hold it) or repeats an earlier query's, it gives neither seeds nor a
// question ("query" or "vector"), its seeds are not a valid query (each
// id once, scores in (0, 1]), a query text is empty or blank, its query
// vector or vector is empty, not finite or all zeros, or a relevant id is empty or graded
// outside [MinGrade, MaxGrade] or not as an integer. Tags are normalised
// as every retriever's (retriever.NormalizeTags). "relevant" may be left
// out when a qrels file judges the query (Judge). A leading UTF-8 BOM is
// skipped; a line longer than MaxQueryLine, or a file longer than
// MaxQueryFile, is refused as it is read, naming the limit and the line.
func ParseQueries(r io.Reader) ([]Query, error) {
	return parseQueries(r, MaxQueryLine, MaxQueryFile)
}

// parseQueries is ParseQueries with the limits given (a test's smaller).
func parseQueries(r io.Reader, maxLine, maxFile int64) ([]Query, error) {
	var out []Query
	seen := map[string]int{}
	err := eachLine(r, maxLine, maxFile, "query set", func(line int, text []byte) error {
		var q Query
		if err := json.Unmarshal(text, &q, json.RejectUnknownMembers(true)); err != nil {
			return lineErr(line, "not a query (a JSON object of id, seeds, query, vector, tags, query_vector, relevant): %v", err)
		}
		q.Line = line
		if err := checkQuery(q); err != nil {
			return &LineError{Line: line, Err: err}
		}
		if prev, ok := seen[q.ID]; ok {
			return lineErr(line, "query id %s repeats line %d's", textsafe.Quote(q.ID), prev)
		}
		seen[q.ID] = line
		q.Tags = retriever.NormalizeTags(q.Tags)
		out = append(out, q)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errors.New("no query: the file has no line")
	}
	return out, nil
}

// checkQuery checks one query's members (ParseQueries).
func checkQuery(q Query) error {
	if err := checkID("query id", q.ID); err != nil {
		return err
	}
	if !q.HasSeeds() && !q.HasText() {
		return fmt.Errorf(`query %s gives no seeds and no question: give "seeds", or "query" for the gather stage to find them`, textsafe.Quote(q.ID))
	}
	if q.Vector != nil && !q.HasText() {
		return fmt.Errorf(`query %s: "vector" is the gather's, which starts from a "query" text: give one`, textsafe.Quote(q.ID))
	}
	if q.HasSeeds() {
		if err := q.Retriever().Validate(); err != nil {
			return fmt.Errorf("query %s: %w", textsafe.Quote(q.ID), err)
		}
	}
	for i, t := range q.Text {
		if strings.TrimSpace(t) == "" {
			return fmt.Errorf(`query %s: "query" text %d is blank`, textsafe.Quote(q.ID), i+1)
		}
	}
	for _, v := range []struct {
		name string
		v    []float64
	}{{"query_vector", q.QueryVector}, {"vector", q.Vector}} {
		if v.v != nil {
			if err := retriever.CheckQueryVector(v.v); err != nil {
				return fmt.Errorf("query %s: %s: %w", textsafe.Quote(q.ID), v.name, err)
			}
		}
	}
	for id, g := range q.Relevant {
		if id == "" {
			return fmt.Errorf("query %s: a relevant node id is empty", textsafe.Quote(q.ID))
		}
		if g < MinGrade || g > MaxGrade {
			return fmt.Errorf("query %s: relevant %s has grade %d, outside [%d, %d]", textsafe.Quote(q.ID), textsafe.Quote(id), g, MinGrade, MaxGrade)
		}
	}
	return nil
}

// checkID refuses an empty id, one with white space, which the
// white-space-separated TREC formats cannot hold, and one with a control
// character (NUL, ESC, DEL, …), which would reach a TREC file raw:
// trec_eval ends a field at a NUL, so "q1\x00x" would be read as "q1".
func checkID(what, id string) error {
	if id == "" {
		return fmt.Errorf("%s is empty", what)
	}
	if strings.IndexFunc(id, unicode.IsSpace) >= 0 {
		return fmt.Errorf("%s %s holds white space, which TREC files cannot hold", what, textsafe.Quote(id))
	}
	if strings.IndexFunc(id, unicode.IsControl) >= 0 {
		return fmt.Errorf("%s %s holds a control character, which TREC files cannot hold", what, textsafe.Quote(id))
	}
	return nil
}

// Judgment is one qrels line's grade and where it was.
type Judgment struct {
	Grade int
	Line  int
}

// Qrels are the judgments of a TREC qrels file: query id, node id, grade.
type Qrels map[string]map[string]Judgment

// ParseQrels reads a TREC qrels file: lines `qid iter docid rel`, fields
// separated by white space, iter ignored (trec_eval's format, usually 0),
// rel an integer in [MinGrade, MaxGrade]. Blank lines are skipped. A line
// with another number of fields, a rel that is not such an integer, a qid
// or docid holding a control character, or a (qid, docid) judged on an
// earlier line is refused (a *LineError naming it). A leading UTF-8 BOM is
// skipped, as ParseQueries skips it; a line longer than MaxQrelsLine, or a
// file longer than MaxQrelsFile, is refused as it is read.
func ParseQrels(r io.Reader) (Qrels, error) {
	return parseQrels(r, MaxQrelsLine, MaxQrelsFile)
}

// parseQrels is ParseQrels with the limits given (a test's smaller).
func parseQrels(r io.Reader, maxLine, maxFile int64) (Qrels, error) {
	out := Qrels{}
	err := eachLine(r, maxLine, maxFile, "qrels file", func(line int, text []byte) error {
		f := strings.Fields(string(text))
		if len(f) != 4 {
			return lineErr(line, "want 4 fields, qid iter docid rel, got %d", len(f))
		}
		g, err := strconv.Atoi(f[3])
		if err != nil || g < MinGrade || g > MaxGrade {
			return lineErr(line, "rel %s is not an integer in [%d, %d]", textsafe.Quote(f[3]), MinGrade, MaxGrade)
		}
		qid, doc := f[0], f[2]
		if err := errors.Join(checkID("query id", qid), checkID("node id", doc)); err != nil {
			return &LineError{Line: line, Err: err}
		}
		if out[qid] == nil {
			out[qid] = map[string]Judgment{}
		}
		if prev, ok := out[qid][doc]; ok {
			return lineErr(line, "query %s judges %s again (line %d)", textsafe.Quote(qid), textsafe.Quote(doc), prev.Line)
		}
		out[qid][doc] = Judgment{Grade: g, Line: line}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Judge adds qrels' grades to each query's Relevant (a copy; queries is
// not changed) and returns the queries and the query ids qrels judges that
// the query set lacks (sorted; trec_eval too ignores judgments of queries
// not run). A node graded both in the query set and in qrels must have one
// grade; a query left with no relevant node (grade ≥ 1) is refused: every
// metric would be 0 or undefined for it. Errors name the query's line.
func Judge(queries []Query, qrels Qrels) ([]Query, []string, error) {
	out := make([]Query, len(queries))
	known := map[string]bool{}
	for i, q := range queries {
		known[q.ID] = true
		rel := make(map[string]int, len(q.Relevant)+len(qrels[q.ID]))
		for id, g := range q.Relevant {
			rel[id] = g
		}
		for id, j := range qrels[q.ID] {
			if g, ok := rel[id]; ok && g != j.Grade {
				return nil, nil, lineErr(q.Line, "query %s grades %s %d, and the qrels' line %d grades it %d", textsafe.Quote(q.ID), textsafe.Quote(id), g, j.Line, j.Grade)
			}
			rel[id] = j.Grade
		}
		q.Relevant = rel
		if q.NumRelevant() == 0 {
			return nil, nil, lineErr(q.Line, "query %s has no relevant node (grade 1 or more) in the query set or the qrels: every metric would be 0 or undefined; judge one or leave the query out", textsafe.Quote(q.ID))
		}
		out[i] = q
	}
	var unknown []string
	for qid := range qrels {
		if !known[qid] {
			unknown = append(unknown, qid)
		}
	}
	slices.Sort(unknown)
	return out, unknown, nil
}
