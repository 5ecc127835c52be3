package render

import (
	"testing"

	"github.com/memoria-graph/memoria/retriever/gather"
)

// gatherResult is TestFusionByHand's gather (retriever/gather): two
// queries, exact and token, N1 and N3 first in two lists each (1/61 +
// 1/61), N2 second in one (1/62, R 2/3), two seeds; one bm25 match added to
// N2 with its raw score, and a hostile query text.
func gatherResult() gather.Result {
	return gather.Result{
		Queries: []string{"safety stock", "reorder\x1b]0;x\x07 point"},
		Candidates: []gather.Candidate{
			{NodeID: "N1", Rank: 1, R: 1, RRF: 2.0 / 61, Seed: true, Matches: []gather.Match{
				{Query: 0, Matcher: "exact", Score: 1, Rank: 1, Term: 1.0 / 61}, {Query: 0, Matcher: "token", Score: 1, Rank: 1, Term: 1.0 / 61}}},
			{NodeID: "N3 x", Rank: 2, R: 1, RRF: 2.0 / 61, Seed: true, Matches: []gather.Match{
				{Query: 1, Matcher: "exact", Score: 1, Rank: 1, Term: 1.0 / 61}, {Query: 1, Matcher: "token", Score: 1, Rank: 1, Term: 1.0 / 61}}},
			{NodeID: "N2", Rank: 3, R: 2.0 / 3, RRF: 1.0 / 62, Matches: []gather.Match{
				{Query: 0, Matcher: "token", Score: 2.0 / 3, Rank: 2, Term: 1.0 / 62}, {Query: 0, Matcher: "bm25", Score: 0.5, Raw: 1.25, Rank: 3, Term: 1.0 / 63}}},
		},
		NoVector: 2, Tags: []string{"safety_stock", "evil\x1b[2J"},
	}
}

// TestGatherText: the text and JSON of gatherResult (testdata/gather.txt,
// gather.json): the seeds marked, ids and the hostile query quoted,
// bm25's raw score shown, the nodes the vector matcher could not score
// counted.
func TestGatherText(t *testing.T) {
	golden(t, "gather.txt", GatherText(gatherResult()))
	b, err := GatherJSON(gatherResult())
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "gather.json", string(b))
}
