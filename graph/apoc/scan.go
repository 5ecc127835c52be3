package apoc

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// Each line is read token by token with a jsontext.Decoder, from
// github.com/go-json-experiment/json: the package Go ships as
// encoding/json/jsontext behind GOEXPERIMENT=jsonv2, whose import can become
// that once it is on by default. encoding/json was tried first: one
// Unmarshal per line that only notes where the values are already took
// longer (1.7 s on inmem's 1.1M-line benchmark) than this whole package
// with a scanner of its own, and reading the lines exactly with it (nested
// Unmarshal calls, since it cannot tell 1 from 1.0, see repeated keys or
// match keys exactly) took 5.6 s. The token stream gives all of that in
// one pass. Where the decoder rejects a line, its state tells what the
// grammar expected there; see malformed.

type elementKind uint8

const (
	kindBlank elementKind = iota
	kindNode
	kindRel
)

type element struct {
	kind elementKind
	node Node
	rel  Relationship
	// startKnown and endKnown tell that the relationship's endpoints are
	// nodes already read.
	startKnown, endKnown bool
}

// maxDepth bounds the nesting of values that are skipped.
const maxDepth = 512

// maxInterned bounds the table of shared strings (keys, labels, types, and
// short strings inside lists such as tags).
const maxInterned = 1 << 16

// Invalid UTF-8 becomes U+FFFD, as with encoding/json; repeated keys are
// reported by this package, after any syntax error on the line.
var decodeOptions = []jsontext.Options{jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true)}

// Bits of lineDecoder.seen, one for each key the line's object may hold.
const (
	fType = 1 << iota
	fID
	fLabels
	fLabel
	fProps
	fStart
	fEnd
)

// lineDecoder turns lines into elements; it is reused from line to line.
type lineDecoder struct {
	c    *checker // resolves endpoint ids to the strings of known nodes
	dec  *jsontext.Decoder
	in   bytes.Buffer
	line []byte
	// shallow tells that the line has too few brackets for any value to
	// be too deep, so skip can leave the checks to the decoder.
	shallow bool
	// sem is the first problem on the line that is not a syntax error.
	sem     string
	scratch []byte
	pairs   []kv
	items   []any

	// What the line says.
	seen                 int
	typ, id, label       string
	typOK, idOK          bool
	labels               []string
	props                map[string]any
	start, end           string
	startOK, endOK       bool
	startKnown, endKnown bool

	intern map[string]string
	// internAny holds boxed shared strings, so list items need no allocation.
	internAny map[string]any
}

type kv struct {
	k    string
	v    any
	null bool
}

type syntaxError struct{ msg string }

func (e *syntaxError) Error() string { return "malformed JSON: " + e.msg }

func (s *lineDecoder) init(c *checker) {
	s.c = c
	s.dec = jsontext.NewDecoder(&s.in, decodeOptions...)
	s.intern = make(map[string]string)
	s.internAny = make(map[string]any)
}

func (s *lineDecoder) semf(format string, args ...any) {
	if s.sem == "" {
		s.sem = fmt.Sprintf(format, args...)
	}
}

func (s *lineDecoder) internBytes(b []byte) string {
	if v, ok := s.intern[string(b)]; ok {
		return v
	}
	v := string(b)
	if len(s.intern) < maxInterned {
		s.intern[v] = v
	}
	return v
}

