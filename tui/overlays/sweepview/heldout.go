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

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
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

// Target is what a held-out curve sweeps: one numeric parameter of one
// retriever, the values tried (its default grid, with the current value
// among them) and how one query runs at one value.
type Target struct {
	Retriever, Param string
	Values           []float64
	Current          float64
	// Whole says the parameter takes whole numbers (its flag's value is
	// then written in full).
	Whole bool
	// at readies the runs at value v: the function it returns runs one
	// query (one with seeds) and gives its ranking's node ids, the llm
	// context an agent gets of it, and, when a seed ended in error, what
	// ("" otherwise).
	at func(v float64) (func(ctx context.Context, q eval.Query) (ids []string, llm, failed string, err error), error)
}

// withCurrent is grid with current among it, ascending.
func withCurrent(grid []float64, current float64) []float64 {
	if !slices.Contains(grid, current) {
		grid = append(grid, current)
		slices.Sort(grid)
	}
	return grid
}

// ActivationTarget sweeps Activation Energy's threshold param over its
// default grid (sweep.DefaultRange) from cfg, on backend with opts: a
// query's ranking is its results projected (activation.Ranking), its
// context the paths' (render.ToLLMContext), as `memoria tune` has them.
func ActivationTarget(backend activation.Backend, opts activation.Options, cfg activation.Params, param sweep.Param) (Target, error) {
	from, to, steps := sweep.DefaultRange(param)
	grid, err := sweep.Grid(param, from, to, steps)
	if err != nil {
		return Target{}, err
	}
	t := Target{Retriever: activation.Name, Param: string(param), Current: param.Get(cfg), Whole: param.Integer()}
	t.Values = withCurrent(grid, t.Current)
	t.at = func(v float64) (func(context.Context, eval.Query) ([]string, string, string, error), error) {
		p, err := param.Set(cfg, v)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", param, render.SweepValue(v), err)
		}
		r, err := activation.New(backend, p, opts)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, q eval.Query) ([]string, string, string, error) {
			results, err := r.ExploreAll(ctx, q.Seeds, q.Tags)
			if err != nil {
				return nil, "", "", err
			}
			failed := ""
			if f := render.FailedSeeds(results...); len(f) > 0 {
				failed = fmt.Sprintf("seed %s: %s", render.DisplayID(f[0].ID), f[0].Error)
			}
			hits := activation.Ranking(results, p, q.Tags).Hits
			ids := make([]string, len(hits))
			for j, h := range hits {
				ids[j] = h.NodeID
			}
			return ids, render.ToLLMContext(results...).Text(), failed, nil
		}, nil
	}
	return t, nil
}

// RankingTarget sweeps the ranking retriever's parameter flag (a row of
// its table with a grid, retriever.Param.Grid) from its settings p, over
// nb: a query runs as the explorer runs it (with the query's vector), its
// context the ranking's (render.RankingLLM), as `memoria tune` has them.
func RankingTarget(nb graph.Neighbourhood, p retriever.Settings, flag string) (Target, error) {
	pm, ok := p.Spec().Param(flag)
	if !ok || pm.Grid.Steps == 0 {
		return Target{}, fmt.Errorf("%s's %s has no grid to sweep", p.Spec().Name, flag)
	}
	grid, err := sweep.Spaced(pm.Grid.From, pm.Grid.To, pm.Grid.Steps, pm.Grid.Log, pm.Whole)
	if err != nil {
		return Target{}, err
	}
	t := Target{Retriever: p.Spec().Name, Param: flag, Current: p.Get(flag), Whole: pm.Whole}
	t.Values = withCurrent(grid, t.Current)
	t.at = func(v float64) (func(context.Context, eval.Query) ([]string, string, string, error), error) {
		ps := p.With(flag, v)
		if err := ps.Validate(); err != nil {
			return nil, fmt.Errorf("--%s %s: %w", flag, render.SweepValue(v), err)
		}
		return func(ctx context.Context, q eval.Query) ([]string, string, string, error) {
			r, err := ps.WithVector(q.QueryVector).Run(ctx, retriever.Env{Neighbourhood: nb}, q.Retriever())
			if err == nil {
				err = r.CheckFinite()
			}
			if err != nil {
				return nil, "", "", err
			}
			ids := make([]string, len(r.Hits))
			for j, h := range r.Hits {
				ids[j] = h.NodeID
			}
			return ids, render.RankingLLM(r), "", nil
		}, nil
	}
	return t, nil
}

