package tui

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// TestColorWriterUnwrapsTheTerminal: termenv recognises a terminal only in
// an *os.File, so the renderer must be built on the file inside the locked
// writer, not on the wrapper (which made every terminal look like a pipe:
// no colour at all). A pipe stands in for the terminal: what matters is
// that the very *os.File comes back.
func TestColorWriterUnwrapsTheTerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if got := colorWriter(lockOutput(w)); got != w {
		t.Errorf("colorWriter(lockOutput(file)) = %T, want the *os.File itself", got)
	}
	var buf bytes.Buffer
	if got := colorWriter(&buf); got != &buf {
		t.Errorf("colorWriter(buffer) = %T, want the buffer", got)
	}
	src := loadDemo(t)
	o, err := Options{Source: src, Backend: src, Out: w}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if o.term != w {
		t.Errorf("Options.term = %T, want the caller's *os.File (Out is %T)", o.term, o.Out)
	}
}

// TestStylesColourOnLightAndDark: with a 256-colour profile the styles that
// carry meaning (the selection, a loser, the focused border) render with
// colour escapes, and a different colour on a light background than on a
// dark one (lipgloss.AdaptiveColor): the accent #5A56E0 on light is xterm
// colour 62, #7D79F6 on dark is 105. A loser is also faint (ESC[2m), so it
// is dimmed whatever the palette. With noColor nothing is styled by colour.
func TestStylesColourOnLightAndDark(t *testing.T) {
	render := func(dark, noColor bool) Styles {
		r := lipgloss.NewRenderer(&bytes.Buffer{})
		r.SetColorProfile(termenv.ANSI256)
		r.SetHasDarkBackground(dark)
		return NewStyles(r, noColor)
	}
	dark, light := render(true, false), render(false, false)
	if got := dark.BorderFocus.Render("━"); !strings.Contains(got, "\x1b[38;5;105m") {
		t.Errorf("focused border on dark = %q, want colour 105", got)
	}
	if got := light.BorderFocus.Render("━"); !strings.Contains(got, "\x1b[38;5;62m") {
		t.Errorf("focused border on light = %q, want colour 62", got)
	}
	for name, s := range map[string]Styles{"dark": dark, "light": light} {
		if got := s.Loser.Render("✗ N2007"); !strings.Contains(got, "\x1b[2") && !strings.Contains(got, ";2m") {
			t.Errorf("%s: loser %q is not faint", name, got)
		}
		if got := s.Selected.Render("▸ N2006"); !strings.Contains(got, "48;5;") {
			t.Errorf("%s: selection %q has no background colour", name, got)
		}
	}
	if got := dark.Match.Render("Data"); !strings.Contains(got, "7") || !strings.HasPrefix(got, "\x1b[") {
		t.Errorf("a search match %q is not in reverse video", got)
	}
	if dark.Selected.Render("x") == light.Selected.Render("x") {
		t.Error("the selection looks the same on light and dark backgrounds")
	}
	plain := render(true, true)
	for name, s := range map[string]lipgloss.Style{"border": plain.BorderFocus, "loser": plain.Loser, "selected": plain.Selected, "metric": plain.Metric} {
		if got := s.Render("x"); strings.Contains(got, "38;5;") || strings.Contains(got, "48;5;") {
			t.Errorf("noColor: %s renders a colour: %q", name, got)
		}
	}
	in := plain.NewInput("+ ", "type a tag")
	if got := in.View(); strings.Contains(got, "38;5;") {
		t.Errorf("noColor: the text input's placeholder is coloured: %q", got)
	}
}