// internBoxed is internBytes for a string stored in an interface.
func (s *lineDecoder) internBoxed(b []byte) any {
	if v, ok := s.internAny[string(b)]; ok {
		return v
	}
	var v any = s.internBytes(b)
	if len(s.internAny) < maxInterned {
		s.internAny[v.(string)] = v
	}
	return v
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// parseLine parses one line. Errors are complete messages without the line.
func (s *lineDecoder) parseLine(b []byte) (element, error) {
	i := skipSpace(b, 0)
	if i == len(b) {
		return element{kind: kindBlank}, nil
	}
	if b[i] != '{' {
		return element{}, unexpected(b, i, " (each line must be one JSON object)")
	}
	s.line, s.sem = b, ""
	s.shallow = bytes.Count(b, []byte{'['})+bytes.Count(b, []byte{'{'}) <= maxDepth
	// From a bytes.Buffer the decoder reads in one go, without a copy.
	s.in.Reset()
	s.in.Write(b)
	s.dec.Reset(&s.in, decodeOptions...)
	err := s.object()
	s.line = nil
	if err != nil {
		return element{}, s.malformed(b, err)
	}
	if i := skipSpace(b, int(s.dec.InputOffset())); i != len(b) {
		return element{}, unexpected(b, i, " after the object")
	}

	// The line is well-formed JSON; now check what it says. Decoding
	// turned invalid UTF-8 into U+FFFD, and Neo4j would too: refuse it
	// wherever it is, as data would change silently.
	if !utf8.Valid(b) {
		s.semf("%s", badUTF8(b, 0))
	}
	var kind elementKind
	typ := s.typ
	switch {
	case s.seen&fType == 0:
		return element{}, errors.New(`missing "type"`)
	case !s.typOK:
		return element{}, errors.New(`"type" must be a string`)
	case typ == "node":
		kind = kindNode
	case typ == "relationship":
		kind = kindRel
	default:
		return element{}, fmt.Errorf(`unknown type %q (want "node" or "relationship")`, typ)
	}
	if s.seen&fID == 0 {
		return element{}, fmt.Errorf(`%s without "id"`, typ)
	}
	if !s.idOK {
		if s.sem == "" {
			s.sem = `"id" must be a string or an integer`
		}
		return element{}, fmt.Errorf("%s: %s", typ, s.sem)
	}
	id := s.id
	if id == "" {
		return element{}, fmt.Errorf(`%s with an empty "id"`, typ)
	}
	name := typ + " " + showID(id)
	if s.sem != "" {
		return element{}, fmt.Errorf("%s: %s", name, s.sem)
	}
	props := s.props
	if props == nil {
		props = make(map[string]any)
	}
	if kind == kindNode {
		labels := s.labels
		if labels == nil {
			labels = []string{}
		}
		return element{kind: kindNode, node: Node{InternalID: id, Labels: labels, Properties: props}}, nil
	}
	switch {
	case s.seen&fLabel == 0:
		return element{}, fmt.Errorf(`%s: missing "label" (the relationship type)`, name)
	case s.seen&fStart == 0:
		return element{}, fmt.Errorf(`%s: missing "start"`, name)
	case s.seen&fEnd == 0:
		return element{}, fmt.Errorf(`%s: missing "end"`, name)
	case !s.startOK:
		return element{}, fmt.Errorf(`%s: "start" has no "id"`, name)
	case !s.endOK:
		return element{}, fmt.Errorf(`%s: "end" has no "id"`, name)
	}
	return element{kind: kindRel, rel: Relationship{InternalID: id, Type: s.label, Start: s.start, End: s.end, Properties: props},
		startKnown: s.startKnown, endKnown: s.endKnown}, nil
}

// object reads the line's object into s.
func (s *lineDecoder) object() error {
	s.seen, s.typ, s.id, s.label, s.typOK, s.idOK = 0, "", "", "", false, false
	s.labels, s.props = nil, nil
	s.start, s.end, s.startOK, s.endOK, s.startKnown, s.endKnown = "", "", false, false, false, false
	if _, err := s.dec.ReadToken(); err != nil { // '{'
		return err
	}
	for s.dec.PeekKind() != '}' {
		kb, err := s.name()
		if err != nil {
			return err
		}
		bit := 0
		switch string(kb) {
		case "type":
			bit = fType
		case "id":
			bit = fID
		case "labels":
			bit = fLabels
		case "label":
			bit = fLabel
		case "properties":
			bit = fProps
		case "start":
			bit = fStart
		case "end":
			bit = fEnd
		}
		if bit != 0 && s.seen&bit != 0 {
			s.semf("duplicate key %q", kb)
		}
		s.seen |= bit
		switch bit {
		case fType:
			var v []byte
			var ok bool
			v, ok, err = s.stringOrSkip()
			s.typOK = ok
			if ok {
				s.typ = s.internBytes(v)
			} else if err == nil {
				s.semf(`"type" must be a string`)
			}
		case fID:
			s.id, s.idOK, _, err = s.idValue(`"id"`, false)
		case fLabels:
			s.labels, err = s.labelList()
		case fLabel:
			var v []byte
			var ok bool
			v, ok, err = s.stringOrSkip()
			if ok {
				s.label = s.internBytes(v)
			} else if err == nil {
				s.semf(`"label" must be a string`)
			}
		case fProps:
			s.props, err = s.properties()
		case fStart:
			s.start, s.startOK, s.startKnown, err = s.endpoint(`"start"`, `"start" "id"`)
		case fEnd:
			s.end, s.endOK, s.endKnown, err = s.endpoint(`"end"`, `"end" "id"`)
		default:
			err = s.skip(0)
		}
		if err != nil {
			return err
		}
	}
	_, err := s.dec.ReadToken() // '}'
	return err
}

// str returns the text of the JSON string raw, valid until the next call.
func (s *lineDecoder) str(raw []byte) []byte {
	in := raw[1 : len(raw)-1]
	for _, c := range in {
		if c == '\\' || c >= utf8.RuneSelf {
			return s.strSlow(raw)
		}
	}
	return in
}

func (s *lineDecoder) strSlow(raw []byte) []byte {
	if in := raw[1 : len(raw)-1]; bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
		return in
	}
	// Invalid UTF-8 and lone surrogates (\udc00) become U+FFFD; either
	// is an error of the line, at its column (raw is the value just read).
	var err error
	s.scratch, err = jsontext.AppendUnquote(s.scratch[:0], raw)
	if err != nil {
		s.semf("%s", badUTF8(raw, int(s.dec.InputOffset())-len(raw)))
	}
	return s.scratch
}

