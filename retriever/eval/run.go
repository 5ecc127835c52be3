package eval

import (
	"cmp"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/memoria-graph/memoria/internal/textsafe"
)

// The limits of ParseRun and ParseLog (docs/EVALUATION.md, "Limits"),
// enforced while reading.
const (
	// MaxRunLine is the longest line of a TREC run file (six fields), and
	// MaxLogLine that of a retrieval log (one query's hits).
	MaxRunLine = 1 << 20
	MaxLogLine = 64 << 20
	// MaxRunFile is the largest run file or log.
	MaxRunFile = 1 << 30
)

// SystemRun is one system's ranking for each query it answered, as a TREC run
// file or a retrieval log gives it: what `memoria eval --run` sets beside
// the retrievers it runs (docs/EVALUATION.md, "Other systems' runs").
type SystemRun struct {
	// Name is the run's tag (a run file's sixth field; a log's file name).
	Name string
	// Ranked are each query's node ids, best first, in trec_eval's order:
	// by score, descending, equal scores by id, descending (strcmp's
	// order, as trec_eval breaks them; the file's rank column is not
	// read).
	Ranked map[string][]string
	// Scores are each query's scores, in Ranked's order.
	Scores map[string][]float64
	// Queries are the query ids in the order the file first names them.
	Queries []string
}

// runEntry is one ranked line before the ranking: a node id and its
// score, and the line it came from.
type runEntry struct {
	doc   string
	score float64
}

// runBuilder gathers the entries of one run, refusing an id listed twice
// for a query.
type runBuilder struct {
	name    string
	entries map[string][]runEntry
	lineOf  map[[2]string]int
	queries []string
}

func newRunBuilder(name string) *runBuilder {
	return &runBuilder{name: name, entries: map[string][]runEntry{}, lineOf: map[[2]string]int{}}
}

func (b *runBuilder) add(line int, qid, doc string, score float64) error {
	if prev, ok := b.lineOf[[2]string{qid, doc}]; ok {
		return lineErr(line, "run %s lists %s for query %s again (line %d)", textsafe.Quote(b.name), textsafe.Quote(doc), textsafe.Quote(qid), prev)
	}
	b.lineOf[[2]string{qid, doc}] = line
	if _, ok := b.entries[qid]; !ok {
		b.queries = append(b.queries, qid)
	}
	b.entries[qid] = append(b.entries[qid], runEntry{doc, score})
	return nil
}

// run ranks each query's entries by trec_eval's rule.
func (b *runBuilder) run() SystemRun {
	r := SystemRun{Name: b.name, Ranked: make(map[string][]string, len(b.entries)), Scores: make(map[string][]float64, len(b.entries)),
		Queries: b.queries}
	for qid, es := range b.entries {
		slices.SortStableFunc(es, func(x, y runEntry) int {
			if c := cmp.Compare(y.score, x.score); c != 0 {
				return c
			}
			return strings.Compare(y.doc, x.doc)
		})
		ids, scores := make([]string, len(es)), make([]float64, len(es))
		for i, e := range es {
			ids[i], scores[i] = e.doc, e.score
		}
		r.Ranked[qid], r.Scores[qid] = ids, scores
	}
	return r
}

// checkScore refuses a score that is not a finite number.
func checkScore(line int, raw string) (float64, error) {
	s, err := strconv.ParseFloat(raw, 64)
	if err != nil || math.IsNaN(s) || math.IsInf(s, 0) {
		return 0, lineErr(line, "score %s is not a finite number", textsafe.Quote(raw))
	}
	return s, nil
}

// ParseRun reads a TREC run file: lines `qid Q0 docno rank score tag`,
// fields separated by white space; several tags in one file are several
// runs (in the order first met). Each query's lines are ranked as
// trec_eval ranks them (SystemRun.Ranked); the rank column must be an integer
// but is not read. Blank lines are skipped. A line with another number of
// fields, a score that is not a finite number, a rank that is not an
// integer, an id holding a control character, or a docno listed twice for
// a query of one tag is refused (a *LineError naming it). A leading UTF-8
// BOM is skipped; a line longer than MaxRunLine, or a file longer than
// MaxRunFile, is refused as it is read.
func ParseRun(r io.Reader) ([]SystemRun, error) { return parseRunFile(r, MaxRunLine, MaxRunFile) }

