package tui

import (
	"fmt"
	"io"
	"runtime/debug"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/memoria-graph/memoria/tui/common"
)

// guard wraps the root model for Run. A panic in Update or View is caught
// here, inside the event loop, and ends the program the ordinary way
// (tea.Quit), so that Bubble Tea's teardown restores the terminal
// (alternate screen off, mouse off, cursor shown, the tty's mode back) and
// Run returns the panic as an error the caller prints after that. Bubble
// Tea's own panic catcher stays as the net for Init and for commands
// (which safeCmd already guards).
type guard struct {
	m tea.Model
	// quit asks the program to quit from outside the event loop (a panic
	// in View cannot return a command).
	quit func()
	// failed is the first panic; Update, View and Run read it on the
	// event loop's goroutine or after Run returned.
	failed *panicked
	// work counts the commands handed to Bubble Tea that have not
	// returned (track), so that Run can let those it cancelled finish
	// before the caller closes the graph under them.
	work sync.WaitGroup
}

// track counts cmd in g.work until it returns; the commands a batch
// returns are counted in turn. A command Bubble Tea never runs (the
// program ended first) stays counted: settle's wait is bounded.
func (g *guard) track(cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	g.work.Add(1)
	return func() tea.Msg {
		defer g.work.Done()
		msg := cmd()
		if b, ok := msg.(tea.BatchMsg); ok {
			out := make(tea.BatchMsg, len(b))
			for i, c := range b {
				out[i] = g.track(c)
			}
			return out
		}
		return msg
	}
}

// settle waits, at most grace, for the commands track counts; it
// reports whether they all returned.
func (g *guard) settle(grace time.Duration) bool {
	done := make(chan struct{})
	go func() {
		g.work.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(grace):
		return false
	}
}

type panicked struct {
	value any
	stack string
}

func (p *panicked) err() error {
	return fmt.Errorf("tui: internal error: %v\n%s", p.value, common.FirstLines(p.stack, 16))
}

// Test hooks: nil in every build except one made with -tags
// memoria_testhooks (tui/testhooks.go), which the tmux tests build to
// force a panic (scripts/tmux_signals.sh). memoria as users build it has
// no way to trigger one.
var (
	updateHook func(tea.Msg)
	viewHook   func()
)

func (g *guard) Init() tea.Cmd { return g.track(g.m.Init()) }

func (g *guard) Update(msg tea.Msg) (_ tea.Model, cmd tea.Cmd) {
	if g.failed != nil {
		return g, nil
	}
	defer func() {
		if r := recover(); r != nil {
			g.failed = &panicked{value: r, stack: string(debug.Stack())}
			cmd = tea.Quit
		}
	}()
	if updateHook != nil {
		updateHook(msg)
	}
	g.m, cmd = g.m.Update(msg)
	return g, g.track(cmd)
}

func (g *guard) View() (view string) {
	if g.failed != nil {
		return ""
	}
	defer func() {
		if r := recover(); r != nil {
			g.failed = &panicked{value: r, stack: string(debug.Stack())}
			view = ""
			// View runs on the event loop, which Quit's Send waits for.
			go g.quit()
		}
	}()
	if viewHook != nil {
		viewHook()
	}
	return g.m.View()
}

// live is the terminal of the explorer Run is running, if any.
var live struct {
	sync.Mutex
	out io.Writer
}

// restoreSequence undoes what Run sets on the terminal, as Bubble Tea's
// own teardown does: mouse reporting (every mode and the SGR encoding),
// bracketed paste, the hidden cursor and the alternate screen.
const restoreSequence = ansi.ResetModeMouseNormal + ansi.ResetModeMouseButtonEvent + ansi.ResetModeMouseAnyEvent +
	ansi.ResetModeMouseExtSgr + ansi.ResetModeBracketedPaste + ansi.ShowCursor + ansi.ResetModeAltScreenSaveCursor

// ForceRestore writes the sequences that undo the explorer's terminal
// modes (alternate screen, mouse, hidden cursor, bracketed paste) straight
// to the terminal of the explorer that is running, bypassing its output
// lock, and reports whether one was running. It is for a process that must
// exit before Run has returned (memoria's main when the program did not end
// within its grace after a signal); the caller puts the tty's mode (echo,
// canonical input) back itself.
func ForceRestore() bool {
	live.Lock()
	defer live.Unlock()
	if live.out == nil {
		return false
	}
	_, _ = io.WriteString(live.out, restoreSequence)
	return true
}

func setLive(w io.Writer) {
	live.Lock()
	live.out = w
	live.Unlock()
}
