package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/sweep"
)

const sweepUsage = `Usage: memoria sweep [source flags] --seed ID[=SCORE]... --param NAME
                     [--values v1,v2,... | --from X --to Y --steps N] [options]

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
	var q queryFlags
	q.register(fs, "seed `ID[=SCORE]` (repeatable; SCORE in (0,1], default 1)")
	param := fs.String("param", "", "the `parameter` to sweep: min-activation, max-branches, tag-sim-floor or max-depth")
	values := fs.String("values", "", "comma-separated `values` to explore (no breakpoints are added)")
	from := fs.Float64("from", 0, "first value of the grid (default: the parameter's range)")
	to := fs.Float64("to", 0, "last value of the grid (default: the parameter's range)")
	steps := fs.Int("steps", 0, "number of grid points (default: the parameter's)")
	format := fs.String("format", "text", "output `format`: text, json or csv")
	maxPoints := fs.Int("max-points", sweep.DefaultMaxPoints, "most `explorations` spent looking for min-activation breakpoints (each adds at most one point)")
	budget := fs.Duration("budget", sweep.DefaultBudget, "most `time` spent looking for min-activation breakpoints; 0 for no limit")
	if err := parse(fs, env, args); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if fs.NArg() > 0 {
		return usagef("sweep: unexpected argument %q (seeds go in --seed)", fs.Arg(0))
	}
	if len(q.seeds) == 0 {
		return usagef("sweep: at least one --seed is required")
	}
	if *param == "" {
		return usagef("sweep: --param is required (min-activation, max-branches, tag-sim-floor or max-depth)")
	}
	p, err := sweep.ParseParam(*param)
	if err != nil {
		return usagef("sweep: --param: %v", err)
	}
	if *maxPoints < 1 {
		return usagef("sweep: --max-points must be at least 1, got %d", *maxPoints)
	}
	if *budget < 0 {
		return usagef("sweep: --budget must not be negative, got %v", *budget)
	}
	if *format != "text" && *format != "json" && *format != "csv" {
		return usagef("sweep: unknown --format %q (want text, json or csv)", *format)
	}
	var vals []float64
	if set["values"] {
		if set["from"] || set["to"] || set["steps"] {
			return usagef("sweep: give --values or --from/--to/--steps, not both")
		}
		for i, f := range strings.Split(*values, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil {
				return usagef("sweep: --values: item %d, %q, is not a number", i+1, strings.TrimSpace(f))
			}
			if _, err := p.Set(q.cfg, v); err != nil {
				return usagef("sweep: --values: item %d: %v", i+1, err)
			}
			vals = append(vals, v)
		}
	} else {
		lo, hi, n := sweep.DefaultRange(p)
		if set["from"] {
			lo = *from
		}
		if set["to"] {
			hi = *to
		}
		if set["steps"] {
			n = *steps
		}
		if vals, err = sweep.Grid(p, lo, hi, n); err != nil {
			return usagef("sweep: %v", err)
		}
		for _, v := range vals {
			if _, err := p.Set(q.cfg, v); err != nil {
				return usagef("sweep: --from/--to: %v", err)
			}
		}
	}
	source, err := q.open(ctx, env)
	if err != nil {
		return err
	}
	defer source.Close(context.WithoutCancel(ctx))
	// On Neo4j a snapshot: each frontier node's relationships are read
	// once, and every other run replays them (docs/ALGORITHM.md,
	// "Replaying from a snapshot"), so no point sends a query of its own.
	backend, err := q.cliBackend(ctx, env, source, true)
	if err != nil {
		return err
	}
	s, err := sweep.Run(ctx, sweep.Config{
		Backend: backend, Params: q.cfg, Options: q.opts, Seeds: q.seeds, Tags: splitTags(q.tags),
		Param: p, Values: vals, Breakpoints: !set["values"], MaxPoints: *maxPoints, Budget: *budget,
	})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return usageError{"sweep: " + err.Error()}
	}
	if err := writeSweep(ctx, env.Stdout, s, *format); err != nil {
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

// writeSweep prints s; JSON lines stream point by point (Sweep.Replay).
func writeSweep(ctx context.Context, out io.Writer, s *sweep.Sweep, format string) error {
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
	_, err := io.WriteString(out, render.SweepText(s))
	return err
}
