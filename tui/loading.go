package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/charmbracelet/bubbles/progress"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/tui/common"
	"github.com/muesli/termenv"
)

// LoadProgress is how far loading a graph has come: Bytes read of Total
// (0: unknown), and the nodes and relationships built so far.
type LoadProgress struct {
	Bytes, Total int64
	Nodes, Rels  int
}

// LoadOptions configures Load.
type LoadOptions struct {
	// Name is what loads (a file's path), shown escaped; Total its size
	// in bytes (0: unknown), shown before the first report.
	Name    string
	Total   int64
	NoColor bool
	// In and Out are the terminal (default os.Stdin and os.Stdout).
	In  io.Reader
	Out io.Writer
}

// ErrLoadCancelled is Load's error when the user pressed ctrl+c or q.
var ErrLoadCancelled = errors.New("loading cancelled")

// Load runs load, which reports its progress through report, while the
// terminal shows a progress bar (bytes, nodes and relationships so far)
// instead of a blank screen: a big file takes seconds. load runs on a
// goroutine of its own; its reports reach the screen as messages (the
// latest one wins when the screen is slower than the loader), so neither
// side waits for the other. Load returns load's error, ErrLoadCancelled
// when the user gave up (load goes on in the background until it ends),
// or ctx's error when ctx ended first. Like Run it handles no signal: the
// caller cancels ctx.
func Load(ctx context.Context, o LoadOptions, load func(report func(LoadProgress)) error) error {
	if o.In == nil {
		o.In = os.Stdin
	}
	if o.Out == nil {
		o.Out = os.Stdout
	}
	r := lipgloss.NewRenderer(colorWriter(o.Out))
	if o.NoColor {
		r.SetColorProfile(termenv.Ascii)
	}
	m := newLoadModel(o.Name, r)
	m.p.Total = o.Total
	prog := make(chan LoadProgress, 1)
	done := make(chan error, 1)
	go func() {
		done <- load(func(p LoadProgress) {
			select {
			case prog <- p:
			default:
				// The screen has not taken the last report yet: replace it.
				select {
				case <-prog:
				default:
				}
				select {
				case prog <- p:
				default:
				}
			}
		})
	}()
	m.prog, m.done = prog, done
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(o.In), tea.WithOutput(o.Out),
		tea.WithAltScreen(), tea.WithoutSignalHandler())
	final, err := p.Run()
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("tui: %w", err)
	}
	lm := final.(*loadModel)
	if lm.cancelled {
		return ErrLoadCancelled
	}
	return lm.err
}

// loadModel is the loading screen.
type loadModel struct {
	name      string
	r         *lipgloss.Renderer
	bar       progress.Model
	p         LoadProgress
	w, h      int
	prog      <-chan LoadProgress
	done      <-chan error
	err       error
	cancelled bool
}

func newLoadModel(name string, r *lipgloss.Renderer) *loadModel {
	bar := progress.New(progress.WithDefaultGradient(), progress.WithColorProfile(r.ColorProfile()), progress.WithWidth(40))
	return &loadModel{name: name, r: r, bar: bar, w: minWidth, h: minHeight}
}

// loadProgressMsg and loadDoneMsg carry the loader's reports and its end.
type (
	loadProgressMsg LoadProgress
	loadDoneMsg     struct{ err error }
)

// waitLoad waits for the next report or the end of the load.
func waitLoad(prog <-chan LoadProgress, done <-chan error) tea.Cmd {
	return func() tea.Msg {
		select {
		case p := <-prog:
			return loadProgressMsg(p)
		case err := <-done:
			return loadDoneMsg{err}
		}
	}
}

func (m *loadModel) Init() tea.Cmd { return waitLoad(m.prog, m.done) }

func (m *loadModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
	case loadProgressMsg:
		m.p = LoadProgress(msg)
		return m, waitLoad(m.prog, m.done)
	case loadDoneMsg:
		m.err = msg.err
		return m, tea.Quit
	case tea.KeyMsg:
		if msg.String() == "ctrl+c" || msg.String() == "q" {
			m.cancelled = true
			return m, tea.Quit
		}
	}
	return m, nil
}

// View centres the bar and the counts in the window.
func (m *loadModel) View() string {
	width := max(10, min(60, m.w-4))
	m.bar.Width = width
	frac := 0.0
	if m.p.Total > 0 {
		frac = min(1, float64(m.p.Bytes)/float64(m.p.Total))
	}
	dim := m.r.NewStyle().Faint(true)
	lines := []string{
		"Loading " + textsafe.Escape(m.name),
		"",
		m.bar.ViewAs(frac),
		LoadCounts(m.p),
		"",
		dim.Render("ctrl+c or q gives up"),
	}
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, m.w, "…")
	}
	return lipgloss.Place(m.w, m.h, lipgloss.Center, lipgloss.Center, strings.Join(lines, "\n"))
}

// LoadCounts is "27.7 MB of 66.0 MB · 49,210 nodes · 0 relationships": a
// load's progress in words (the CLI's progress line says it the same way).
func LoadCounts(p LoadProgress) string {
	read := fmtBytes(p.Bytes)
	if p.Total > 0 {
		read += " of " + fmtBytes(p.Total)
	}
	return fmt.Sprintf("%s · %s nodes · %s relationships", read, common.Thousands(p.Nodes), common.Thousands(p.Rels))
}

// fmtBytes writes n bytes in decimal units with one decimal (kB from 1000).
func fmtBytes(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}
