package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/keymap"
	"github.com/memoria-graph/memoria/tui/common"
	"github.com/memoria-graph/memoria/tui/overlays/helpview"
)

// statusBar shows the backend, each seed's run state and the last message.
// It keeps only what is its own (the backend and the last message); the
// run's trees and the explain switch belong to the root and the tree pane
// and are passed to View.
type statusBar struct {
	st      *Styles
	help    help.Model // the focused pane's keys (helpKeys)
	notice  string     // shown when the explorer opens (Options.Notice)
	backend string
	filter  string // the relationship filter's note, shown after the backend ("" for none)
	schema  string // the schema mapping's description, shown before the filter ("" for memoria's own)
	msg     common.StatusMsg
	w       int
}

func newStatusBar(st *Styles, backend, filter, schema, notice string) *statusBar {
	return &statusBar{st: st, help: newHelp(st), backend: backend, filter: filter, schema: schema, notice: notice}
}

// SetSize sets the width (the bar is two lines high).
func (s *statusBar) SetSize(w, _ int) { s.w = w }

// Update records status messages and errors.
func (s *statusBar) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case common.StatusMsg:
		s.msg = msg
	case common.ErrMsg:
		s.msg = common.StatusMsg{Text: oneLine(msg.Err.Error()), IsErr: true}
	}
	return nil
}

// View renders the run line, for the current run's trees (nil: no seeds)
// and whether losing candidates are shown, and the message line. Every
// text here may quote the graph (seed ids, errors naming nodes, messages
// naming tags), so all of it is escaped (textsafe.Escape).
func (s *statusBar) View(trees *resultTrees, explain bool) string {
	var parts []string
	if trees != nil {
		for _, t := range trees.seeds {
			parts = append(parts, seedBadge(s.st, t))
		}
	} else {
		parts = append(parts, s.st.Dim.Render("no seeds"))
	}
	if explain {
		parts = append(parts, s.st.End.Render("explain"))
	}
	return s.line(parts)
}

// line renders the run line, the backend's description then parts (each
// already escaped), and the message line.
func (s *statusBar) line(parts []string) string {
	if s.filter != "" {
		parts = append([]string{s.st.Info.Render(textsafe.Escape(s.filter))}, parts...)
	}
	if s.schema != "" {
		parts = append([]string{s.st.Info.Render(textsafe.Escape(s.schema))}, parts...)
	}
	parts = append([]string{""}, parts...)
	// The backend's description is text and the seeds' states hold the
	// numbers (depth, time, paths): in a narrow window the description
	// gives way first, down to 12 cells.
	sep := s.st.Dim.Render(" │ ")
	rest := ansi.StringWidth(strings.Join(parts, sep))
	backend := textsafe.Escape(s.backend)
	if room := max(12, s.w-rest); s.w > 0 && ansi.StringWidth(backend) > room {
		backend = ansi.Truncate(backend, room, "…")
	}
	parts[0] = s.st.Info.Render(backend)
	line1 := ansi.Truncate(strings.Join(parts, sep), s.w, "…")
	line2 := ""
	if s.msg.Text != "" {
		style := s.st.Bar
		if s.msg.IsErr {
			style = s.st.Error
		}
		line2 = style.Render(ansi.Truncate(textsafe.Escape(oneLine(s.msg.Text)), s.w, "…"))
	}
	return line1 + "\n" + line2
}

// seedBadge is one seed's run state: running at depth k, done in N ms with
// P paths, or the error.
func seedBadge(st *Styles, t *seedTree) string {
	id := textsafe.Escape(t.seed.NodeID)
	switch t.state {
	case seedRunning:
		return st.Running.Render("⟳ " + id + " " + seedStatus(t))
	case seedDone:
		return st.OK.Render("✓ " + id + " " + seedStatus(t))
	case seedFailed:
		return st.Error.Render("✗ " + id + " error: " + textsafe.Escape(oneLine(t.err)))
	case seedNotFound:
		return st.Error.Render("✗ " + id + " not found")
	}
	return st.Dim.Render(id + " " + seedStatus(t))
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// helpKeys adapts the focused pane and the global keys to bubbles help.
type helpKeys struct {
	km    keymap.KeyMap
	short []key.Binding
	// typing is set when the focused pane takes text: q and ? then type
	// themselves, so only tab and ctrl+c are offered as global keys.
	typing bool
}

// ShortHelp is the focused pane's keys plus the global ones that work there.
func (h helpKeys) ShortHelp() []key.Binding {
	keys := append([]key.Binding(nil), h.short...)
	if h.typing {
		return append(keys, h.km.NextPane, h.km.ForceQuit)
	}
	return append(keys, h.km.NextPane, h.km.Help, h.km.Quit)
}

// FullHelp lists every key of the keymap.
func (h helpKeys) FullHelp() [][]key.Binding { return h.km.All() }

// fullHelp lays out every key under its pane's heading (helpview.Keys).
func fullHelp(km keymap.KeyMap, st *Styles, w int) string { return helpview.Keys(km, st, w) }

func newHelp(st *Styles) help.Model {
	h := help.New()
	h.Styles.ShortKey = st.Key.Bold(true)
	h.Styles.ShortDesc = st.Dim
	h.Styles.ShortSeparator = st.Dim
	h.Styles.FullKey = st.Key.Bold(true)
	h.Styles.FullDesc = st.Dim
	h.Styles.FullSeparator = st.Dim
	h.Styles.Ellipsis = st.Dim
	return h
}
