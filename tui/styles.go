package tui

import (
	"github.com/charmbracelet/lipgloss"
	"github.com/memoria-graph/memoria/tui/theme"
)

// Styles is the explorer's looks (tui/theme), named here as the root and
// the panes of this package have always named it.
type (
	Styles = theme.Styles
	Ink    = theme.Ink
)

// NewStyles builds the styles for renderer r (theme.NewStyles). With
// noColor the renderer is switched to the Ascii profile: no colours, only
// glyphs and text.
func NewStyles(r *lipgloss.Renderer, noColor bool) Styles { return theme.NewStyles(r, noColor) }

// fit truncates s to width w (with an ellipsis) and pads it with spaces.
func fit(s string, w int) string { return theme.Fit(s, w) }

// Glyphs that keep the interface readable without colour (theme's).
const (
	glyphSelected = theme.GlyphSelected
	glyphFolded   = theme.GlyphFolded
	glyphUnfolded = theme.GlyphUnfolded
	glyphLost     = theme.GlyphLost
	glyphEnd      = theme.GlyphEnd
	glyphMatch    = theme.GlyphMatch
	glyphEntered  = theme.GlyphEntered
	glyphMoved    = theme.GlyphMoved
	glyphLeft     = theme.GlyphLeft
	glyphRelevant = theme.GlyphRelevant
)
