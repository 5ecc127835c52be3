package cli

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever/activation/sweep"
	"github.com/memoria-graph/memoria/retriever/eval"
	"github.com/memoria-graph/memoria/retriever/tune"
)

const tuneUsage = `Usage: memoria tune [source flags] --queries Q.jsonl [--qrels FILE] --retriever NAME
       --param P [--values v1,v2,...] [--param P2 [--values ...]]... [that retriever's flags]
       [--metric M] [--folds K] [--seed-split N] [--max-points N] [--budget-chars N]
       [--format text|json|csv]

Chooses a retriever's setting on held-out queries (docs/EVALUATION.md,
"Tuning on held-out queries"). Each --param takes the values of the
--values after it, or its default grid as 'sweep --queries' takes it (a
fusion's weight of a fused ranking A is the parameter weight:A); the
value its flag gives (or its default) is always one, and the flags given
are the defaults. With several parameters the grid is their product when
it has at most --max-points settings, else coordinate ascent from the
defaults (each parameter in turn at its best value, until a full round
changes nothing); the output says which. Every setting runs every query
once.

The queries are dealt into --folds folds by a shuffle seeded with
--seed-split; each fold gets the setting with the best mean metric on the
other folds (ties: the fewest grid steps from the defaults, then the
smaller values), measured on the fold. The report: each fold's choice, the
held-out mean at the chosen settings against the defaults' (the paired
randomization test and a 95% bootstrap interval of the difference), and
the setting chosen on all queries as the flags to paste.

Formats:
  text  the folds, the held-out comparison, the flags, every setting tried
  json  one object with every per-query figure used (docs/EVALUATION.md)
  csv   one row per setting tried

Flags:
`

// tuneParam is one --param and the --values after it.
type tuneParam struct {
	name, values string
	hasValues    bool
}

// tuneFlags are tune's flags: the bundle every running command shares and
// its own.
type tuneFlags struct {
	runFlags
	queries, qrels, metric, format string
	seedingMode                    string
	params                         []tuneParam
	folds, maxPoints               int
	splitSeed                      uint64
	budget                         float64
	m                              eval.Metric
}

func (t *tuneFlags) register(fs *flag.FlagSet) {
	t.runFlags.register(fs, "not for tune: each query's seeds come from --queries", true)
	fs.Lookup("tags").Usage = "not for tune: each query's tags come from --queries"
	fs.Lookup("query-vector").Usage = "not for tune: each query's query_vector comes from --queries"
	fs.StringVar(&t.queries, "queries", "", "the query set, JSON lines in `FILE` (required), as memoria eval reads it")
	fs.StringVar(&t.qrels, "qrels", "", "relevance grades from a TREC qrels `FILE` (qid 0 docid rel), beside the query set's")
	fs.Func("param", "a `parameter` of --retriever to tune: a numeric flag of it, or weight:A for a fusion (repeatable)", func(v string) error {
		t.params = append(t.params, tuneParam{name: v})
		return nil
	})
	fs.Func("values", "the `values` v1,v2,... of the --param before it (default: its grid as sweep --queries takes it)", func(v string) error {
		if len(t.params) == 0 {
			return errors.New("give --param P before its --values")
		}
		p := &t.params[len(t.params)-1]
		if p.hasValues {
			return fmt.Errorf("--param %s has --values twice", p.name)
		}
		p.values, p.hasValues = v, true
		return nil
	})
	fs.StringVar(&t.metric, "metric", "nDCG@10", "the `metric` to choose by: nDCG@K, recall@K, P@K, MRR or MAP")
	fs.IntVar(&t.folds, "folds", tune.DefaultFolds, "the number of `folds` of the cross-validation, at least 2")
	fs.Uint64Var(&t.splitSeed, "seed-split", tune.DefaultSplitSeed, "the `seed` of the shuffle that deals the queries into folds")
	fs.IntVar(&t.maxPoints, "max-points", tune.DefaultMaxPoints, "the most `settings` of a product grid; a larger one is searched by coordinate ascent")
	fs.Float64Var(&t.budget, "budget-chars", 0, "choose only among settings whose mean llm context stays within `N` characters (0: no budget)")
	fs.StringVar(&t.format, "format", "text", "output `format`: text, json or csv")
	registerSeeding(fs, &t.seedingMode, false)
}

