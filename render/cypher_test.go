package render

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// parseCypherString is an independent reader of one Cypher string literal
// at the start of s (the openCypher grammar's StringLiteral: single or
// double quotes; escapes \\ \' \" \b \f \n \r \t \uXXXX \UXXXXXXXX). It
// returns the value and the rest of s. It refuses raw control characters,
// which a one-line script must not contain.
func parseCypherString(s string) (val, rest string, err error) {
	if s == "" || (s[0] != '"' && s[0] != '\'') {
		return "", s, errors.New("no opening quote")
	}
	quote := s[0]
	var b strings.Builder
	i := 1
	for i < len(s) {
		c := s[i]
		switch {
		case c == quote:
			return b.String(), s[i+1:], nil
		case c < 0x20 || c == 0x7f:
			return "", s, fmt.Errorf("raw control byte %#x at %d", c, i)
		case c != '\\':
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return "", s, fmt.Errorf("invalid UTF-8 at %d", i)
			}
			b.WriteString(s[i : i+size])
			i += size
			continue
		}
		if i+1 >= len(s) {
			return "", s, errors.New("dangling backslash")
		}
		e := s[i+1]
		i += 2
		simple := map[byte]byte{'\\': '\\', '\'': '\'', '"': '"', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}
		if v, ok := simple[e]; ok {
			b.WriteByte(v)
			continue
		}
		n := map[byte]int{'u': 4, 'U': 8}[e]
		if n == 0 || i+n > len(s) {
			return "", s, fmt.Errorf("bad escape \\%c", e)
		}
		code, perr := strconv.ParseUint(s[i:i+n], 16, 32)
		if perr != nil {
			return "", s, perr
		}
		i += n
		r := rune(code)
		if utf16.IsSurrogate(r) {
			// A UTF-16 pair, \uD8xx\uDCxx, is one code point (Cypher
			// strings are Java strings).
			if !strings.HasPrefix(s[i:], `\u`) || i+6 > len(s) {
				return "", s, fmt.Errorf("lone surrogate %U", r)
			}
			lo, perr := strconv.ParseUint(s[i+2:i+6], 16, 32)
			if r = utf16.DecodeRune(r, rune(lo)); perr != nil || r == utf8.RuneError {
				return "", s, fmt.Errorf("bad surrogate pair at %d", i)
			}
			i += 6
		}
		b.WriteRune(r)
	}
	return "", s, errors.New("no closing quote")
}

// parseCypherValue is an independent reader of one Cypher literal at the
// start of s: a string (parseCypherString), an integer (int64), a float
// (float64), true, false, a list [v, ...] or a map {key: v, ...} whose
// keys are identifiers or backtick-quoted names. It returns the value and
// the rest of s.
func parseCypherValue(s string) (any, string, error) {
	switch {
	case s == "":
		return nil, s, errors.New("no value")
	case s[0] == '"' || s[0] == '\'':
		return parseCypherString(s)
	case strings.HasPrefix(s, "true"):
		return true, s[4:], nil
	case strings.HasPrefix(s, "false"):
		return false, s[5:], nil
	case s[0] == '[':
		list := []any{}
		s = s[1:]
		for !strings.HasPrefix(s, "]") {
			if len(list) > 0 {
				var ok bool
				if s, ok = strings.CutPrefix(s, ", "); !ok {
					return nil, s, fmt.Errorf("no comma in list before %q", s)
				}
			}
			v, rest, err := parseCypherValue(s)
			if err != nil {
				return nil, s, err
			}
			list = append(list, v)
			s = rest
		}
		return list, s[1:], nil
	case s[0] == '{':
		m := map[string]any{}
		s = s[1:]
		for !strings.HasPrefix(s, "}") {
			if len(m) > 0 {
				var ok bool
				if s, ok = strings.CutPrefix(s, ", "); !ok {
					return nil, s, fmt.Errorf("no comma in map before %q", s)
				}
			}
			var key string
			if strings.HasPrefix(s, "`") {
				end := 1
				for ; end < len(s); end++ {
					if s[end] == '`' {
						if end+1 < len(s) && s[end+1] == '`' {
							end++
							continue
						}
						break
					}
				}
				if end >= len(s) {
					return nil, s, errors.New("unclosed backtick")
				}
				key = strings.ReplaceAll(s[1:end], "``", "`")
				s = s[end+1:]
			} else {
				end := strings.IndexByte(s, ':')
				if end < 0 {
					return nil, s, fmt.Errorf("no key in %q", s)
				}
				key, s = s[:end], s[end:]
			}
			rest, ok := strings.CutPrefix(s, ": ")
			if !ok {
				return nil, s, fmt.Errorf("no colon after key %q", key)
			}
			v, rest, err := parseCypherValue(rest)
			if err != nil {
				return nil, s, err
			}
			m[key] = v
			s = rest
		}
		return m, s[1:], nil
	}
	end := 0
	for end < len(s) && strings.IndexByte("+-.0123456789eE", s[end]) >= 0 {
		end++
	}
	num := s[:end]
	if strings.ContainsAny(num, ".eE") {
		f, err := strconv.ParseFloat(num, 64)
		return f, s[end:], err
	}
	n, err := strconv.ParseInt(num, 10, 64)
	return n, s[end:], err
}

