package common

import (
	"fmt"
	"runtime/debug"
	"strconv"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/keymap"
)

// StatusMsg puts a one-line message on the status bar.
type StatusMsg struct {
	Text  string
	IsErr bool
}

// ErrMsg reports a failure (including a recovered panic) on the status line.
type ErrMsg struct{ Err error }

// Notify returns a command that shows text on the status line.
func Notify(text string) tea.Cmd {
	return func() tea.Msg { return StatusMsg{Text: text} }
}

// NotifyErr returns a command that shows err on the status line.
func NotifyErr(err error) tea.Cmd {
	return func() tea.Msg { return StatusMsg{Text: err.Error(), IsErr: true} }
}

// SafeCmd turns a panic in a command into an ErrMsg, so the program keeps
// the terminal in order and shows the failure. Every component's
// background work runs through it.
func SafeCmd(f func() tea.Msg) tea.Cmd {
	return func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				msg = ErrMsg{fmt.Errorf("internal error: %v\n%s", r, FirstLines(string(debug.Stack()), 8))}
			}
		}()
		return f()
	}
}

// FirstLines is s up to its n-th newline (a stack cut short).
func FirstLines(s string, n int) string {
	lines := 0
	for i := range len(s) {
		if s[i] == '\n' {
			lines++
			if lines == n {
				return s[:i]
			}
		}
	}
	return s
}

// ExactNum writes a number the user typed as it is (the shortest form
// that reads back the same), where rounding it would hide the value: the
// score editor and its messages. Everything the algorithm computed goes
// through render.Num.
func ExactNum(v float64) string {
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// NewViewport is an overlay's scrollable content: the keymap's up, down
// and page keys scroll it, and so does the wheel.
func NewViewport(km keymap.KeyMap) viewport.Model {
	vp := viewport.New(0, 0)
	vp.KeyMap = km.ViewportKeys()
	return vp
}

// MouseWheelRows is how far one wheel notch scrolls (as bubbles' viewport).
const MouseWheelRows = 3

// MoveCursor moves a list's cursor over n rows (n > 0): the wheel
// anywhere, the keys when the list is focused; page is a page's rows.
func MoveCursor(km keymap.KeyMap, msg tea.Msg, focused bool, cursor *int, n, page int) {
	switch msg := msg.(type) {
	case tea.MouseMsg:
		if msg.Action == tea.MouseActionPress {
			switch msg.Button {
			case tea.MouseButtonWheelUp:
				*cursor = max(0, *cursor-MouseWheelRows)
			case tea.MouseButtonWheelDown:
				*cursor = min(n-1, *cursor+MouseWheelRows)
			}
		}
	case tea.KeyMsg:
		if !focused {
			return
		}
		switch {
		case key.Matches(msg, km.Up):
			*cursor = max(0, *cursor-1)
		case key.Matches(msg, km.Down):
			*cursor = min(n-1, *cursor+1)
		case key.Matches(msg, km.PageUp):
			*cursor = max(0, *cursor-page)
		case key.Matches(msg, km.PageDown):
			*cursor = min(n-1, *cursor+page)
		case key.Matches(msg, km.Top):
			*cursor = 0
		case key.Matches(msg, km.Bottom):
			*cursor = n - 1
		}
	}
}