// seeding is tune's --seeding: given or gathered, once for every setting.
func (t *tuneFlags) seeding() *seeding {
	return &seeding{cmd: "tune", queries: t.queries, mode: t.seedingMode, q: &t.q}
}

// check refuses what tune cannot do with the flags given and reads
// --metric.
func (t *tuneFlags) check(fs *flag.FlagSet) error {
	if fs.NArg() > 0 {
		return usagef("tune: unexpected argument %s (the queries go in --queries)", textsafe.Quote(fs.Arg(0)))
	}
	for _, f := range [][2]string{{"seed", "--queries gives each query's seeds"}, {"tags", "--queries gives each query's tags"},
		{"query-vector", "--queries gives each query's query_vector"},
		{"query", "--queries gives each query's question, its \"query\" text (--seeding gathered finds the seeds from it)"}} {
		if isSet(fs, f[0]) {
			return usagef("tune: --%s does not apply: %s", f[0], f[1])
		}
	}
	var err error
	switch {
	case t.queries == "":
		return usagef("tune: --queries FILE is required")
	case len(t.params) == 0:
		return usagef("tune: give at least one --param (a numeric parameter of --retriever %s)", t.rf.name)
	case t.folds < 2:
		return usagef("tune: --folds must be at least 2, got %d", t.folds)
	case t.maxPoints < 1:
		return usagef("tune: --max-points must be at least 1, got %d", t.maxPoints)
	case !(t.budget >= 0) || math.IsInf(t.budget, 0):
		return usagef("tune: --budget-chars must be a finite number of at least 0, got %v", t.budget)
	case !slices.Contains([]string{"text", "json", "csv"}, t.format):
		return usagef("tune: unknown --format %s (want text, json or csv)", textsafe.Quote(t.format))
	}
	for i, p := range t.params {
		if slices.ContainsFunc(t.params[:i], func(o tuneParam) bool { return o.name == p.name }) {
			return usagef("tune: --param %s is given twice", textsafe.Quote(p.name))
		}
	}
	if t.m, err = parseMetric(t.metric); err != nil {
		return usagef("tune: --metric: %v", err)
	}
	return t.seeding().check()
}

// parseMetric reads one of eval's metrics by its name, in any case:
// nDCG@K, recall@K, P@K (K at least 1), MRR, MAP.
func parseMetric(v string) (eval.Metric, error) {
	name, k, hasK := strings.Cut(v, "@")
	for _, kind := range []eval.Kind{eval.KindPrecision, eval.KindRecall, eval.KindNDCG, eval.KindMRR, eval.KindMAP} {
		if !strings.EqualFold(name, string(kind)) {
			continue
		}
		cut := kind != eval.KindMRR && kind != eval.KindMAP
		if !cut {
			if hasK {
				return eval.Metric{}, fmt.Errorf("%s takes no @K, got %s", kind, textsafe.Quote(v))
			}
			return eval.Metric{Kind: kind}, nil
		}
		n, err := strconv.Atoi(k)
		if !hasK || err != nil || n < 1 {
			return eval.Metric{}, fmt.Errorf("%s needs a cut-off of at least 1, like %s@10, got %s", kind, kind, textsafe.Quote(v))
		}
		return eval.Metric{Kind: kind, K: n}, nil
	}
	return eval.Metric{}, fmt.Errorf("unknown metric %s (want nDCG@K, recall@K, P@K, MRR or MAP)", textsafe.Quote(v))
}

