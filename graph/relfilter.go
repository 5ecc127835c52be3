package graph

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// RelFilter is the relationship hard filter every retriever honours
// (docs/RETRIEVERS.md, "Relationship filters"): a relationship it does not
// keep is not traversed, as if it were not there, except that degrees and
// strengths stay the graph's (a node's d counts it still). The zero value
// keeps every relationship.
//
// A relationship is kept when its type is among Types (any type when Types
// is empty), is not among Exclude, and every condition of Where holds on
// its properties. Each engine applies the one rule: the embedded engine by
// Keep and RelCond.Holds, Neo4j by the predicate graph/neo4jdb builds from
// the same fields, with the keys, values and types as query parameters.
type RelFilter struct {
	Types   []string
	Exclude []string
	Where   []RelCond
}

// CmpOp is a condition's comparison.
type CmpOp string

// The comparisons a condition may make.
const (
	OpGE CmpOp = ">="
	OpLE CmpOp = "<="
	OpNE CmpOp = "!="
	OpGT CmpOp = ">"
	OpLT CmpOp = "<"
	OpEQ CmpOp = "="
)

// ops in the order ParseRelCond tries them: two-rune operators first, so
// that "a>=4" is not read as "a" > "=4".
var ops = []CmpOp{OpGE, OpLE, OpNE, OpGT, OpLT, OpEQ}

// RelCond is one condition on a relationship's property: Key Op Value,
// where Value is an int64, a float64 (finite) or a string.
//
// A condition holds only when the relationship has the property and it is
// of Value's kind: a number (an integer or a float, compared as numbers)
// against a number, a string against a string (compared as Neo4j compares
// strings: by UTF-16 code unit, CompareUTF16). A relationship without the property, or with a value of another
// kind (a string against a number, a list, a boolean), fails every
// comparison, != included. A NaN property fails every comparison too.
type RelCond struct {
	Key   string
	Op    CmpOp
	Value any
}

// Active reports whether f leaves any relationship out.
func (f RelFilter) Active() bool {
	return len(f.Types) > 0 || len(f.Exclude) > 0 || len(f.Where) > 0
}

// KeepsType reports whether f lets relationships of type typ through (its
// conditions aside).
func (f RelFilter) KeepsType(typ string) bool {
	if len(f.Types) > 0 && !slices.Contains(f.Types, typ) {
		return false
	}
	return !slices.Contains(f.Exclude, typ)
}

// Keep reports whether f keeps a relationship of type typ whose property
// key is prop(key) (ok false when it has none).
func (f RelFilter) Keep(typ string, prop func(key string) (any, bool)) bool {
	if !f.KeepsType(typ) {
		return false
	}
	for _, c := range f.Where {
		v, ok := prop(c.Key)
		if !ok || !c.Holds(v) {
			return false
		}
	}
	return true
}

// KeepEdge is Keep for an edge whose Properties are at hand.
func (f RelFilter) KeepEdge(e Edge) bool {
	return f.Keep(e.Type, func(k string) (any, bool) {
		v, ok := e.Properties[k]
		return v, ok && v != nil
	})
}

// Holds reports whether the condition holds for the property value v (see
// RelCond).
func (c RelCond) Holds(v any) bool {
	var order int
	switch want := c.Value.(type) {
	case string:
		s, ok := v.(string)
		if !ok {
			return false
		}
		order = CompareUTF16(s, want)
	case int64:
		switch x := v.(type) {
		case int64:
			order = cmp.Compare(x, want)
		case float64:
			if math.IsNaN(x) {
				return false
			}
			order = cmp.Compare(x, float64(want))
		default:
			return false
		}
	case float64:
		var x float64
		switch y := v.(type) {
		case int64:
			x = float64(y)
		case float64:
			x = y
		default:
			return false
		}
		if math.IsNaN(x) {
			return false
		}
		order = cmp.Compare(x, want)
	default:
		return false
	}
	switch c.Op {
	case OpGE:
		return order >= 0
	case OpLE:
		return order <= 0
	case OpGT:
		return order > 0
	case OpLT:
		return order < 0
	case OpEQ:
		return order == 0
	case OpNE:
		return order != 0
	}
	return false
}

// CompareUTF16 orders strings as Java, and so Neo4j, does: by UTF-16 code
// unit. It differs from Go's byte (code point) order only where a
// character above U+FFFF (a surrogate pair, from U+D800 up) meets one from
// U+E000 to U+FFFF: by code point "😀" (U+1F600) is above "\uFFFD", in
// UTF-16 below it. It returns -1, 0 or 1.
func CompareUTF16(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			return cmp.Compare(int64(utf16Key(ra)), int64(utf16Key(rb)))
		}
		a, b = a[na:], b[nb:]
	}
	return cmp.Compare(int64(len(a)), int64(len(b)))
}

