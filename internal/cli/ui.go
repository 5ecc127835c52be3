package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/internal/experiment"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/retriever/eval"
	"github.com/memoria-graph/memoria/retriever/gather"
	"github.com/memoria-graph/memoria/retriever/registry"
	"github.com/memoria-graph/memoria/retriever/tune"
	"github.com/memoria-graph/memoria/tui"
	"github.com/memoria-graph/memoria/tui/overlays/sweepview"
)

const uiUsage = `Usage: memoria [source flags] [--seed ID[=SCORE]]... [--tags a,b] [--retriever NAME | --retrievers A,B,...] [options]

Opens the terminal explorer: pick seeds and tags, turn the thresholds and
watch the breadth-first search grow level by level, or switch (x) to the
typed expansion's ranking. --retrievers (or X inside) opens the compare
view: the union of their top K as a table, a column per retriever. Press ?
inside for keys. The expansion's flags (--max-hops ...) set its starting
parameters whichever retriever opens.

Flags:
`

// uiFlags are the explorer's flags: the source, seeds, tags and
// thresholds, every retriever's parameters, and its own.
type uiFlags struct {
	runFlags
	maxSeeds                     int
	noColor                      bool
	outDir, expFile, compareList string
	compared                     []string               // --retrievers as check read it
	exp                          *experiment.Experiment // --experiment's, read by check
	held                         heldOutFlags
}

// heldOutFlags are the explorer's query set, which every sweep also
// measures (the held-out curve, docs/EXPLORER.md "Sweep"), and how tune
// chooses over it.
type heldOutFlags struct {
	queries, qrels, metric string
	seedingMode            string
	folds                  int
	splitSeed              uint64
	m                      eval.Metric
}

func (h *heldOutFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&h.queries, "queries", "", "a labelled query set, JSON lines in `FILE` as memoria eval reads it: every sweep (s) also draws its held-out curve")
	fs.StringVar(&h.qrels, "qrels", "", "relevance grades from a TREC qrels `FILE` for --queries")
	fs.StringVar(&h.metric, "metric", "nDCG@10", "with --queries, the `metric` the held-out curve chooses by: nDCG@K, recall@K, P@K, MRR or MAP")
	fs.IntVar(&h.folds, "folds", tune.DefaultFolds, "with --queries, the `number` of folds of the cross-validation, at least 2")
	fs.Uint64Var(&h.splitSeed, "seed-split", tune.DefaultSplitSeed, "with --queries, the `seed` of the shuffle that deals the queries into folds")
	registerSeeding(fs, &h.seedingMode, false)
}

// check refuses --qrels, --metric, --folds or --seed-split without
// --queries, and reads --metric.
func (h *heldOutFlags) check(fs *flag.FlagSet) error {
	if h.queries == "" {
		for _, f := range []string{"qrels", "metric", "folds", "seed-split", "seeding"} {
			if isSet(fs, f) {
				return usagef("--%s applies to the query set: give --queries FILE", f)
			}
		}
		return nil
	}
	if h.folds < 2 {
		return usagef("--folds must be at least 2, got %d", h.folds)
	}
	if err := h.seeding(nil).check(); err != nil {
		return err
	}
	var err error
	if h.m, err = parseMetric(h.metric); err != nil {
		return usagef("--metric: %v", err)
	}
	return nil
}

// seeding is the explorer's --seeding over --queries, with q's gather
// settings.
func (h *heldOutFlags) seeding(q *queryFlags) *seeding {
	return &seeding{queries: h.queries, mode: h.seedingMode, q: q}
}

// set reads the query set (nothing without --queries), seeded as
// --seeding says (gathered from its questions on source), to run on the
// fast path: on Neo4j not the explorer's snapshot. What the gather says
// (a query it found no seed for) comes back as notice, for the status
// line: the terminal is the explorer's.
func (h *heldOutFlags) set(ctx context.Context, q *queryFlags, source graph.Source) (qs sweepview.QuerySet, notice string, err error) {
	if h.queries == "" {
		return sweepview.QuerySet{}, "", nil
	}
	set, _, err := readQuerySet("", h.queries, h.qrels)
	if err != nil {
		return sweepview.QuerySet{}, "", err
	}
	var said bytes.Buffer
	sd := h.seeding(q)
	if set, err = sd.seeded(ctx, Env{Stderr: &said}, source, set); err != nil {
		return sweepview.QuerySet{}, "", err
	}
	notice = strings.TrimSpace(strings.TrimPrefix(said.String(), "memoria: "))
	if len(set) < h.folds {
		return sweepview.QuerySet{}, "", usagef("--folds %d needs at least %d queries; --queries has %d", h.folds, h.folds, len(set))
	}
	backend, _, err := q.backend(ctx, source, false)
	if err != nil {
		return sweepview.QuerySet{}, "", err
	}
	return sweepview.QuerySet{Name: h.queries, Queries: set, Metric: h.m, Folds: h.folds, SplitSeed: h.splitSeed, Backend: backend, Seeding: sd.mode}, notice, nil
}

