package gather

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The words bm25 counts are those Neo4j's fulltext index counts
// (docs/RETRIEVERS.md, "Gather"): its default analyzer,
// standard-no-stop-words, is Lucene's StandardTokenizer (the word
// boundaries of Unicode's UAX #29) then LowerCaseFilter. LuceneWords
// follows the rules of UAX #29 that Latin, Greek, Cyrillic, Hebrew,
// Arabic and number text meets: letters and digits join (WB5, WB8–WB10),
// one of : · ' . and their like between two letters joins them ("team's",
// "e.g", "a:b"; WB6–WB7), one of , ; . ' between two digits joins them
// ("5.2", "1,000"; WB11–WB12), connector punctuation such as _ joins what
// it touches ("win_install"; WB13a–b), combining marks stay with their
// letter (WB4), Katakana runs are one word (WB13), and each Han ideograph
// and Hiragana character is a word alone. A run holding no letter or digit
// is no word. Not followed: emoji (Lucene makes each a word; here they
// split words), South-East Asian scripts (Lucene's dictionary), Lucene's
// cut of a word at 255 characters.
func LuceneWords(s string) []string {
	var out []string
	var cur strings.Builder
	var prev wclass // the class of the last letter, digit or joiner in cur
	hasWord := false
	flush := func() {
		if cur.Len() > 0 && hasWord {
			out = append(out, cur.String())
		}
		cur.Reset()
		prev, hasWord = wNone, false
	}
	add := func(r rune, c wclass) {
		cur.WriteRune(unicode.ToLower(r))
		if c != wExtend {
			prev = c
		}
		if c == wLetter || c == wDigit || c == wKatakana {
			hasWord = true
		}
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		c := classOf(r)
		switch c {
		case wExtend:
			if cur.Len() > 0 {
				add(r, c)
			}
		case wLetter, wDigit, wKatakana, wConnector:
			if cur.Len() > 0 && !joins(prev, c) {
				flush()
			}
			add(r, c)
		case wAlone:
			flush()
			cur.WriteRune(unicode.ToLower(r))
			hasWord = true
			flush()
		case wMidLetter, wMidNum, wMidBoth:
			// A middle joins only between two letters (letter
			// middles) or two digits (number middles).
			next, nextC, j := nextWordRune(s, i)
			ok := cur.Len() > 0 && nextC != wNone &&
				((prev == wLetter && nextC == wLetter && c != wMidNum) ||
					(prev == wDigit && nextC == wDigit && c != wMidLetter))
			if !ok {
				flush()
				continue
			}
			cur.WriteRune(r)
			// the marks between the middle and the next rune stay
			for k := i; k < j-utf8.RuneLen(next); {
				m, sz := utf8.DecodeRuneInString(s[k:])
				cur.WriteRune(m)
				k += sz
			}
			i = j - utf8.RuneLen(next)
		default:
			flush()
		}
	}
	flush()
	return out
}

// nextWordRune is the first rune of s from i that is not a combining mark
// or format rune, its class, and the offset just past it (wNone at the
// end).
func nextWordRune(s string, i int) (rune, wclass, int) {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if c := classOf(r); c != wExtend {
			return r, c, i
		}
	}
	return 0, wNone, i
}

type wclass uint8

const (
	wNone wclass = iota
	wLetter
	wDigit
	wKatakana
	wConnector // ExtendNumLet: _ and the other connector punctuation
	wAlone     // a Han ideograph or Hiragana: a word alone
	wExtend    // a combining mark or format rune: stays with its letter
	wMidLetter // joins two letters: : · and their like
	wMidNum    // joins two digits: , ; and their like
	wMidBoth   // joins two letters or two digits: . ' ’ and their like
)

// joins says whether a rune of class b continues a word whose last
// letter, digit or joiner is of class a (WB5, WB8–WB10, WB13, WB13a–b).
func joins(a, b wclass) bool {
	switch {
	case (a == wLetter || a == wDigit) && (b == wLetter || b == wDigit):
		return true
	case a == wKatakana && b == wKatakana:
		return true
	case b == wConnector:
		return a != wNone
	case a == wConnector:
		return b == wLetter || b == wDigit || b == wKatakana
	}
	return false
}

func classOf(r rune) wclass {
	switch r {
	case ':', '·', '\u0387', '\u055F', '\u05F4', '\u2027', '\uFE13', '\uFE55', '\uFF1A':
		return wMidLetter
	case ',', ';', '\u037E', '\u0589', '\u060C', '\u060D', '\u066C', '\u07F8', '\u2044', '\uFE10', '\uFE14', '\uFE50', '\uFE54', '\uFF0C', '\uFF1B':
		return wMidNum
	case '.', '\'', '\u2018', '\u2019', '\u2024', '\uFE52', '\uFF07', '\uFF0E':
		return wMidBoth
	}
	switch {
	case unicode.Is(unicode.Han, r), unicode.Is(unicode.Hiragana, r):
		return wAlone
	case unicode.Is(unicode.Katakana, r):
		return wKatakana
	case unicode.IsLetter(r):
		return wLetter
	case unicode.Is(unicode.Nd, r):
		return wDigit
	case unicode.Is(unicode.Pc, r):
		return wConnector
	case unicode.Is(unicode.Mn, r), unicode.Is(unicode.Me, r), unicode.Is(unicode.Mc, r), unicode.Is(unicode.Cf, r):
		return wExtend
	}
	return wNone
}

// LuceneLength is a field's length in words as Lucene stores it (one byte:
// SmallFloat.intToByte4, read back by byte4ToInt): exact below 24, above
// that 24 plus the rest rounded down to its four leading binary digits
// (41 reads as 40, 100 as 96). BM25's dl is this length; avgdl is the
// exact mean.
func LuceneLength(n int) int {
	const free = 24 // 255 − longToInt4(MaxInt32)
	if n < free {
		return n
	}
	v := n - free
	bits := 0
	for x := v; x > 0; x >>= 1 {
		bits++
	}
	if bits < 4 {
		return n
	}
	shift := bits - 4
	return free + (v>>shift)<<shift
}