func runTune(ctx context.Context, args []string, env Env) error {
	var t tuneFlags
	fs := newFlagSet(env, "tune", tuneUsage)
	t.register(fs)
	if err := parse(fs, env, args); err != nil {
		return err
	}
	if err := t.check(fs); err != nil {
		return err
	}
	names, err := listedRetrievers(fs, "tune", t.rf.name, 1, &t.rf, &t.rr)
	if err != nil {
		return err
	}
	sps, params, err := t.grids(fs)
	if err != nil {
		return err
	}
	set, _, err := readQuerySet("tune", t.queries, t.qrels)
	if err != nil {
		return err
	}
	if len(set) < t.folds {
		return usagef("tune: --folds %d needs at least %d queries; --queries has %d", t.folds, t.folds, len(set))
	}
	if err := t.checkValues(fs, names, sps, params); err != nil {
		return err
	}
	g, closeSource, err := openRankings(ctx, env, &t.q, &t.rf)
	if err != nil {
		return err
	}
	defer closeSource()
	// The seeds do not depend on the setting: gathered once, they serve
	// every setting.
	sd := t.seeding()
	if set, err = sd.seeded(ctx, env, g.source, set); err != nil {
		return err
	}
	var failed error // the first setting's seeds that ended in error (printed, then exit 1)
	measure := t.measure(ctx, fs, g, names, sps, params, set, &failed)
	res, err := tune.Run(tune.Config{Params: params, Queries: len(set), Folds: tune.Split(len(set), t.folds, t.splitSeed),
		MaxPoints: t.maxPoints, Budget: t.budget}, measure)
	var be *tune.BudgetError
	if errors.As(err, &be) {
		return fmt.Errorf("tune: --budget-chars: %w", err)
	}
	if err != nil {
		return err
	}
	ids := make([]string, len(set))
	for i, q := range set {
		ids[i] = q.ID
	}
	if err := t.apply(fs, names, sps, params, res.Settings[res.Chosen]); err != nil {
		return err
	}
	rep := render.Tune{Retriever: t.rf.name, Metric: t.m.Name(), Queries: ids, Params: params, SplitSeed: t.splitSeed,
		MaxPoints: t.maxPoints, Budget: t.budget, Result: res, Flags: t.pasteFlags(sps, params, res.Settings[res.Chosen]),
		Width: chartWidth(env), Seeding: sd.mode}
	return cmp.Or(writeTune(env.Stdout, rep, t.format), failed)
}

// measure is tune's tune.Measure: each setting set through its flags
// (apply), then every query of set run as eval runs it (evalRuns) and
// measured by --metric, its llm context counted. failed gets the first
// setting's seeds that ended in error.
func (t *tuneFlags) measure(ctx context.Context, fs *flag.FlagSet, g *rankings, names []string, sps []sweepable, params []tune.Param,
	set []eval.Query, failed *error) tune.Measure {
	return func(settings []tune.Setting) ([]tune.Figures, error) {
		out := make([]tune.Figures, len(settings))
		for i, s := range settings {
			if err := t.apply(fs, names, sps, params, s); err != nil {
				return nil, err
			}
			g.act = nil // Activation Energy's retriever holds its thresholds
			runs, f, err := evalRuns(ctx, "tune", g, &t.rf, &t.rr, names, set)
			if err != nil {
				return nil, err
			}
			if f != nil && *failed == nil {
				*failed = fmt.Errorf("%w (at %s)", f, settingFlags(sps, params, s))
			}
			out[i] = tune.Figures{Values: make([]float64, len(set)), Context: make([]float64, len(set))}
			for q := range set {
				o := runs[q][0].outcome()
				out[i].Values[q] = t.m.Value(o.Ranked, set[q].Relevant)
				out[i].Context[q] = float64(o.ContextChars)
			}
		}
		return out, nil
	}
}

// grids reads each --param (sweepableOf) and its values: --values, or
// its default grid, with the value the flags give added; that value is
// the parameter's default.
func (t *tuneFlags) grids(fs *flag.FlagSet) ([]sweepable, []tune.Param, error) {
	var sps []sweepable
	var params []tune.Param
	for _, tp := range t.params {
		sp, err := sweepableOf(&t.rf, t.rf.name, tp.name)
		if err != nil {
			return nil, nil, usagef("tune: --param: %v", err)
		}
		var vals []float64
		if tp.hasValues {
			vals, err = parseValues(tp.values, sp)
		} else {
			vals, err = sweep.Spaced(sp.from, sp.to, sp.steps, sp.log, sp.integer)
		}
		if err != nil {
			return nil, nil, usagef("tune: --param %s: %v", tp.name, err)
		}
		current, err := currentOf(fs, &t.rf, sp)
		if err != nil {
			return nil, nil, fmt.Errorf("tune: --%s: %v", sp.flag, err)
		}
		if !slices.Contains(vals, current) {
			vals = append(vals, current)
			slices.Sort(vals)
		}
		sps = append(sps, sp)
		params = append(params, tune.Param{Name: sp.flag, Values: vals, Default: slices.Index(vals, current)})
	}
	return sps, params, nil
}