func (u *uiFlags) register(fs *flag.FlagSet) {
	u.q.register(fs, "preselect a seed `ID[=SCORE]` (repeatable)")
	fs.IntVar(&u.maxSeeds, "max-seeds", 5, "most seeds that can be picked at once")
	fs.BoolVar(&u.noColor, "no-color", false, "no colours (also when $NO_COLOR is set)")
	fs.StringVar(&u.outDir, "out-dir", ".", "`directory` for exported D3 and LLM-context files and saved experiments")
	fs.StringVar(&u.expFile, "experiment", "", "reopen a saved experiment `FILE` (its seeds, tags, thresholds and results; S saves one)")
	u.rf.register(fs)
	u.held.register(fs)
	fs.StringVar(&u.compareList, "retrievers", "", "open the compare view with these `retrievers` (two or more, comma-separated: "+strings.Join(registry.Names(), ", ")+"; fusion fuses the others listed)")
}

// check refuses what the explorer cannot open with the flags given, reads
// --retrievers and the experiment file, which sets the seeds and
// thresholds.
func (u *uiFlags) check(fs *flag.FlagSet) error {
	if fs.NArg() > 0 {
		return usagef("unknown command %q (see memoria --help)", fs.Arg(0))
	}
	if err := u.rf.checkUI(fs); err != nil {
		return err
	}
	if err := u.held.check(fs); err != nil {
		return err
	}
	if u.compareList != "" {
		var err error
		if u.compared, err = parseRetrieverList("", u.compareList, registry.Names(), 2); err != nil {
			return err
		}
		for _, n := range u.compared {
			if len(u.rf.combined(n)) > 0 && len(u.compared) < 3 {
				return usagef("--retrievers %s: %s fuses the other retrievers listed, and needs two or more besides it", u.compareList, n)
			}
		}
	}
	if u.expFile != "" {
		var clash []string
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "seed", "tags", "max-depth", "min-activation", "tag-sim-floor", "max-branches":
				clash = append(clash, "--"+f.Name)
			}
		})
		if len(clash) > 0 {
			return usagef("--experiment sets the seeds, tags and thresholds: drop %s", strings.Join(clash, ", "))
		}
		e, err := readExperiment(u.expFile)
		if err != nil {
			return err
		}
		u.exp = &e
		u.q.seeds, u.q.cfg = e.Seeds, e.Params
		u.maxSeeds = max(u.maxSeeds, len(e.Seeds))
	}
	if u.maxSeeds < 1 {
		return usagef("--max-seeds must be at least 1, got %d", u.maxSeeds)
	}
	if len(u.q.seeds) > u.maxSeeds {
		return usagef("%d seeds given but --max-seeds is %d", len(u.q.seeds), u.maxSeeds)
	}
	return nil
}

func runUI(ctx context.Context, args []string, env Env) error {
	var u uiFlags
	if err := parseCommand(env, "memoria", uiUsage, args, &u); err != nil {
		return err
	}
	plain := u.noColor || env.Getenv("NO_COLOR") != ""
	u.q.gather.useVector(&u.rf)
	source, err := openForUI(ctx, &u.q, env, plain)
	if err != nil {
		return err
	}
	defer source.Close(context.WithoutCancel(ctx))
	opts, err := u.options(ctx, source)
	if err != nil {
		return err
	}
	if !isTerminal(env.Stdin) || !isTerminal(env.Stdout) {
		// Bubble Tea would switch a pipe to the alternate screen (escape
		// codes in the output) and then fail to read it ("error creating
		// cancel reader"): say what is wrong before anything is written.
		// The check comes after the source is open, so a bad file or a
		// silent server is still reported as such.
		return usagef("the explorer needs a terminal, and stdin or stdout is not one; for scripts use 'memoria explore --seed ID --format json' (see memoria --help)")
	}
	opts.NoColor, opts.In, opts.Out = plain, env.Stdin, env.Stdout
	return tui.Run(ctx, opts)
}

