package sweepview

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/sweep"
	"github.com/memoria-graph/memoria/retriever/eval"
	"github.com/memoria-graph/memoria/retriever/tune"
	"github.com/memoria-graph/memoria/tui/common"
)

// QuerySet is a labelled query set the explorer was opened with (memoria
// --queries, docs/EXPLORER.md "Sweep"): with it, the sweep also measures
// every query at every value of the swept threshold and chooses the value
// by cross-validation, as `memoria tune --retriever activation --param P`
// does, and draws the held-out curve.
type QuerySet struct {
	// Name is the query set's file, as the status line names it.
	Name    string
	Queries []eval.Query
	// Metric is what the folds choose by (--metric); Folds and SplitSeed
	// deal the queries (--folds, --seed-split).
	Metric    eval.Metric
	Folds     int
	SplitSeed uint64
	// Backend is the graph as the set's queries run on it: the fast path
	// on Neo4j, not the explorer's snapshot, which would keep every
	// neighbourhood of every query it read.
	Backend activation.Backend
	// Seeding is how the queries' seeds came: "given", or "gathered" from
	// their questions when the explorer opened (the report says so).
	Seeding string
}

// Active reports whether there is a query set to measure.
func (s QuerySet) Active() bool { return len(s.Queries) > 0 && s.Backend != nil }

