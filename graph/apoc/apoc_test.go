package apoc

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// lines joins JSON lines with newlines.
func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

const (
	nodeA = `{"type":"node","id":"0","labels":["UserRequest"],"properties":{"id":"N2006","text":"Why did stock run out?"}}`
	nodeB = `{"type":"node","id":"5","labels":["DataSource"],"properties":{"id":"N2003"}}`
	relAB = `{"type":"relationship","id":"0","label":"RELATES","properties":{"weight":0.82,"tags":["a","b"]},"start":{"id":"0","labels":["UserRequest"]},"end":{"id":"5","labels":["DataSource"]}}`
)

// TestParseValid reads a small export that uses every accepted form: string
// and integer internal ids, a blank line, a node without labels (APOC omits
// empty ones), an integral weight (1 stays int64 1), a weight 1e308 (finite:
// it loads),
// a float written 2.0 (stays float64), a list mixing integers and floats
// (which Neo4j stores as floats), a list of booleans, an empty list, nulls
// (dropped), unknown
// keys (ignored), CRLF endings and a relationship of another type whose
// weight is not checked. The expected graph is written out in full.
func TestParseValid(t *testing.T) {
	in := "\uFEFF" + nodeA + "\r\n" + lines(
		`{"type":"node","id":5,"labels":["DataSource","Extra"],"properties":{"id":"N2003","score":2.0,"n":-7,"list":[1,2.5],"flags":[true,false],"none":[],"gone":null},"elementId":"4:x:5"}`,
		``,
		`   `,
		`{"type":"node","id":"9","properties":{"id":"N9"}}`,
		`{"type":"relationship","id":7,"label":"RELATES","properties":{"weight":1,"tags":[]},"start":{"id":0},"end":{"id":"5","labels":["DataSource"],"properties":{"p":{"nested":[1,{"a":null}]}}}}`,
		`{"type":"relationship","id":"8","label":"MENTIONS","properties":{"weight":"high"},"start":{"id":"9"},"end":{"id":"9"}}`,
		`{"type":"relationship","id":"10","label":"RELATES","properties":{"weight":1e308},"start":{"id":"9"},"end":{"id":"9"}}`,
	)
	g, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := &Graph{
		Nodes: []Node{
			{InternalID: "0", Labels: []string{"UserRequest"}, Properties: map[string]any{"id": "N2006", "text": "Why did stock run out?"}},
			{InternalID: "5", Labels: []string{"DataSource", "Extra"}, Properties: map[string]any{
				"id": "N2003", "score": 2.0, "n": int64(-7), "list": []any{int64(1), 2.5},
				"flags": []any{true, false}, "none": []any{}}},
			{InternalID: "9", Labels: []string{}, Properties: map[string]any{"id": "N9"}},
		},
		Rels: []Relationship{
			{InternalID: "7", Type: "RELATES", Start: "0", End: "5", Properties: map[string]any{"weight": int64(1), "tags": []any{}}},
			{InternalID: "8", Type: "MENTIONS", Start: "9", End: "9", Properties: map[string]any{"weight": "high"}},
			{InternalID: "10", Type: "RELATES", Start: "9", End: "9", Properties: map[string]any{"weight": 1e308}},
		},
	}
	if !reflect.DeepEqual(g, want) {
		t.Fatalf("got  %#v\nwant %#v", g, want)
	}
}

// TestParseKeysExact: keys match exactly (encoding/json would take "Type"
// for "type"), may be escaped, and whitespace may be anywhere between tokens.
func TestParseKeysExact(t *testing.T) {
	in := lines(
		`{"Type":"edge","type":"node","ID":5,"id":"7","Properties":{"x":{}},"properties":{"id":"A"}}`,
		" { \"type\" : \"node\" , \"id\" : 8 , \"properties\" : { \"a\\u0062\" : [ 1 , 2.0 ] , \"id\":\"B\" } } \r",
	)
	g, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Node{
		{InternalID: "7", Labels: []string{}, Properties: map[string]any{"id": "A"}},
		{InternalID: "8", Labels: []string{}, Properties: map[string]any{"ab": []any{int64(1), 2.0}, "id": "B"}},
	}
	if !reflect.DeepEqual(g.Nodes, want) {
		t.Fatalf("got  %#v\nwant %#v", g.Nodes, want)
	}
}

