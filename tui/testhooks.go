//go:build memoria_testhooks

package tui

import (
	"fmt"
	"os"

	tea "github.com/charmbracelet/bubbletea"
)

// This file is compiled only with -tags memoria_testhooks, for the tmux
// test of the terminal restore after a panic (scripts/tmux_signals.sh):
// F12 panics in Update, F11 makes the next View panic, and F10 blocks
// Update for good (a hung event loop: the test of main's fallback restore
// after a signal).
func init() {
	viewPanic := false
	updateHook = func(msg tea.Msg) {
		k, ok := msg.(tea.KeyMsg)
		if !ok {
			return
		}
		switch k.Type {
		case tea.KeyF12:
			panic("forced panic in Update (memoria_testhooks build, F12)")
		case tea.KeyF11:
			viewPanic = true
		case tea.KeyF10:
			// Drawn over the explorer, for the test to see.
			fmt.Fprint(os.Stderr, "testhook: Update blocked")
			select {}
		}
	}
	viewHook = func() {
		if viewPanic {
			panic("forced panic in View (memoria_testhooks build, F11)")
		}
	}
}