// badUTF8 describes the first invalid UTF-8 sequence or lone surrogate
// escape (\ud800 to \udfff not in a pair) of b, a line or, at offset
// start in its line, a JSON string.
func badUTF8(b []byte, start int) string {
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == '\\' && i+1 < len(b) && b[i+1] == 'u':
			r, ok := hex4(b, i+2)
			if !ok || !utf16.IsSurrogate(r) {
				i += 2
				continue
			}
			if r < 0xDC00 && i+7 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
				if r2, ok := hex4(b, i+8); ok && r2 >= 0xDC00 && r2 <= 0xDFFF {
					i += 12 // a pair
					continue
				}
			}
			return fmt.Sprintf("invalid Unicode: lone surrogate %s at column %d (every string must be valid UTF-8)", b[i:i+6], start+i+1)
		case c == '\\':
			i += 2
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return fmt.Sprintf("invalid UTF-8 (byte 0x%02X) at column %d (every string must be valid UTF-8)", c, start+i+1)
			}
			i += size
		}
	}
	return "invalid UTF-8"
}

// hex4 reads the four hex digits at b[i:].
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[i:i+4]), 16, 32)
	return rune(n), err == nil
}

// name reads an object key.
func (s *lineDecoder) name() ([]byte, error) {
	v, err := s.dec.ReadValue()
	if err != nil {
		return nil, err
	}
	return s.str(v), nil
}

// stringOrSkip reads a string, or skips any other value and reports ok false.
func (s *lineDecoder) stringOrSkip() (v []byte, ok bool, err error) {
	if s.dec.PeekKind() == '"' {
		raw, err := s.dec.ReadValue()
		if err != nil {
			return nil, false, err
		}
		return s.str(raw), true, nil
	}
	return nil, false, s.skip(0)
}

