// Package tui is memoria's terminal explorer: pick seeds and query tags,
// turn the retriever's thresholds live and watch the breadth-first search
// grow level by level, inspect the energy of each hop, and copy or export the
// results. Run starts it; everything else is internal.
package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/gather"
	"github.com/memoria-graph/memoria/retriever/registry"
	"github.com/memoria-graph/memoria/tui/overlays/sweepview"
	"github.com/muesli/termenv"
)

// Options configures Run.
type Options struct {
	// Source is the graph to browse (required).
	Source graph.Source
	// Backend is the same graph as the Activation Energy retriever reaches
	// it (required).
	Backend activation.Backend
	// Params holds the starting thresholds; the zero value means
	// activation.DefaultParams().
	Params activation.Params
	// RunOptions are the retries of each run (the zero value retries
	// nothing; the CLI passes activation.DefaultOptions and --max-retries).
	RunOptions activation.Options
	// Seeds and Tags preselect seeds (a run starts at once) and query tags.
	Seeds []retriever.Seed
	Tags  []string
	// MaxSeeds is the most seeds that can be chosen (default 5).
	MaxSeeds int
	// NoColor turns colours off. The package reads no environment: callers
	// map $NO_COLOR onto it (the CLI does).
	NoColor bool
	// In and Out are the terminal (default os.Stdin and os.Stdout). Every
	// write to Out, the renderer's frames and the clipboard's OSC 52
	// sequences alike, goes through one lock (see lockOutput), so they
	// never interleave.
	In  io.Reader
	Out io.Writer
	// OutDir is where exported files go (default ".").
	OutDir string
	// Now is the explorer's clock (exported files' names, the snapshot's
	// age); nil means time.Now.
	Now func() time.Time
	// Pinned and Saved are the pinned and the current results of a saved
	// experiment (memoria --experiment): runs are compared with Pinned, or
	// when there is none with Saved (labelled "saved"), until the first run
	// of the session has finished.
	Pinned, Saved []activation.Result
	// PinnedParams and PinnedTags are the thresholds and tags the pinned
	// run had (Saved ran with Params and Tags).
	PinnedParams activation.Params
	PinnedTags   []string
	// Marks are the relevance marks of a saved experiment (node id →
	// grade): the results are measured against them (docs/EXPLORER.md,
	// "Relevance marks"), and S saves them again.
	Marks map[string]int
	// Retriever is the retriever the explorer opens with (Retrievers; ""
	// means activation.Name); the Retriever key switches.
	Retriever string
	// Compare, when it names two or more retrievers (Retrievers, each
	// once), opens the compare view with them, in this order (memoria
	// --retrievers); the parameters shown are Retriever's when it is among
	// them, else the first's.
	Compare []string
	// Settings are the ranking retrievers' starting parameters, by name
	// (retriever/registry); a retriever missing has its defaults. Fusion's
	// Fuse is always the other retrievers compared.
	Settings map[string]retriever.Settings
	// Neighbourhood is the graph as every retriever but Activation Energy
	// reads it (graph.Neighbourhood over the same source). Without it only
	// Activation Energy can run.
	Neighbourhood graph.Neighbourhood
	// Filter describes the relationship filter every retriever runs under
	// (graph.RelFilter's String; "" for none), shown on the status line;
	// Unfiltered is then the graph without it, which the compare view's
	// why reads to answer "filtered".
	Filter     string
	Unfiltered graph.Neighbourhood
	// Mapping is the schema mapping the graph was read by (the zero
	// value: memoria's own shape). Any other is described (mappingNote)
	// on the status line and atop the help overlay; the copied debug and
	// check queries are written by it, and the detail pane shows its
	// validity properties.
	Mapping graph.Schema
	// GatherFields are the node properties the query line (a) matches its
	// question against (docs/EXPLORER.md, "Asking a question"); zero: the
	// preset of Mapping's schema (gather.Preset). Gather is the gather's
	// settings (matchers, --gather-min, --gather-rrf-k, --seed-k); zero:
	// gather.DefaultOptions.
	GatherFields gather.Fields
	Gather       gather.Options
	// Notice, if set, is shown on the status line when the explorer opens
	// (e.g. labels that lack an id index, and how to add one).
	Notice string
	// Queries, when Active, is a labelled query set (memoria --queries):
	// every sweep (s) also measures it at each value of the swept
	// threshold and draws the held-out curve (docs/EXPLORER.md, "Sweep").
	Queries sweepview.QuerySet

	// settings are every ranking retriever's parameters: Settings, the
	// defaults for one missing (validate).
	settings map[string]retriever.Settings

	// term is Out as the caller gave it, before lockOutput wrapped it: the
	// colour profile is read from it (see colorWriter).
	term io.Writer
}

