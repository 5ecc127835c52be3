package tui

import (
	"io"
	"os"
	"sync"

	"github.com/charmbracelet/x/term"
)

// lockedWriter serialises writes to the terminal. Bubble Tea's renderer
// writes each frame with one Write; the clipboard command writes its OSC 52
// sequence with one Write from a command goroutine. With both going through
// the same lockedWriter, a sequence can never land in the middle of a frame.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// lockedFile is a lockedWriter over a terminal file. It keeps the file's
// Read, Close and Fd, so Bubble Tea and termenv still see a TTY (raw mode,
// window size, colour detection) through the wrapper.
type lockedFile struct {
	*lockedWriter
	f term.File
}

func (l *lockedFile) Read(p []byte) (int, error) { return l.f.Read(p) }
func (l *lockedFile) Close() error               { return l.f.Close() }
func (l *lockedFile) Fd() uintptr                { return l.f.Fd() }

// lockOutput wraps w in a lockedWriter (a lockedFile when w is a file); a
// writer that is already wrapped is returned as is.
func lockOutput(w io.Writer) io.Writer {
	switch w.(type) {
	case *lockedWriter, *lockedFile:
		return w
	}
	lw := &lockedWriter{w: w}
	if f, ok := w.(term.File); ok {
		return &lockedFile{lockedWriter: lw, f: f}
	}
	return lw
}

// colorWriter is the writer the colour profile is read from. termenv
// recognises a terminal only in an *os.File (termenv.Output.isTTY), so a
// lockedFile (or any wrapper) made every real terminal look like a pipe
// and the explorer drew no colour at all: the file inside is used instead.
// The renderer only reads the profile and the background from it; every
// frame still goes through the locked writer.
func colorWriter(w io.Writer) io.Writer {
	if lf, ok := w.(*lockedFile); ok {
		w = lf.f
	}
	if f, ok := w.(*os.File); ok {
		return f
	}
	return w
}
