package render

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/retriever/tune"
)

// tuneFixture is a tuning by hand: damping 0.3, 0.5 (the default), ε
// 1e-06 (one value), 2 queries, one of them with an ESC and a bidi
// override in its id; 2 folds, each of one query. Figures: damping 0.3
// gives 0.25 and 0.75 (mean 0.5), context 100 and 300 (200); 0.5 gives
// 0.5 and 0.5, context 400 and 400. Fold 1 (query a) chose 0.3, fold 2
// (query b) 0.5; on all queries 0.3 and 0.5 tie at 0.5 and 0.5, the
// default, is chosen.
func tuneFixture() Tune {
	res := tune.Result{Search: tune.SearchProduct,
		Settings: []tune.Setting{{0, 0}, {1, 0}},
		Figures: []tune.Figures{{Values: []float64{0.25, 0.75}, Context: []float64{100, 300}},
			{Values: []float64{0.5, 0.5}, Context: []float64{400, 400}}},
		Default: 1, Chosen: 1,
		Folds:   []tune.Fold{{Queries: []int{0}, Chosen: 0, Train: 0.75, HeldOut: 0.25}, {Queries: []int{1}, Chosen: 1, Train: 0.25, HeldOut: 0.5}},
		HeldOut: tune.HeldOut{Tuned: 0.375, Default: 0.5, Diff: -0.125, P: 1, CI: [2]float64{-0.25, 0}}}
	return Tune{Retriever: "ppr", Metric: "nDCG@10", Queries: []string{"a", "b\x1b[31m\u202e"}, SplitSeed: 34, MaxPoints: 200,
		Params: []tune.Param{{Name: "damping", Values: []float64{0.3, 0.5}, Default: 1}, {Name: "epsilon", Values: []float64{1e-06}}},
		Result: res, Flags: "--damping 0.5 --epsilon 1e-06"}
}

// TestTuneText: the fold lines, the held-out line, the flags, and a line
// per setting with its mean and context over both queries, the defaults
// marked ← and the chosen *.
func TestTuneText(t *testing.T) {
	got := TuneText(tuneFixture())
	for _, want := range []string{
		"tune ppr over 2 queries on nDCG@10, 2 folds (split seed 34): the product of 2 parameters: 2 settings, each run over every query once\n",
		"1     1        damping=0.3 epsilon=1e-06  0.7500   0.2500\n",
		"2     1        damping=0.5 epsilon=1e-06  0.2500   0.5000\n",
		"held out, nDCG@10: tuned 0.3750, defaults 0.5000, difference -0.1250 (95% CI -0.2500 to +0.0000), p 1.0000\n",
		"chosen on all queries: damping=0.5 epsilon=1e-06 (mean 0.5000; the defaults' 0.5000)\n",
		"flags: --retriever ppr --damping 0.5 --epsilon 1e-06\n",
		"0.3          1e-06        0.5000     200\n",
		"0.5          1e-06        0.5000     400 ← *\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
}

// TestTuneJSON: the shape, every per-query figure under its
// setting's key, and the hostile query id escaped (\u001b, \u202e) so
// that it cannot act on a terminal, yet reads back as it was.
func TestTuneJSON(t *testing.T) {
	b, err := TuneJSON(tuneFixture())
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(string(b), "\x1b\u202e") || !strings.Contains(string(b), `\u202e`) {
		t.Errorf("the hostile id is not escaped: %s", b)
	}
	var out struct {
		Metric string `json:"metric"`
		Grid   []struct {
			Key     string             `json:"key"`
			Setting map[string]float64 `json:"setting"`
			Mean    float64            `json:"mean"`
		} `json:"grid"`
		Folds []struct {
			Queries []string           `json:"queries"`
			Chosen  map[string]float64 `json:"chosen"`
		} `json:"folds"`
		HeldOut  map[string]any                `json:"held_out"`
		Chosen   map[string]float64            `json:"chosen"`
		PerQuery map[string]map[string]float64 `json:"per_query"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	hostile := "b\x1b[31m\u202e"
	if out.Metric != "nDCG@10" || len(out.Grid) != 2 || out.Grid[0].Key != "damping=0.3,epsilon=1e-06" || out.Grid[0].Mean != 0.5 ||
		out.Folds[1].Queries[0] != hostile || out.Folds[0].Chosen["damping"] != 0.3 || out.Chosen["damping"] != 0.5 ||
		out.PerQuery["damping=0.3,epsilon=1e-06"][hostile] != 0.75 || out.HeldOut["diff"] != -0.125 || len(out.HeldOut["ci"].([]any)) != 2 {
		t.Errorf("json %s", b)
	}
	if strings.Contains(string(b), "per_query_context_chars") {
		t.Errorf("context per query without a budget: %s", b)
	}
}

// TestTuneCSV: a row per setting, the folds that chose it.
func TestTuneCSV(t *testing.T) {
	want := "damping,epsilon,mean,mean_context_chars,default,chosen,folds\n0.3,1e-06,0.5,200,false,false,1\n0.5,1e-06,0.5,400,true,true,2\n"
	if got := TuneCSV(tuneFixture()); got != want {
		t.Errorf("csv\n%s\nwant\n%s", got, want)
	}
}