// idValue reads an internal id: a string, or an integer written as is.
// Endpoint ids of nodes already read share the node's string; known
// reports that the id is such a node.
func (s *lineDecoder) idValue(what string, endpoint bool) (id string, ok, known bool, err error) {
	var b []byte
	switch s.dec.PeekKind() {
	case '"':
		raw, err := s.dec.ReadValue()
		if err != nil {
			return "", false, false, err
		}
		b = s.str(raw)
	case '0':
		raw, err := s.dec.ReadValue()
		if err != nil {
			return "", false, false, err
		}
		if !isInt(raw) {
			s.semf("%s must be a string or an integer, got number %s", what, raw)
			return "", false, false, nil
		}
		b = raw
	default:
		if err := s.skip(0); err != nil {
			return "", false, false, err
		}
		s.semf("%s must be a string or an integer", what)
		return "", false, false, nil
	}
	if endpoint {
		if seq, ok := idGet(&s.c.nodeSeq, b); ok {
			return s.c.nodeIDs[seq], true, true, nil
		}
	}
	return string(b), true, false, nil
}

// isInt tells a number written without fraction and exponent.
func isInt(lit []byte) bool { return !bytes.ContainsAny(lit, ".eE") }

// endpoint reads a "start" or "end" object and returns its id.
func (s *lineDecoder) endpoint(what, idWhat string) (id string, ok, known bool, err error) {
	if s.dec.PeekKind() != '{' {
		if err := s.skip(0); err != nil {
			return "", false, false, err
		}
		s.semf("%s must be an object", what)
		return "", false, false, nil
	}
	if _, err := s.dec.ReadToken(); err != nil {
		return "", false, false, err
	}
	seenID := false
	for s.dec.PeekKind() != '}' {
		kb, err := s.name()
		if err != nil {
			return "", false, false, err
		}
		if string(kb) == "id" {
			if seenID {
				s.semf(`%s: duplicate key "id"`, what)
			}
			seenID = true
			id, ok, known, err = s.idValue(idWhat, true)
		} else {
			err = s.skip(1)
		}
		if err != nil {
			return "", false, false, err
		}
	}
	if _, err := s.dec.ReadToken(); err != nil {
		return "", false, false, err
	}
	return id, ok, known, nil
}

// labelList reads a list of strings.
func (s *lineDecoder) labelList() ([]string, error) {
	if s.dec.PeekKind() != '[' {
		if err := s.skip(0); err != nil {
			return nil, err
		}
		s.semf(`"labels" must be a list of strings`)
		return nil, nil
	}
	if _, err := s.dec.ReadToken(); err != nil {
		return nil, err
	}
	out := []string{}
	for k := s.dec.PeekKind(); k != ']'; k = s.dec.PeekKind() {
		if k == '"' {
			raw, err := s.dec.ReadValue()
			if err != nil {
				return nil, err
			}
			out = append(out, s.internBytes(s.str(raw)))
			continue
		}
		if err := s.skip(1); err != nil {
			return nil, err
		}
		s.semf(`"labels" must be a list of strings`)
	}
	_, err := s.dec.ReadToken()
	return out, err
}

// properties reads a properties object into a map.
func (s *lineDecoder) properties() (map[string]any, error) {
	switch s.dec.PeekKind() {
	case 'n': // null: no properties
		_, err := s.dec.ReadValue()
		return nil, err
	case '{':
	default:
		if err := s.skip(0); err != nil {
			return nil, err
		}
		s.semf(`"properties" must be an object`)
		return nil, nil
	}
	if _, err := s.dec.ReadToken(); err != nil {
		return nil, err
	}
	pairs := s.pairs[:0]
	nulls := 0
	for s.dec.PeekKind() != '}' {
		kb, err := s.name()
		if err != nil {
			return nil, err
		}
		key := s.internBytes(kb)
		v, null, err := s.propValue(key)
		if err != nil {
			return nil, err
		}
		if null {
			nulls++
		}
		pairs = append(pairs, kv{key, v, null})
	}
	if _, err := s.dec.ReadToken(); err != nil {
		return nil, err
	}
	m := make(map[string]any, len(pairs)-nulls)
	for _, p := range pairs {
		m[p.k] = p.v
	}
	if len(m) != len(pairs) {
		seen := make(map[string]bool, len(pairs))
		for _, p := range pairs {
			if seen[p.k] {
				s.semf("duplicate property %q", p.k)
				break
			}
			seen[p.k] = true
		}
	}
	if nulls > 0 {
		for _, p := range pairs {
			if p.null {
				delete(m, p.k)
			}
		}
	}
	clear(pairs)
	s.pairs = pairs[:0]
	return m, nil
}