// TestParseStrings checks string decoding: escapes, a surrogate pair
// (\ud83d\ude00 is U+1F600), and a line longer than the 64 KiB read buffer.
// (A lone surrogate and invalid UTF-8 are errors: TestParseErrors.)
func TestParseStrings(t *testing.T) {
	long := strings.Repeat("x", 200_000)
	in := lines(
		`{"type":"node","id":"0","properties":{"id":"a\"b\\c\/d\n\t\u00e9\ud83d\ude00"}}`,
		`{"type":"node","id":"1","properties":{"id":"`+long+`"}}`,
	)
	g, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := g.Nodes[0].Properties["id"], "a\"b\\c/d\n\té😀"; got != want {
		t.Errorf("id = %q, want %q", got, want)
	}
	if got := g.Nodes[1].Properties["id"]; got != long {
		t.Errorf("long id has %d bytes, want %d", len(got.(string)), len(long))
	}
}

// TestParseRelationshipFirst: a relationship may precede its nodes; its
// endpoints are checked once the input ends.
func TestParseRelationshipFirst(t *testing.T) {
	g, err := Parse(strings.NewReader(lines(relAB, nodeA, nodeB)))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Nodes) != 2 || len(g.Rels) != 1 || g.Rels[0].Start != "0" || g.Rels[0].End != "5" {
		t.Fatalf("got %+v", g)
	}
}

