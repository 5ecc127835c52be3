package apoc

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// The line parser is a small hand-written JSON reader: encoding/json through
// map[string]any is several times slower on a million lines, cannot tell 1
// from 1.0, and cannot say which line's property is wrong.

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

// maxDepth bounds the nesting of values the parser skips.
const maxDepth = 512

// maxInterned bounds the table of shared strings (keys, labels, types, and
// short strings inside lists such as tags).
const maxInterned = 1 << 16

type scanner struct {
	b       []byte
	pos     int
	scratch []byte
	intern  map[string]string
	// internAny holds boxed shared strings, so list items need no allocation.
	internAny map[string]any
	// sem is the first problem on the line that is not a syntax error.
	sem   string
	pairs []kv
	items []any
	// d, when set, resolves endpoint ids to the strings of known nodes.
	d *decoder
}

type kv struct {
	k    string
	v    any
	null bool
}

type syntaxError struct{ msg string }

func (e *syntaxError) Error() string { return "malformed JSON: " + e.msg }

func (s *scanner) semf(format string, args ...any) {
	if s.sem == "" {
		s.sem = fmt.Sprintf(format, args...)
	}
}

// unexpected describes the byte at the current position.
func (s *scanner) unexpected(what string) error {
	if s.pos >= len(s.b) || s.pos == len(s.b)-1 && s.b[s.pos] == '\n' {
		return &syntaxError{"unexpected end of line" + what}
	}
	c := s.b[s.pos]
	var shown string
	if c < utf8.RuneSelf {
		shown = strconv.QuoteRune(rune(c))
	} else {
		r, _ := utf8.DecodeRune(s.b[s.pos:])
		shown = strconv.QuoteRune(r)
	}
	return &syntaxError{fmt.Sprintf("unexpected %s at column %d%s", shown, s.pos+1, what)}
}

func (s *scanner) ws() {
	for s.pos < len(s.b) {
		switch s.b[s.pos] {
		case ' ', '\t', '\r', '\n':
			s.pos++
		default:
			return
		}
	}
}

func (s *scanner) peek() byte {
	if s.pos < len(s.b) {
		return s.b[s.pos]
	}
	return 0
}

// expect consumes c after optional whitespace.
func (s *scanner) expect(c byte, what string) error {
	s.ws()
	if s.peek() != c {
		return s.unexpected(what)
	}
	s.pos++
	return nil
}