// propValue reads one property value. null reports a JSON null.
func (s *lineDecoder) propValue(key string) (v any, null bool, err error) {
	switch s.dec.PeekKind() {
	case '[':
		v, err := s.list(key)
		return v, false, err
	case '{':
		s.semf("property %q: %s", key, msgMap)
		return nil, false, s.skip(0)
	}
	raw, err := s.dec.ReadValue()
	if err != nil {
		return nil, false, err
	}
	switch raw[0] {
	case '"':
		return string(s.str(raw)), false, nil
	case 't':
		return true, false, nil
	case 'f':
		return false, false, nil
	case 'n':
		return nil, true, nil
	}
	return s.number(key, raw), false, nil
}

// number converts a number's text: int64 when it has no fraction and no
// exponent, else float64; nil, with the problem noted, when out of range.
func (s *lineDecoder) number(key string, lit []byte) any {
	if isInt(lit) {
		if n, ok := parseSmallInt(lit); ok {
			return n
		}
		n, err := strconv.ParseInt(string(lit), 10, 64)
		if err != nil {
			s.semf("property %q: integer %s is out of range", key, lit)
			return nil
		}
		return n
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		s.semf("property %q: number %s is not finite in float64 (beyond ±1.8e308)", key, lit)
		return nil
	}
	return f
}