// HeldOut is the tuning of target's parameter over set: every query runs
// once at every value (target.at), its ranking measured by set.Metric and
// its llm context counted in characters, as `memoria tune` measures them;
// then tune.Run chooses by cross-validation, the current value the
// defaults. The queries of one value run in parallel, one worker per core.
// progress, when set, is called from those workers with the runs done and
// the runs in all. failed counts the queries where a seed ended in error
// (their figures are of what the other seeds found), first names the
// first.
func HeldOut(ctx context.Context, set QuerySet, target Target, width int, progress func(done, total int)) (t render.Tune, failed int, first string, err error) {
	if len(set.Queries) < set.Folds {
		return render.Tune{}, 0, "", fmt.Errorf("%d folds need at least %d queries; the set has %d", set.Folds, set.Folds, len(set.Queries))
	}
	vals := target.Values
	params := []tune.Param{{Name: target.Param, Values: vals, Default: slices.Index(vals, target.Current)}}
	var done atomic.Int64
	var mu sync.Mutex
	measure := func(settings []tune.Setting) ([]tune.Figures, error) {
		total := len(settings) * len(set.Queries)
		out := make([]tune.Figures, len(settings))
		for i, s := range settings {
			run, err := target.at(vals[s[0]])
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
				ids, llm, bad, err := run(ctx, query)
				if err != nil {
					return fmt.Errorf("query %s: %w", textsafe.Quote(query.ID), err)
				}
				if bad != "" && i == 0 {
					mu.Lock()
					if failed++; failed == 1 {
						first = fmt.Sprintf("query %s, %s", textsafe.Quote(query.ID), bad)
					}
					mu.Unlock()
				}
				out[i].Values[q] = set.Metric.Value(ids, query.Relevant)
				out[i].Context[q] = float64(utf8.RuneCountInString(llm))
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
	return render.Tune{Retriever: target.Retriever, Metric: set.Metric.Name(), Queries: ids, Params: params, SplitSeed: set.SplitSeed,
		MaxPoints: tune.DefaultMaxPoints, Result: res, Flags: "--" + target.Param + " " + flagValue(target.Whole, chosen), Width: width,
		Seeding: set.Seeding}, failed, first, nil
}

// flagValue is v as a flag takes it: a whole number in full.
func flagValue(whole bool, v float64) string {
	if whole {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// eachQuery calls run for 0..n−1 on one worker per core; the first error
// (or the context's end) stops the others and is returned. A panic in run
// is such an error: the workers are goroutines of their own, which no
// command's recovery reaches, and the explorer must keep the terminal.
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
				if err := safeRun(run, q); err != nil {
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

// safeRun is run(q), a panic turned into an error.
func safeRun(run func(int) error, q int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v", r)
		}
	}()
	return run(q)
}

// heldOutPart measures the query set at every value of target's
// parameter (HeldOut) and puts its report (render.TuneText, the held-out
// curve in it) above what the sweep of the seeds drew, if anything,
// publishing its progress meanwhile (from the workers, at most one
// snapshot per sweepRedraw).
func heldOutPart(ctx context.Context, publish func(Msg), final Msg, target Target, set QuerySet, width int) (Msg, error) {
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
			what, target.Param, common.Thousands(done), common.Thousands(total)))
		publish(msg)
	}
	progress(0, 1)
	t, failed, first, err := HeldOut(ctx, set, target, width, progress)
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
		what, t.Metric, h.Tuned, h.Default, h.P, target.Param, render.SweepValue(chosen)))
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
