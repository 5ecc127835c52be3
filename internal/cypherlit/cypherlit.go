// Package cypherlit writes Cypher string literals, values and names. It is
// the one quoting routine of the project: render (debug queries), apoc
// (scripts), the loader and the CLI's hints all call it.
package cypherlit

import (
	"fmt"
	"strings"
	"unicode/utf16"

	"github.com/memoria-graph/memoria/internal/textsafe"
)

// AppendQuote appends s to b as a double-quoted Cypher string literal:
// backslash, double quote, newline, tab, carriage return, backspace and form
// feed become \\ \" \n \t \r \b \f; every other rune that textsafe.Safe
// refuses (the other C0 controls, DEL, C1 controls, bidi overrides and
// isolates, zero-width characters, the BOM, U+2028/U+2029...) becomes
// \uXXXX, or above U+FFFF the pair of UTF-16 surrogates \uXXXX\uXXXX, so a
// literal never spans lines and never carries an invisible or reordering
// character into a pasted line; invalid UTF-8 becomes U+FFFD; everything
// else stays as it is (UTF-8).
func AppendQuote(b []byte, s string) []byte {
	b = append(b, '"')
	for _, r := range s {
		switch r {
		case '\\':
			b = append(b, `\\`...)
		case '"':
			b = append(b, `\"`...)
		case '\n':
			b = append(b, `\n`...)
		case '\t':
			b = append(b, `\t`...)
		case '\r':
			b = append(b, `\r`...)
		case '\b':
			b = append(b, `\b`...)
		case '\f':
			b = append(b, `\f`...)
		default:
			switch {
			case textsafe.Safe(r):
				b = append(b, string(r)...)
			case r > 0xffff:
				hi, lo := utf16.EncodeRune(r)
				b = fmt.Appendf(b, `\u%04X\u%04X`, hi, lo)
			default:
				b = fmt.Appendf(b, `\u%04X`, r)
			}
		}
	}
	return append(b, '"')
}

// Quote returns s as a double-quoted Cypher string literal (see AppendQuote).
func Quote(s string) string { return string(AppendQuote(make([]byte, 0, len(s)+2), s)) }

// QuoteName returns a label, relationship type, property key or index name
// backtick-quoted, a backtick inside doubled; it is safe for any name.
func QuoteName(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }
