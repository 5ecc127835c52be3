package cli

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever/activation/sweep"
	"github.com/memoria-graph/memoria/retriever/eval"
	"github.com/memoria-graph/memoria/retriever/registry"
)

// sweepable is a numeric parameter a metric sweep can vary: its flag, the
// retriever it belongs to, whether it takes whole numbers, whether its
// default grid is logarithmic, and that grid's range and points.
type sweepable struct {
	flag      string
	retriever string
	integer   bool
	log       bool
	from, to  float64
	steps     int
	// key, when set, is the key of the retriever's keyed parameter that
	// flag ("weight:ppr") names (retriever.Keyed): set through
	// retrieverFlags.keyed, not a flag.
	key string
}

// sweepables are the parameters of `memoria sweep --queries`, by
// retriever: Activation Energy's four thresholds (their grids as the
// threshold sweep's, sweep.DefaultRange) and every row of the ranking
// retrievers' tables that has a grid (docs/EVALUATION.md, "Metric
// sweeps").
func sweepables() []sweepable {
	var out []sweepable
	for _, p := range sweep.Params {
		from, to, steps := sweep.DefaultRange(p)
		out = append(out, sweepable{string(p), registry.Activation, p.Integer(), p == sweep.MinActivation, from, to, steps, ""})
	}
	for _, spec := range registry.Specs() {
		for _, p := range spec.Params {
			if p.Grid.Steps > 0 {
				out = append(out, sweepable{p.Flag, spec.Name, p.Whole, p.Grid.Log, p.Grid.From, p.Grid.To, p.Grid.Steps, ""})
			}
		}
	}
	return out
}

// sweepableOf is retriever name's parameter flag, or an error listing
// the ones it has: a row of its table, or "NAME:KEY", a key its keyed
// parameter takes with the flags rf holds (fusion's "weight:ppr").
func sweepableOf(rf *retrieverFlags, name, param string) (sweepable, error) {
	var have []string
	for _, s := range sweepables() {
		if s.retriever == name {
			if s.flag == param {
				return s, nil
			}
			have = append(have, s.flag)
		}
	}
	if p, ok := rf.set[name]; ok {
		if kname, _, g, keys, ok := p.Keyed(); ok {
			for _, k := range keys {
				if param == kname+":"+k {
					return sweepable{flag: param, retriever: name, log: g.Log, from: g.From, to: g.To, steps: g.Steps, key: k}, nil
				}
				have = append(have, kname+":"+k)
			}
		}
	}
	return sweepable{}, fmt.Errorf("%s is not a numeric parameter of %s (want one of %s)", textsafe.Quote(param), name, strings.Join(have, ", "))
}

// currentOf is sp's value as the flags rf and fs hold it.
func currentOf(fs *flag.FlagSet, rf *retrieverFlags, sp sweepable) (float64, error) {
	if sp.key != "" {
		return rf.settings(sp.retriever).KeyedGet(sp.key), nil
	}
	return strconv.ParseFloat(fs.Lookup(sp.flag).Value.String(), 64)
}

