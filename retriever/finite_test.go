package retriever

import (
	"math"
	"strings"
	"testing"
)

// TestCheckFinite: a ranking whose every number is finite passes; one
// number that is not, wherever it is (a seed's score, a hit's score, a
// term, a route's factor, a feeder's weight, a number nested in a
// detail's list of records or fields, a statistic), is named, with the
// hit it belongs to.
func TestCheckFinite(t *testing.T) {
	type source struct {
		From   string
		Amount float64
	}
	good := func() Ranking {
		return Ranking{Retriever: "spreading", Params: Fields{{Name: "decay", Value: 0.7}},
			Seeds: []SeedStatus{{NodeID: "A", Score: 1, Found: true}},
			Hits: []Hit{{Rank: 1, NodeID: "A", Score: 1}, {Rank: 2, NodeID: "C", Score: 0.5,
				Terms:   []Term{{Name: "blend", Value: 0.5}},
				Route:   []Hop{{From: "A", To: "C", Type: "RELATES", Weight: 1, Factor: 0.7}},
				Feeders: []Hop{{From: "A", To: "C", Type: "RELATES", Weight: 1, Factor: 0.7}},
				Detail: Fields{{Name: "pulses", Value: []float64{0, 0.7}}, {Name: "top_sources", Value: []source{{"A", 0.7}}},
					{Name: "nested", Value: Fields{{Name: "x", Value: 1.0}}}}}},
			Stats: Fields{{Name: "candidates", Value: 2}}}
	}
	if err := good().CheckFinite(); err != nil {
		t.Fatalf("a finite ranking: %v", err)
	}
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		edit func(r *Ranking)
		want string
	}{
		{func(r *Ranking) { r.Seeds[0].Score = nan }, `spreading's ranking: seed "A": score NaN`},
		{func(r *Ranking) { r.Hits[1].Score = nan }, `spreading's ranking: hit "C" (rank 2): score NaN is not a finite number`},
		{func(r *Ranking) { r.Hits[1].Terms[0].Value = inf }, `hit "C" (rank 2): term "blend" is +Inf`},
		{func(r *Ranking) { r.Hits[1].Route[0].Factor = inf }, `hit "C" (rank 2): route hop "A" → "C" ("RELATES"): weight 1, factor +Inf`},
		{func(r *Ranking) { r.Hits[1].Feeders[0].Weight = -inf }, `hit "C" (rank 2): feeder hop "A" → "C" ("RELATES"): weight -Inf`},
		{func(r *Ranking) { r.Hits[1].Detail[0].Value = []float64{0, inf} }, `hit "C" (rank 2): detail "pulses" holds +Inf`},
		{func(r *Ranking) { r.Hits[1].Detail[1].Value = []source{{"A", nan}} }, `hit "C" (rank 2): detail "top_sources" holds NaN`},
		{func(r *Ranking) { r.Hits[1].Detail[2].Value = Fields{{Name: "x", Value: inf}} }, `detail "nested" holds +Inf`},
		{func(r *Ranking) { r.Stats[0].Value = inf }, `spreading's ranking: statistic "candidates" holds +Inf`},
		{func(r *Ranking) { r.Params[0].Value = nan }, `spreading's ranking: parameter "decay" holds NaN`},
	} {
		r := good()
		c.edit(&r)
		err := r.CheckFinite()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one with %q", err, c.want)
		}
	}
}