// utf16Key maps a rune to a number in the order of its UTF-16 encoding:
// below U+D800 itself, then the characters a surrogate pair encodes (in
// code point order, as their pairs are), then U+E000 to U+FFFF.
func utf16Key(r rune) int32 {
	switch {
	case r < 0xD800:
		return r
	case r >= 0x10000:
		return 0xD800 + (r - 0x10000)
	}
	return r + 0x200000
}

// String is the condition as ParseRelCond reads it back: the key, the
// operator, and the value (a string quoted, with Go's escapes).
func (c RelCond) String() string {
	v := ""
	switch x := c.Value.(type) {
	case string:
		v = strconv.Quote(x)
	case int64:
		v = strconv.FormatInt(x, 10)
	case float64:
		v = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return c.Key + string(c.Op) + v
}

// String describes f in the flags' words ("" when it keeps everything).
func (f RelFilter) String() string {
	var parts []string
	if len(f.Types) > 0 {
		parts = append(parts, "types "+strings.Join(f.Types, ","))
	}
	if len(f.Exclude) > 0 {
		parts = append(parts, "not "+strings.Join(f.Exclude, ","))
	}
	for _, c := range f.Where {
		parts = append(parts, c.String())
	}
	return strings.Join(parts, " · ")
}

// ParseRelCond reads a condition written KEY OP VALUE (`attitude>=4`,
// `kind=friend`, `kind="best friend"`), OP one of >=, <=, !=, >, <, =, at
// its first occurrence. The key is trimmed and may neither be empty nor
// end with '!' (a != with a space inside it, which String could not write
// back). A value
// in double quotes is a string (Go's escapes inside); one in single quotes
// is the string between them as written; an unquoted value is an integer
// when it reads as one, else a float when it reads as a finite one, else
// the string as written (trimmed), unless it begins with an operator's
// character (a doubled operator, `weight==0.8`) or with a double quote it
// does not close, which are refused (docs/RETRIEVERS.md, "Relationship
// filters"); so is a key ending in ! (`weight ! = 0.8`, a != split by a
// space, which String could not write back apart from `weight != 0.8`). Nothing of the text reaches a query but as a parameter.
func ParseRelCond(s string) (RelCond, error) {
	at, op := -1, CmpOp("")
	for i := 0; i < len(s) && at < 0; i++ {
		for _, o := range ops {
			if strings.HasPrefix(s[i:], string(o)) {
				at, op = i, o
				break
			}
		}
	}
	if at < 0 {
		return RelCond{}, errors.New("no comparison: write KEY OP VALUE with OP one of >= <= != > < =")
	}
	key := strings.TrimSpace(s[:at])
	if key == "" {
		return RelCond{}, errors.New("no property name before " + string(op))
	}
	if strings.HasSuffix(key, "!") {
		// `weight ! = 0.8` read as the key "weight !" equal to 0.8, and
		// was described as `weight !=0.8`, the opposite condition.
		return RelCond{}, fmt.Errorf("property name %q ends with '!' before %s: write != with no space inside it", key, op)
	}
	raw := strings.TrimSpace(s[at+len(op):])
	if raw == "" {
		return RelCond{}, fmt.Errorf("no value after %s", op)
	}
	c := RelCond{Key: key, Op: op}
	switch {
	case len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"':
		v, err := strconv.Unquote(raw)
		if err != nil {
			return RelCond{}, fmt.Errorf("value %s: not a well-formed double-quoted string", raw)
		}
		c.Value = v
	case len(raw) >= 2 && raw[0] == '\'' && raw[len(raw)-1] == '\'':
		c.Value = raw[1 : len(raw)-1]
	case strings.ContainsRune("=<>!", rune(raw[0])):
		// kind==x, weight>>0.5: a string no relationship holds, so
		// every relationship would be filtered out without a word.
		return RelCond{}, fmt.Errorf("value %s begins with %q: write the operator once, or quote the value to compare it as a string", raw, raw[0])
	case raw[0] == '"':
		return RelCond{}, fmt.Errorf("value %s: a double quote without its closing one", raw)
	default:
		if i, err := strconv.ParseInt(raw, 10, 64); err == nil {
			c.Value = i
		} else if f, err := strconv.ParseFloat(raw, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			c.Value = f
		} else if err == nil || isNumberLike(raw) {
			return RelCond{}, fmt.Errorf("value %s: not a finite number (quote it to compare it as a string)", raw)
		} else {
			c.Value = raw
		}
	}
	return c, nil
}

// isNumberLike reports whether raw looks like a number strconv refused
// (one too large for a float64: "1e999"), which is a mistake rather than a
// string.
func isNumberLike(raw string) bool {
	_, err := strconv.ParseFloat(raw, 64)
	var ne *strconv.NumError
	return errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange)
}