// withDefaults completes opts and checks what cannot be defaulted.
func (o Options) withDefaults() (Options, error) {
	if o.Source == nil || o.Backend == nil {
		return o, errors.New("tui: no source or no backend")
	}
	if o.Params == (activation.Params{}) {
		o.Params = activation.DefaultParams()
	}
	if err := o.Params.Validate(); err != nil {
		return o, err
	}
	switch {
	case o.Retriever == "":
		o.Retriever = activation.Name
	case !slices.Contains(Retrievers(), o.Retriever):
		return o, fmt.Errorf("tui: unknown retriever %q (want %s)", o.Retriever, strings.Join(Retrievers(), " or "))
	case o.Retriever != activation.Name && o.Neighbourhood == nil:
		return o, fmt.Errorf("tui: the %s retriever needs a Neighbourhood", o.Retriever)
	}
	if err := o.checkCompare(); err != nil {
		return o, err
	}
	o.settings = map[string]retriever.Settings{}
	for _, spec := range registry.Specs() {
		p, ok := o.Settings[spec.Name]
		if !ok {
			p = spec.Defaults()
		}
		check := p
		if combining(spec.Name) && slices.Contains(o.Compare, spec.Name) {
			check = p.WithCombined([]string{activation.Name}) // set to the others compared when it runs
		}
		if err := check.Validate(); err != nil {
			return o, err
		}
		o.settings[spec.Name] = p
	}
	if len(o.Compare) >= 2 && (!slices.Contains(o.Compare, o.Retriever) || combining(o.Retriever)) {
		o.Retriever = firstWithParams(o.Compare)
	}
	if o.MaxSeeds <= 0 {
		o.MaxSeeds = 5
	}
	if len(o.Seeds) > o.MaxSeeds {
		return o, fmt.Errorf("tui: %d seeds given but at most %d are allowed", len(o.Seeds), o.MaxSeeds)
	}
	if len(o.GatherFields.Names) == 0 && len(o.GatherFields.Texts) == 0 && o.GatherFields.Embedding == "" {
		o.GatherFields, _ = gather.Preset(o.Mapping.Name)
	}
	if o.Gather.SeedK == 0 {
		o.Gather = gather.DefaultOptions()
	}
	if o.In == nil {
		o.In = os.Stdin
	}
	if o.Out == nil {
		o.Out = os.Stdout
	}
	if o.term == nil {
		o.term = o.Out
	}
	o.Out = lockOutput(o.Out)
	if o.OutDir == "" {
		o.OutDir = "."
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o, nil
}

// programOptions are the tea.Program options Run uses (shared with tests).
// o must come from withDefaults, so that o.Out is the locked writer the
// model's commands write to as well.
//
// The program installs no signal handler: the caller owns SIGINT, SIGTERM
// and SIGHUP and cancels ctx (memoria's main does). Bubble Tea's own
// handler sends its quit message without watching the program's context,
// so a signal that also cancelled ctx left it blocked and Run's teardown
// waiting for it forever, the terminal still in the alternate screen. With
// ctx cancelled the event loop ends and the teardown restores the terminal.
func programOptions(ctx context.Context, o Options) []tea.ProgramOption {
	return []tea.ProgramOption{
		tea.WithContext(ctx), tea.WithInput(o.In), tea.WithOutput(o.Out),
		tea.WithAltScreen(), tea.WithMouseCellMotion(), tea.WithoutSignalHandler(),
	}
}

// New builds the explorer's root model for opts (for embedding it in another
// program or driving it in tests). A program running it should write to
// the model's Output, so that its frames and the model's clipboard
// sequences share one lock.
func New(ctx context.Context, opts Options) (*Model, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	st := NewStyles(lipgloss.NewRenderer(colorWriter(o.term)), o.NoColor)
	return newModel(ctx, o, &st), nil
}

// workGrace bounds how long Run waits, once the program has ended, for the
// commands it cancelled to return.
const workGrace = 3 * time.Second

// Output is the locked writer the model writes OSC 52 sequences to: give it
// to tea.WithOutput.
func (m *Model) Output() io.Writer { return m.Out }

// Run opens the explorer on the terminal and returns when the user quits or
// ctx ends (a cancelled ctx is a normal way to stop: nil). It handles no
// signal itself (see programOptions): the caller cancels ctx on one. The
// terminal is restored before Run returns, after a panic too: one in
// Update or View quits the program the ordinary way and comes back as an
// error naming it (see guard); Bubble Tea catches the others, and Run
// recovers its own, so callers never need log.Fatal. While Run runs,
// ForceRestore can reset the terminal from outside. Before it returns, it
// waits (at most workGrace) for the background work it cancelled, so that
// the caller can close the graph under no query.
func Run(ctx context.Context, opts Options) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("tui: panic: %v\n%s", r, debug.Stack())
		}
	}()
	o, err := opts.withDefaults()
	if err != nil {
		return err
	}
	// Work still in flight when the program ends (a node list, a run, a
	// sweep) is cancelled on the way out, so that the caller can close the
	// graph under no query.
	ctx, cancelWork := context.WithCancel(ctx)
	defer cancelWork()
	m, err := New(ctx, o)
	if err != nil {
		return err
	}
	defer m.stopRun()
	g := &guard{m: m}
	p := tea.NewProgram(g, programOptions(ctx, o)...)
	g.quit = p.Quit
	// Ask the terminal for its background (light or dark, for the
	// AdaptiveColors of NewStyles) now, before Bubble Tea reads the input:
	// lipgloss would otherwise ask on the first View, and the answer
	// would arrive as keys.
	if m.St.R.ColorProfile() != termenv.Ascii {
		m.St.R.HasDarkBackground()
	}
	raw := opts.Out
	if raw == nil {
		raw = os.Stdout
	}
	setLive(raw)
	defer setLive(nil)
	_, err = p.Run()
	// The work still in flight is cancelled, and given a moment to see
	// it: the caller closes the graph (on Neo4j, the driver) next, which
	// must not happen under a query.
	m.stopRun()
	cancelWork()
	g.settle(workGrace)
	if g.failed != nil {
		return g.failed.err()
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil && !errors.Is(err, tea.ErrProgramPanic):
		return nil // the caller cancelled ctx: a normal way to stop
	}
	return fmt.Errorf("tui: %w", err)
}

