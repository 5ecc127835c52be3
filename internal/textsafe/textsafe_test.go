package textsafe

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestEscapeEachClass pins the escape of each class of character the
// explorer must never write raw (an attacker's node text, id, label or
// tag).
//
// Expected, input → output, written by hand from Go's escape syntax
// (strconv.Quote: \a \b \f \n \r \t \v, \xNN below U+0080, \uNNNN,
// \UNNNNNNNN):
//
//	OSC 52 "ESC ]52;c;SEFDS0VE BEL" → `\x1b]52;c;SEFDS0VE\a` (the clipboard attack)
//	OSC 0  "ESC ]0;pwned BEL"       → `\x1b]0;pwned\a`       (the window title)
//	CSI 2J "ESC [2J"                → `\x1b[2J`              (clear screen)
//	"a CR b", "a LF b", "a TAB b"   → `a\rb`, `a\nb`, `a\tb`
//	NUL, BS, VT, FF, DEL            → `\x00`, `\b`, `\v`, `\f`, `\x7f`
//	C1 NEL U+0085, CSI U+009B       → `\u0085`, `\u009b`
//	bidi U+202A..U+202E             → `\u202a` .. `\u202e`
//	isolates U+2066..U+2069         → `\u2066` .. `\u2069`
//	marks U+200E, U+200F, U+061C    → `\u200e`, `\u200f`, `\u061c`
//	zero width U+200B..D, U+2060    → `\u200b`, `\u200c`, `\u200d`, `\u2060`
//	BOM U+FEFF                      → `\ufeff`
//	separators U+2028, U+2029       → `\u2028`, `\u2029`
//	NBSP U+00A0                     → `\u00a0` (looks like a space, is not)
//	tag character U+E0041           → `\U000e0041` (invisible "A")
//	bytes 0xff, 0xc3 (cut UTF-8)    → `\xff`, `\xc3`
//
// Why: each of these either acts on a terminal or hides or reorders text;
// the visible escape shows that the attack was there instead of hiding it.
func TestEscapeEachClass(t *testing.T) {
	cases := []struct{ in, want string }{
		{"\x1b]52;c;SEFDS0VE\x07", `\x1b]52;c;SEFDS0VE\a`},
		{"\x1b]0;pwned\x07", `\x1b]0;pwned\a`},
		{"\x1b[2J", `\x1b[2J`},
		{"a\rb", `a\rb`}, {"a\nb", `a\nb`}, {"a\tb", `a\tb`},
		{"\x00\b\v\f\x7f", `\x00\b\v\f\x7f`},
		{"\u0085\u009b", `\u0085\u009b`},
		{"\u202a\u202b\u202c\u202d\u202e", `\u202a\u202b\u202c\u202d\u202e`},
		{"\u2066\u2067\u2068\u2069", `\u2066\u2067\u2068\u2069`},
		{"\u200e\u200f\u061c", `\u200e\u200f\u061c`},
		{"\u200b\u200c\u200d\u2060", `\u200b\u200c\u200d\u2060`},
		{"\ufeffid", `\ufeffid`},
		{"\u2028\u2029", `\u2028\u2029`},
		{"a\u00a0b", `a\u00a0b`},
		{"\U000e0041", `\U000e0041`},
		{"a\xffb\xc3", `a\xffb\xc3`},
		{"evil\u202eexe.txt", `evil\u202eexe.txt`},
	}
	for _, c := range cases {
		if got := Escape(c.in); got != c.want {
			t.Errorf("Escape(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// TestEscapeKeepsReadableText: text that needs no escape comes back
// unchanged, the very same string.
//
// Scenario: ASCII with spaces, quotes and backslashes; accented and CJK
// letters; right-to-left letters (Hebrew, Arabic: the letters are safe,
// only the invisible controls are not); emoji; a combining accent; U+FFFD
// written validly.
// Expected: Escape(s) == s for each.
// Why: the rule must not mangle ordinary multilingual text; only the
// characters of TestEscapeEachClass are escaped.
func TestEscapeKeepsReadableText(t *testing.T) {
	for _, s := range []string{
		"", "N2006", `say "hi" C:\dir\`, "café 東京", "שלום مرحبا", "rocket 🚀", "e\u0301", "\ufffd",
		"How much safety stock should we hold for FAST-200?",
	} {
		if got := Escape(s); got != s {
			t.Errorf("Escape(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestEscapeIsStrconvQuoteRule checks that Escape and Quote are one rule.
//
// Scenario: every rune from U+0000 to U+3000 and a sample above, each
// alone and between letters, plus every single byte 0x80..0xff (invalid
// alone).
// Expected: for every s without `"` or `\`, `"` + Escape(s) + `"` equals
// strconv.Quote(s) (and Quote(s)); Escape(s) is valid UTF-8 of Safe runes only; and
// Escape is idempotent (Escape(Escape(s)) == Escape(s)).
// Why: the CLI's tree and LLM formats quote text with strconv.Quote;
// the explorer escapes with Escape. The task demands one per-rune rule,
// and this proves the two agree rune by rune.
func TestEscapeIsStrconvQuoteRule(t *testing.T) {
	var inputs []string
	for r := rune(0); r < 0x3000; r++ {
		if r != '"' && r != '\\' {
			inputs = append(inputs, string(r), "a"+string(r)+"b")
		}
	}
	for _, r := range []rune{0xfeff, 0xfff9, 0xfffd, 0x1f600, 0xe0001, 0xe0041, 0xf0000, 0x10ffff} {
		inputs = append(inputs, string(r))
	}
	for c := 0x80; c <= 0xff; c++ {
		inputs = append(inputs, "x"+string([]byte{byte(c)})+"y")
	}
	for _, s := range inputs {
		e := Escape(s)
		if q := strconv.Quote(s); `"`+e+`"` != q || Quote(s) != q {
			t.Fatalf("%q: Escape gives %s, strconv.Quote %s", s, e, q)
		}
		if !utf8.ValidString(e) {
			t.Fatalf("Escape(%q) = %q is not UTF-8", s, e)
		}
		for _, r := range e {
			if !Safe(r) {
				t.Fatalf("Escape(%q) = %q holds unsafe %U", s, e, r)
			}
		}
		if Escape(e) != e {
			t.Fatalf("Escape is not idempotent on %q", s)
		}
	}
}

// TestSafeClasses checks the predicate on the classes named in its doc.
//
// Expected: false for ESC, CR, DEL, U+0085, U+202E, U+2066, U+200B,
// U+FEFF, U+2028, U+00A0, U+E000 (private use) and U+0378 (unassigned);
// true for 'a', ' ', '"', '\\', 'é', '東', '🚀' and U+0301 (a combining
// mark).
// Why: internal/cypherlit escapes exactly the runes Safe refuses, so its
// classes are the contract of both.
func TestSafeClasses(t *testing.T) {
	for _, r := range []rune{0x1b, '\r', 0x7f, 0x85, 0x202e, 0x2066, 0x200b, 0xfeff, 0x2028, 0xa0, 0xe000, 0x378} {
		if Safe(r) {
			t.Errorf("Safe(%U) = true", r)
		}
	}
	for _, r := range []rune{'a', ' ', '"', '\\', 'é', '東', '🚀', 0x301} {
		if !Safe(r) {
			t.Errorf("Safe(%U) = false", r)
		}
	}
}

// TestEscapeNoAllocWhenSafe: a string that needs nothing is returned
// without copying.
//
// Expected: 0 allocations for Escape("N2006 UserRequest How much…").
// Why: the explorer escapes every row of 1,000-node trees; the common
// case must cost a scan only (see BenchmarkEscape for the time).
func TestEscapeNoAllocWhenSafe(t *testing.T) {
	s := "N2006 UserRequest How much safety stock should we hold…"
	if n := testing.AllocsPerRun(100, func() { _ = Escape(s) }); n != 0 {
		t.Errorf("%v allocations", n)
	}
}

func BenchmarkEscape(b *testing.B) {
	safe := strings.Repeat("How much safety stock should we hold… ", 4)
	hostile := strings.Repeat("evil\x1b]52;c;SEFDS0VE\x07\u202e ", 4)
	b.Run("safe", func(b *testing.B) {
		for b.Loop() {
			_ = Escape(safe)
		}
	})
	b.Run("hostile", func(b *testing.B) {
		for b.Loop() {
			_ = Escape(hostile)
		}
	})
}

// TestEscapeLines: line breaks stay, every other unsafe rune on each line
// is escaped as Escape escapes it; safe text comes back as it is.
func TestEscapeLines(t *testing.T) {
	for in, want := range map[string]string{
		"plain\ntwo lines":            "plain\ntwo lines",
		"a\x1b[2J\nb\r\n\u202ec\tend": `a\x1b[2J` + "\n" + `b\r` + "\n" + `\u202ec\tend`,
		"":                            "",
	} {
		if got := EscapeLines(in); got != want {
			t.Errorf("EscapeLines(%q) = %q, want %q", in, got, want)
		}
	}
}
