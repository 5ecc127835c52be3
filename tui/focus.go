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
		return m.params
	case focusTree:
		return m.tree
	}
	return m.detail
}

// setFocus moves the keyboard to pane f.
func (m *Model) setFocus(f focus) tea.Cmd {
	m.seeds.focused, m.params.focused, m.tree.focused, m.detail.focused = false, false, false, false
	m.seeds.filter.Blur()
	m.seeds.editing = false
	m.seeds.score.Blur()
	m.tags.Blur()
	m.focus = f
	switch f {
	case focusSeeds:
		m.seeds.focused = true
	case focusTags:
		return m.tags.Focus()
	case focusParams:
		m.params.focused = true
	case focusTree:
		m.tree.focused = true
		m.tree.setContent()
	case focusDetail:
		m.detail.focused = true
	}
	return nil
}

// mouse sends wheel events to the pane under the pointer.
func (m *Model) mouse(msg tea.MouseMsg) tea.Cmd {
	for _, r := range []struct {
		f    focus
		rect rect
	}{{focusTree, m.lay.tree}, {focusDetail, m.lay.detail}, {focusSeeds, m.lay.seeds}} {
		if !r.rect.contains(msg.X, msg.Y) {
			continue
		}
		if r.f == focusSeeds {
			if msg.Action == tea.MouseActionPress && msg.Button == tea.MouseButtonWheelUp {
				m.seeds.moveTo(m.seeds.cursor - 3)
			} else if msg.Action == tea.MouseActionPress && msg.Button == tea.MouseButtonWheelDown {
				m.seeds.moveTo(m.seeds.cursor + 3)
				return m.seeds.maybeLoad()
			}
			return nil
		}
		return m.pane(r.f).Update(msg)
	}
	return nil
}
