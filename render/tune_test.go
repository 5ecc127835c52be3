package render

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

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
			Key      string             `json:"key"`
			Setting  map[string]float64 `json:"setting"`
			Mean     float64            `json:"mean"`
			Range    [2]float64         `json:"fold_range"`
			ChosenBy []int              `json:"chosen_by_folds"`
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
		out.PerQuery["damping=0.3,epsilon=1e-06"][hostile] != 0.75 || out.HeldOut["diff"] != -0.125 || len(out.HeldOut["ci"].([]any)) != 2 ||
		out.Grid[0].Range != [2]float64{0.25, 0.75} || len(out.Grid[0].ChosenBy) != 1 || out.Grid[0].ChosenBy[0] != 1 {
		t.Errorf("json %s", b)
	}
	if strings.Contains(string(b), "per_query_context_chars") {
		t.Errorf("context per query without a budget: %s", b)
	}
}

// TestTuneCSV: a row per setting, the folds that chose it and its point
// of the held-out curve (TestTuneCurveText: the folds' means 0.25 to 0.75
// at damping 0.3, both 0.5 at 0.5).
func TestTuneCSV(t *testing.T) {
	want := "damping,epsilon,mean,mean_context_chars,default,chosen,folds,fold_lo,fold_hi\n" +
		"0.3,1e-06,0.5,200,false,false,1,0.25,0.75\n0.5,1e-06,0.5,400,true,true,2,0.5,0.5\n"
	if got := TuneCSV(tuneFixture()); got != want {
		t.Errorf("csv\n%s\nwant\n%s", got, want)
	}
}

// TestTuneCurveText draws the fixture's held-out curve: damping varies
// (epsilon has one value). Fold 1 holds query a, fold 2 query b. At 0.3
// the fold means are 0.25 and 0.75: mean 0.5, range 0.25 to 0.75,
// chosen by fold 1. At 0.5 both are 0.5: held out 0.5, no range, chosen by
// fold 2, the defaults and chosen on all queries (← *). Both means are 0.5,
// so both bars are full; the whiskers share 0.25 to 0.75. At width 100
// the value column is 12 wide and the choice 16, which leaves 100 − 12 − 2
// − 1 − 6 − 2 − 2 − 16 − 4 = 55 cells: 27 for the bar, 28 for the
// whisker, where 0.25 is cell 0, 0.75 cell 27 and 0.5 cell round(13.5) =
// 14. The heading of the whiskers starts where they do (column 12 + 2 +
// 27 + 1 + 6 + 2 = 50), and a row is the width's 100 columns.
func TestTuneCurveText(t *testing.T) {
	tf := tuneFixture()
	tf.Width = 100
	got := tf.CurveText()
	bar := strings.Repeat("█", 27)
	for _, want := range []string{
		"held-out curve of damping, nDCG@10 over 2 folds: each value's mean over the queries, each held out once; the whisker spans the folds' means\n",
		"damping       held out, 0.5000 to 0.5000          folds' means, 0.2500 to 0.7500\n",
		"0.3           " + bar + " 0.5000  ├" + strings.Repeat("─", 13) + "●" + strings.Repeat("─", 12) + "┤  chosen by fold 1\n",
		"0.5           " + bar + " 0.5000  " + strings.Repeat(" ", 14) + "●" + strings.Repeat(" ", 13) + "  chosen by fold 2 ← *\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if !strings.Contains(TuneText(tf), got) {
		t.Error("TuneText lacks the curve")
	}
	lines := strings.Split(got, "\n")
	col := func(line, sub string) int { return utf8.RuneCountInString(line[:strings.Index(line, sub)]) }
	if h, w := col(lines[1], "folds'"), col(lines[2], "├"); h != 50 || w != 50 || utf8.RuneCountInString(lines[3]) != 100 {
		t.Errorf("the whiskers' heading at column %d, the whisker at %d, want 50; a row %d columns wide, want 100", h, w, utf8.RuneCountInString(lines[3]))
	}
	// Two parameters vary (ε's second value never measured): a curve of
	// each through the setting chosen on all queries (damping 0.5, ε
	// 1e-06), damping's with both its settings, ε's with the one measured.
	tf.Params[1].Values = []float64{1e-6, 1e-5}
	c := tf.CurveText()
	damping, eps, ok := strings.Cut(c, "\nheld-out curve of epsilon (damping=0.5 as chosen on all queries), nDCG@10 over 2 folds")
	if !ok || !strings.HasPrefix(damping, "held-out curve of damping (epsilon=1e-06 as chosen on all queries), nDCG@10") ||
		strings.Count(damping, "\n") != 4 || strings.Count(eps, "\n") != 3 {
		t.Errorf("two parameters varying:\n%s", c)
	}
	if tf.Params[0].Values, tf.Params[1].Values = []float64{0.5}, []float64{1e-6}; tf.CurveText() != "" {
		t.Error("a curve where no parameter varies")
	}
}