// parseValues reads a --values list for sp: numbers, whole ones for a
// parameter of whole numbers, sorted, each once.
func parseValues(values string, sp sweepable) ([]float64, error) {
	var vals []float64
	items, err := listItems(values, "value")
	if err != nil {
		return nil, fmt.Errorf("--values: %w", err)
	}
	for i, f := range items {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil, fmt.Errorf("--values: item %d, %q, is not a number", i+1, f)
		}
		// A fraction would be cut to its whole part when set, and the
		// point labelled with the fraction.
		if sp.integer && v != math.Trunc(v) {
			return nil, fmt.Errorf("--values: item %d: %s takes whole numbers, got %s", i+1, sp.flag, f)
		}
		vals = append(vals, v)
	}
	slices.Sort(vals)
	return slices.Compact(vals), nil
}

// checkValues checks every value of every parameter, the others at their
// defaults, as its flag would, before anything runs (a mistake is a usage
// error naming the flag), the thresholds as given first; it leaves the
// defaults set.
func (t *tuneFlags) checkValues(fs *flag.FlagSet, names []string, sps []sweepable, params []tune.Param) error {
	if err := t.q.checkThresholds(); err != nil {
		return err
	}
	def := make(tune.Setting, len(params))
	for i, p := range params {
		def[i] = p.Default
	}
	for i, p := range params {
		for v := range p.Values {
			s := slices.Clone(def)
			s[i] = v
			if err := t.apply(fs, names, sps, params, s); err != nil {
				return err
			}
		}
	}
	return t.apply(fs, names, sps, params, def)
}

// apply sets each parameter to its value of setting s and checks them.
func (t *tuneFlags) apply(fs *flag.FlagSet, names []string, sps []sweepable, params []tune.Param, s tune.Setting) error {
	for i, sp := range sps {
		if err := setSwept("tune", fs, &t.q, &t.rf, names, sp, params[i].Values[s[i]]); err != nil {
			return err
		}
	}
	return nil
}

// settingFlags is setting s as its flags ("--damping 0.7 weight:ppr=2").
func settingFlags(sps []sweepable, params []tune.Param, s tune.Setting) string {
	parts := make([]string, len(sps))
	for i, sp := range sps {
		if sp.key != "" {
			parts[i] = sp.flag + "=" + sp.formatValue(params[i].Values[s[i]])
		} else {
			parts[i] = "--" + sp.flag + " " + sp.formatValue(params[i].Values[s[i]])
		}
	}
	return strings.Join(parts, " ")
}

// pasteFlags are the flags that give setting s (set by apply): each row's
// flag, and a keyed parameter's one flag with every key it takes
// ("--fuse-weights activation=1,expansion=1,spreading=1,ppr=1.6").
func (t *tuneFlags) pasteFlags(sps []sweepable, params []tune.Param, s tune.Setting) string {
	var parts []string
	keyed := false
	for i, sp := range sps {
		if sp.key != "" {
			keyed = true
			continue
		}
		parts = append(parts, "--"+sp.flag+" "+sp.formatValue(params[i].Values[s[i]]))
	}
	if keyed {
		p := t.rf.settings(t.rf.name)
		_, flagName, _, keys, _ := p.Keyed()
		kv := make([]string, len(keys))
		for i, k := range keys {
			kv[i] = k + "=" + strconv.FormatFloat(p.KeyedGet(k), 'g', -1, 64)
		}
		parts = append(parts, "--"+flagName+" "+strings.Join(kv, ","))
	}
	return strings.Join(parts, " ")
}

// writeTune prints the tuning as text, json or csv.
func writeTune(out io.Writer, t render.Tune, format string) error {
	return writeAs(out, format, func() ([]byte, error) { return render.TuneJSON(t) },
		func() string { return render.TuneCSV(t) }, func() string { return render.TuneText(t) })
}
