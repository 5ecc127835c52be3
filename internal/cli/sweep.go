package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/sweep"
)

const sweepUsage = `Usage: memoria sweep [source flags] --seed ID[=SCORE]... --param NAME
                     [--values v1,v2,... | --from X --to Y --steps N] [options]
       memoria sweep [source flags] --queries Q.jsonl [--qrels FILE] [--seeding given|gathered]
                     [--retriever NAME] --param NAME [grid flags] [that retriever's flags] [--k K,...]

With --queries, a metric sweep: the retriever over the whole query set at
each value of one of its numeric parameters, each point measured as
'memoria eval' measures a run, recall and nDCG charted beside the context
size (docs/EVALUATION.md, "Metric sweeps"). Without it:

Explores at each value of one threshold, the others fixed (their flags, or
the defaults), and shows how the result changes. NAME is min-activation,
max-branches, tag-sim-floor or max-depth. Without --values the range is
--from..--to in --steps points (default min-activation 0.0001..0.1 in 25
log steps, max-branches 1..10, tag-sim-floor 0..1 in 11, max-depth 1..12).
The current value (its flag, or the default) is always a point. For
min-activation the sweep then adds the exact breakpoints (the values where
the result changes), nearest the current value first and outward, until the
whole range is exact or --max-points or --budget is spent; the output says
which part is exact: there the result at any value is the one of the highest
point at or below it. Every point's result is what 'explore' with that value
prints.

Formats:
  text  charts of paths, nodes reached and summed energy (the current value
        marked), the table of points, each node's bands and every place
        where loosening the threshold removed a node
  json  one line per value, ascending: {"param","value","results":[...]},
        results as 'explore --format json' prints them, in seed order
        (explored again point by point as they are printed, so that a sweep
        of many points is never held whole)
  csv   one row per value: param,value,breakpoint,paths,nodes_reached,summed_energy

Exit codes: 0 swept; 1 the graph could not be opened or read, or a seed
ended in error at some value (everything is printed first); 2 a mistake in
the command line.

Flags:
`

func runSweep(ctx context.Context, args []string, env Env) error {
	fs := newFlagSet(env, "sweep", sweepUsage)
	var t thresholdSweep
	t.runFlags.register(fs, "seed `ID[=SCORE]` (repeatable; SCORE in (0,1], default 1)", true)
	rf, rr := &t.rf, &t.rr
	param := fs.String("param", "", "the `parameter` to sweep: min-activation, max-branches, tag-sim-floor or max-depth")
	fs.StringVar(&t.values, "values", "", "comma-separated `values` to explore (no breakpoints are added)")
	fs.Float64Var(&t.from, "from", 0, "first value of the grid (default: the parameter's range)")
	fs.Float64Var(&t.to, "to", 0, "last value of the grid (default: the parameter's range)")
	fs.IntVar(&t.steps, "steps", 0, "number of grid points (default: the parameter's)")
	fs.StringVar(&t.format, "format", "text", "output `format`: text, json or csv")
	fs.IntVar(&t.maxPoints, "max-points", sweep.DefaultMaxPoints, "most `explorations` spent looking for min-activation breakpoints (each adds at most one point)")
	fs.DurationVar(&t.budget, "budget", sweep.DefaultBudget, "most `time` spent looking for min-activation breakpoints; 0 for no limit")
	queries := fs.String("queries", "", "a metric sweep: measure each value over the query set in `FILE` (JSON lines, as memoria eval reads it):\n"+
		"recall, nDCG and the rest at --k, and the context size, for the parameter of --retriever (any retriever's numeric flag)")
	qrelsFile := fs.String("qrels", "", "with --queries: relevance grades from a TREC qrels `FILE`, beside the query set's")
	kList := fs.String("k", "10", "with --queries: the cut-offs `K,...` of P@k, Recall@k and nDCG@k (the chart shows the first)")
	var seedingMode string
	registerSeeding(fs, &seedingMode, false)
	if err := parse(fs, env, args); err != nil {
		return err
	}
	t.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { t.set[f.Name] = true })
	if fs.NArg() > 0 {
		return usagef("sweep: unexpected argument %q (seeds go in --seed)", fs.Arg(0))
	}
	if t.set["queries"] {
		sd := &seeding{cmd: "sweep", queries: *queries, mode: seedingMode, q: &t.q}
		return metricSweepCmd(ctx, env, fs, &t.q, rf, rr, t.set, *param, t.values, t.from, t.to, t.steps, sd, *qrelsFile, *kList, t.format)
	}
	for _, f := range []string{"qrels", "k", "retriever", "rerank", "seeding"} {
		if t.set[f] {
			return usagef("sweep: --%s applies to a metric sweep: give --queries FILE", f)
		}
	}
	if err := refuseUnlisted(fs, "sweep", "a sweep without --queries varies Activation Energy's thresholds", []string{activation.Name}); err != nil {
		return err
	}
	t.q.gather.useVector(rf)
	p, err := t.check(*param)
	if err != nil {
		return err
	}
	vals, err := t.grid(p)
	if err != nil {
		return err
	}
	return t.run(ctx, env, p, vals)
}

