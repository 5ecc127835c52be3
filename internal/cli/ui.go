package cli

import (
	"context"

	"github.com/charmbracelet/x/term"
	"github.com/memoria-graph/memoria/tui"
)

const uiUsage = `Usage: memoria [source flags] [--seed ID[=SCORE]]... [--tags a,b] [options]

Opens the terminal explorer: pick seeds and tags, turn the thresholds and
watch the breadth-first search grow level by level. Press ? inside for keys.

Flags:
`

func runUI(ctx context.Context, args []string, env Env) error {
	fs := newFlagSet(env, "memoria", uiUsage)
	var q queryFlags
	q.register(fs, "preselect a seed `ID[=SCORE]` (repeatable)")
	maxSeeds := fs.Int("max-seeds", 5, "most seeds that can be picked at once")
	noColor := fs.Bool("no-color", false, "no colours (also when $NO_COLOR is set)")
	outDir := fs.String("out-dir", ".", "`directory` for exported D3 and LLM-context files")
	if err := parse(fs, env, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unknown command %q (see memoria --help)", fs.Arg(0))
	}
	if *maxSeeds < 1 {
		return usagef("--max-seeds must be at least 1, got %d", *maxSeeds)
	}
	if len(q.seeds) > *maxSeeds {
		return usagef("%d seeds given but --max-seeds is %d", len(q.seeds), *maxSeeds)
	}
	source, err := q.open(ctx, env)
	if err != nil {
		return err
	}
	defer source.Close(context.WithoutCancel(ctx))
	backend, notice, err := q.backend(ctx, source, true)
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
	return tui.Run(ctx, tui.Options{
		Source:     source,
		Backend:    backend,
		Params:     q.cfg,
		RunOptions: q.opts,
		Seeds:      q.seeds,
		Tags:       splitTags(q.tags),
		MaxSeeds:   *maxSeeds,
		NoColor:    *noColor || env.Getenv("NO_COLOR") != "",
		In:         env.Stdin,
		Out:        env.Stdout,
		OutDir:     *outDir,
		Notice:     notice,
	})
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
