package tui

import tea "github.com/charmbracelet/bubbletea"

func (m *Model) focused() component {
	return m.pane(m.focus)
}

func (m *Model) pane(f focus) component {
	switch f {
	case focusSeeds:
		return m.seeds
	case focusTags:
		return m.tags
	case focusParams:
		return m.view.params()
	case focusTree:
		return m.view.results()
	}
	return m.detail
}

// setFocus moves the keyboard to pane f: the pane losing it is blurred
// (which may report input it left unfinished), the new one focused.
func (m *Model) setFocus(f focus) tea.Cmd {
	blur := m.focused().Blur()
	m.focus = f
	return tea.Batch(blur, m.focused().Focus())
}

// mouse sends wheel events to the top overlay (it covers the panes), else
// to the pane under the pointer.
func (m *Model) mouse(msg tea.MouseMsg) tea.Cmd {
	if o := m.top(); o != nil {
		return m.toOverlay(o, msg)
	}
	for _, r := range []struct {
		f    focus
		rect rect
	}{{focusTree, m.lay.tree}, {focusDetail, m.lay.detail}, {focusSeeds, m.lay.seeds}} {
		if r.rect.contains(msg.X, msg.Y) {
			cmd := m.pane(r.f).Update(msg)
			if r.f == focusTree && !m.showsTree() {
				cmd = tea.Batch(cmd, m.view.follow())
			}
			return cmd
		}
	}
	return nil
}