// thresholdSweep is a sweep of one of Activation Energy's thresholds
// (without --queries): its flags, as runSweep parsed them.
type thresholdSweep struct {
	runFlags         // the bundle every running command shares
	values, format   string
	from, to         float64
	steps, maxPoints int
	budget           time.Duration
	set              map[string]bool // the flags given
}

// check refuses a threshold sweep's flags that cannot go together and
// returns the parameter.
func (t *thresholdSweep) check(param string) (sweep.Param, error) {
	if !t.q.hasSeeds() {
		return "", usagef("sweep: at least one --seed is required")
	}
	if param == "" {
		return "", usagef("sweep: --param is required (min-activation, max-branches, tag-sim-floor or max-depth)")
	}
	p, err := sweep.ParseParam(param)
	if err != nil {
		return "", usagef("sweep: --param: %v", err)
	}
	if t.maxPoints < 1 {
		return "", usagef("sweep: --max-points must be at least 1, got %d", t.maxPoints)
	}
	if t.budget < 0 {
		return "", usagef("sweep: --budget must not be negative, got %v", t.budget)
	}
	if t.format != "text" && t.format != "json" && t.format != "csv" {
		return "", usagef("sweep: unknown --format %q (want text, json or csv)", t.format)
	}
	// The thresholds as given first: a value of --values is checked with
	// them (sweep.Param.Set), and must not take the blame for theirs.
	if err := t.q.checkThresholds(); err != nil {
		return "", err
	}
	if t.set["values"] && (t.set["from"] || t.set["to"] || t.set["steps"]) {
		return "", usagef("sweep: give --values or --from/--to/--steps, not both")
	}
	return p, nil
}

// grid is the values asked: --values, or --from/--to/--steps over the
// parameter's default range (sweep.DefaultRange), each valid for p.
func (t *thresholdSweep) grid(p sweep.Param) ([]float64, error) {
	if t.set["values"] {
		items, err := listItems(t.values, "value")
		if err != nil {
			return nil, usagef("sweep: --values: %v", err)
		}
		var vals []float64
		for i, f := range items {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				return nil, usagef("sweep: --values: item %d, %q, is not a number", i+1, f)
			}
			if _, err := p.Set(t.q.cfg, v); err != nil {
				return nil, usagef("sweep: --values: item %d: %v", i+1, err)
			}
			vals = append(vals, v)
		}
		return vals, nil
	}
	lo, hi, n := sweep.DefaultRange(p)
	if t.set["from"] {
		lo = t.from
	}
	if t.set["to"] {
		hi = t.to
	}
	if t.set["steps"] {
		n = t.steps
	}
	vals, err := sweep.Grid(p, lo, hi, n)
	if err != nil {
		return nil, usagef("sweep: %v", err)
	}
	for _, v := range vals {
		if _, err := p.Set(t.q.cfg, v); err != nil {
			return nil, usagef("sweep: --from/--to: %v", err)
		}
	}
	return vals, nil
}

// run opens the source, sweeps p over vals and prints the sweep.
func (t *thresholdSweep) run(ctx context.Context, env Env, p sweep.Param, vals []float64) error {
	source, err := t.q.open(ctx, env)
	if err != nil {
		return err
	}
	defer source.Close(context.WithoutCancel(ctx))
	// On Neo4j a snapshot: each frontier node's relationships are read
	// once, and every other run replays them (docs/ALGORITHM.md,
	// "Replaying from a snapshot"), so no point sends a query of its own.
	backend, err := t.q.cliBackend(ctx, env, source, true)
	if err != nil {
		return err
	}
	if _, inMemory := source.(*inmem.Graph); inMemory {
		defer holdHeapToLoad()()
	}
	s, err := sweep.Run(ctx, sweep.Config{
		Backend: backend, Params: t.q.cfg, Options: t.q.opts, Seeds: t.q.seeds, Tags: splitTags(t.q.tags),
		Param: p, Values: vals, Breakpoints: !t.set["values"], MaxPoints: t.maxPoints, Budget: t.budget,
	})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return usageError{"sweep: " + err.Error()}
	}
	if err := writeSweep(ctx, env.Stdout, s, t.format, chartWidth(env)); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	if len(s.Failures) > 0 {
		f := s.Failures[0]
		more := ""
		if len(s.Failures) > 1 {
			more = fmt.Sprintf(" (and %d more failures)", len(s.Failures)-1)
		}
		return fmt.Errorf("sweep: seed %s ended in error at %s %v%s: %s", render.DisplayID(f.SeedID), p, f.Value, more, textsafe.Escape(f.Error))
	}
	return nil
}

