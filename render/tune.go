package render

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/tune"
)

// Tune is `memoria tune` (docs/EVALUATION.md, "Tuning on held-out
// queries"): a retriever's parameters tuned over a query set by K-fold
// cross-validation.
type Tune struct {
	Retriever string
	// Metric is the metric's name ("nDCG@10").
	Metric string
	// Queries are the query set's ids, in its order (the figures' order).
	Queries []string
	Params  []tune.Param
	// SplitSeed and MaxPoints are --seed-split and --max-points; Budget
	// --budget-chars (0: none).
	SplitSeed uint64
	MaxPoints int
	Budget    float64
	Result    tune.Result
	// Flags are the flags that set the setting chosen on all queries, to
	// paste ("--damping 0.7").
	Flags string
	// Width is the columns the held-out curve fills (DefaultChartWidth
	// when 0).
	Width int
	// Seeding is how the queries were seeded: "given" or "gathered" (from
	// their questions, which the text says).
	Seeding string
}

// settingText is setting s as "p=v q=w" (sep between the pairs), each
// value in the shortest form that reads back the same.
func (t Tune) settingText(s tune.Setting, sep string) string {
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = t.Params[i].Name + "=" + strconv.FormatFloat(t.Params[i].Values[v], 'g', -1, 64)
	}
	return strings.Join(parts, sep)
}

// fields is setting s as {param: value}, in the parameters' order.
func (t Tune) fields(s tune.Setting) retriever.Fields {
	f := make(retriever.Fields, len(s))
	for i, v := range s {
		f[i] = retriever.Field{Name: t.Params[i].Name, Value: t.Params[i].Values[v]}
	}
	return f
}

// order is the settings measured, by their values (the first parameter
// slowest).
func (t Tune) order() []int {
	idx := make([]int, len(t.Result.Settings))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return slices.Compare(t.Result.Settings[a], t.Result.Settings[b]) })
	return idx
}

// all are the indexes of every query.
func (t Tune) all() []int {
	out := make([]int, len(t.Queries))
	for i := range out {
		out[i] = i
	}
	return out
}

// searchLine says how the grid was searched.
func (t Tune) searchLine() string {
	r := t.Result
	if r.Search == tune.SearchProduct {
		return fmt.Sprintf("the product of %s: %s, each run over every query once", countOf(len(t.Params), "parameter"), countOf(len(r.Settings), "setting"))
	}
	return fmt.Sprintf("coordinate ascent from the defaults (the product of %s is over --max-points %d): %s tried, each over every query once; on all queries %s",
		countOf(len(t.Params), "parameter"), t.MaxPoints, countOf(len(r.Settings), "setting"), countOf(r.Rounds, "round"))
}