// options are the explorer's options over source: the backend, the
// experiment's tags, pinned and saved results and marks, and the graph
// reads of every retriever but Activation Energy (without which it runs
// Activation Energy only).
func (u *uiFlags) options(ctx context.Context, source graph.Source) (tui.Options, error) {
	q := &u.q
	backend, notice, err := q.backend(ctx, source, true)
	if err != nil {
		return tui.Options{}, err
	}
	opts := tui.Options{Source: source, Backend: backend, Params: q.cfg, RunOptions: q.opts, Seeds: q.seeds, Tags: splitTags(q.tags),
		MaxSeeds: u.maxSeeds, OutDir: u.outDir, Retriever: u.rf.name, Compare: u.compared, Settings: u.rf.all(),
		Filter: q.filter.f.String(), Mapping: schemaOf(source)}
	if exp := u.exp; exp != nil {
		opts.Tags, opts.Pinned, opts.Saved, opts.Marks = exp.Tags, exp.Pinned, exp.Current, exp.Marks // a tag may hold a comma
		if exp.PinnedParams != nil {
			opts.PinnedParams, opts.PinnedTags = *exp.PinnedParams, exp.PinnedTags
		}
		notice = joinNotices(experimentNotice(ctx, u.expFile, *exp, source), notice)
	}
	var said string
	if opts.Queries, said, err = u.held.set(ctx, q, source); err != nil {
		return tui.Options{}, err
	}
	opts.Notice = joinNotices(notice, said)
	// The query line (a) gathers with the flags' fields and settings, as
	// --query does (docs/RETRIEVERS.md, "Gather").
	if opts.GatherFields, err = q.gather.fields(q.src.schema.preset); err != nil {
		return tui.Options{}, err
	}
	opts.Gather = q.gather.opt
	if opts.Gather.Matchers, err = q.gather.matchers(nil); err != nil {
		return tui.Options{}, err
	}
	// The line's question is text alone: the vector matcher sits out.
	opts.Gather.Matchers = slices.DeleteFunc(opts.Gather.Matchers, func(m string) bool { return m == gather.Vector })
	if len(opts.Gather.Matchers) == 0 {
		opts.Gather.Matchers = slices.Clone(gather.DefaultMatchers)
	}
	nb, nbErr := neighbourhoodFor(source, q.filter.f)
	if q.filter.f.Active() {
		opts.Unfiltered, _ = neighbourhoodFor(source, graph.RelFilter{}) // nb's engine: no error
	}
	if nbErr != nil && (u.rf.name != registry.Activation || len(u.compared) > 0) {
		return tui.Options{}, nbErr
	}
	opts.Neighbourhood = nb
	return opts, nil
}

// checkUI checks --retriever and every retriever's flags for the explorer,
// which holds them all: each retriever's flags set its starting parameters
// whichever retriever it opens with (--top-k every ranking retriever's),
// and the thresholds are Activation Energy's as ever.
func (r *retrieverFlags) checkUI(fs *flag.FlagSet) error {
	if !slices.Contains(registry.Single(), r.name) {
		return usagef("unknown --retriever %q for the explorer (want %s; fusion is a column of the compare view: --retrievers A,B,fusion)", r.name, strings.Join(registry.Single(), ", "))
	}
	return r.finish("", registry.Single())
}

// readExperiment reads an experiment file (internal/experiment), its errors
// naming the file.
func readExperiment(path string) (experiment.Experiment, error) {
	f, err := os.Open(path)
	if err != nil {
		return experiment.Experiment{}, fmt.Errorf("experiment: %w", err)
	}
	defer f.Close()
	return experiment.Read(f, path)
}

// experimentNotice is the status line's first words after reopening an
// experiment: which file, and whether the graph differs from the one it was
// made on (counts, or the content hash on the embedded engine).
func experimentNotice(ctx context.Context, path string, e experiment.Experiment, src graph.Source) string {
	base := "reopened " + textsafe.Escape(path)
	f, ok := src.(graph.Fingerprinter)
	if !ok {
		return base
	}
	now, err := f.Fingerprint(ctx)
	if err != nil {
		return base + " (could not compare the graph: " + textsafe.Escape(err.Error()) + ")"
	}
	if m := e.Mismatch(now); m != "" {
		return base + ": " + m
	}
	return base + ": same graph"
}

func joinNotices(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + " · " + b
}

// isTerminal reports whether f is a terminal (a file with a descriptor
// that is a TTY).
func isTerminal(f any) bool {
	fd, ok := f.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(fd.Fd())
}

// ForceRestoreTerminal resets the terminal modes of the explorer if one is
// running (tui.ForceRestore) and reports whether it was: for main, when
// the explorer did not end within its grace after a signal.
func ForceRestoreTerminal() bool { return tui.ForceRestore() }

// openForUI opens the explorer's source. A --graph file on a terminal
// loads under tui.Load's progress bar (a big file takes seconds, which
// used to be a blank screen); its warnings, which would be drawn over
// that screen, are printed once it is gone.
func openForUI(ctx context.Context, q *queryFlags, env Env, noColor bool) (graph.Source, error) {
	if q.src.graph == "" || !isTerminal(env.Stdin) || !isTerminal(env.Stdout) {
		return q.open(ctx, env)
	}
	var (
		source graph.Source
		warn   bytes.Buffer
	)
	quiet := env
	quiet.Stderr = &warn
	var size int64
	if fi, err := os.Stat(q.src.graph); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	} else if f, ok := findGraphRAG(q.src.graph); ok && err == nil {
		size = f.Size() // GraphRAG's tables
	}
	err := tui.Load(ctx, tui.LoadOptions{Name: q.src.graph, Total: size, NoColor: noColor, In: env.Stdin, Out: env.Stdout},
		func(report func(tui.LoadProgress)) error {
			q.src.progress = func(p inmem.Progress) { report(tui.LoadProgress(p)) }
			s, err := q.open(ctx, quiet)
			source = s
			return err
		})
	if errors.Is(err, tui.ErrLoadCancelled) || ctx.Err() != nil {
		// The loader may still be running: its warnings and its source
		// are not ours to read.
		return nil, err
	}
	_, _ = env.Stderr.Write(warn.Bytes())
	if err != nil {
		return nil, err
	}
	return source, nil
}