// checkCompare checks Compare: none, or two or more known retrievers, each
// once, with a Neighbourhood for the ranking ones.
func (o Options) checkCompare() error {
	if len(o.Compare) == 0 {
		return nil
	}
	if len(o.Compare) == 1 {
		return fmt.Errorf("tui: the compare view needs two or more retrievers, got %q alone", o.Compare[0])
	}
	for i, name := range o.Compare {
		switch {
		case !slices.Contains(CompareRetrievers(), name):
			return fmt.Errorf("tui: unknown retriever %q (want %s)", name, strings.Join(CompareRetrievers(), ", "))
		case slices.Index(o.Compare, name) < i:
			return fmt.Errorf("tui: retriever %q given twice", name)
		case name != activation.Name && o.Neighbourhood == nil:
			return fmt.Errorf("tui: the %s retriever needs a Neighbourhood", name)
		}
	}
	for _, name := range o.Compare {
		if combining(name) && len(o.Compare) < 3 {
			return fmt.Errorf("tui: %s fuses the other retrievers compared: it needs two or more besides it", name)
		}
	}
	return nil
}

// firstWithParams is the first of names with parameters to show (every
// retriever but those that combine others).
func firstWithParams(names []string) string {
	for _, n := range names {
		if !combining(n) {
			return n
		}
	}
	return activation.Name
}