func countOf(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// TuneText is the text form: how the grid was searched, a line per fold
// (its size, the setting chosen on the other folds, its mean there and on
// the fold), the held-out comparison with the defaults, the setting chosen
// on all queries and its flags, the held-out curve when one parameter
// varies (CurveText), then every setting tried with its mean and mean
// context (← the defaults, * the chosen).
func TuneText(t Tune) string {
	var b strings.Builder
	r := t.Result
	all := t.all()
	fmt.Fprintf(&b, "tune %s over %d queries%s on %s, %d folds (split seed %d): %s\n", t.Retriever, len(t.Queries), GatheredNote(t.Seeding),
		t.Metric, len(r.Folds), t.SplitSeed, t.searchLine())
	if t.Budget > 0 {
		fmt.Fprintf(&b, "only settings whose mean context stays within %s characters (--budget-chars)\n", strconv.FormatFloat(t.Budget, 'g', -1, 64))
	}
	label := func(i int) string { return t.settingText(r.Settings[i], " ") }
	w := len("chosen on the other folds")
	for _, f := range r.Folds {
		w = max(w, len(label(f.Chosen)))
	}
	fmt.Fprintf(&b, "\nfold  queries  %-*s  train    held out\n", w, "chosen on the other folds")
	for i, f := range r.Folds {
		fmt.Fprintf(&b, "%-4d  %-7d  %-*s  %.4f   %.4f\n", i+1, len(f.Queries), w, label(f.Chosen), f.Train, f.HeldOut)
	}
	h := r.HeldOut
	fmt.Fprintf(&b, "\nheld out, %s: tuned %.4f, defaults %.4f, difference %+.4f (95%% CI %+.4f to %+.4f), p %.4f\n",
		t.Metric, h.Tuned, h.Default, h.Diff, h.CI[0], h.CI[1], h.P)
	fmt.Fprintf(&b, "chosen on all queries: %s (mean %.4f; the defaults' %.4f)\n", label(r.Chosen),
		tune.Mean(r.Figures[r.Chosen].Values, all), tune.Mean(r.Figures[r.Default].Values, all))
	fmt.Fprintf(&b, "flags: --retriever %s %s\n\n", t.Retriever, t.Flags)
	if c := t.CurveText(); c != "" {
		b.WriteString(c + "\n")
	}
	for _, p := range t.Params {
		fmt.Fprintf(&b, "%-*s ", max(12, len(p.Name)), p.Name)
	}
	fmt.Fprintf(&b, "%-9s  context\n", t.Metric)
	for _, i := range t.order() {
		for j, v := range r.Settings[i] {
			fmt.Fprintf(&b, "%-*s ", max(12, len(t.Params[j].Name)), SweepValue(t.Params[j].Values[v]))
		}
		fmt.Fprintf(&b, "%-9.4f  %.0f", tune.Mean(r.Figures[i].Values, all), tune.Mean(r.Figures[i].Context, all))
		if i == r.Default {
			b.WriteString(" ←")
		}
		if i == r.Chosen {
			b.WriteString(" *")
		}
		b.WriteString("\n")
	}
	b.WriteString("← the defaults (the flags given), * chosen on all queries. The held-out figures, not the means above, say what tuning is worth.\n")
	return b.String()
}

type tuneJSON struct {
	Retriever   string                        `json:"retriever"`
	Metric      string                        `json:"metric"`
	Queries     int                           `json:"queries"`
	Seeding     string                        `json:"seeding,omitempty"`
	Search      string                        `json:"search"`
	Rounds      int                           `json:"rounds"`
	SplitSeed   uint64                        `json:"seed_split"`
	BudgetChars float64                       `json:"budget_chars,omitempty"`
	Grid        []tuneGridJSON                `json:"grid"`
	Folds       []tuneFoldJSON                `json:"folds"`
	HeldOut     tuneHeldOutJSON               `json:"held_out"`
	Chosen      retriever.Fields              `json:"chosen"`
	Flags       string                        `json:"flags"`
	PerQuery    map[string]map[string]float64 `json:"per_query"`
	PerContext  map[string]map[string]float64 `json:"per_query_context_chars,omitempty"`
}

type tuneGridJSON struct {
	Key              string           `json:"key"`
	Setting          retriever.Fields `json:"setting"`
	Mean             float64          `json:"mean"`
	MeanContextChars float64          `json:"mean_context_chars"`
	Default          bool             `json:"default"`
	// FoldRange and ChosenBy are the rest of the setting's point of the
	// held-out curve (tune.Curve; Mean is its mean): the lowest and
	// highest of the folds' means, and the folds that chose it.
	FoldRange [2]float64 `json:"fold_range"`
	ChosenBy  []int      `json:"chosen_by_folds"`
}

type tuneFoldJSON struct {
	Queries []string         `json:"queries"`
	Chosen  retriever.Fields `json:"chosen"`
	Train   float64          `json:"train"`
	HeldOut float64          `json:"held_out"`
}

type tuneHeldOutJSON struct {
	Tuned   float64    `json:"tuned"`
	Default float64    `json:"default"`
	Diff    float64    `json:"diff"`
	P       float64    `json:"p"`
	CI      [2]float64 `json:"ci"`
}

// TuneJSON is t as one JSON object: {"retriever", "metric", "queries",
// "seeding", "search", "rounds", "seed_split", "budget_chars" (when set), "grid":
// [{"key", "setting": {param: value}, "mean", "mean_context_chars",
// "default", "fold_range": [lo, hi], "chosen_by_folds"}] (with "mean",
// the held-out curve's points: tune.Curve), "folds": [{"queries": [ids], "chosen", "train",
// "held_out"}], "held_out": {"tuned", "default", "diff", "p", "ci": [lo,
// hi]}, "chosen", "flags", "per_query": {key: {query: value}}}, and with a
// budget "per_query_context_chars" the same way: every figure the choice
// used, so that anyone can redo it. A key is the setting as "p=v,q=w".
// Query ids are \u-escaped where they could act on a terminal
// (textsafe.JSON).
func TuneJSON(t Tune) ([]byte, error) {
	r := t.Result
	all := t.all()
	out := tuneJSON{Retriever: t.Retriever, Metric: t.Metric, Queries: len(t.Queries), Seeding: t.Seeding, Search: r.Search, Rounds: r.Rounds,
		SplitSeed: t.SplitSeed, BudgetChars: t.Budget, Grid: []tuneGridJSON{}, Folds: []tuneFoldJSON{},
		HeldOut: tuneHeldOutJSON{r.HeldOut.Tuned, r.HeldOut.Default, r.HeldOut.Diff, r.HeldOut.P, r.HeldOut.CI},
		Chosen:  t.fields(r.Settings[r.Chosen]), Flags: t.Flags, PerQuery: map[string]map[string]float64{}}
	if t.Budget > 0 {
		out.PerContext = map[string]map[string]float64{}
	}
	curve := tune.Curve(r)
	for _, i := range t.order() {
		k := t.settingText(r.Settings[i], ",")
		c := curve[i]
		out.Grid = append(out.Grid, tuneGridJSON{Key: k, Setting: t.fields(r.Settings[i]), Mean: tune.Mean(r.Figures[i].Values, all),
			MeanContextChars: tune.Mean(r.Figures[i].Context, all), Default: i == r.Default,
			FoldRange: [2]float64{c.Lo, c.Hi}, ChosenBy: append([]int{}, c.ChosenBy...)})
		out.PerQuery[k] = byQuery(t.Queries, r.Figures[i].Values)
		if out.PerContext != nil {
			out.PerContext[k] = byQuery(t.Queries, r.Figures[i].Context)
		}
	}
	for _, f := range r.Folds {
		ids := make([]string, len(f.Queries))
		for j, q := range f.Queries {
			ids[j] = t.Queries[q]
		}
		out.Folds = append(out.Folds, tuneFoldJSON{Queries: ids, Chosen: t.fields(r.Settings[f.Chosen]), Train: f.Train, HeldOut: f.HeldOut})
	}
	b, err := json.Marshal(out)
	return append(textsafe.JSON(b), '\n'), err
}

func byQuery(ids []string, xs []float64) map[string]float64 {
	m := make(map[string]float64, len(ids))
	for i, id := range ids {
		m[id] = xs[i]
	}
	return m
}

// TuneCSV is t as CSV: one row per setting tried, by value: each
// parameter's value, the mean metric and mean context over all queries,
// whether it is the defaults and the setting chosen on all queries, the
// folds that chose it (their numbers, space-separated), and the lowest
// and highest of the folds' means (with the mean, its point of the
// held-out curve: tune.Curve).
func TuneCSV(t Tune) string {
	var b strings.Builder
	r := t.Result
	all := t.all()
	for _, p := range t.Params {
		b.WriteString(p.Name + ",")
	}
	b.WriteString("mean,mean_context_chars,default,chosen,folds,fold_lo,fold_hi\n")
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	curve := tune.Curve(r)
	for _, i := range t.order() {
		for j, v := range r.Settings[i] {
			b.WriteString(g(t.Params[j].Values[v]) + ",")
		}
		c := curve[i]
		folds := make([]string, len(c.ChosenBy))
		for n, f := range c.ChosenBy {
			folds[n] = strconv.Itoa(f)
		}
		fmt.Fprintf(&b, "%s,%s,%t,%t,%s,%s,%s\n", g(tune.Mean(r.Figures[i].Values, all)), g(tune.Mean(r.Figures[i].Context, all)),
			i == r.Default, i == r.Chosen, strings.Join(folds, " "), g(c.Lo), g(c.Hi))
	}
	return b.String()
}