// formatValue writes a grid value as its flag parses it: a whole number
// in full ('f'), so that one too large for the flag is refused by it
// rather than wrapped by a conversion to int64.
func (s sweepable) formatValue(v float64) string {
	if s.integer {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// runMetricSweep runs the metric sweep of the parameter param of the
// retriever rf.name over the query set sd seeds (given, or gathered from
// its questions): vals are the grid (nil: the parameter's default
// grid, or --from/--to/--steps through grid), each set through the flag
// set fs (so each value is parsed and checked as the flag would be), the
// parameter's own value added when it is not a point.
func runMetricSweep(ctx context.Context, env Env, fs *flag.FlagSet, q *queryFlags, rf *retrieverFlags, rr *rerankFlags,
	param string, grid func(sweepable) ([]float64, error), sd *seeding, qrelsFile string, ks []int, format string) error {
	names, err := listedRetrievers(fs, "sweep", rf.name, 1, rf, rr)
	if err != nil {
		return err
	}
	sp, err := sweepableOf(rf, rf.name, param)
	if err != nil {
		return usagef("sweep: --param: %v", err)
	}
	vals, err := grid(sp)
	if err != nil {
		return usagef("sweep: %v", err)
	}
	current, err := currentOf(fs, rf, sp)
	if err != nil {
		return fmt.Errorf("sweep: --%s: %v", sp.flag, err)
	}
	if !slices.Contains(vals, current) {
		vals = append(vals, current)
		slices.Sort(vals)
	}
	set, _, err := readQuerySet("sweep", sd.queries, qrelsFile)
	if err != nil {
		return err
	}
	// Every value is checked before anything runs: a mistake is a usage
	// error naming the flag, and nothing is printed. The thresholds as
	// given come first, so that a swept value does not take the blame for
	// theirs.
	if err := q.checkThresholds(); err != nil {
		return err
	}
	for _, v := range vals {
		if err := setSwept("sweep", fs, q, rf, names, sp, v); err != nil {
			return err
		}
	}
	g, closeSource, err := openRankings(ctx, env, q, rf)
	if err != nil {
		return err
	}
	defer closeSource()
	if set, err = sd.seeded(ctx, env, g.source, set); err != nil {
		return err
	}
	ms := render.MetricSweep{Retriever: rf.name, Param: sp.flag, Queries: len(set), Ks: ks, Metrics: eval.Metrics(ks), Width: chartWidth(env), Seeding: sd.mode}
	var failed error // the first value's seeds that ended in error (printed, then exit 1)
	for _, v := range vals {
		if err := setSwept("sweep", fs, q, rf, names, sp, v); err != nil {
			return err
		}
		g.act = nil // Activation Energy's retriever holds its thresholds
		runs, f, err := evalRuns(ctx, "sweep", g, rf, rr, names, set)
		if err != nil {
			return err
		}
		if f != nil && failed == nil {
			failed = fmt.Errorf("%w (at --%s %s)", f, sp.flag, sp.formatValue(v))
		}
		outcomes := make([]eval.Outcome, len(set))
		for i := range set {
			outcomes[i] = runs[i][0].outcome()
		}
		run := eval.Evaluate(set, names, [][]eval.Outcome{outcomes}, ks).Runs[0]
		ms.Points = append(ms.Points, render.MetricPoint{Value: v, Current: v == current, Means: run.Mean, MeanHits: run.MeanHits,
			MeanContextChars: run.MeanContextChars})
	}
	return cmp.Or(writeMetricSweep(env.Stdout, ms, format), failed)
}

// setSwept sets the swept parameter to v through its flag (a keyed
// parameter's key through rf.setKeyed) and checks the parameters as
// command cmd would.
func setSwept(cmd string, fs *flag.FlagSet, q *queryFlags, rf *retrieverFlags, names []string, sp sweepable, v float64) error {
	if sp.key != "" {
		rf.setKeyed(sp.retriever, sp.key, v)
	} else if err := fs.Set(sp.flag, sp.formatValue(v)); err != nil {
		return usagef("%s: --%s %s: %v", cmd, sp.flag, sp.formatValue(v), err)
	}
	if sp.retriever == registry.Activation {
		if err := q.cfg.Validate(); err != nil {
			return usagef("%s: --%s %s: %v", cmd, sp.flag, sp.formatValue(v), err)
		}
		return nil
	}
	if err := rf.finish(cmd, names); err != nil {
		return usagef("%v (at --%s %s)", err, sp.flag, sp.formatValue(v))
	}
	return nil
}

// writeMetricSweep prints a metric sweep as text, json or csv.
func writeMetricSweep(out io.Writer, ms render.MetricSweep, format string) error {
	return writeAs(out, format, func() ([]byte, error) { return render.MetricSweepJSON(ms) },
		func() string { return render.MetricSweepCSV(ms) }, func() string { return render.MetricSweepText(ms) })
}

// writeAs writes one output in format: json's bytes, csv's text, or
// otherwise the text form; only the form asked for is rendered.
func writeAs(out io.Writer, format string, asJSON func() ([]byte, error), asCSV, asText func() string) error {
	var b []byte
	var err error
	switch format {
	case "json":
		b, err = asJSON()
	case "csv":
		b = []byte(asCSV())
	default:
		b = []byte(asText())
	}
	if err == nil {
		_, err = out.Write(b)
	}
	return err
}