func (s *scanner) internBytes(b []byte) string {
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
func (s *scanner) internBoxed(b []byte) any {
	if v, ok := s.internAny[string(b)]; ok {
		return v
	}
	var v any = s.internBytes(b)
	if len(s.internAny) < maxInterned {
		s.internAny[v.(string)] = v
	}
	return v
}

// parseLine parses one line. Errors are complete messages without the line.
func (s *scanner) parseLine(b []byte) (element, error) {
	s.b, s.pos, s.sem = b, 0, ""
	s.ws()
	if s.pos == len(s.b) {
		return element{kind: kindBlank}, nil
	}
	if s.peek() != '{' {
		return element{}, s.unexpected(" (each line must be one JSON object)")
	}
	s.pos++

	const (
		fType = 1 << iota
		fID
		fLabels
		fLabel
		fProps
		fStart
		fEnd
	)
	var (
		seen       int
		typ        string
		typOK      bool
		id         string
		idOK       bool
		labels     []string
		label      string
		labelOK    bool
		props      map[string]any
		start, end string
		startOK    bool
		endOK      bool
		startKnown bool
		endKnown   bool
	)
	s.ws()
	if s.peek() == '}' {
		s.pos++
	} else {
		for {
			s.ws()
			if s.peek() != '"' {
				return element{}, s.unexpected(" (expected a key)")
			}
			kb, err := s.str()
			if err != nil {
				return element{}, err
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
			if bit != 0 && seen&bit != 0 {
				s.semf("duplicate key %q", kb)
			}
			seen |= bit
			if err := s.expect(':', " (expected ':')"); err != nil {
				return element{}, err
			}
			s.ws()
			switch bit {
			case fType:
				var v []byte
				v, typOK, err = s.stringOrSkip()
				if typOK {
					typ = s.internBytes(v)
				} else if err == nil {
					s.semf(`"type" must be a string`)
				}
			case fID:
				id, idOK, _, err = s.idValue(`"id"`, false)
			case fLabels:
				labels, err = s.labels()
			case fLabel:
				var v []byte
				v, labelOK, err = s.stringOrSkip()
				if labelOK {
					label = s.internBytes(v)
				} else if err == nil {
					s.semf(`"label" must be a string`)
				}
			case fProps:
				props, err = s.properties()
			case fStart:
				start, startOK, startKnown, err = s.endpoint(`"start"`)
			case fEnd:
				end, endOK, endKnown, err = s.endpoint(`"end"`)
			default:
				err = s.skip(0)
			}
			if err != nil {
				return element{}, err
			}
			s.ws()
			if s.peek() == ',' {
				s.pos++
				continue
			}
			if s.peek() == '}' {
				s.pos++
				break
			}
			return element{}, s.unexpected(" (expected ',' or '}')")
		}
	}
	s.ws()
	if s.pos != len(s.b) {
		return element{}, s.unexpected(" after the object")
	}

	// The line is well-formed JSON; now check what it says.
	var kind elementKind
	switch {
	case seen&fType == 0:
		return element{}, errors.New(`missing "type"`)
	case !typOK:
		return element{}, errors.New(`"type" must be a string`)
	case typ == "node":
		kind = kindNode
	case typ == "relationship":
		kind = kindRel
	default:
		return element{}, fmt.Errorf(`unknown type %q (want "node" or "relationship")`, typ)
	}
	if seen&fID == 0 {
		return element{}, fmt.Errorf(`%s without "id"`, typ)
	}
	if !idOK {
		if s.sem == "" {
			s.sem = `"id" must be a string or an integer`
		}
		return element{}, fmt.Errorf("%s: %s", typ, s.sem)
	}
	if id == "" {
		return element{}, fmt.Errorf(`%s with an empty "id"`, typ)
	}
	name := typ + " " + showID(id)
	if s.sem != "" {
		return element{}, fmt.Errorf("%s: %s", name, s.sem)
	}
	if props == nil {
		props = make(map[string]any)
	}
	if kind == kindNode {
		if labels == nil {
			labels = []string{}
		}
		return element{kind: kindNode, node: Node{InternalID: id, Labels: labels, Properties: props}}, nil
	}
	switch {
	case seen&fLabel == 0:
		return element{}, fmt.Errorf(`%s: missing "label" (the relationship type)`, name)
	case label == "":
		return element{}, fmt.Errorf(`%s: empty "label"`, name)
	case seen&fStart == 0:
		return element{}, fmt.Errorf(`%s: missing "start"`, name)
	case seen&fEnd == 0:
		return element{}, fmt.Errorf(`%s: missing "end"`, name)
	case !startOK:
		return element{}, fmt.Errorf(`%s: "start" has no "id"`, name)
	case !endOK:
		return element{}, fmt.Errorf(`%s: "end" has no "id"`, name)
	}
	return element{kind: kindRel, rel: Relationship{InternalID: id, Type: label, Start: start, End: end, Properties: props},
		startKnown: startKnown, endKnown: endKnown}, nil
}

// stringOrSkip reads a string, or skips any other value and reports ok false.
func (s *scanner) stringOrSkip() (v []byte, ok bool, err error) {
	if s.peek() == '"' {
		v, err = s.str()
		return v, err == nil, err
	}
	return nil, false, s.skip(0)
}

// idValue reads an internal id: a string, or an integer written as is.
// Endpoint ids of nodes already read share the node's string.
// known reports that the id is a node already read.
func (s *scanner) idValue(what string, endpoint bool) (id string, ok, known bool, err error) {
	var b []byte
	switch c := s.peek(); {
	case c == '"':
		v, err := s.str()
		if err != nil {
			return "", false, false, err
		}
		b = v
	case c == '-' || c >= '0' && c <= '9':
		lit, isInt, err := s.number()
		if err != nil {
			return "", false, false, err
		}
		if !isInt {
			s.semf("%s must be a string or an integer, got number %s", what, lit)
			return "", false, false, nil
		}
		b = lit
	default:
		if err := s.skip(0); err != nil {
			return "", false, false, err
		}
		s.semf("%s must be a string or an integer", what)
		return "", false, false, nil
	}
	if endpoint && s.d != nil {
		if seq, ok := idGet(&s.d.nodeSeq, b); ok {
			return s.d.nodeIDs[seq], true, true, nil
		}
	}
	return string(b), true, false, nil
}

// endpoint reads a "start" or "end" object and returns its id.
func (s *scanner) endpoint(what string) (id string, ok, known bool, err error) {
	if s.peek() != '{' {
		if err := s.skip(0); err != nil {
			return "", false, false, err
		}
		s.semf("%s must be an object", what)
		return "", false, false, nil
	}
	s.pos++
	s.ws()
	if s.peek() == '}' {
		s.pos++
		return "", false, false, nil
	}
	seenID := false
	for {
		s.ws()
		if s.peek() != '"' {
			return "", false, false, s.unexpected(" (expected a key)")
		}
		kb, err := s.str()
		if err != nil {
			return "", false, false, err
		}
		isID := string(kb) == "id"
		if err := s.expect(':', " (expected ':')"); err != nil {
			return "", false, false, err
		}
		s.ws()
		if isID {
			if seenID {
				s.semf(`%s: duplicate key "id"`, what)
			}
			seenID = true
			id, ok, known, err = s.idValue(what+` "id"`, true)
		} else {
			err = s.skip(1)
		}
		if err != nil {
			return "", false, false, err
		}
		s.ws()
		switch s.peek() {
		case ',':
			s.pos++
			continue
		case '}':
			s.pos++
			return id, ok, known, nil
		}
		return "", false, false, s.unexpected(" (expected ',' or '}')")
	}
}

// labels reads a list of strings.
func (s *scanner) labels() ([]string, error) {
	if s.peek() != '[' {
		if err := s.skip(0); err != nil {
			return nil, err
		}
		s.semf(`"labels" must be a list of strings`)
		return nil, nil
	}
	s.pos++
	out := []string{}
	s.ws()
	if s.peek() == ']' {
		s.pos++
		return out, nil
	}
	for {
		s.ws()
		if s.peek() == '"' {
			v, err := s.str()
			if err != nil {
				return nil, err
			}
			out = append(out, s.internBytes(v))
		} else {
			if err := s.skip(1); err != nil {
				return nil, err
			}
			s.semf(`"labels" must be a list of strings`)
		}
		s.ws()
		switch s.peek() {
		case ',':
			s.pos++
			continue
		case ']':
			s.pos++
			return out, nil
		}
		return nil, s.unexpected(" (expected ',' or ']')")
	}
}

// properties reads a properties object into a map.
func (s *scanner) properties() (map[string]any, error) {
	if s.peek() != '{' {
		if s.peek() == 'n' { // null: no properties
			return nil, s.literal("null")
		}
		if err := s.skip(0); err != nil {
			return nil, err
		}
		s.semf(`"properties" must be an object`)
		return nil, nil
	}
	s.pos++
	pairs := s.pairs[:0]
	s.ws()
	if s.peek() == '}' {
		s.pos++
		return make(map[string]any), nil
	}
	nulls := 0
	for {
		s.ws()
		if s.peek() != '"' {
			return nil, s.unexpected(" (expected a key)")
		}
		kb, err := s.str()
		if err != nil {
			return nil, err
		}
		key := s.internBytes(kb)
		if err := s.expect(':', " (expected ':')"); err != nil {
			return nil, err
		}
		s.ws()
		v, null, err := s.propValue(key)
		if err != nil {
			return nil, err
		}
		if null {
			nulls++
		}
		pairs = append(pairs, kv{key, v, null})
		s.ws()
		if s.peek() == ',' {
			s.pos++
			continue
		}
		if s.peek() == '}' {
			s.pos++
			break
		}
		return nil, s.unexpected(" (expected ',' or '}')")
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
func (s *scanner) propValue(key string) (v any, null bool, err error) {
	switch c := s.peek(); {
	case c == '"':
		b, err := s.str()
		if err != nil {
			return nil, false, err
		}
		return string(b), false, nil
	case c == '[':
		return s.list(key)
	case c == '{':
		s.semf("property %q is a map; Neo4j properties cannot be maps", key)
		return nil, false, s.skip(0)
	case c == 't':
		return true, false, s.literal("true")
	case c == 'f':
		return false, false, s.literal("false")
	case c == 'n':
		return nil, true, s.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return s.numberValue(key)
	}
	return nil, false, s.unexpected(" (expected a value)")
}

func (s *scanner) numberValue(key string) (any, bool, error) {
	lit, isInt, err := s.number()
	if err != nil {
		return nil, false, err
	}
	if isInt {
		if n, ok := parseSmallInt(lit); ok {
			return n, false, nil
		}
		n, perr := strconv.ParseInt(string(lit), 10, 64)
		if perr != nil {
			s.semf("property %q: integer %s is out of range", key, lit)
			return nil, false, nil
		}
		return n, false, nil
	}
	f, perr := strconv.ParseFloat(string(lit), 64)
	if perr != nil {
		s.semf("property %q: number %s is out of range", key, lit)
		return nil, false, nil
	}
	return f, false, nil
}

// parseSmallInt parses a validated integer literal of at most 18 digits.
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
func (s *scanner) list(key string) (any, bool, error) {
	s.pos++
	items := s.items[:0]
	s.ws()
	if s.peek() == ']' {
		s.pos++
		return []any{}, false, nil
	}
	for {
		s.ws()
		switch c := s.peek(); {
		case c == '"':
			b, err := s.str()
			if err != nil {
				return nil, false, err
			}
			if len(b) <= 32 {
				items = append(items, s.internBoxed(b))
			} else {
				items = append(items, string(b))
			}
		case c == 't':
			if err := s.literal("true"); err != nil {
				return nil, false, err
			}
			items = append(items, true)
		case c == 'f':
			if err := s.literal("false"); err != nil {
				return nil, false, err
			}
			items = append(items, false)
		case c == 'n':
			if err := s.literal("null"); err != nil {
				return nil, false, err
			}
			s.semf("property %q: a list cannot contain null", key)
		case c == '[':
			s.semf("property %q is a list of lists; Neo4j properties cannot be", key)
			if err := s.skip(1); err != nil {
				return nil, false, err
			}
		case c == '{':
			s.semf("property %q contains a map; Neo4j properties cannot", key)
			if err := s.skip(1); err != nil {
				return nil, false, err
			}
		case c == '-' || c >= '0' && c <= '9':
			v, _, err := s.numberValue(key)
			if err != nil {
				return nil, false, err
			}
			items = append(items, v)
		default:
			return nil, false, s.unexpected(" (expected a value)")
		}
		s.ws()
		if s.peek() == ',' {
			s.pos++
			continue
		}
		if s.peek() == ']' {
			s.pos++
			break
		}
		return nil, false, s.unexpected(" (expected ',' or ']')")
	}
	out := make([]any, len(items))
	copy(out, items)
	clear(items)
	s.items = items[:0]
	return out, false, nil
}

func (s *scanner) literal(want string) error {
	if len(s.b)-s.pos >= len(want) && string(s.b[s.pos:s.pos+len(want)]) == want {
		s.pos += len(want)
		return nil
	}
	return s.unexpected(" (expected a value)")
}

// number reads a number literal by the JSON grammar; isInt is true when it
// has no fraction and no exponent.
func (s *scanner) number() (lit []byte, isInt bool, err error) {
	start := s.pos
	b := s.b
	i := s.pos
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		s.pos = i
		return nil, false, s.unexpected(" (expected a digit)")
	}
	isInt = true
	if i < len(b) && b[i] == '.' {
		isInt = false
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			s.pos = i
			return nil, false, s.unexpected(" (expected a digit)")
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		isInt = false
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			s.pos = i
			return nil, false, s.unexpected(" (expected a digit)")
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	s.pos = i
	return b[start:i], isInt, nil
}

// skip checks and passes over any value.
func (s *scanner) skip(depth int) error {
	if depth > maxDepth {
		return &syntaxError{fmt.Sprintf("values nested deeper than %d at column %d", maxDepth, s.pos+1)}
	}
	s.ws()
	switch c := s.peek(); {
	case c == '"':
		_, err := s.str()
		return err
	case c == '-' || c >= '0' && c <= '9':
		_, _, err := s.number()
		return err
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '[':
		s.pos++
		s.ws()
		if s.peek() == ']' {
			s.pos++
			return nil
		}
		for {
			if err := s.skip(depth + 1); err != nil {
				return err
			}
			s.ws()
			switch s.peek() {
			case ',':
				s.pos++
				continue
			case ']':
				s.pos++
				return nil
			}
			return s.unexpected(" (expected ',' or ']')")
		}
	case c == '{':
		s.pos++
		s.ws()
		if s.peek() == '}' {
			s.pos++
			return nil
		}
		for {
			s.ws()
			if s.peek() != '"' {
				return s.unexpected(" (expected a key)")
			}
			if _, err := s.str(); err != nil {
				return err
			}
			if err := s.expect(':', " (expected ':')"); err != nil {
				return err
			}
			if err := s.skip(depth + 1); err != nil {
				return err
			}
			s.ws()
			switch s.peek() {
			case ',':
				s.pos++
				continue
			case '}':
				s.pos++
				return nil
			}
			return s.unexpected(" (expected ',' or '}')")
		}
	}
	return s.unexpected(" (expected a value)")
}

// str reads a string at s.pos (which holds '"') and returns its decoded
// bytes, valid until the next call. Invalid UTF-8 and lone surrogates become
// U+FFFD, as encoding/json does.
func (s *scanner) str() ([]byte, error) {
	b := s.b
	start := s.pos + 1
	ascii := true
	for i := start; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			raw := b[start:i]
			if !ascii && !utf8.Valid(raw) {
				return s.strSlow(start)
			}
			s.pos = i + 1
			return raw, nil
		case c == '\\':
			return s.strSlow(start)
		case c < 0x20:
			return nil, s.controlChar(i)
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	s.pos = len(b)
	return nil, &syntaxError{"unterminated string"}
}

// controlChar reports the control character at i inside a string: the
// line's end means the string is not closed.
func (s *scanner) controlChar(i int) error {
	s.pos = i
	if rest := string(s.b[i:]); rest == "\n" || rest == "\r\n" || rest == "\r" {
		return &syntaxError{"unterminated string"}
	}
	return s.unexpected(" (control characters must be escaped in strings)")
}

func (s *scanner) strSlow(start int) ([]byte, error) {
	b := s.b
	out := s.scratch[:0]
	i := start
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			s.pos = i + 1
			s.scratch = out
			return out, nil
		case c == '\\':
			if i+1 >= len(b) {
				s.pos = len(b)
				return nil, &syntaxError{"unterminated string"}
			}
			switch e := b[i+1]; e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := hex4(b[i+2:])
				if !ok {
					s.pos = i
					return nil, &syntaxError{fmt.Sprintf(`invalid \u escape at column %d`, i+1)}
				}
				i += 6
				if utf16.IsSurrogate(r) {
					r2, ok2 := rune(0), false
					if r < 0xDC00 && i+1 < len(b) && b[i] == '\\' && b[i+1] == 'u' {
						r2, ok2 = hex4(b[i+2:])
					}
					if ok2 && r2 >= 0xDC00 && r2 < 0xE000 {
						r = utf16.DecodeRune(r, r2)
						i += 6
					} else {
						r = utf8.RuneError
					}
				}
				out = utf8.AppendRune(out, r)
				continue
			default:
				s.pos = i
				return nil, &syntaxError{fmt.Sprintf(`invalid escape \%c at column %d`, e, i+1)}
			}
			i += 2
		case c < 0x20:
			s.scratch = out
			return nil, s.controlChar(i)
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, b[i:i+size]...)
			}
			i += size
		}
	}
	s.scratch = out
	s.pos = len(b)
	return nil, &syntaxError{"unterminated string"}
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