// sweepHeapFloor is the lowest soft memory limit holdHeapToLoad sets.
const sweepHeapFloor = 64 << 20

// holdHeapToLoad sets a soft memory limit (runtime/debug.SetMemoryLimit)
// of what the process holds now, just after loading a graph file, or of
// the collector's current goal when that is higher, and returns the
// function that puts the limit back. A sweep's runs make garbage fast,
// and by the collector's default rule (GOGC, the heap may double what is
// live) its peak would grow with the runs in flight at each collection:
// on the 1M-edge graph 350–370 MB against the 240 MB that loading the
// graph took (docs/PERFORMANCE.md). Under the limit the collector runs
// sooner instead, so the sweep stays within what the load already needed.
// It is soft: when the live heap needs more, the heap grows past it and
// the collector spends at most half the CPU trying (the runtime's cap),
// and a lower GOMEMLIMIT is kept. It is never below sweepHeapFloor, so
// that a sweep on a small graph is not made to collect all the time.
func holdHeapToLoad() func() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	limit := max(ms.HeapSys-ms.HeapReleased, ms.NextGC, sweepHeapFloor)
	old := debug.SetMemoryLimit(-1)
	if limit > math.MaxInt64 || int64(limit) >= old {
		return func() {}
	}
	debug.SetMemoryLimit(int64(limit))
	return func() { debug.SetMemoryLimit(old) }
}

// chartWidth is the width a chart on stdout fills (docs/CLI.md, "Threshold
// sweeps"): the terminal's, else $COLUMNS when it is a number of at least
// 20, else render.DefaultChartWidth.
func chartWidth(env Env) int {
	if f, ok := env.Stdout.(interface{ Fd() uintptr }); ok && isTerminal(env.Stdout) {
		if w, _, err := term.GetSize(f.Fd()); err == nil && w >= 20 {
			return w
		}
	}
	if w, err := strconv.Atoi(env.Getenv("COLUMNS")); err == nil && w >= 20 {
		return w
	}
	return render.DefaultChartWidth
}

// writeSweep prints s, its text's charts width columns wide; JSON lines
// stream point by point (Sweep.Replay).
func writeSweep(ctx context.Context, out io.Writer, s *sweep.Sweep, format string, width int) error {
	switch format {
	case "json":
		enc := json.NewEncoder(textsafe.JSONWriter{W: out})
		enc.SetEscapeHTML(false)
		return s.Replay(ctx, func(pt sweep.Point, results []activation.Result) error {
			return enc.Encode(render.SweepPoint(s.Param, pt, results))
		})
	case "csv":
		_, err := io.WriteString(out, render.SweepCSV(s))
		return err
	}
	_, err := io.WriteString(out, render.SweepTextWith(s, width))
	return err
}

// metricSweepCmd checks the metric sweep's flags (docs/CLI.md, "Metric
// sweeps") and runs it: the grid from --values, or --from/--to/--steps
// over the parameter's default range (sweepables).
func metricSweepCmd(ctx context.Context, env Env, fs *flag.FlagSet, q *queryFlags, rf *retrieverFlags, rr *rerankFlags, set map[string]bool,
	param, values string, from, to float64, steps int, sd *seeding, qrelsFile, kList, format string) error {
	if err := sd.check(); err != nil {
		return err
	}
	switch {
	case len(q.seeds) > 0 || set["tags"]:
		return usagef("sweep: --seed and --tags do not apply with --queries: each query gives its own")
	case param == "":
		return usagef("sweep: --param is required: a numeric parameter of --retriever %s", rf.name)
	case format != "text" && format != "json" && format != "csv":
		return usagef("sweep: unknown --format %q (want text, json or csv)", format)
	case set["values"] && (set["from"] || set["to"] || set["steps"]):
		return usagef("sweep: give --values or --from/--to/--steps, not both")
	}
	for _, f := range []string{"max-points", "budget"} {
		if set[f] {
			return usagef("sweep: --%s applies to a threshold sweep's breakpoints; a metric sweep runs its grid", f)
		}
	}
	ks, err := parseKs("sweep", kList)
	if err != nil {
		return err
	}
	grid := func(sp sweepable) ([]float64, error) {
		if set["values"] {
			return parseValues(values, sp)
		}
		lo, hi, n := sp.from, sp.to, sp.steps
		if set["from"] {
			lo = from
		}
		if set["to"] {
			hi = to
		}
		if set["steps"] {
			n = steps
		}
		return sweep.Spaced(lo, hi, n, sp.log, sp.integer)
	}
	return runMetricSweep(ctx, env, fs, q, rf, rr, param, grid, sd, qrelsFile, ks, format)
}
