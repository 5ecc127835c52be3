package tui

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

func plainRenderer() *lipgloss.Renderer {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	return r
}

// TestLoadScreenUpdate drives the loading screen's Update: a report of
// 27.7 MB of 66 MB read (42%: 27.7 / 66 = 0.4197), 49,210 nodes and no
// relationship yet, at 80×24. Expected: the counts in words and the bar
// (golden, no colour); the report's command waits for the next one (it is
// not a quit); the end of the load quits with its error kept; q gives up.
func TestLoadScreenUpdate(t *testing.T) {
	m := newLoadModel("graph\x1b[2J.jsonl", plainRenderer())
	m.prog, m.done = make(chan LoadProgress), make(chan error)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	_, cmd := m.Update(loadProgressMsg{Bytes: 27_700_000, Total: 66_000_000, Nodes: 49_210})
	if cmd == nil {
		t.Fatal("a report returned no command to wait for the next")
	}
	v := m.View()
	checkSize(t, v, 80, 24)
	for _, want := range []string{"Loading graph\\x1b[2J.jsonl", "27.7 MB of 66.0 MB · 49,210 nodes · 0 relationships", " 42%"} {
		if !strings.Contains(v, want) {
			t.Errorf("screen lacks %q:\n%s", want, v)
		}
	}
	golden(t, "loading_80x24", v)

	boom := errors.New("line 3: not JSON")
	_, cmd = m.Update(loadDoneMsg{err: boom})
	if cmd == nil || !isQuit(cmd()) || m.err != boom {
		t.Fatalf("the end of the load: quit %v, err %v", cmd != nil && isQuit(cmd()), m.err)
	}
	m2 := newLoadModel("g", plainRenderer())
	if _, cmd := m2.Update(keyMsg("q")); cmd == nil || !isQuit(cmd()) || !m2.cancelled {
		t.Fatal("q did not give up")
	}
}

func isQuit(msg tea.Msg) bool {
	_, ok := msg.(tea.QuitMsg)
	return ok
}

// TestLoadRunsTheLoader runs Load as a program on a pipe: the loader
// reports 10 times (1 to 10 MB of 10 MB, 1,000 nodes a MB), then waits
// until the screen shows a report's counts (polled, up to 10 s) and
// returns; a second loader fails at once. Expected: the screen shows the
// file and "… MB of 10.0 MB" while the loader runs (which report is the
// screen's choice: a report the screen has not drawn is replaced by the
// next one, the loader never waits for it); Load returns nil, then the
// second loader's error.
func TestLoadRunsTheLoader(t *testing.T) {
	out := newOutput()
	in, keys := io.Pipe()
	defer keys.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	shown := make(chan bool, 1)
	done := make(chan error, 1)
	go func() {
		done <- Load(ctx, LoadOptions{Name: "big.jsonl", NoColor: true, In: in, Out: out}, func(report func(LoadProgress)) error {
			for i := int64(1); i <= 10; i++ {
				report(LoadProgress{Bytes: i * 1e6, Total: 10e6, Nodes: int(i) * 1000})
			}
			<-shown
			return nil
		})
	}()
	deadline := time.Now().Add(10 * time.Second)
	ok := false
	for !ok && time.Now().Before(deadline) {
		screen := ansi.Strip(out.String())
		ok = strings.Contains(screen, "Loading big.jsonl") && strings.Contains(screen, " MB of 10.0 MB · ")
		if !ok {
			time.Sleep(10 * time.Millisecond)
		}
	}
	shown <- true
	if err := <-done; err != nil {
		t.Fatalf("Load: %v", err)
	}
	if !ok {
		t.Fatalf("the screen never showed the load:\n%q", ansi.Strip(out.String()))
	}
	boom := errors.New("line 7: bad node")
	err := Load(ctx, LoadOptions{Name: "bad.jsonl", NoColor: true, In: in, Out: newOutput()}, func(func(LoadProgress)) error { return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("Load = %v, want the loader's error", err)
	}
}