// parseParamsLine reads a Neo4j Browser line `:params {k: v, ...}` with
// parseCypherValue, returning the keys in order and the map.
func parseParamsLine(line string) ([]string, map[string]any, error) {
	s, ok := strings.CutPrefix(line, ":params {")
	if !ok {
		return nil, nil, errors.New("no :params {")
	}
	var keys []string
	m := map[string]any{}
	for !strings.HasPrefix(s, "}") {
		if len(keys) > 0 {
			if s, ok = strings.CutPrefix(s, ", "); !ok {
				return nil, nil, fmt.Errorf("no comma before %q", s)
			}
		}
		key, after, ok := strings.Cut(s, ": ")
		if !ok {
			return nil, nil, fmt.Errorf("no key in %q", s)
		}
		v, rest, err := parseCypherValue(after)
		if err != nil {
			return nil, nil, err
		}
		keys = append(keys, key)
		m[key] = v
		s = rest
	}
	if s != "}" {
		return nil, nil, fmt.Errorf("trailing %q", s)
	}
	return keys, m, nil
}

// TestDebugCypherMinimal is docs/EXPORTS.md test B.3, the to_debug_cypher minimal
// sanity case.
//
// Scenario: minimalResult, one hop S1 → N1 over an edge with properties
// {tags: ["campaign"], weight: 0.8} (no elementId: a file's path).
// Expected: exactly
// `MATCH p = (n0 {id: $id0})-[r0:RELATES]-(n1 {id: $id1}) WHERE properties(r0) = $r0 RETURN p`,
// params {id0: S1, id1: N1, r0: the edge's properties}, NodeIDs [S1 N1];
// DebugCypherAll gives that one query; Browser() is
// `:params {id0: "S1", id1: "N1", r0: {tags: ["campaign"], weight: 0.8}}`
// and the query with a closing ";".
// Why: the pattern names node i n_i with parameter $id_i, in path order
// (steps[0].from_node, then each to_node), and pins relationship i to the
// kept edge by $r_i (docs/EXPORTS.md, format 3).
func TestDebugCypherMinimal(t *testing.T) {
	res := minimalResult()
	q := DebugCypher(res.Paths[0])
	if want := "MATCH p = (n0 {id: $id0})-[r0:RELATES]-(n1 {id: $id1}) WHERE properties(r0) = $r0 RETURN p"; q.Query != want {
		t.Errorf("query %q, want %q", q.Query, want)
	}
	want := map[string]any{"id0": "S1", "id1": "N1", "r0": map[string]any{"tags": []string{"campaign"}, "weight": 0.8}}
	if !reflect.DeepEqual(q.Params, want) {
		t.Errorf("params %v, want %v", q.Params, want)
	}
	if !reflect.DeepEqual(q.NodeIDs, []string{"S1", "N1"}) || q.Unpinned != nil {
		t.Errorf("node ids %v, unpinned %v", q.NodeIDs, q.Unpinned)
	}
	if all := DebugCypherAll(res); !reflect.DeepEqual(all, []DebugQuery{q}) {
		t.Errorf("DebugCypherAll = %+v", all)
	}
	browser := ":params {id0: \"S1\", id1: \"N1\", r0: {tags: [\"campaign\"], weight: 0.8}}\n" +
		"MATCH p = (n0 {id: $id0})-[r0:RELATES]-(n1 {id: $id1}) WHERE properties(r0) = $r0 RETURN p;"
	if got := q.Browser(); got != browser {
		t.Errorf("Browser\n%s\nwant\n%s", got, browser)
	}
}

