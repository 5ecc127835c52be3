package render

import (
	"fmt"
	"strings"

	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/retriever/gather"
)

// GatherText is a gather (retriever/gather) as text: a line per
// candidate (rank, id, R, fused score; the seeds marked *), its matches
// under it (matcher, query quoted, score, bm25's raw score, its rank in
// that list and the RRF term it brought). Ids go through DisplayID,
// queries through textsafe.Quote.
func GatherText(res gather.Result) string {
	var b strings.Builder
	seeds := 0
	for _, c := range res.Candidates {
		if c.Seed {
			seeds++
		}
	}
	fmt.Fprintf(&b, "%d candidates, %d seeds, for %d queries\n", len(res.Candidates), seeds, len(res.Queries))
	for _, c := range res.Candidates {
		mark := " "
		if c.Seed {
			mark = "*"
		}
		fmt.Fprintf(&b, "%s #%-3d %s R=%s rrf=%s\n", mark, c.Rank, DisplayID(c.NodeID), Num(c.R), Num(c.RRF))
		for _, m := range c.Matches {
			raw := ""
			if m.Matcher == gather.BM25 {
				raw = " raw " + Num(m.Raw)
			}
			fmt.Fprintf(&b, "      %s %s: %s%s (rank %d, RRF term %s)\n", m.Matcher, textsafe.Quote(res.Queries[m.Query]), Num(m.Score), raw, m.Rank, Num(m.Term))
		}
	}
	if res.NoVector > 0 {
		fmt.Fprintf(&b, "%d nodes have no embedding of the query vector's dimension: the vector matcher did not score them\n", res.NoVector)
	}
	if len(res.Tags) > 0 {
		shown := make([]string, len(res.Tags))
		for i, t := range res.Tags {
			shown[i] = textsafe.Quote(t)
		}
		fmt.Fprintf(&b, "tags --tags auto picks: %s\n", strings.Join(shown, ", "))
	}
	for _, n := range res.Notices {
		fmt.Fprintf(&b, "note: %s\n", textsafe.Escape(n))
	}
	return b.String()
}

// GatherJSON is a gather as one JSON line: {"queries", "candidates":
// [{"node_id", "rank", "R", "rrf", "seed", "matches": [{"query",
// "matcher", "score", "raw"}]}], "tags" (those --tags auto picks),
// "no_vector", "notices" (when any: how a
// Neo4j server's lists were read)}, graph text \u-escaped where
// it could act on a terminal.
func GatherJSON(res gather.Result) ([]byte, error) {
	type match struct {
		Query   string  `json:"query"`
		Matcher string  `json:"matcher"`
		Score   float64 `json:"score"`
		Raw     float64 `json:"raw"`
	}
	type cand struct {
		NodeID  string  `json:"node_id"`
		Rank    int     `json:"rank"`
		R       float64 `json:"R"`
		RRF     float64 `json:"rrf"`
		Seed    bool    `json:"seed"`
		Matches []match `json:"matches"`
	}
	tags := res.Tags
	if tags == nil {
		tags = []string{}
	}
	out := struct {
		Queries    []string `json:"queries"`
		Candidates []cand   `json:"candidates"`
		Tags       []string `json:"tags"`
		NoVector   int      `json:"no_vector"`
		Notices    []string `json:"notices,omitempty"`
	}{Queries: res.Queries, Candidates: []cand{}, Tags: tags, NoVector: res.NoVector, Notices: res.Notices}
	for _, c := range res.Candidates {
		x := cand{NodeID: c.NodeID, Rank: c.Rank, R: c.R, RRF: c.RRF, Seed: c.Seed}
		for _, m := range c.Matches {
			x.Matches = append(x.Matches, match{Query: res.Queries[m.Query], Matcher: m.Matcher, Score: m.Score, Raw: m.Raw})
		}
		out.Candidates = append(out.Candidates, x)
	}
	return jsonLine(out)
}

// GatheredText says, before a why-not, whether node id was gathered
// (docs/RETRIEVERS.md, "Gather"): a seed, with its place among the
// candidates and its R; a candidate below seedK; or found by no matcher,
// with each matcher's best score for it against min (scores: every
// matcher's score of it for each query, retriever/gather's Index.Scores).
func GatheredText(id string, res gather.Result, scores []gather.NodeScore, seedK int, minScore float64) string {
	for _, c := range res.Candidates {
		if c.NodeID != id {
			continue
		}
		if c.Seed {
			return fmt.Sprintf("%s: gathered as a seed (candidate #%d of %d, R %s)\n", DisplayID(id), c.Rank, len(res.Candidates), Num(c.R))
		}
		return fmt.Sprintf("%s: gathered, but not a seed: candidate #%d of %d, below --seed-k %d (R %s, rrf %s)\n",
			DisplayID(id), c.Rank, len(res.Candidates), seedK, Num(c.R), Num(c.RRF))
	}
	best := map[string]gather.NodeScore{}
	var order []string
	for _, s := range scores {
		b, ok := best[s.Matcher]
		if !ok {
			order = append(order, s.Matcher)
		}
		if !ok || s.Score > b.Score {
			best[s.Matcher] = s
		}
	}
	parts := make([]string, len(order))
	for i, m := range order {
		s := best[m]
		parts[i] = fmt.Sprintf("%s %s for %s", m, Num(s.Score), textsafe.Quote(res.Queries[s.Query]))
	}
	return fmt.Sprintf("%s: not gathered: no matcher scored it at least --gather-min %s (its best: %s)\n",
		DisplayID(id), Num(minScore), strings.Join(parts, "; "))
}
