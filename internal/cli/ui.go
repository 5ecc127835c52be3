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
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/registry"
	"github.com/memoria-graph/memoria/tui"
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

func runUI(ctx context.Context, args []string, env Env) error {
	fs := newFlagSet(env, "memoria", uiUsage)
	var q queryFlags
	q.register(fs, "preselect a seed `ID[=SCORE]` (repeatable)")
	maxSeeds := fs.Int("max-seeds", 5, "most seeds that can be picked at once")
	noColor := fs.Bool("no-color", false, "no colours (also when $NO_COLOR is set)")
	outDir := fs.String("out-dir", ".", "`directory` for exported D3 and LLM-context files and saved experiments")
	expFile := fs.String("experiment", "", "reopen a saved experiment `FILE` (its seeds, tags, thresholds and results; S saves one)")
	var rf retrieverFlags
	rf.register(fs)
	compareList := fs.String("retrievers", "", "open the compare view with these `retrievers` (two or more, comma-separated: "+strings.Join(registry.Names(), ", ")+"; fusion fuses the others listed)")
	if err := parse(fs, env, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unknown command %q (see memoria --help)", fs.Arg(0))
	}
	if err := rf.checkUI(fs); err != nil {
		return err
	}
	var compared []string
	if *compareList != "" {
		var err error
		if compared, err = parseRetrieverList("", *compareList, registry.Names(), 2); err != nil {
			return err
		}
		for _, n := range compared {
			if len(rf.combined(n)) > 0 && len(compared) < 3 {
				return usagef("--retrievers %s: %s fuses the other retrievers listed, and needs two or more besides it", *compareList, n)
			}
		}
	}
	var exp *experiment.Experiment
	if *expFile != "" {
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
		e, err := readExperiment(*expFile)
		if err != nil {
			return err
		}
		exp = &e
		q.seeds, q.cfg = e.Seeds, e.Params
		*maxSeeds = max(*maxSeeds, len(e.Seeds))
	}
	if *maxSeeds < 1 {
		return usagef("--max-seeds must be at least 1, got %d", *maxSeeds)
	}
	if len(q.seeds) > *maxSeeds {
		return usagef("%d seeds given but --max-seeds is %d", len(q.seeds), *maxSeeds)
	}
	plain := *noColor || env.Getenv("NO_COLOR") != ""
	source, err := openForUI(ctx, &q, env, plain)
	if err != nil {
		return err
	}
	defer source.Close(context.WithoutCancel(ctx))
	backend, notice, err := q.backend(ctx, source, true)
	if err != nil {
		return err
	}
	tags := splitTags(q.tags)
	var pinned, saved []activation.Result
	var pinnedCfg activation.Params
	var pinnedTags []string
	var marks map[string]int
	if exp != nil {
		tags, pinned, saved, marks = exp.Tags, exp.Pinned, exp.Current, exp.Marks // a tag may hold a comma
		if exp.PinnedParams != nil {
			pinnedCfg, pinnedTags = *exp.PinnedParams, exp.PinnedTags
		}
		notice = joinNotices(experimentNotice(ctx, *expFile, *exp, source), notice)
	}
	// The graph reads of every retriever but Activation Energy: without
	// them the explorer runs Activation Energy only.
	nb, nbErr := neighbourhoodFor(source, q.filter.f)
	var unfiltered graph.Neighbourhood
	if q.filter.f.Active() {
		unfiltered, _ = neighbourhoodFor(source, graph.RelFilter{}) // nb's engine: no error
	}
	if nbErr != nil && (rf.name != activation.Name || len(compared) > 0) {
		return nbErr
	}
	if !isTerminal(env.Stdin) || !isTerminal(env.Stdout) {
		// Bubble Tea would switch a pipe to the alternate screen (escape
		// codes in the output) and then fail to read it ("error creating
		// cancel reader"): say what is wrong before anything is written.
		// The check comes after the source is open, so a bad file or a
		// silent server is still reported as such.
		return usagef("the explorer needs a terminal, and stdin or stdout is not one; for scripts use 'memoria explore --seed ID --format json' (see memoria --help)")
	}
	return tui.Run(ctx, tui.Options{
		Source:        source,
		Backend:       backend,
		Params:        q.cfg,
		RunOptions:    q.opts,
		Seeds:         q.seeds,
		Tags:          tags,
		MaxSeeds:      *maxSeeds,
		NoColor:       plain,
		In:            env.Stdin,
		Out:           env.Stdout,
		OutDir:        *outDir,
		Notice:        notice,
		Pinned:        pinned,
		Saved:         saved,
		PinnedParams:  pinnedCfg,
		PinnedTags:    pinnedTags,
		Marks:         marks,
		Retriever:     rf.name,
		Compare:       compared,
		Settings:      rf.all(),
		Neighbourhood: nb,
		Filter:        q.filter.f.String(),
		Unfiltered:    unfiltered,
		Mapping:       schemaOf(source),
	})
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