// TestDebugCypherThreePaths renders threePathResult's Script in the Browser form.
//
// Expected (testdata/cypher_three_paths.golden): three blocks, "// Path 1:
// N2006 -> N2003 -> N2001 -> N2010" with a 4-node pattern (n0..n3, params
// id0..id3) whose three relationships are pinned by properties (r0..r2),
// "// Path 2: N2006 -> N2004 -> N2008" with 3 nodes and "// Path 3: N2006
// -> N2005" with 2, separated by blank lines.
// Why: one query per path (docs/EXPORTS.md), numbered like the LLM paths.
func TestDebugCypherThreePaths(t *testing.T) {
	qs := DebugCypherAll(threePathResult())
	if len(qs) != 3 {
		t.Fatalf("%d queries", len(qs))
	}
	want := "MATCH p = (n0 {id: $id0})-[r0:RELATES]-(n1 {id: $id1})-[r1:RELATES]-(n2 {id: $id2})-[r2:RELATES]-(n3 {id: $id3})" +
		" WHERE properties(r0) = $r0 AND properties(r1) = $r1 AND properties(r2) = $r2 RETURN p"
	if qs[0].Query != want {
		t.Errorf("path 1 query %q", qs[0].Query)
	}
	golden(t, "cypher_three_paths", Script(qs, FormBrowser))
}

// TestDebugCypherPinsByElementID: a path read from Neo4j carries each
// relationship's elementId.
//
// Scenario: A → B over an edge with ElementID "5:db:17" and properties
// {weight: 0.5}, then B → C over an edge without one (properties {}).
// Expected: `... WHERE elementId(r0) = $r0 AND properties(r1) = $r1 RETURN p`,
// Params r0 = "5:db:17" (a string) and r1 = {} (an empty map), and the
// :params line ends `r0: "5:db:17", r1: {}}`.
// Why: the elementId names exactly the relationship the retriever kept,
// even among parallel edges with equal properties; an edge without
// properties is pinned to "has none".
func TestDebugCypherPinsByElementID(t *testing.T) {
	a, b, c := node("A", "Thing", nil), node("B", "Thing", nil), node("C", "Thing", nil)
	e1 := edge("A", "B", weight(0.5))
	e1.Properties = map[string]any{"weight": 0.5}
	e1.ElementID = "5:db:17"
	e2 := graph.Edge{SourceID: "B", TargetID: "C", Type: graph.Relates}
	q := DebugCypher(path(activation.EndMaxDepth, hop(a, b, e1, 1, 1, 1), hop(b, c, e2, 0.5, 2, 1)))
	if want := "MATCH p = (n0 {id: $id0})-[r0:RELATES]-(n1 {id: $id1})-[r1:RELATES]-(n2 {id: $id2})" +
		" WHERE elementId(r0) = $r0 AND properties(r1) = $r1 RETURN p"; q.Query != want {
		t.Errorf("query %q", q.Query)
	}
	if q.Params["r0"] != "5:db:17" || !reflect.DeepEqual(q.Params["r1"], map[string]any{}) {
		t.Errorf("params %#v", q.Params)
	}
	line := strings.Split(q.Browser(), "\n")[0]
	if want := `:params {id0: "A", id1: "B", id2: "C", r0: "5:db:17", r1: {}}`; line != want {
		t.Errorf(":params line %s, want %s", line, want)
	}
}

