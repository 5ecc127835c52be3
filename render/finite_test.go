package render

import (
	"math"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/overlap"
)

// TestJSONRefusesNonFinite: the expansion's worked ranking with hit 2's
// score made NaN (as a retriever's overflow would leave it) is refused by
// `--format ranking` and by compare's JSON with an error naming the hit,
// its rank and the value, not encoding/json's "unsupported value: NaN",
// which names nothing; nothing is returned to write.
func TestJSONRefusesNonFinite(t *testing.T) {
	r := workedRanking(t)
	r.Hits[1].Score = math.NaN()
	want := `expansion's ranking: hit "` + r.Hits[1].NodeID + `" (rank 2): score NaN is not a finite number`
	b, err := RankingJSON(r)
	if err == nil || !strings.Contains(err.Error(), want) || b != nil {
		t.Errorf("RankingJSON: %q, error %v; want nothing and an error with %q", b, err, want)
	}
	res, err := overlap.Compare([]string{"expansion"}, []retriever.Ranking{r}, 10)
	if err != nil {
		t.Fatal(err)
	}
	b, err = CompareJSON([]retriever.Ranking{r}, res)
	if err == nil || !strings.Contains(err.Error(), want) || b != nil {
		t.Errorf("CompareJSON: %q, error %v; want nothing and an error with %q", b, err, want)
	}
}
