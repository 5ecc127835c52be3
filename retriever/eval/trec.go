package eval

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/memoria-graph/memoria/internal/textsafe"
)

// RunScores are the scores a TREC run file gives a ranking's hits, in
// memoria's order: strictly decreasing as 32-bit floats, and so as the
// decimals TrecScore writes and as doubles read back. trec_eval reorders a
// run by score, descending, and breaks ties by docid, descending; scores
// equal or 1e-12 apart would tie there (and in float32) and be reordered,
// and trec_eval, ranx and memoria would not measure the same ranking.
//
// Each written score is the retriever's score rounded to float32, unless
// that is not below the score written just above it; then it is the next
// float32 below that one (math.Nextafter32). So a score differs from the
// retriever's only by float32 rounding, and, within a run of hits whose
// scores tie in float32, by one float32 step (about 6e-8 of the score) per
// hit above it in the tie. A score that is not finite, or a ranking so
// long that the steps run out below −MaxFloat32, is an error.
func RunScores(scores []float64) ([]float32, error) {
	out := make([]float32, len(scores))
	for i, s := range scores {
		if math.IsNaN(s) || math.IsInf(s, 0) {
			return nil, fmt.Errorf("hit %d has score %v, which a run file cannot order", i+1, s)
		}
		w := float32(s)
		if i > 0 && w >= out[i-1] {
			w = math.Nextafter32(out[i-1], float32(math.Inf(-1)))
		}
		if math.IsInf(float64(w), 0) {
			return nil, fmt.Errorf("hit %d: score %v is out of float32's range", i+1, s)
		}
		out[i] = w
	}
	return out, nil
}

// TrecScore writes a run file's score: the shortest decimal that reads
// back as s in float32. Two such decimals of distinct float32 values
// differ, in the same order, also read as doubles.
func TrecScore(s float32) string {
	return strconv.FormatFloat(float64(s), 'g', -1, 32)
}

// WriteRun writes one query's lines of a TREC run file, `qid Q0 docid rank
// score run`: one line per hit, ranks from 1 in the order of ids, scores
// RunScores(scores). The query id, every node id and the run name must be
// non-empty and free of white space, and no node id may repeat (trec_eval
// refuses duplicate docs); otherwise nothing is written and the error names
// the id.
func WriteRun(w io.Writer, run, qid string, ids []string, scores []float64) error {
	if len(ids) != len(scores) {
		return fmt.Errorf("%d ids and %d scores", len(ids), len(scores))
	}
	if err := checkID("run name", run); err != nil {
		return err
	}
	if err := checkID("query id", qid); err != nil {
		return err
	}
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if err := checkID("node id", id); err != nil {
			return fmt.Errorf("query %s: %w", textsafe.Quote(qid), err)
		}
		if seen[id] {
			return fmt.Errorf("query %s: node id %s is ranked twice", textsafe.Quote(qid), textsafe.Quote(id))
		}
		seen[id] = true
	}
	ws, err := RunScores(scores)
	if err != nil {
		return fmt.Errorf("query %s: %w", textsafe.Quote(qid), err)
	}
	bw := bufio.NewWriter(w)
	for i, id := range ids {
		fmt.Fprintf(bw, "%s Q0 %s %d %s %s\n", qid, id, i+1, TrecScore(ws[i]), run)
	}
	return bw.Flush()
}

// WriteQrels writes the queries' judgments (Judge) as a TREC qrels file,
// `qid 0 docid grade`, queries in order, each one's nodes by id. Node ids
// must be non-empty and free of white space.
func WriteQrels(w io.Writer, queries []Query) error {
	bw := bufio.NewWriter(w)
	for _, q := range queries {
		if err := checkID("query id", q.ID); err != nil {
			return err
		}
		ids := make([]string, 0, len(q.Relevant))
		for id := range q.Relevant {
			if err := checkID("relevant node id", id); err != nil {
				return fmt.Errorf("query %s: %w", textsafe.Quote(q.ID), err)
			}
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			fmt.Fprintf(bw, "%s 0 %s %d\n", q.ID, id, q.Relevant[id])
		}
	}
	return bw.Flush()
}
