// Package textsafe is the one rule for showing untrusted text (every id,
// label, property, tag and message that comes from a graph) on a terminal:
// a rune is written as it is only when it is Safe; anything else becomes a
// visible escape, so that text can neither act on the terminal (escape
// sequences that set the clipboard, the window title or clear the screen,
// a carriage return that rewrites a line) nor disguise itself (bidi
// overrides, zero-width characters).
//
// The rule is Go's own quoting rule (strconv.IsPrint, the test strconv.Quote
// applies), so the explorer, the CLI's text formats (which quote with
// strconv.Quote) and the Cypher literals of internal/cypherlit (which call
// Safe) all escape the same runes; docs/ARCHITECTURE.md names this package
// as the place that rule lives. No library is needed beyond the standard
// one: charmbracelet/x/ansi's Strip removes escape sequences, which would
// hide the attack and still let bidi and zero-width characters through,
// where a visible escape shows it.
package textsafe

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Safe reports whether r may be written to a terminal as it is: a letter,
// mark, number, punctuation, symbol or the ASCII space (strconv.IsPrint).
// Not safe: C0 controls (ESC, CR, LF, TAB, BEL...), DEL and C1 controls;
// format characters, which include the bidi embeddings, overrides and
// isolates (U+202A–U+202E, U+2066–U+2069), the marks U+200E, U+200F and
// U+061C, the zero-width U+200B–U+200D, U+2060 and the BOM U+FEFF; the
// line and paragraph separators; spaces other than U+0020; private-use,
// surrogate and unassigned code points.
func Safe(r rune) bool { return strconv.IsPrint(r) }

// Escape returns s with every rune that is not Safe replaced by its Go
// escape, exactly as strconv.Quote writes it (ESC is `\x1b`, BEL `\a`, CR
// `\r`, U+202E `\u202e`, U+E0041 `\U000e0041`), and every byte that is not
// valid UTF-8 by `\xNN`. Safe runes, the backslash and the double quote are
// left alone: the result is for reading on a terminal, not for parsing
// back (Quote is). A string that needs no escape is returned as it is.
func Escape(s string) string {
	i := firstUnsafe(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			b.WriteByte(hex[s[i]>>4])
			b.WriteByte(hex[s[i]&0xf])
		case Safe(r):
			b.WriteString(s[i : i+size])
		default:
			q := strconv.QuoteRune(r) // 'ESCAPE'
			b.WriteString(q[1 : len(q)-1])
		}
		i += size
	}
	return b.String()
}

const hex = "0123456789abcdef"

// firstUnsafe is the byte offset of the first rune of s that Escape
// changes, or -1.
func firstUnsafe(s string) int {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return i
			}
		}
		if !Safe(r) {
			return i
		}
	}
	return -1
}

// EscapeLines is Escape line by line: the line breaks of s stay line
// breaks, everything else unsafe is escaped. For text made of several
// lines, such as a message on stderr that may quote the graph.
func EscapeLines(s string) string {
	if firstUnsafe(s) < 0 {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Escape(l)
	}
	return strings.Join(lines, "\n")
}

// Quote returns s as a double-quoted Go string literal (strconv.Quote): the
// same escapes as Escape, with `"` and `\` escaped too, so the result reads
// back exactly (strconv.Unquote). Use it where a whole value must stand
// apart from the text around it, such as an id in a line of the CLI's
// tree.
func Quote(s string) string { return strconv.Quote(s) }

// JSON returns the encoded JSON b with every rune Safe refuses (other than
// the newlines that separate and indent values) written as a \u escape, a
// surrogate pair beyond the BMP: the same JSON to any reader, and nothing
// that can act on a terminal it is printed to. encoding/json already
// escapes the C0 controls inside strings; bidi controls, zero-width
// characters, C1 controls and DEL it writes raw. Outside strings JSON holds
// only ASCII, so only string contents change.
func JSON(b []byte) []byte {
	i := 0
	for i < len(b) {
		r, n := utf8.DecodeRune(b[i:])
		if r != '\n' && !Safe(r) {
			break
		}
		i += n
	}
	if i == len(b) {
		return b
	}
	out := append(make([]byte, 0, len(b)+16), b[:i]...)
	for i < len(b) {
		r, n := utf8.DecodeRune(b[i:])
		i += n
		switch {
		case r == '\n' || Safe(r):
			out = utf8.AppendRune(out, r)
		case r > 0xFFFF:
			r1, r2 := utf16.EncodeRune(r)
			out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
		default:
			out = fmt.Appendf(out, `\u%04x`, r)
		}
	}
	return out
}

// JSONWriter passes each Write through JSON; json.Encoder writes a whole
// value at a time, so no rune is split between writes.
type JSONWriter struct{ W io.Writer }

func (w JSONWriter) Write(p []byte) (int, error) {
	if _, err := w.W.Write(JSON(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// DisplayID returns id as written in the text formats and the explorer: as
// is when it is non-empty and made only of runes that Safe allows,
// other than spaces, U+FFFD, `"`, `\`, brackets and parentheses; otherwise
// quoted with Quote (Go's quoting, this package's one escape rule), so an id can never break a line or a bracket, act on
// a terminal or hide a character.
func DisplayID(id string) string {
	if id == "" {
		return `""`
	}
	for _, r := range id {
		if r == utf8.RuneError || !Safe(r) || unicode.IsSpace(r) || strings.ContainsRune(`"\()[]{}`, r) {
			return Quote(id)
		}
	}
	return id
}
