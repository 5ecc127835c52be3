package tui

import (
	"bytes"
	"context"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/charmbracelet/x/term"
	"github.com/memoria-graph/memoria/tui/common"
)

// byteWriter writes each byte with its own call, yielding in between, as a
// slow terminal might take a long write piece by piece: two unlocked
// writers sharing it interleave.
type byteWriter struct {
	mu  sync.Mutex
	out bytes.Buffer
}

func (b *byteWriter) Write(p []byte) (int, error) {
	for _, c := range p {
		b.mu.Lock()
		b.out.WriteByte(c)
		b.mu.Unlock()
		runtime.Gosched()
	}
	return len(p), nil
}

// TestCopyAndFramesShareOneLock: New completes Options.Out into the
// locked writer, and it is that writer the model's commands (the OSC 52
// copy) write to and programOptions hands to tea.WithOutput. Writing
// "frames" and OSC 52 sequences from two goroutines through it onto a
// byte-by-byte terminal must leave every sequence whole. Why: the copy
// command wrote to the raw output outside Bubble Tea's renderer, so a
// sequence could land in the middle of a redraw.
func TestCopyAndFramesShareOneLock(t *testing.T) {
	tty := &byteWriter{}
	src := loadDemo(t)
	o, err := Options{Source: src, Backend: src, Out: tty}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.Out.(*lockedWriter); !ok || m.Out != o.Out {
		t.Fatalf("the model writes to %T, not the locked writer given to the program", m.Out)
	}
	again, _ := o.withDefaults()
	if again.Out != o.Out {
		t.Fatal("completing the options twice (Run, then New) wrapped the output twice")
	}
	frame := "\x1b[H" + strings.Repeat("frame line\r\n", 20)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for range 20 {
			o.Out.Write([]byte(frame))
		}
	}()
	go func() {
		defer wg.Done()
		for range 20 {
			if msg := copyCmd(m.Out, "MATCH (n) RETURN n;", "test")(); msg.(common.StatusMsg).IsErr {
				t.Error(msg)
			}
		}
	}()
	wg.Wait()
	got := tty.out.String()
	osc := "\x1b]52;c;TUFUQ0ggKG4pIFJFVFVSTiBuOw==\a"
	if n := strings.Count(got, osc); n != 20 {
		t.Fatalf("%d whole OSC 52 sequences in the output, want 20", n)
	}
	if n := strings.Count(strings.ReplaceAll(got, osc, ""), frame); n != 20 {
		t.Fatalf("%d whole frames in the output, want 20", n)
	}
}

// TestLockedOutputKeepsTheTerminal: over a file, the locked writer still
// has Fd (and Read, Close), so Bubble Tea and termenv detect a terminal
// through it as before.
func TestLockedOutputKeepsTheTerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "tty")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := lockOutput(f)
	tf, ok := w.(term.File)
	if !ok || tf.Fd() != f.Fd() {
		t.Fatalf("%T does not expose the file's descriptor", w)
	}
	if lockOutput(w) != w {
		t.Fatal("wrapped twice")
	}
}

// TestNoColorFromOptionsOnly: with $NO_COLOR set and Options.NoColor
// false, the options keep NoColor false. Expected: the package reads no
// environment; the CLI maps $NO_COLOR onto NoColor from its own Env (so
// tests and embedders decide). Why: tui read os.Getenv itself.
func TestNoColorFromOptionsOnly(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	src := loadDemo(t)
	o, err := Options{Source: src, Backend: src, Out: newOutput()}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if o.NoColor {
		t.Fatal("NoColor set from the process environment")
	}
}