// HeldOut is Activation Energy's tuning of param over set (the parameter's
// default grid, sweep.DefaultRange, and its value in cfg, the defaults):
// every query runs once at every value, on set.Backend with opts, its
// ranking (activation.Ranking) measured by set.Metric and its llm context
// counted in characters (render.ToLLMContext), as `memoria tune` measures
// them; then tune.Run chooses by cross-validation. The queries of one value
// run in parallel, one worker per core. progress, when set, is called from
// those workers with the runs done and the runs in all. failed counts the
// queries where a seed ended in error (their figures are of what the other
// seeds found), first names the first.
func HeldOut(ctx context.Context, set QuerySet, opts activation.Options, cfg activation.Params, param sweep.Param, width int,
	progress func(done, total int)) (t render.Tune, failed int, first string, err error) {
	from, to, steps := sweep.DefaultRange(param)
	vals, err := sweep.Grid(param, from, to, steps)
	if err != nil {
		return render.Tune{}, 0, "", err
	}
	current := param.Get(cfg)
	if !slices.Contains(vals, current) {
		vals = append(vals, current)
		slices.Sort(vals)
	}
	if len(set.Queries) < set.Folds {
		return render.Tune{}, 0, "", fmt.Errorf("%d folds need at least %d queries; the set has %d", set.Folds, set.Folds, len(set.Queries))
	}
	params := []tune.Param{{Name: string(param), Values: vals, Default: slices.Index(vals, current)}}
	var done atomic.Int64
	var mu sync.Mutex
	measure := func(settings []tune.Setting) ([]tune.Figures, error) {
		total := len(settings) * len(set.Queries)
		out := make([]tune.Figures, len(settings))
		for i, s := range settings {
			p, err := param.Set(cfg, vals[s[0]])
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", param, render.SweepValue(vals[s[0]]), err)
			}
			r, err := activation.New(set.Backend, p, opts)
			if err != nil {
				return nil, err
			}
			out[i] = tune.Figures{Values: make([]float64, len(set.Queries)), Context: make([]float64, len(set.Queries))}
			err = eachQuery(ctx, len(set.Queries), func(q int) error {
				query := set.Queries[q]
				defer func() {
					if progress != nil {
						progress(int(done.Add(1)), total)
					}
				}()
				if !query.HasSeeds() {
					return nil // no start: nothing found, no context
				}
				results, err := r.ExploreAll(ctx, query.Seeds, query.Tags)
				if err != nil {
					return fmt.Errorf("query %s: %w", textsafe.Quote(query.ID), err)
				}
				if f := render.FailedSeeds(results...); len(f) > 0 && i == 0 {
					mu.Lock()
					if failed++; failed == 1 {
						first = fmt.Sprintf("query %s, seed %s: %s", textsafe.Quote(query.ID), render.DisplayID(f[0].ID), f[0].Error)
					}
					mu.Unlock()
				}
				hits := activation.Ranking(results, p, query.Tags).Hits
				ids := make([]string, len(hits))
				for j, h := range hits {
					ids[j] = h.NodeID
				}
				out[i].Values[q] = set.Metric.Value(ids, query.Relevant)
				out[i].Context[q] = float64(utf8.RuneCountInString(render.ToLLMContext(results...).Text()))
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	res, err := tune.Run(tune.Config{Params: params, Queries: len(set.Queries), Folds: tune.Split(len(set.Queries), set.Folds, set.SplitSeed)}, measure)
	if err != nil {
		return render.Tune{}, 0, "", err
	}
	ids := make([]string, len(set.Queries))
	for i, q := range set.Queries {
		ids[i] = q.ID
	}
	chosen := vals[res.Settings[res.Chosen][0]]
	return render.Tune{Retriever: activation.Name, Metric: set.Metric.Name(), Queries: ids, Params: params, SplitSeed: set.SplitSeed,
		MaxPoints: tune.DefaultMaxPoints, Result: res, Flags: "--" + string(param) + " " + flagValue(param, chosen), Width: width, Seeding: set.Seeding}, failed, first, nil
}

// flagValue is v as param's flag takes it: a whole number in full.
func flagValue(param sweep.Param, v float64) string {
	if param.Integer() {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// eachQuery calls run for 0..n−1 on one worker per core; the first error
// (or the context's end) stops the others and is returned.
func eachQuery(ctx context.Context, n int, run func(q int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for q := range next {
				if err := run(q); err != nil {
					cancel(err)
				}
			}
		}()
	}
feed:
	for q := range n {
		select {
		case next <- q:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	return context.Cause(ctx)
}

// heldOutPart measures the query set at every value of the swept
// parameter (HeldOut) and puts its report (render.TuneText, the held-out
// curve in it) above what the sweep of the seeds drew, publishing its
// progress meanwhile (from the workers, at most one snapshot per
// sweepRedraw).
func heldOutPart(ctx context.Context, publish func(Msg), final Msg, cfg sweep.Config, set QuerySet, width int) (Msg, error) {
	what := fmt.Sprintf("%s of %s", queriesText(len(set.Queries)), textsafe.Escape(set.Name))
	var mu sync.Mutex
	var last time.Time
	progress := func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if done < total && time.Since(last) < sweepRedraw {
			return
		}
		last = time.Now()
		msg := final
		msg.line = joinLine(final.line, fmt.Sprintf("held out: measuring the %s at each value of %s… %s of %s runs (esc stops it)",
			what, cfg.Param, common.Thousands(done), common.Thousands(total)))
		publish(msg)
	}
	progress(0, 1)
	t, failed, first, err := HeldOut(ctx, set, cfg.Options, cfg.Params, cfg.Param, width, progress)
	if err != nil {
		return final, fmt.Errorf("the held-out curve over the %s: %w", what, err)
	}
	msg := final
	msg.Text = render.TuneText(t)
	if final.Text != "" {
		msg.Text += "\nThe sweep of the current seeds:\n\n" + final.Text
	}
	h, chosen := t.Result.HeldOut, t.Params[0].Values[t.Result.Settings[t.Result.Chosen][0]]
	msg.line = joinLine(final.line, fmt.Sprintf("held out over the %s: %s tuned %.4f, defaults %.4f (p %.4f); chosen on all: %s %s",
		what, t.Metric, h.Tuned, h.Default, h.P, cfg.Param, render.SweepValue(chosen)))
	if failed > 0 {
		msg.line += fmt.Sprintf(" · a seed ended in error in %s (first: %s)", queriesText(failed), textsafe.Escape(first))
	}
	msg.heldOut = &t
	return msg, nil
}

// joinLine is two progress lines as one.
func joinLine(a, b string) string {
	if a == "" {
		return b
	}
	return a + " · " + b
}

// queriesText is "1 query" or "N queries".
func queriesText(n int) string {
	if n == 1 {
		return "1 query"
	}
	return common.Thousands(n) + " queries"
}