// TestDebugCypherUnpinned: properties that cannot be written as a Cypher
// map leave their relationship unpinned, and say so.
//
// Scenario: A → B over an edge whose property key is "k ESC[2J" (a clear
// screen hidden in a key: Cypher cannot escape it inside backticks), B → C
// over an edge whose weight is NaN, C → D over {weight: 1}.
// Expected: the WHERE holds only `properties(r2) = $r2`; Params has no r0
// or r1; Unpinned is
// [`r0 is not pinned: property key "k\x1b[2J" holds a character a Cypher name cannot escape`,
// `r1 is not pinned: property "weight": cannot write NaN`]; Browser()
// starts with those two lines after "// ", and no line of it holds ESC.
// Why: a pasted line must never carry a raw control, and a relationship
// left loose must be visible, not silently wrong.
func TestDebugCypherUnpinned(t *testing.T) {
	a, b, c, d := node("A", "T", nil), node("B", "T", nil), node("C", "T", nil), node("D", "T", nil)
	e1 := graph.Edge{Type: graph.Relates, Properties: map[string]any{"k\x1b[2J": "x"}}
	e2 := graph.Edge{Type: graph.Relates, Properties: map[string]any{"weight": math.NaN()}}
	e3 := graph.Edge{Type: graph.Relates, Properties: map[string]any{"weight": int64(1)}}
	q := DebugCypher(path(activation.EndMaxDepth, hop(a, b, e1, 1, 1, 1), hop(b, c, e2, 1, 1, 1), hop(c, d, e3, 1, 1, 1)))
	if !strings.HasSuffix(q.Query, " WHERE properties(r2) = $r2 RETURN p") {
		t.Errorf("query %q", q.Query)
	}
	if _, ok := q.Params["r0"]; ok {
		t.Errorf("r0 in params: %v", q.Params)
	}
	if _, ok := q.Params["r1"]; ok {
		t.Errorf("r1 in params: %v", q.Params)
	}
	want := []string{
		`r0 is not pinned: property key "k\x1b[2J" holds a character a Cypher name cannot escape`,
		`r1 is not pinned: property "weight": cannot write NaN`,
	}
	if !reflect.DeepEqual(q.Unpinned, want) {
		t.Errorf("unpinned %q", q.Unpinned)
	}
	br := q.Browser()
	if !strings.HasPrefix(br, "// "+want[0]+"\n// "+want[1]+"\n:params {") || !strings.Contains(br, "r2: {weight: 1}}") {
		t.Errorf("Browser:\n%s", br)
	}
	assertSafeLines(t, br)
}

// TestDebugCypherHostile renders hostileResult, whose ids and edge
// properties carry terminal attacks and invisible characters.
//
// Expected (testdata/cypher_hostile.golden): a comment line, a :params
// line and a query line; no line holds ESC, BEL, CR, U+202E, U+FEFF or
// U+200B (they are \u001B, \u0007, \r, \u202E, \uFEFF, \u200B in the
// literals and Go escapes in the comment); the :params line parses back
// (parseParamsLine) to the exact ids and edge properties.
// Why: a pasted line could otherwise be spoofed (U+202E reverses what
// follows, U+200B and U+FEFF hide a difference between two ids) and the
// comment could act on the terminal it is printed to.
func TestDebugCypherHostile(t *testing.T) {
	res := hostileResult()
	q := DebugCypher(res.Paths[0])
	script := Script([]DebugQuery{q}, FormBrowser)
	assertSafeLines(t, script)
	lines := strings.Split(script, "\n")
	if len(lines) != 4 || lines[3] != "" {
		t.Fatalf("script has %d lines: %q", len(lines), lines)
	}
	keys, m, err := parseParamsLine(lines[1])
	if err != nil {
		t.Fatalf("%v in %q", err, lines[1])
	}
	if !reflect.DeepEqual(keys, []string{"id0", "id1", "id2", "r0", "r1"}) {
		t.Errorf("keys %v", keys)
	}
	for i, id := range hostileIDs {
		if m[fmt.Sprintf("id%d", i)] != id {
			t.Errorf("id%d = %q, want %q", i, m[fmt.Sprintf("id%d", i)], id)
		}
	}
	wantR0 := map[string]any{"note": hostileOSC52, "tags": []any{hostileTitle, "a\u200bb"}, "weight": 0.9}
	if !reflect.DeepEqual(m["r0"], wantR0) {
		t.Errorf("r0 = %#v, want %#v", m["r0"], wantR0)
	}
	golden(t, "cypher_hostile", script)
}

