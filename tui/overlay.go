package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// overlay is a view drawn over the whole body (the panes): the full help
// (helpView), the why-not panel (tui/overlays/whypanel), the sweep
// (tui/overlays/sweepview) and the others in overlaySet. Each
// is one object the root keeps for the explorer's life, so that its ids
// (a question's, a sweep's) keep counting and a message of work it closed
// can still be told stale; it is open while it is on the root's stack.
type overlay interface {
	// Update takes a key or a mouse event while the overlay is on top, or
	// a message of its own work (an answer, a tick, a snapshot) while it
	// is anywhere on the stack. done asks the root to close it.
	Update(tea.Msg) (done bool, cmd tea.Cmd)
	// Title is the frame's title, View what the frame holds.
	Title() string
	View() string
	// SetSize sets the inner size (the body's, less the frame).
	SetSize(w, h int)
	// ShortHelp is the help line's keys while the overlay is on top
	// (the root adds ? and q).
	ShortHelp() []key.Binding
	// Close is called when the root takes the overlay off the stack: it
	// cancels the overlay's work in flight, whose messages are dropped.
	Close()
}

// The overlays form one stack, m.overlays, the top last; the order they
// were opened in is the only priority there is. The top one takes every
// key but ctrl+c and q (which quit from anywhere) and ? (which opens the
// help over it; in the help it closes it), and the mouse; only the top
// one is drawn, over the whole body. A message of an overlay's own work
// goes to that overlay wherever it is on the stack (a sweep streams on
// while the help covers it), and is dropped when the overlay is not on
// the stack (its work was cancelled when it closed). esc (or the key that
// opened it) closes the top one and shows the one under it, else the
// panes.

// top is the overlay on top, nil when none is open.
func (m *Model) top() overlay {
	if len(m.overlays) == 0 {
		return nil
	}
	return m.overlays[len(m.overlays)-1]
}

// isOpen reports whether o is on the stack.
func (m *Model) isOpen(o overlay) bool {
	for _, x := range m.overlays {
		if x == o {
			return true
		}
	}
	return false
}

// push puts o on top, sized to the body; an o already open moves to the
// top (its opener has replaced its work).
func (m *Model) push(o overlay) {
	m.remove(o)
	m.overlays = append(m.overlays, o)
	o.SetSize(m.St.Inner(m.lay.full()))
}

// pop takes o off the stack, wherever it is, and closes it.
func (m *Model) pop(o overlay) {
	if m.remove(o) {
		o.Close()
	}
}

// remove takes o off the stack without closing it; false if it was not on.
func (m *Model) remove(o overlay) bool {
	for i, x := range m.overlays {
		if x == o {
			m.overlays = append(m.overlays[:i], m.overlays[i+1:]...)
			return true
		}
	}
	return false
}

// closeOverlays closes every overlay, the top first.
func (m *Model) closeOverlays() {
	for o := m.top(); o != nil; o = m.top() {
		m.pop(o)
	}
}

// toOverlay hands o a message of its own work: dropped unless o is open.
func (m *Model) toOverlay(o overlay, msg tea.Msg) tea.Cmd {
	if !m.isOpen(o) {
		return nil
	}
	done, cmd := o.Update(msg)
	if done {
		m.pop(o)
	}
	return cmd
}

// overlayKey handles a key while an overlay is open (see the stack's
// comment above).
func (m *Model) overlayKey(msg tea.KeyMsg) tea.Cmd {
	o := m.top()
	if t, ok := o.(typer); ok && t.Typing() {
		return m.toOverlay(o, msg) // q and ? are letters of its text
	}
	switch {
	case key.Matches(msg, m.KM.Quit):
		return m.quit()
	case key.Matches(msg, m.KM.Help) && o != overlay(m.ov.helpView):
		m.openHelp()
		return nil
	}
	return m.toOverlay(o, msg)
}

// typer is an overlay that takes text (the query line) while Typing.
type typer interface{ Typing() bool }

// openHelp puts the full help on top, scrolled to its start.
func (m *Model) openHelp() tea.Cmd {
	m.push(m.ov.helpView)
	m.ov.helpView.Open()
	return nil
}

// overlayHelp is the help line while o is on top: its keys, then ? (unless
// o is the help) and q; ctrl+c instead while o takes text (the query line).
func (m *Model) overlayHelp(o overlay) []key.Binding {
	keys := append([]key.Binding(nil), o.ShortHelp()...)
	if t, ok := o.(typer); ok && t.Typing() {
		return append(keys, m.KM.ForceQuit) // q and ? are letters here
	}
	if o != overlay(m.ov.helpView) {
		keys = append(keys, m.KM.Help)
	}
	return append(keys, m.KM.Quit)
}