// TestTuneCurveThirdDecimal: means that differ in the third
// decimal (0.4702, 0.4710, 0.4725) get bars of visibly different lengths,
// on their own range. Width 70 less the value column (12), the number (6),
// the choice ("chosen by folds 1, 2": 20), the marks (4) and the gaps (7)
// leaves 21 cells, 10 for the bar: one cell at 0.4702, 1 + 0.0008/0.0023 ×
// 9 = 4.13 cells at 0.4710 (33 eighths: ████▏), all 10 at 0.4725.
func TestTuneCurveThirdDecimal(t *testing.T) {
	vals := [][]float64{{0.4702, 0.4702}, {0.4710, 0.4710}, {0.4725, 0.4725}}
	res := tune.Result{Search: tune.SearchProduct, Settings: []tune.Setting{{0}, {1}, {2}}, Default: 0, Chosen: 2,
		Folds: []tune.Fold{{Queries: []int{0}, Chosen: 2}, {Queries: []int{1}, Chosen: 2}}}
	for _, v := range vals {
		res.Figures = append(res.Figures, tune.Figures{Values: v, Context: []float64{1, 1}})
	}
	tf := Tune{Retriever: "ppr", Metric: "recall@10", Queries: []string{"a", "b"}, Width: 70,
		Params: []tune.Param{{Name: "damping", Values: []float64{0.5, 0.7, 0.9}}}, Result: res}
	got := tf.CurveText()
	for _, want := range []string{"█          0.4702", "████▏      0.4710", strings.Repeat("█", 10) + " 0.4725"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
}

// TestTuneCurveFitsEightyColumns: in an 80-column terminal the explorer's
// overlay gives the curve 76 columns; with five folds all choosing the
// defaults ("chosen by folds 1, 2, 3, 4, 5", 29 columns, and "← *") each
// row still fits: 76 − 12 − 2 − 1 − 6 − 2 − 2 − 29 − 4 = 18 cells, 9 for
// the bar and 9 for the whisker (at least 6 each, minCurveWidth).
func TestTuneCurveFitsEightyColumns(t *testing.T) {
	res := tune.Result{Search: tune.SearchProduct, Settings: []tune.Setting{{0}, {1}}, Default: 0, Chosen: 0}
	for q := range 5 {
		res.Folds = append(res.Folds, tune.Fold{Queries: []int{q}, Chosen: 0})
	}
	res.Figures = []tune.Figures{{Values: []float64{0.1, 0.2, 0.3, 0.4, 0.5}}, {Values: []float64{0.2, 0.2, 0.2, 0.2, 0.2}}}
	tf := Tune{Retriever: "ppr", Metric: "nDCG@10", Queries: []string{"a", "b", "c", "d", "e"}, Width: 76,
		Params: []tune.Param{{Name: "max-branches", Values: []float64{3, 4}}}, Result: res}
	lines := strings.Split(strings.TrimSpace(tf.CurveText()), "\n")
	for _, l := range lines[1:] {
		if n := utf8.RuneCountInString(l); n > 76 {
			t.Errorf("%d columns: %q", n, l)
		}
	}
	if !strings.HasSuffix(lines[2], "chosen by folds 1, 2, 3, 4, 5 ← *") || utf8.RuneCountInString(lines[2]) != 76 {
		t.Errorf("row %q", lines[2])
	}
}