// TestCypherStringExact pins the escapes.
//
// Expected, input → literal:
//
//	plain          → "plain"
//	a"b\c          → "a\"b\\c"
//	\n \t \r \b \f → "\n\t\r\b\f" (two-character escapes)
//	NUL ESC DEL    → "\u0000\u001B\u007F"
//	U+0085 U+2028  → "\u0085\u2028"
//	U+202E U+FEFF U+200B → "\u202E\uFEFF\u200B" (bidi override, BOM, zero width)
//	U+2066 U+200E U+061C → "\u2066\u200E\u061C" (isolate, marks)
//	U+00A0         → "\u00A0" (a space that is not one)
//	U+E0041        → "\uDB40\uDC41" (an invisible tag "A", as its UTF-16 pair)
//	it's 🚀 e+◌́    → unchanged between the quotes (' needs no escape in a
//	                 double-quoted literal; printable non-ASCII stays UTF-8)
//
// Why: these are the escapes the openCypher StringLiteral grammar defines;
// every rune textsafe.Safe refuses is escaped, so a literal never spans
// lines and a pasted line cannot be visually spoofed.
func TestCypherStringExact(t *testing.T) {
	cases := map[string]string{
		"plain":                   `"plain"`,
		`a"b\c`:                   `"a\"b\\c"`,
		"\n\t\r\b\f":              `"\n\t\r\b\f"`,
		"\x00\x1b\x7f":            `"\u0000\u001B\u007F"`,
		"\u0085\u2028":            `"\u0085\u2028"`,
		"\u202e\ufeff\u200b":      `"\u202E\uFEFF\u200B"`,
		"\u2066\u200e\u061c":      `"\u2066\u200E\u061C"`,
		"\u00a0":                  `"\u00A0"`,
		"\U000e0041":              `"\uDB40\uDC41"`,
		"it's 🚀 e\u0301":          "\"it's 🚀 e\u0301\"",
		"":                        `""`,
		"\\u0041 is not an A":     `"\\u0041 is not an A"`,
		"trailing backslash \\":   `"trailing backslash \\"`,
		"\"quoted\" and \\\"both": `"\"quoted\" and \\\"both"`,
	}
	for in, want := range cases {
		if got := CypherString(in); got != want {
			t.Errorf("CypherString(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestCypherStringRoundTrip reads CypherString's output back with
// parseCypherString, a parser written here independently of it.
//
// Scenario: ids with quotes, backslashes, newlines, tabs, NUL and every
// other ASCII control, DEL, C1 controls, U+2028/9, emoji (including a ZWJ
// sequence and a flag), combining marks, CJK, right-to-left text, bidi
// overrides, zero-width characters, a tag character above U+FFFF, and
// every rune from U+0000 to U+07FF and U+2000 to U+206F in one string.
// Expected: each parses back to the original with nothing left over, and
// no literal contains a rune textsafe.Safe refuses.
// Why: the Neo4j layer and the Browser script pass ids through these
// literals; any loss would make the replayed query match nothing.
func TestCypherStringRoundTrip(t *testing.T) {
	var all strings.Builder
	for r := rune(0); r < 0x800; r++ {
		all.WriteRune(r)
	}
	for r := rune(0x2000); r < 0x2070; r++ {
		all.WriteRune(r)
	}
	ids := []string{
		"", "N2006", idQuote, idBackslash, idControl, idNUL, idEmoji, idCombining,
		`\"`, `\\"`, `"\`, `''`, "\x01\x02\x1f\x7f\u0080\u009f\u2028\u2029",
		"👩‍👩‍👧 family, 🇫🇷 flag", "Z\u0351\u0305\u0336algo", "東京", "שלום", "a\u200db",
		hostileOSC52, hostileTitle, hostileClear, hostileBidi, "\ufeffN1", "N\u200b1", "\U000e0041\U000e007f",
		all.String(),
	}
	for _, id := range ids {
		lit := CypherString(id)
		got, rest, err := parseCypherString(lit)
		if err != nil || rest != "" || got != id {
			t.Errorf("%q → %s → %q (rest %q, err %v)", id, lit, got, rest, err)
		}
		assertSafeLines(t, lit)
	}
}

// TestCypherStringInvalidUTF8 documents the one lossy case.
//
// Scenario: a string holding the byte 0xff, which is not UTF-8.
// Expected: the literal holds U+FFFD in its place: "a\uFFFDb" read back
// as "a�b".
// Why: a Cypher string is Unicode text, so the byte has no exact form.
func TestCypherStringInvalidUTF8(t *testing.T) {
	got, _, err := parseCypherString(CypherString("a\xffb"))
	if err != nil || got != "a\uFFFDb" {
		t.Errorf("got %q, %v", got, err)
	}
}

// TestDebugCypherTrickyIDs replays trickyResult's path in the Browser form.
//
// Expected: the :params line parses (with parseParamsLine) to keys id0..id5
// then r0..r4 in order; the id values equal the six ids in path order and
// Params; each r value is the edge's properties {tags: [], weight: 1.0};
// the query has n0..n5; the script (testdata/cypher_tricky_ids.golden) is
// a comment line, a :params line and a query line — no id breaks a line.
// Why: the query text holds only parameter names, so ids can only go wrong
// in the :params literals and the comment, which DisplayID quotes.
func TestDebugCypherTrickyIDs(t *testing.T) {
	res := trickyResult()
	q := DebugCypher(res.Paths[0])
	lines := strings.Split(q.Browser(), "\n")
	if len(lines) != 2 {
		t.Fatalf("Browser has %d lines: %q", len(lines), lines)
	}
	keys, m, err := parseParamsLine(lines[0])
	if err != nil {
		t.Fatalf("%v in %q", err, lines[0])
	}
	wantIDs := []string{idQuote, idBackslash, idControl, idNUL, idEmoji, idCombining}
	if !reflect.DeepEqual(keys, []string{"id0", "id1", "id2", "id3", "id4", "id5", "r0", "r1", "r2", "r3", "r4"}) {
		t.Errorf("keys %v", keys)
	}
	for i, id := range wantIDs {
		k := fmt.Sprintf("id%d", i)
		if m[k] != id || q.Params[k] != id {
			t.Errorf("%s = %q (Params %q), want %q", k, m[k], q.Params[k], id)
		}
	}
	for i := range 5 {
		k := fmt.Sprintf("r%d", i)
		if want := (map[string]any{"tags": []any{}, "weight": 1.0}); !reflect.DeepEqual(m[k], want) {
			t.Errorf("%s = %#v, want %#v", k, m[k], want)
		}
	}
	if !reflect.DeepEqual(q.NodeIDs, wantIDs) {
		t.Errorf("node ids %q", q.NodeIDs)
	}
	script := Script([]DebugQuery{q}, FormBrowser)
	if n := strings.Count(script, "\n"); n != 3 {
		t.Errorf("script has %d lines", n)
	}
	golden(t, "cypher_tricky_ids", script)
}

// TestCopyForms: the three paths of threePathResult in the cypher-shell
// form (the Browser script with `:param {` in place of `:params {`, the
// rest byte for byte the same) and in the driver form (one JSON object per
// path, whose query and parameters are the DebugQuery's), and their check
// queries in the Browser form (golden).
func TestCopyForms(t *testing.T) {
	qs := DebugCypherAll(threePathResult())
	browser, shell := Script(qs, FormBrowser), Script(qs, FormShell)
	if strings.ReplaceAll(browser, "\n:params {", "\n:param {") != shell || strings.Count(shell, "\n:param {") != 3 {
		t.Fatalf("shell form is not the Browser form with :param:\n%s", shell)
	}
	golden(t, "cypher_three_paths_shell", shell)
	lines := strings.Split(strings.TrimSuffix(Script(qs, FormDriver), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("driver form: %d lines", len(lines))
	}
	for i, l := range lines {
		var dq DriverQuery
		if err := json.Unmarshal([]byte(l), &dq); err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(qs[i].Params)
		got, _ := json.Marshal(dq.Parameters)
		if dq.Query != qs[i].Query || string(got) != string(want) {
			t.Errorf("driver line %d: %s", i+1, l)
		}
	}
	golden(t, "cypher_three_paths_driver", Script(qs, FormDriver))
	res := threePathResult()
	checks := CheckCypherAll([]string{"b", "a", "b", " "}, 0.15, res)
	if len(checks) != 3 {
		t.Fatalf("%d check queries", len(checks))
	}
	if got := checks[0].Params["query_tags"]; !reflect.DeepEqual(got, []any{"b", "a"}) {
		t.Errorf("query_tags = %v, want the normalised tags [b a]", got)
	}
	if checks[0].Params["R"] != res.Seed.Score || len(checks[0].Params["memoria_t"].([]any)) != len(res.Paths[0].Steps) {
		t.Errorf("check params %v", checks[0].Params)
	}
	golden(t, "check_three_paths", Script(checks, FormBrowser))
}
