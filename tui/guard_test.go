package tui

import (
	"context"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/memoria-graph/memoria/graph"
)

// runExplorer runs Run on the demo graph with keys from the returned
// writer, and returns Run's result on the channel; the output is out.
func runExplorer(t *testing.T, ctx context.Context, out *lockedBuffer) (*io.PipeWriter, <-chan error) {
	t.Helper()
	src := loadDemo(t)
	in, keys := io.Pipe()
	t.Cleanup(func() { keys.Close() })
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Source: src, Backend: src, NoColor: true, OutDir: t.TempDir(), In: in, Out: out})
	}()
	return keys, done
}

// waitRun waits for Run to return, failing the test after 20 s.
func waitRun(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return")
		return nil
	}
}

// waitScreen polls out until it holds text (ANSI stripped).
func waitScreen(t *testing.T, out *lockedBuffer, text string) {
	t.Helper()
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if strings.Contains(ansi.Strip(out.String()), text) {
			return
		}
	}
	t.Fatalf("%q never shown; output %q", text, out.String())
}

// TestPanicRestoresTerminal: a panic in Update (the key "!" under a test
// hook) or in View (the first View after "!") ends Run with an error that
// names the panic ("tui: internal error: boom in ...") and a stack, and
// the output ends with the terminal restored after the alternate screen
// was entered: the alternate screen left (CSI ?1049l), the mouse off
// (CSI ?1002l, ?1006l) and the cursor shown (CSI ?25h), as Bubble Tea's
// ordinary teardown writes them.
func TestPanicRestoresTerminal(t *testing.T) {
	for _, where := range []string{"Update", "View"} {
		t.Run(where, func(t *testing.T) {
			armed := false
			updateHook = func(msg tea.Msg) {
				if k, ok := msg.(tea.KeyMsg); ok && k.String() == "!" {
					if where == "Update" {
						panic("boom in Update")
					}
					armed = true
				}
			}
			viewHook = func() {
				if armed {
					panic("boom in View")
				}
			}
			t.Cleanup(func() { updateHook, viewHook = nil, nil })
			out := newOutput()
			keys, done := runExplorer(t, context.Background(), out)
			waitScreen(t, out, "N2001 AgentAction")
			if _, err := keys.Write([]byte("!")); err != nil {
				t.Fatal(err)
			}
			err := waitRun(t, done)
			if err == nil || !strings.HasPrefix(err.Error(), "tui: internal error: boom in "+where+"\n") || !strings.Contains(err.Error(), "goroutine") {
				t.Fatalf("Run: %v; want the panic's message and a stack", err)
			}
			s := out.String()
			enter := strings.Index(s, ansi.SetModeAltScreenSaveCursor)
			tail := s[max(enter, 0):]
			for _, seq := range []string{ansi.ResetModeAltScreenSaveCursor, ansi.ResetModeMouseButtonEvent, ansi.ResetModeMouseExtSgr, ansi.ShowCursor} {
				if enter < 0 || !strings.Contains(tail, seq) {
					t.Errorf("output lacks %q after entering the alternate screen (at %d)", seq, enter)
				}
			}
		})
	}
}

// TestCancelRestoresTerminal: cancelling Run's context (what memoria's
// main does on SIGINT, SIGTERM or SIGHUP; the program has no signal
// handler of its own) ends Run with nil and the terminal restored; while
// it ran, ForceRestore wrote the restore sequence to its output and
// reported true, and after it returned it reports false.
func TestCancelRestoresTerminal(t *testing.T) {
	out := newOutput()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, done := runExplorer(t, ctx, out)
	waitScreen(t, out, "N2001 AgentAction")
	if !ForceRestore() {
		t.Error("ForceRestore found no running explorer")
	}
	if !strings.Contains(out.String(), restoreSequence) {
		t.Error("ForceRestore wrote nothing")
	}
	before := len(out.String())
	cancel()
	if err := waitRun(t, done); err != nil {
		t.Fatalf("Run after cancel: %v", err)
	}
	if tail := out.String()[before:]; !strings.Contains(tail, ansi.ResetModeAltScreenSaveCursor) || !strings.Contains(tail, ansi.ShowCursor) {
		t.Errorf("teardown after cancel lacks the restore: %q", tail)
	}
	if ForceRestore() {
		t.Error("ForceRestore after Run returned still found an explorer")
	}
}

// TestGuardSettlesTracked: the commands the guard hands out, those a
// batch returns included, are waited for by settle; one still blocked
// makes settle give up after its grace and say so.
func TestGuardSettlesTracked(t *testing.T) {
	g := &guard{}
	release := make(chan struct{})
	blocked := func() tea.Msg { <-release; return nil }
	batch := g.track(tea.Batch(blocked, func() tea.Msg { return nil }))
	msg := batch()
	b, ok := msg.(tea.BatchMsg)
	if !ok || len(b) != 2 {
		t.Fatalf("the batch gave %T %v", msg, msg)
	}
	done := make(chan struct{})
	go func() { b[0](); close(done) }()
	b[1]()
	if g.settle(50 * time.Millisecond) {
		t.Fatal("settle returned true with a command still blocked")
	}
	close(release)
	<-done
	if !g.settle(time.Second) {
		t.Fatal("settle did not see every command return")
	}
}

// lingeringSource is the demo graph whose node list holds until its
// context ends and then takes linger more to return, as a driver's query
// does on its way out after a cancel.
type lingeringSource struct {
	*fakeSource
	linger   time.Duration
	once     sync.Once
	started  chan struct{}
	returned atomic.Bool
}

func (s *lingeringSource) ListNodes(ctx context.Context, filter string, offset, limit int) ([]graph.NodeSummary, bool, error) {
	s.once.Do(func() { close(s.started) })
	<-ctx.Done()
	time.Sleep(s.linger)
	s.returned.Store(true)
	return nil, false, ctx.Err()
}

// TestRunWaitsForCancelledWork: when the user quits with the node list
// still loading, Run cancels it and returns only once the command that
// reads it has returned (within workGrace), so that the caller can close
// the graph, on Neo4j the driver, under no query. The list's read takes
// 300 ms after its cancel, far less than workGrace (3 s): without the
// wait, Run returned while it still read.
func TestRunWaitsForCancelledWork(t *testing.T) {
	src := &lingeringSource{fakeSource: loadDemo(t), linger: 300 * time.Millisecond, started: make(chan struct{})}
	in, keys := io.Pipe()
	t.Cleanup(func() { keys.Close() })
	out := newOutput()
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), Options{Source: src, Backend: src, NoColor: true, OutDir: t.TempDir(), In: in, Out: out})
	}()
	select {
	case <-src.started:
	case <-time.After(20 * time.Second):
		t.Fatal("the node list was never asked for")
	}
	waitScreen(t, out, "MAX_DEPTH")
	if _, err := keys.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	if err := waitRun(t, done); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !src.returned.Load() {
		t.Error("Run returned while the cancelled node list was still being read")
	}
}