func parseRunFile(r io.Reader, maxLine, maxFile int64) ([]SystemRun, error) {
	byTag := map[string]*runBuilder{}
	var tags []string
	err := eachLine(r, maxLine, maxFile, "run file", func(line int, text []byte) error {
		f := strings.Fields(string(text))
		if len(f) != 6 {
			return lineErr(line, "want 6 fields, qid Q0 docno rank score tag, got %d", len(f))
		}
		if _, err := strconv.ParseInt(f[3], 10, 64); err != nil {
			return lineErr(line, "rank %s is not an integer", textsafe.Quote(f[3]))
		}
		score, err := checkScore(line, f[4])
		if err != nil {
			return err
		}
		qid, doc, tag := f[0], f[2], f[5]
		if err := errors.Join(checkID("query id", qid), checkID("node id", doc), checkID("run tag", tag)); err != nil {
			return &LineError{Line: line, Err: err}
		}
		b, ok := byTag[tag]
		if !ok {
			b = newRunBuilder(tag)
			byTag[tag] = b
			tags = append(tags, tag)
		}
		return b.add(line, qid, doc, score)
	})
	if err != nil {
		return nil, err
	}
	if len(tags) == 0 {
		return nil, errors.New("no run: the file has no line")
	}
	out := make([]SystemRun, len(tags))
	for i, t := range tags {
		out[i] = byTag[t].run()
	}
	return out, nil
}

// logLine is one line of a retrieval log: a query id and its hits (the
// shape of `memoria explore --format ranking`'s hits, wrapped with the
// query's id).
type logLine struct {
	Query *string `json:"query"`
	Hits  *[]struct {
		NodeID *string  `json:"node_id"`
		Score  *float64 `json:"score"`
	} `json:"hits"`
}

// ParseLog reads a retrieval log, run name: one JSON object a line,
// {"query": ID, "hits": [{"node_id": ID, "score": S}, ...]}, other members
// ignored (so `--format ranking`'s output wrapped with the query's id
// reads as it is). Its hits are ranked as a run file's are (SystemRun.Ranked). A
// line that is not such an object, a score that is not a finite number,
// an id holding a control character, a node listed twice for a query, or
// a query on two lines is refused (a *LineError naming it), within
// MaxLogLine and MaxRunFile.
func ParseLog(r io.Reader, name string) (SystemRun, error) {
	return parseLog(r, name, MaxLogLine, MaxRunFile)
}

func parseLog(r io.Reader, name string, maxLine, maxFile int64) (SystemRun, error) {
	b := newRunBuilder(name)
	seen := map[string]int{}
	err := eachLine(r, maxLine, maxFile, "retrieval log", func(line int, text []byte) error {
		var l logLine
		if err := json.Unmarshal(text, &l); err != nil || l.Query == nil || l.Hits == nil {
			return lineErr(line, `not {"query": ID, "hits": [{"node_id": ID, "score": S}, ...]}`)
		}
		qid := *l.Query
		if err := checkID("query id", qid); err != nil {
			return &LineError{Line: line, Err: err}
		}
		if prev, ok := seen[qid]; ok {
			return lineErr(line, "query %s was logged on line %d already", textsafe.Quote(qid), prev)
		}
		seen[qid] = line
		if len(*l.Hits) == 0 {
			b.queries = append(b.queries, qid)
			b.entries[qid] = nil
		}
		for i, h := range *l.Hits {
			if h.NodeID == nil || h.Score == nil {
				return lineErr(line, "hit %d has no node_id or no score", i+1)
			}
			if math.IsNaN(*h.Score) || math.IsInf(*h.Score, 0) {
				return lineErr(line, "hit %d: score is not a finite number", i+1)
			}
			if err := checkID("node id", *h.NodeID); err != nil {
				return &LineError{Line: line, Err: err}
			}
			if err := b.add(line, qid, *h.NodeID, *h.Score); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return SystemRun{}, err
	}
	return b.run(), nil
}

// Outcomes are the run's outcomes for queries, in order: a query the run
// did not answer has none (every metric 0 for it, as trec_eval -c counts
// it).
func (r SystemRun) Outcomes(queries []Query) []Outcome {
	out := make([]Outcome, len(queries))
	for i, q := range queries {
		out[i] = Outcome{Ranked: r.Ranked[q.ID], Seeds: q.SeedIDs()}
	}
	return out
}

// QueriesOf are the queries a qrels file judges, by id, each with its
// grades: the query set of an evaluation of runs alone (no graph, no
// query set). A query none of whose nodes is relevant is left out, as
// trec_eval leaves it out of its averages.
func QueriesOf(qrels Qrels) []Query {
	var out []Query
	for _, qid := range slices.Sorted(maps.Keys(qrels)) {
		q := Query{ID: qid, Relevant: map[string]int{}}
		for doc, j := range qrels[qid] {
			q.Relevant[doc] = j.Grade
		}
		if q.NumRelevant() > 0 {
			out = append(out, q)
		}
	}
	return out
}