// TestParseErrors checks each problem's message and line number, and that
// no graph comes back with an error.
func TestParseErrors(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want string
	}{
		{"malformed", lines(nodeA, nodeB, `{"type":"node","id":"7",}`),
			`line 3: malformed JSON: unexpected '}' at column 25 (expected a key)`},
		{"truncated", lines(nodeA, `{"type":"node","id":"7"`),
			`line 2: malformed JSON: unexpected end of line (expected ',' or '}')`},
		{"not an object", lines(`[1,2]`),
			`line 1: malformed JSON: unexpected '[' at column 1 (each line must be one JSON object)`},
		{"trailing data", lines(`{"type":"node","id":"7"} x`),
			`line 1: malformed JSON: unexpected 'x' at column 26 after the object`},
		{"leading zero", lines(`{"type":"node","id":"7","properties":{"n":01}}`),
			`line 1: malformed JSON: unexpected '1' at column 44 (expected ',' or '}')`},
		{"bad escape", lines(`{"type":"node","id":"7","properties":{"s":"\q"}}`),
			`line 1: malformed JSON: invalid escape \q at column 44`},
		{"control character", lines("{\"type\":\"node\",\"id\":\"7\",\"properties\":{\"s\":\"a\tb\"}}"),
			`line 1: malformed JSON: unexpected '\t' at column 45 (control characters must be escaped in strings)`},
		{"unterminated string", lines(`{"type":"node","id":"7`),
			`line 1: malformed JSON: unterminated string`},
		{"duplicate node id", lines(`{"type":"node","id":"1","properties":{"id":"N2006"}}`, nodeB, `{"type":"node","id":"2","properties":{"id":"N2006"}}`),
			`line 3: duplicate node id "N2006" (first on line 1)`},
		{"duplicate internal node id", lines(nodeA, `{"type":"node","id":0}`),
			`line 2: duplicate internal node id 0 (first on line 1)`},
		{"duplicate internal relationship id", lines(nodeA, nodeB, relAB, relAB),
			`line 4: duplicate internal relationship id 0 (first on line 3)`},
		{"unknown end", lines(nodeA, nodeB, `{"type":"relationship","id":"7","label":"RELATES","start":{"id":"0"},"end":{"id":"99"}}`),
			`line 3: relationship 7 ends at unknown node 99`},
		{"unknown start", lines(nodeA, `{"type":"relationship","id":"7","label":"KNOWS","start":{"id":98},"end":{"id":"0"}}`),
			`line 2: relationship 7 starts at unknown node 98`},
		{"weight string", lines(nodeA, nodeB, `{"type":"relationship","id":"4","label":"RELATES","properties":{"weight":"high"},"start":{"id":"0"},"end":{"id":"5"}}`),
			`line 3: relationship 4: weight must be a number, got string "high"`},
		{"weight list", lines(nodeA, nodeB, `{"type":"relationship","id":"4","label":"RELATES","properties":{"weight":[1]},"start":{"id":"0"},"end":{"id":"5"}}`),
			`line 3: relationship 4: weight must be a number, got a list containing integer 1`},
		{"tags string", lines(nodeA, nodeB, `{"type":"relationship","id":"4","label":"RELATES","properties":{"tags":"a,b"},"start":{"id":"0"},"end":{"id":"5"}}`),
			`line 3: relationship 4: tags must be a list of strings, got string "a,b"`},
		{"tags numbers", lines(nodeA, nodeB, `{"type":"relationship","id":"4","label":"RELATES","properties":{"tags":["a",2]},"start":{"id":"0"},"end":{"id":"5"}}`),
			`line 3: relationship 4: tags must be a list of strings, got a list containing integer 2`},
		{"id property number", lines(nodeA, nodeB, `{"type":"node","id":"3","properties":{"id":2006}}`),
			`line 3: node 3: property id must be a string, got integer 2006`},
		{"unknown type", lines(`{"type":"edge","id":"3"}`),
			`line 1: unknown type "edge" (want "node" or "relationship")`},
		{"missing type", lines(`{"id":"3"}`),
			`line 1: missing "type"`},
		{"missing id", lines(`{"type":"node","labels":["A"]}`),
			`line 1: node without "id"`},
		{"float id", lines(`{"type":"node","id":1.5}`),
			`line 1: node: "id" must be a string or an integer, got number 1.5`},
		{"missing label", lines(nodeA, `{"type":"relationship","id":"3","start":{"id":"0"},"end":{"id":"0"}}`),
			`line 2: relationship 3: missing "label" (the relationship type)`},
		{"missing end", lines(nodeA, `{"type":"relationship","id":"3","label":"RELATES","start":{"id":"0"}}`),
			`line 2: relationship 3: missing "end"`},
		{"start without id", lines(nodeA, `{"type":"relationship","id":"3","label":"RELATES","start":{"labels":["A"]},"end":{"id":"0"}}`),
			`line 2: relationship 3: "start" has no "id"`},
		{"map property", lines(`{"type":"node","id":"3","properties":{"place":{"x":1}}}`),
			`line 1: node 3: property "place": a map; Neo4j properties cannot be maps`},
		{"list of lists", lines(`{"type":"node","id":"3","properties":{"m":[[1]]}}`),
			`line 1: node 3: property "m": a list cannot contain lists`},
		{"map in a list", lines(`{"type":"node","id":"3","properties":{"m":[{"a":1}]}}`),
			`line 1: node 3: property "m": a list cannot contain maps`},
		{"null in list", lines(`{"type":"node","id":"3","properties":{"m":[1,null]}}`),
			`line 1: node 3: property "m": a list cannot contain null`},
		{"null in list of strings", lines(`{"type":"node","id":"3","properties":{"m":["a",null]}}`),
			`line 1: node 3: property "m": a list cannot contain null`},
		{"number and string in list", lines(nodeA, nodeB, `{"type":"node","id":"3","properties":{"x":[1,"a"]}}`),
			`line 3: node 3: property "x": a list must hold values of one type, got number and string`},
		{"boolean and number in list", lines(`{"type":"node","id":"3","properties":{"x":[true,1]}}`),
			`line 1: node 3: property "x": a list must hold values of one type, got boolean and number`},
		{"string and boolean in list", lines(`{"type":"node","id":"3","properties":{"x":["a","b",false,1]}}`),
			`line 1: node 3: property "x": a list must hold values of one type, got string and boolean`},
		{"mixed list, first key named", lines(`{"type":"node","id":"3","properties":{"z":[1,"a"],"y":[true,"a"],"id":"N3"}}`),
			`line 1: node 3: property "y": a list must hold values of one type, got boolean and string`},
		{"mixed list on a relationship", lines(nodeA, `{"type":"relationship","id":"4","label":"MENTIONS","properties":{"at":[1.5,"a"]},"start":{"id":"0"},"end":{"id":"0"}}`),
			`line 2: relationship 4: property "at": a list must hold values of one type, got number and string`},
		{"mixed list on RELATES", lines(nodeA, `{"type":"relationship","id":"4","label":"RELATES","properties":{"weight":0.5,"tags":["a"],"src":["a",2]},"start":{"id":"0"},"end":{"id":"0"}}`),
			`line 2: relationship 4: property "src": a list must hold values of one type, got string and number`},
		{"integer out of range", lines(`{"type":"node","id":"3","properties":{"n":9223372036854775808}}`),
			`line 1: node 3: property "n": integer 9223372036854775808 is out of range`},
		{"float out of range", lines(`{"type":"node","id":"3","properties":{"n":1e400}}`),
			`line 1: node 3: property "n": number 1e400 is not finite in float64 (beyond ±1.8e308)`},
		{"duplicate property", lines(`{"type":"node","id":"3","properties":{"n":1,"n":null}}`),
			`line 1: node 3: duplicate property "n"`},
		{"duplicate key", lines(`{"type":"node","id":"3","type":"node"}`),
			`line 1: node 3: duplicate key "type"`},
		{"labels not strings", lines(`{"type":"node","id":"3","labels":["A",1]}`),
			`line 1: node 3: "labels" must be a list of strings`},
		{"too deep", lines(`{"type":"node","id":"3","x":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`),
			`line 1: malformed JSON: values nested deeper than 512 at column 542`},
		{"bad literal", lines(`{"type":"node","id":"7","properties":{"b":tru}}`),
			`line 1: malformed JSON: unexpected 't' at column 43 (expected a value)`},
		{"bad fraction", lines(`{"type":"node","id":"7","properties":{"f":1.}}`),
			`line 1: malformed JSON: unexpected '}' at column 45 (expected a digit)`},
		{"number cut at the end", `{"type":"node","id":"7","properties":{"f":1.`,
			`line 1: malformed JSON: unexpected end of line (expected a digit)`},
		{"bad unicode escape", lines(`{"type":"node","id":"7","properties":{"s":"\u12x"}}`),
			`line 1: malformed JSON: invalid \u escape at column 44`},
		{"backslash at the end", `{"type":"node","id":"7\`,
			`line 1: malformed JSON: unterminated string`},
		{"missing comma", lines(`{"type":"node","labels":["A" "B"]}`),
			`line 1: malformed JSON: unexpected '"' at column 30 (expected ',' or ']')`},
		{"non-ASCII character", lines(`{"type":"node","id":"7","x":é}`),
			`line 1: malformed JSON: unexpected 'é' at column 29 (expected a value)`},
		{"missing colon", lines(`{"type":"node","id" "7"}`),
			`line 1: malformed JSON: unexpected '"' at column 21 (expected ':')`},
		{"key not a string", lines(`{"type":"node",7:"7"}`),
			`line 1: malformed JSON: unexpected '7' at column 16 (expected a key)`},
		{"object closed by ']'", lines(`{"type":"node","id":"7"]`),
			`line 1: malformed JSON: unexpected ']' at column 24 (expected ',' or '}')`},
		{"list closed by '}'", lines(`{"type":"node","id":"7","labels":["A"}`),
			`line 1: malformed JSON: unexpected '}' at column 38 (expected ',' or ']')`},
		{"trailing comma in list", lines(`{"type":"node","id":"7","x":[1, ]}`),
			`line 1: malformed JSON: unexpected ']' at column 33 (expected a value)`},
		{"missing value", lines(`{"type":"node","id":"7","x":}`),
			`line 1: malformed JSON: unexpected '}' at column 29 (expected a value)`},
		{"cut after a colon", lines(`{"type":"node","id":`),
			`line 1: malformed JSON: unexpected end of line (expected a value)`},
		{"cut after a key", `{"type":"node","id"`,
			`line 1: malformed JSON: unexpected end of line (expected ':')`},
		{"bad exponent", lines(`{"type":"node","id":"7","x":[1e+]}`),
			`line 1: malformed JSON: unexpected ']' at column 33 (expected a digit)`},
		{"minus alone", lines(`{"type":"node","id":-}`),
			`line 1: malformed JSON: unexpected '}' at column 22 (expected a digit)`},
		{"number ran into a letter", lines(`{"type":"node","id":"7","x":{"y":12z}}`),
			`line 1: malformed JSON: unexpected 'z' at column 36 (expected ',' or '}')`},
		{"bad literal in skipped value", lines(`{"type":"node","id":"7","x":{"y":[nul]}}`),
			`line 1: malformed JSON: unexpected 'n' at column 35 (expected a value)`},
		{"cut \\u escape", `{"type":"node","id":"\u00`,
			`line 1: malformed JSON: invalid \u escape at column 22`},
		{"backslash before the newline", lines(`{"type":"node","id":"7\`),
			`line 1: malformed JSON: unterminated string`},
		{"carriage return in a string", lines("{\"type\":\"node\",\"id\":\"7\r\"}"),
			`line 1: malformed JSON: unexpected '\r' at column 23 (control characters must be escaped in strings)`},
		{"string cut before CRLF", "{\"type\":\"node\",\"id\":\"7\r\n",
			`line 1: malformed JSON: unterminated string`},
		// The rules of docs/EXPORTS.md "The APOC file" that memoria load
		// and explore --graph share, each after two good lines.
		{"empty file", "", `line 1: the file is empty: no node or relationship on any line`},
		{"blank lines only", "\n \r\n\t\n", `line 1: the file is empty: no node or relationship on any line`},
		{"node without id property", lines(nodeA, nodeB, `{"type":"node","id":"7","labels":["Event"],"properties":{"text":"x"}}`),
			`line 3: node 7: no id property: every node needs a string id (the retriever finds nodes by it, memoria load merges them on it)`},
		{"node without properties", lines(nodeA, nodeB, `{"type":"node","id":"7"}`),
			`line 3: node 7: no id property: every node needs a string id (the retriever finds nodes by it, memoria load merges them on it)`},
		{"empty id property", lines(nodeA, nodeB, `{"type":"node","id":"7","properties":{"id":""}}`),
			`line 3: node 7: property id is empty: every node needs a non-empty string id`},
		{"empty internal id", lines(nodeA, nodeB, `{"type":"node","id":"","properties":{"id":"N7"}}`),
			`line 3: node with an empty "id"`},
		{"empty label", lines(nodeA, nodeB, `{"type":"node","id":"7","labels":["Event",""],"properties":{"id":"N7"}}`),
			`line 3: node 7: empty label`},
		{"NUL in a label", lines(nodeA, nodeB, `{"type":"node","id":"7","labels":["Ev\u0000ent"],"properties":{"id":"N7"}}`),
			`line 3: node 7: label "Ev\x00ent" contains NUL, which Neo4j refuses in a name`},
		{"empty relationship type", lines(nodeA, nodeB, `{"type":"relationship","id":"3","label":"","start":{"id":"0"},"end":{"id":"5"}}`),
			`line 3: relationship 3: empty relationship type`},
		{"NUL in a relationship type", lines(nodeA, nodeB, `{"type":"relationship","id":"3","label":"REL\u0000ATES","start":{"id":"0"},"end":{"id":"5"}}`),
			`line 3: relationship 3: relationship type "REL\x00ATES" contains NUL, which Neo4j refuses in a name`},
		{"empty property key", lines(nodeA, nodeB, `{"type":"node","id":"7","properties":{"id":"N7","":1}}`),
			`line 3: node 7: empty property key`},
		{"NUL in a property key", lines(nodeA, nodeB, `{"type":"relationship","id":"3","label":"RELATES","properties":{"we\u0000ight":1},"start":{"id":"0"},"end":{"id":"5"}}`),
			`line 3: relationship 3: property key "we\x00ight" contains NUL, which Neo4j refuses in a name`},
		// Invalid UTF-8: the column is that of the first bad byte (or of the
		// escape's backslash), counted from 1.
		{"invalid UTF-8 in an id", lines(nodeA, nodeB, `{"type":"node","id":"7","properties":{"id":"N`+"\xff"+`"}}`),
			`line 3: node 7: invalid UTF-8 (byte 0xFF) at column 46 (every string must be valid UTF-8)`},
		{"invalid UTF-8 in a label", lines(nodeA, nodeB, `{"type":"node","id":"7","labels":["A`+"\xc3"+`"],"properties":{"id":"N7"}}`),
			`line 3: node 7: invalid UTF-8 (byte 0xC3) at column 37 (every string must be valid UTF-8)`},
		{"invalid UTF-8 in a key", lines(nodeA, nodeB, `{"type":"node","id":"7","properties":{"id":"N7","k`+"\x80"+`":1}}`),
			`line 3: node 7: invalid UTF-8 (byte 0x80) at column 51 (every string must be valid UTF-8)`},
		{"invalid UTF-8 in a value", lines(nodeA, nodeB, `{"type":"node","id":"7","properties":{"id":"N7","text":"caf`+"\xe9"+`"}}`),
			`line 3: node 7: invalid UTF-8 (byte 0xE9) at column 60 (every string must be valid UTF-8)`},
		{"invalid UTF-8 in a type", lines(nodeA, nodeB, `{"type":"relationship","id":"3","label":"R`+"\xff"+`","start":{"id":"0"},"end":{"id":"5"}}`),
			`line 3: relationship 3: invalid UTF-8 (byte 0xFF) at column 43 (every string must be valid UTF-8)`},
		{"invalid UTF-8 in a tag", lines(nodeA, nodeB, `{"type":"relationship","id":"3","label":"RELATES","properties":{"tags":["ok","b`+"\xff"+`"]},"start":{"id":"0"},"end":{"id":"5"}}`),
			`line 3: relationship 3: invalid UTF-8 (byte 0xFF) at column 80 (every string must be valid UTF-8)`},
		{"invalid UTF-8 in an ignored key's value", lines(nodeA, nodeB, `{"type":"node","id":"7","x":"`+"\xff"+`","properties":{"id":"N7"}}`),
			`line 3: node 7: invalid UTF-8 (byte 0xFF) at column 30 (every string must be valid UTF-8)`},
		{"lone surrogate", lines(nodeA, nodeB, `{"type":"node","id":"7","properties":{"id":"N7","s":"a\udc00"}}`),
			`line 3: node 7: invalid Unicode: lone surrogate \udc00 at column 55 (every string must be valid UTF-8)`},
		{"high surrogate without its pair", lines(nodeA, nodeB, `{"type":"node","id":"7","properties":{"id":"N7","s":"\ud83dx"}}`),
			`line 3: node 7: invalid Unicode: lone surrogate \ud83d at column 54 (every string must be valid UTF-8)`},
		{"weight beyond float64", lines(nodeA, nodeB, `{"type":"relationship","id":"3","label":"RELATES","properties":{"weight":1e999},"start":{"id":"0"},"end":{"id":"5"}}`),
			`line 3: relationship 3: property "weight": number 1e999 is not finite in float64 (beyond ±1.8e308)`},
		{"negative weight beyond float64", lines(nodeA, nodeB, `{"type":"relationship","id":"3","label":"RELATES","properties":{"weight":-2e308},"start":{"id":"0"},"end":{"id":"5"}}`),
			`line 3: relationship 3: property "weight": number -2e308 is not finite in float64 (beyond ±1.8e308)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := Parse(strings.NewReader(c.in))
			if g != nil {
				t.Errorf("got a graph with the error")
			}
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			if err.Error() != c.want {
				t.Errorf("error\n got %q\nwant %q", err.Error(), c.want)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Errorf("%v is not a *ParseError", err)
			}
		})
	}
}

// TestParseManyErrors: 25 bad lines yield the first 20 (MaxErrors), each a
// *ParseError in line order, then ErrTooManyErrors.
func TestParseManyErrors(t *testing.T) {
	var in strings.Builder
	in.WriteString(nodeA + "\n")
	for i := 0; i < 25; i++ {
		in.WriteString(`{"type":"thing","id":"1"}` + "\n")
	}
	g, err := Parse(strings.NewReader(in.String()))
	if g != nil || err == nil {
		t.Fatalf("got %v, %v", g, err)
	}
	errs := err.(interface{ Unwrap() []error }).Unwrap()
	if len(errs) != MaxErrors+1 {
		t.Fatalf("got %d errors, want %d", len(errs), MaxErrors+1)
	}
	for i, e := range errs[:MaxErrors] {
		var pe *ParseError
		if !errors.As(e, &pe) || pe.Line != i+2 {
			t.Errorf("error %d = %v, want line %d", i, e, i+2)
		}
	}
	if !errors.Is(err, ErrTooManyErrors) {
		t.Errorf("missing ErrTooManyErrors")
	}
}

// TestParseSeveralErrors: problems found while reading and endpoint
// problems found at the end come back together, sorted by line.
func TestParseSeveralErrors(t *testing.T) {
	in := lines(
		`{"type":"relationship","id":"1","label":"RELATES","start":{"id":"0"},"end":{"id":"42"}}`,
		nodeA,
		`{"type":"node","id":"3","properties":{"id":3}}`,
		`not json`,
	)
	_, err := Parse(strings.NewReader(in))
	want := `line 1: relationship 1 ends at unknown node 42
line 3: node 3: property id must be a string, got integer 3
line 4: malformed JSON: unexpected 'n' at column 1 (each line must be one JSON object)`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}

// TestParseReaderError: a failing reader's error is returned with the line
// it stopped in.
func TestParseReaderError(t *testing.T) {
	boom := errors.New("boom")
	_, err := Parse(&failAfter{data: []byte(lines(nodeA)), err: boom})
	if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "line 2: ") {
		t.Fatalf("got %v", err)
	}
}

type failAfter struct {
	data []byte
	err  error
}

func (f *failAfter) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, f.err
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

// TestDecodeCallbackError: an error from a callback stops Decode.
func TestDecodeCallbackError(t *testing.T) {
	stop := errors.New("stop")
	_, err := Decode(strings.NewReader(lines(nodeA, nodeB)), func(Node) error { return stop }, nil)
	if !errors.Is(err, stop) || err.Error() != "line 1: stop" {
		t.Fatalf("got %v", err)
	}
}

// TestWriteExact pins Write's output: APOC key order, sorted property keys,
// ids as strings, empty labels and properties left out, 2.0 written as a
// float and 1 as an integer, nil properties left out.
func TestWriteExact(t *testing.T) {
	g := &Graph{
		Nodes: []Node{
			{InternalID: "0", Labels: []string{"A"}, Properties: map[string]any{"z": 2.0, "id": "N1", "n": int64(1), "s": "q\"\n<", "nil": nil}},
			{InternalID: "1"},
		},
		Rels: []Relationship{
			{InternalID: "3", Type: "RELATES", Start: "0", End: "1", Properties: map[string]any{"weight": 0.5, "tags": []any{"x"}, "big": 1e21, "tiny": 1e-7}},
		},
	}
	var buf bytes.Buffer
	if err := Write(&buf, g); err != nil {
		t.Fatal(err)
	}
	want := lines(
		`{"type":"node","id":"0","labels":["A"],"properties":{"id":"N1","n":1,"s":"q\"\n<","z":2.0}}`,
		`{"type":"node","id":"1"}`,
		`{"type":"relationship","id":"3","label":"RELATES","properties":{"big":1e+21,"tags":["x"],"tiny":1e-07,"weight":0.5},"start":{"id":"0","labels":["A"]},"end":{"id":"1"}}`,
	)
	if buf.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

// TestWriteErrors: values Neo4j or JSON cannot hold, and unknown endpoints.
func TestWriteErrors(t *testing.T) {
	node := func(props map[string]any) *Graph {
		return &Graph{Nodes: []Node{{InternalID: "0", Properties: props}}}
	}
	cases := []struct {
		g    *Graph
		want string
	}{
		{node(map[string]any{"x": math.NaN()}), `node 0: property "x": cannot write NaN`},
		{node(map[string]any{"x": map[string]any{}}), `node 0: property "x": cannot write a value of type map[string]interface {}`},
		{node(map[string]any{"x": []any{[]any{1}}}), `node 0: property "x": lists of lists cannot be written`},
		{&Graph{Nodes: []Node{{InternalID: "0"}}, Rels: []Relationship{{InternalID: "1", Type: "R", Start: "0", End: "2"}}},
			`relationship 1 ends at unknown node 2`},
		{nil, `apoc: no graph to write`},
	}
	for _, c := range cases {
		err := Write(&bytes.Buffer{}, c.g)
		if err == nil || err.Error() != c.want {
			t.Errorf("got %v, want %s", err, c.want)
		}
	}
}

// TestRoundTrip: Parse, Write, Parse gives an equal graph, including
// floats that look integral, extreme numbers and escaped strings.
func TestRoundTrip(t *testing.T) {
	in := lines(
		`{"type":"node","id":"0","labels":["A","B"],"properties":{"id":"N1","f":1.0,"neg":-0.0,"max":9223372036854775807,"min":-9223372036854775808,"small":5e-324,"big":1.7976931348623157e308,"s":"\u0001\u2028é","l":[1.5,2],"ls":["x"],"lb":[false]}}`,
		`{"type":"relationship","id":1,"label":"RELATES","properties":{"weight":1,"tags":["a","a"]},"start":{"id":0},"end":{"id":"0"}}`,
	)
	g1, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, g1); err != nil {
		t.Fatal(err)
	}
	g2, err := Parse(&buf)
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if !reflect.DeepEqual(g1, g2) {
		t.Fatalf("round trip differs:\n%#v\n%#v", g1, g2)
	}
	if _, ok := g2.Nodes[0].Properties["f"].(float64); !ok {
		t.Errorf("1.0 did not stay a float")
	}
}

// TestValidate checks a graph built in Go: each problem is named,
// including list properties Neo4j refuses (values of two types, a null, a
// list inside); a list mixing integers and floats, a []string and an empty
// list are fine.
func TestValidate(t *testing.T) {
	g := &Graph{
		Nodes: []Node{
			{InternalID: "0", Properties: map[string]any{"id": "N1"}},
			{InternalID: "0"},
			{InternalID: "1", Properties: map[string]any{"id": "N1"}},
			{InternalID: "2", Properties: map[string]any{"id": 7}},
			{InternalID: "3", Properties: map[string]any{"id": "N3", "x": []any{int64(1), "a"}, "ok": []any{int64(1), 2.5}, "s": []string{"a"}}},
			{InternalID: "4", Properties: map[string]any{"id": "N4", "x": []any{"a", nil}}},
			{InternalID: "5", Properties: map[string]any{"id": "N5", "x": []any{[]any{1}}, "e": []any{}}},
		},
		Rels: []Relationship{
			{InternalID: "1", Type: "RELATES", Start: "0", End: "9"},
			{InternalID: "2", Type: "RELATES", Start: "0", End: "1", Properties: map[string]any{"weight": "x"}},
			{InternalID: "3", Type: "RELATES", Start: "0", End: "1", Properties: map[string]any{"weight": 1, "tags": []string{"ok"}}},
			{InternalID: "3", Type: "RELATES", Start: "0", End: "1"},
			{InternalID: "4", Start: "0", End: "1"},
			{InternalID: "5", Type: "KNOWS", Start: "0", End: "1", Properties: map[string]any{"x": []any{true, 1.5}}},
		},
	}
	want := `duplicate internal node id 0 (first on node #1)
duplicate node id "N1" (first on node #1)
node 2: property id must be a string, got integer 7
node 3: property "x": a list must hold values of one type, got number and string
node 4: property "x": a list cannot contain null
node 5: property "x": a list cannot contain lists
relationship 1 ends at unknown node 9
relationship 2: weight must be a number, got string "x"
duplicate internal relationship id 3 (first on relationship #3)
relationship 4: empty relationship type
relationship 5: property "x": a list must hold values of one type, got boolean and number`
	if err := Validate(g); err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
	if err := Validate(&Graph{}); err != nil {
		t.Fatal(err)
	}
}

// TestParseManyUnknownEndpoints: 100 000 relationships to missing nodes
// report the first 20 by line, then ErrTooManyErrors, and quickly (the
// endpoint errors found at the end are not all collected and sorted).
func TestParseManyUnknownEndpoints(t *testing.T) {
	var in strings.Builder
	for i := 0; i < 100_000; i++ {
		in.WriteString(`{"type":"relationship","id":` + strconv.Itoa(i) + `,"label":"RELATES","start":{"id":"a"},"end":{"id":"b"}}` + "\n")
	}
	in.WriteString(`{"type":"node","id":"a"}` + "\n")
	_, err := Parse(strings.NewReader(in.String()))
	errs := err.(interface{ Unwrap() []error }).Unwrap()
	if len(errs) != MaxErrors+1 || errs[0].Error() != "line 1: relationship 0 ends at unknown node b" ||
		errs[19].Error() != "line 20: relationship 19 ends at unknown node b" || errs[20] != ErrTooManyErrors {
		t.Fatalf("got %d errors: %v", len(errs), err)
	}
}
