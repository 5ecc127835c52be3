// Package theme holds the explorer's looks, shared by the root (package tui)
// and the components in their own packages: the lipgloss styles built for
// one renderer (Styles), the pane frame (Box), the glyphs that keep the
// screen readable without colour, and the Inks the result tree renders
// with.
package theme

import (
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

// Styles holds every lipgloss style of the explorer. It is built by
// NewStyles from a renderer, so there is no global theme and tests can use a
// renderer with the Ascii profile.
type Styles struct {
	// R is the renderer every style is made by (NewStyles).
	R *lipgloss.Renderer

	Pane        lipgloss.Style // a pane's frame (top border drawn by Box)
	PaneFocused lipgloss.Style
	Title       lipgloss.Style
	TitleFocus  lipgloss.Style
	Border      lipgloss.Style // colour of the hand-drawn top border
	BorderFocus lipgloss.Style

	Selected lipgloss.Style // the selected row (also marked with a ▸ glyph)
	Dim      lipgloss.Style
	ID       lipgloss.Style
	Label    lipgloss.Style
	Metric   lipgloss.Style
	End      lipgloss.Style
	Loser    lipgloss.Style
	Match    lipgloss.Style // a search match in the result tree
	Chip     lipgloss.Style
	ChipSel  lipgloss.Style
	Key      lipgloss.Style
	Value    lipgloss.Style
	OK       lipgloss.Style
	Running  lipgloss.Style
	Error    lipgloss.Style
	Info     lipgloss.Style
	Bar      lipgloss.Style
	// Hub styles HubMark, the mark of a hub (graph.Metrics.IsHub) in the
	// results and the detail pane: "◆hub", or "[hub]" without colour.
	Hub     lipgloss.Style
	HubMark string

	// Tree holds the result tree's styles as Inks (see Ink), built from
	// the styles above.
	Tree TreeInks
}

// TreeInks are the styles of the result tree's segments.
type TreeInks struct {
	Dim, ID, Label, Metric, End, Loser, Running, Error Ink
	// Entered and Moved mark nodes that changed since the baseline.
	Entered, Moved Ink
	// Hub marks a hub.
	Hub Ink
	// Relevant marks a node the analyst marked relevant (tui/marks.go).
	Relevant Ink
}

// Ink is a style reduced to the escape sequences it puts around a text.
// The result tree renders thousands of short one-line segments, and
// lipgloss's Render costs microseconds each (it measures, wraps and pads);
// an Ink costs a concatenation. Only for styles made of colours and text
// attributes (no width, padding, border or underline) and texts with no tab
// or newline (tree segments are escaped by textsafe first): under those
// conditions Render is the same sequence, text, reset; TestInkMatchesRender (tui)
// checks it for every tree style and profile.
type Ink struct{ pre, post string }

// InkOf probes s with one letter to find the sequences around a text.
func InkOf(s lipgloss.Style) Ink {
	out := s.Render("x")
	i := strings.Index(out, "x")
	if i < 0 {
		return Ink{}
	}
	return Ink{pre: out[:i], post: out[i+1:]}
}

// Render styles the texts, joined by spaces as lipgloss does.
func (k Ink) Render(strs ...string) string {
	t := strings.Join(strs, " ")
	if t == "" {
		return ""
	}
	return k.pre + t + k.post
}

// Glyphs that keep the interface readable without colour.
const (
	GlyphSelected = "▸"
	GlyphFolded   = "▶"
	GlyphUnfolded = "▼"
	GlyphLost     = "✗"
	GlyphEnd      = "■"
	GlyphMatch    = "»" // a row that matches the search in the results
	// Changes since the baseline run, as `memoria diff` writes them.
	GlyphEntered = "+"
	GlyphMoved   = "~"
	GlyphLeft    = "−"
	// GlyphRelevant marks a node marked relevant (twice: highly relevant).
	GlyphRelevant = "✓"
)

// NewStyles builds the styles for renderer r. With noColor the renderer is
// switched to the Ascii profile: no colours, only glyphs and text.
func NewStyles(r *lipgloss.Renderer, noColor bool) Styles {
	if r == nil {
		r = lipgloss.DefaultRenderer()
	}
	if noColor {
		r.SetColorProfile(termenv.Ascii)
	}
	c := func(light, dark string) lipgloss.AdaptiveColor {
		return lipgloss.AdaptiveColor{Light: light, Dark: dark}
	}
	accent := c("#5A56E0", "#7D79F6")
	subtle := c("#9A9A9A", "#5C5C5C")
	dim := c("#8A8A8A", "#7A7A7A")
	s := r.NewStyle
	st := Styles{
		R:           r,
		Pane:        s().Border(lipgloss.RoundedBorder(), false, true, true, true).BorderForeground(subtle).Padding(0, 1),
		PaneFocused: s().Border(lipgloss.RoundedBorder(), false, true, true, true).BorderForeground(accent).Padding(0, 1),
		Title:       s().Bold(true),
		TitleFocus:  s().Bold(true).Foreground(accent),
		Border:      s().Foreground(subtle),
		BorderFocus: s().Foreground(accent),
		Selected:    s().Bold(true).Background(c("#E4E2FF", "#3A3869")),
		Dim:         s().Foreground(dim),
		ID:          s().Bold(true).Foreground(c("#1F6FB2", "#6CB6FF")),
		Label:       s().Foreground(c("#8A5A00", "#E0AF68")),
		Metric:      s().Foreground(c("#2E7D32", "#9ECE6A")),
		End:         s().Foreground(c("#6A4C9C", "#BB9AF7")),
		Loser:       s().Foreground(dim).Faint(true),
		Match:       s().Reverse(true).Bold(true),
		Chip:        s().Foreground(c("#1F6FB2", "#6CB6FF")),
		ChipSel:     s().Bold(true).Reverse(true),
		Key:         s().Foreground(c("#5A5A5A", "#A0A0A0")),
		Value:       s().Bold(true),
		OK:          s().Foreground(c("#2E7D32", "#9ECE6A")),
		Running:     s().Foreground(c("#B26A00", "#E0AF68")),
		Error:       s().Bold(true).Foreground(c("#C62828", "#F7768E")),
		Info:        s().Foreground(accent),
		Bar:         s().Foreground(c("#3A3A3A", "#C0C0C0")),
		Hub:         s().Bold(true).Foreground(c("#B23A48", "#FF9E64")),
		HubMark:     "◆hub",
	}
	if noColor {
		st.HubMark = "[hub]"
	}
	st.Tree = TreeInks{Dim: InkOf(st.Dim), ID: InkOf(st.ID), Label: InkOf(st.Label), Metric: InkOf(st.Metric),
		End: InkOf(st.End), Loser: InkOf(st.Loser), Running: InkOf(st.Running), Error: InkOf(st.Error),
		Entered: InkOf(st.OK.Bold(true)), Moved: InkOf(st.Running.Bold(true)), Hub: InkOf(st.Hub),
		Relevant: InkOf(st.OK)}
	return st
}

// Box draws a pane of outer size w×h with title in its top border. content
// is cut or padded to fit the inner size (see Inner).
func (st Styles) Box(title, content string, w, h int, focused bool) string {
	frame, border, tstyle := st.Pane, st.Border, st.Title
	if focused {
		frame, border, tstyle = st.PaneFocused, st.BorderFocus, st.TitleFocus
	}
	iw, ih := st.Inner(w, h)
	if iw < 1 || ih < 0 {
		return ""
	}
	lines := strings.Split(content, "\n")
	if len(lines) > ih {
		lines = lines[:ih]
	}
	for i, l := range lines {
		lines[i] = Fit(l, iw)
	}
	for len(lines) < ih {
		lines = append(lines, strings.Repeat(" ", iw))
	}
	body := frame.Render(strings.Join(lines, "\n"))
	mark := "─"
	if focused {
		mark = "━"
	}
	t := ansi.Truncate(" "+title+" ", max(0, w-4), "…")
	fill := max(0, w-3-ansi.StringWidth(t))
	top := border.Render("╭"+mark) + tstyle.Render(t) + border.Render(strings.Repeat("─", fill)+"╮")
	if ih == 0 {
		return top
	}
	return top + "\n" + body
}

// Inner is the content size of a Box of outer size w×h: the frame size comes
// from the pane style plus the hand-drawn top border line.
func (st Styles) Inner(w, h int) (int, int) {
	return w - st.Pane.GetHorizontalFrameSize(), h - st.Pane.GetVerticalFrameSize() - 1
}

// Fit truncates s to width w (with an ellipsis) and pads it with spaces.
func Fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if sw := ansi.StringWidth(s); sw > w {
		s = ansi.Truncate(s, w, "…")
	}
	if pad := w - ansi.StringWidth(s); pad > 0 {
		s += strings.Repeat(" ", pad)
	}
	return s
}

// NewInput is a text input styled through the explorer's renderer. Bubbles'
// textinput.New draws its placeholder and completion through lipgloss's
// global renderer, which knows nothing of --no-color: those would stay
// coloured when the rest of the screen is not.
func (st Styles) NewInput(prompt, placeholder string) textinput.Model {
	in := textinput.New()
	in.Cursor.SetMode(cursor.CursorStatic) // no blink timers
	in.Prompt, in.Placeholder = prompt, placeholder
	s := st.R.NewStyle
	in.PromptStyle, in.TextStyle = s(), s()
	in.PlaceholderStyle, in.CompletionStyle = st.Dim, st.Dim
	in.Cursor.Style, in.Cursor.TextStyle = s(), s()
	return in
}
