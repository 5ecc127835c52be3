// Package status is the explorer's status bar (docs/EXPLORER.md): the run
// line (the backend's description, the schema mapping's and the filter's
// notes, then the words the shown result view gives it) over the last
// message, and the help line of the focused pane's keys. It keeps only what
// is its own (the backend, the notes, the last message); the root hands it
// the result view's words (Line) and reads it through its methods (Notice,
// Msg, HelpView).
package status

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/keymap"
	"github.com/memoria-graph/memoria/tui/common"
	"github.com/memoria-graph/memoria/tui/theme"
)

// Bar shows the backend, the shown run's state and the last message.
type Bar struct {
	st      *theme.Styles
	help    help.Model // the focused pane's keys (HelpView)
	notice  string     // shown when the explorer opens (Notice)
	backend string
	filter  string // the relationship filter's note, shown after the backend ("" for none)
	schema  string // the schema mapping's description, shown before the filter ("" for memoria's own)
	msg     common.StatusMsg
	w       int
}

// New makes the bar for the backend's description, the filter's and the
// schema mapping's notes ("" for none) and the notice shown on opening.
func New(st *theme.Styles, backend, filter, schema, notice string) *Bar {
	return &Bar{st: st, help: newHelp(st), backend: backend, filter: filter, schema: schema, notice: notice}
}

// SetSize sets the width of the bar and of the help line (the bar is two
// lines high).
func (s *Bar) SetSize(w, _ int) {
	s.w = w
	s.help.Width = w
}

// Notice is the text shown when the explorer opens ("" for none).
func (s *Bar) Notice() string { return s.notice }

// Msg is the message line's message.
func (s *Bar) Msg() common.StatusMsg { return s.msg }

// Update records status messages and errors.
func (s *Bar) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case common.StatusMsg:
		s.msg = msg
	case common.ErrMsg:
		s.msg = common.StatusMsg{Text: OneLine(msg.Err.Error()), IsErr: true}
	}
	return nil
}

// Line renders the run line, the backend's description then parts (each
// already escaped: the result view's words), and the message line. Every
// text of its own here may quote the graph (errors naming nodes, messages
// naming tags), so all of it is escaped (textsafe.Escape).
func (s *Bar) Line(parts []string) string {
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
		line2 = style.Render(ansi.Truncate(textsafe.Escape(OneLine(s.msg.Text)), s.w, "…"))
	}
	return line1 + "\n" + line2
}

// OneLine is s up to its first line break.
func OneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// HelpView is the help line of keys (the top overlay's, else HelpKeys).
func (s *Bar) HelpView(keys []key.Binding) string { return s.help.ShortHelpView(keys) }

// HelpKeys is the focused pane's keys plus the global ones that work
// there: while the pane takes text, q and ? type themselves, so only tab
// and ctrl+c are offered as global keys.
func HelpKeys(km keymap.KeyMap, short []key.Binding, typing bool) []key.Binding {
	keys := append([]key.Binding(nil), short...)
	if typing {
		return append(keys, km.NextPane, km.ForceQuit)
	}
	return append(keys, km.NextPane, km.Help, km.Quit)
}

func newHelp(st *theme.Styles) help.Model {
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