// parseSmallInt parses a valid integer of at most 18 digits.
func parseSmallInt(lit []byte) (int64, bool) {
	neg := false
	if lit[0] == '-' {
		neg, lit = true, lit[1:]
	}
	if len(lit) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range lit {
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// list reads a list property: strings, numbers and booleans.
func (s *lineDecoder) list(key string) (any, error) {
	if _, err := s.dec.ReadToken(); err != nil {
		return nil, err
	}
	items := s.items[:0]
	for k := s.dec.PeekKind(); k != ']'; k = s.dec.PeekKind() {
		switch k {
		case '[':
			s.semf("property %q: %s", key, msgListInList)
			if err := s.skip(1); err != nil {
				return nil, err
			}
			continue
		case '{':
			s.semf("property %q: %s", key, msgMapInList)
			if err := s.skip(1); err != nil {
				return nil, err
			}
			continue
		}
		raw, err := s.dec.ReadValue()
		if err != nil {
			return nil, err
		}
		switch raw[0] {
		case '"':
			if b := s.str(raw); len(b) <= 32 {
				items = append(items, s.internBoxed(b))
			} else {
				items = append(items, string(b))
			}
		case 't':
			items = append(items, true)
		case 'f':
			items = append(items, false)
		case 'n':
			s.semf("property %q: %s", key, msgNullInList)
		default:
			items = append(items, s.number(key, raw))
		}
	}
	if _, err := s.dec.ReadToken(); err != nil {
		return nil, err
	}
	out := make([]any, len(items))
	copy(out, items)
	clear(items)
	s.items = items[:0]
	return out, nil
}

// skip checks and passes over any value; depth is its nesting below the
// value the caller was reading. Values nested deeper than maxDepth are an
// error where they start: just after the ',' or ':' before them, or after
// the '[' and any space before a list's first item.
func (s *lineDecoder) skip(depth int) error {
	if s.shallow {
		return s.dec.SkipValue()
	}
	switch s.dec.PeekKind() {
	case '[':
		if _, err := s.dec.ReadToken(); err != nil {
			return err
		}
		for first := true; ; first = false {
			k := s.dec.PeekKind()
			if k == ']' {
				break
			}
			next := skipSpace(s.line, int(s.dec.InputOffset()))
			if !first {
				// A problem in the delimiter comes first; else the
				// item starts after the ','.
				if k == 0 && (next == len(s.line) || s.line[next] != ',') {
					return s.readErr()
				}
				next++
			}
			if depth == maxDepth {
				return deepErr(next)
			}
			if err := s.skip(depth + 1); err != nil {
				return err
			}
		}
		_, err := s.dec.ReadToken()
		return err
	case '{':
		if _, err := s.dec.ReadToken(); err != nil {
			return err
		}
		for s.dec.PeekKind() != '}' {
			if _, err := s.dec.ReadValue(); err != nil { // the key
				return err
			}
			k := s.dec.PeekKind()
			colon := skipSpace(s.line, int(s.dec.InputOffset()))
			if k == 0 && (colon == len(s.line) || s.line[colon] != ':') {
				return s.readErr()
			}
			if depth == maxDepth {
				return deepErr(colon + 1)
			}
			if err := s.skip(depth + 1); err != nil {
				return err
			}
		}
		_, err := s.dec.ReadToken()
		return err
	}
	_, err := s.dec.ReadValue()
	return err
}

// readErr returns the error a PeekKind met.
func (s *lineDecoder) readErr() error {
	if _, err := s.dec.ReadValue(); err != nil {
		return err
	}
	return errors.New("jsontext: no error after a failed PeekKind")
}

func deepErr(at int) error {
	return &syntaxError{fmt.Sprintf("values nested deeper than %d at column %d", maxDepth, at+1)}
}

// unexpected describes the byte at i: the line's end when i is past it
// or at its final newline.
func unexpected(b []byte, i int, what string) error {
	if i >= len(b) || i == len(b)-1 && b[i] == '\n' {
		return &syntaxError{"unexpected end of line" + what}
	}
	c := b[i]
	var shown string
	if c < utf8.RuneSelf {
		shown = strconv.QuoteRune(rune(c))
	} else {
		r, _ := utf8.DecodeRune(b[i:])
		shown = strconv.QuoteRune(r)
	}
	return &syntaxError{fmt.Sprintf("unexpected %s at column %d%s", shown, i+1, what)}
}

// malformed describes the syntax error that the decoder met in line b.
//
// The message is not taken from jsontext's error, whose wording, offsets
// and error types (internal ones) are not a stable interface. Every call
// that can fail reads one token, or one scalar value, after the last one
// read, so the decoder's state says where the failure starts and what the
// grammar wanted there: InputOffset ends the last token read, and the
// innermost object or array, with how many names and values it has so
// far, tells whether a key, ':', ',' or the closing bracket, or a value,
// comes next. The bytes from there are checked here against that.
func (s *lineDecoder) malformed(b []byte, err error) error {
	if _, ours := err.(*syntaxError); ours {
		return err
	}
	var se *jsontext.SyntacticError
	if !errors.As(err, &se) {
		return &syntaxError{err.Error()} // not expected: not about the syntax
	}
	kind, n := s.dec.StackIndex(s.dec.StackDepth())
	i := skipSpace(b, int(s.dec.InputOffset()))
	var found error
	switch kind {
	case '{':
		if n%2 == 1 { // after a key
			if i == len(b) || b[i] != ':' {
				return unexpected(b, i, " (expected ':')")
			}
			found = scanValue(b, skipSpace(b, i+1), '}')
			break
		}
		if n > 0 {
			if i == len(b) || b[i] != ',' {
				return unexpected(b, i, " (expected ',' or '}')")
			}
			i = skipSpace(b, i+1)
		}
		found = scanKey(b, i)
	case '[':
		if n > 0 {
			if i == len(b) || b[i] != ',' {
				return unexpected(b, i, " (expected ',' or ']')")
			}
			i = skipSpace(b, i+1)
		}
		found = scanValue(b, i, ']')
	}
	if found != nil {
		return found
	}
	// Not expected: the decoder rejects what is checked here as valid.
	return &syntaxError{fmt.Sprintf("%s%v at column %d", disagreeMark, se.Err, se.ByteOffset+1)}
}

// disagreeMark begins the message of a syntax error the decoder reports
// that malformed does not find again; FuzzParse checks there are none.
const disagreeMark = "decoder reports "

// scanKey checks the object key at b[i] and the ':' after it. It returns
// nil when both are valid.
func scanKey(b []byte, i int) error {
	if i == len(b) || b[i] != '"' {
		return unexpected(b, i, " (expected a key)")
	}
	end, err := scanString(b, i)
	if err != nil {
		return err
	}
	if j := skipSpace(b, end); j == len(b) || b[j] != ':' {
		return unexpected(b, j, " (expected ':')")
	}
	return nil
}

// scanValue checks the value at b[i], in an object or array that closes
// with closer, and the byte after it. It returns nil when the value is
// valid or is an object or array (which the decoder reads token by token),
// and the byte after a valid scalar is ',' or closer.
func scanValue(b []byte, i int, closer byte) error {
	if i == len(b) {
		return unexpected(b, i, " (expected a value)")
	}
	var end int
	var err error
	switch c := b[i]; {
	case c == '{' || c == '[':
		return nil
	case c == '"':
		end, err = scanString(b, i)
	case c == '-' || '0' <= c && c <= '9':
		end, err = scanNumber(b, i)
	case c == 't' || c == 'f' || c == 'n':
		end, err = scanLiteral(b, i)
	default:
		return unexpected(b, i, " (expected a value)")
	}
	if err != nil {
		return err
	}
	if j := skipSpace(b, end); j == len(b) || b[j] != ',' && b[j] != closer {
		return unexpected(b, j, fmt.Sprintf(" (expected ',' or '%c')", closer))
	}
	return nil
}

// atLineEnd tells that only the line's end is left from b[i].
func atLineEnd(b []byte, i int) bool {
	switch string(b[i:]) {
	case "", "\n", "\r", "\r\n":
		return true
	}
	return false
}

var errUnterminated = &syntaxError{"unterminated string"}

// scanString checks the string at b[i], which is '"', and returns the
// offset after it.
func scanString(b []byte, i int) (int, error) {
	for j := i + 1; ; {
		if atLineEnd(b, j) {
			return 0, errUnterminated
		}
		switch c := b[j]; {
		case c == '"':
			return j + 1, nil
		case c == '\\':
			if atLineEnd(b, j+1) {
				return 0, errUnterminated
			}
			switch e := b[j+1]; e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				for k := j + 2; k < j+6; k++ {
					if k == len(b) || !isHex(b[k]) {
						return 0, &syntaxError{fmt.Sprintf(`invalid \u escape at column %d`, j+1)}
					}
				}
				j += 6
			default:
				r, _ := utf8.DecodeRune(b[j+1:])
				return 0, &syntaxError{fmt.Sprintf(`invalid escape \%c at column %d`, r, j+1)}
			}
		case c < ' ':
			return 0, unexpected(b, j, " (control characters must be escaped in strings)")
		default:
			j++ // invalid UTF-8 is accepted
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isDigit(b []byte, i int) bool { return i < len(b) && '0' <= b[i] && b[i] <= '9' }

// digits returns the offset after the digits from b[i], at least one.
func digits(b []byte, i int) (int, error) {
	if !isDigit(b, i) {
		return 0, unexpected(b, i, " (expected a digit)")
	}
	for isDigit(b, i) {
		i++
	}
	return i, nil
}

// scanNumber checks the number at b[i] and returns the offset after it.
func scanNumber(b []byte, i int) (int, error) {
	if b[i] == '-' {
		i++
	}
	if isDigit(b, i) && b[i] == '0' {
		i++ // a leading 0 is the whole integer part
	} else if j, err := digits(b, i); err != nil {
		return 0, err
	} else {
		i = j
	}
	var err error
	if i < len(b) && b[i] == '.' {
		if i, err = digits(b, i+1); err != nil {
			return 0, err
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i, err = digits(b, i); err != nil {
			return 0, err
		}
	}
	return i, nil
}

// scanLiteral checks the literal at b[i], shown where it starts when
// wrong, and returns the offset after it.
func scanLiteral(b []byte, i int) (int, error) {
	lit := "null"
	switch b[i] {
	case 't':
		lit = "true"
	case 'f':
		lit = "false"
	}
	if !bytes.HasPrefix(b[i:], []byte(lit)) {
		return 0, unexpected(b, i, " (expected a value)")
	}
	return i + len(lit), nil
}
