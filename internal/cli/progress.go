package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/bubbles/progress"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/tui"
	"github.com/muesli/termenv"
)

// stderrProgress draws a file's load on one line of a terminal's stderr
// (the commands that read --graph FILE: a 66 MB file takes seconds) and
// clears it when the load ends, so nothing of it stays in the output.
type stderrProgress struct {
	w     io.Writer
	name  string
	bar   progress.Model
	shown bool
}

func newStderrProgress(w io.Writer, path string) *stderrProgress {
	name := []rune(textsafe.Escape(path))
	if len(name) > 32 {
		name = append([]rune("…"), name[len(name)-31:]...)
	}
	return &stderrProgress{w: w, name: string(name),
		bar: progress.New(progress.WithColorProfile(termenv.Ascii), progress.WithWidth(24), progress.WithFillCharacters('#', '.'))}
}

// report draws p over the previous line.
func (s *stderrProgress) report(p inmem.Progress) {
	frac := 0.0
	if p.Total > 0 {
		frac = min(1, float64(p.Bytes)/float64(p.Total))
	}
	fmt.Fprintf(s.w, "\r\x1b[Kloading %s %s %s", s.name, s.bar.ViewAs(frac), loadCounts(p))
	s.shown = true
}

// finish clears the line.
func (s *stderrProgress) finish() {
	if s.shown {
		fmt.Fprint(s.w, "\r\x1b[K")
		s.shown = false
	}
}

// loadCounts is the bytes, nodes and relationships of p, as the explorer's
// loading screen shows them.
func loadCounts(p inmem.Progress) string {
	return strings.TrimSpace(tui.LoadCounts(tui.LoadProgress(p)))
}
