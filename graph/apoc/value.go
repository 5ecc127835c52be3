package apoc

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/memoria-graph/memoria/internal/cypherlit"
)

// One routine writes property values for both writers: appendValue walks a
// value, and a valueFormat says how each kind is spelt in the output. The
// JSON lines of Write and the Cypher of WriteCypher differ only in how
// strings are quoted, how integers and floats are written and what
// separates list items; the Go types accepted, the errors and the structure
// are the same, and are those the checker accepts (see valueKind).

// valueFormat is how one output spells scalars and lists.
type valueFormat struct {
	str     func(b []byte, s string) []byte
	int     func(b []byte, n int64) []byte
	float   func(b []byte, f float64) []byte
	listSep string
}

// jsonFormat is the JSON of Write: strings as appendString quotes them,
// floats as encoding/json writes them (with ".0" when integral), items
// separated by ",".
var jsonFormat = valueFormat{
	str:     appendString,
	int:     func(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) },
	float:   appendJSONFloat,
	listSep: ",",
}

// cypherFormat is the Cypher of WriteCypher: strings as cypherlit quotes
// them, the smallest int64 as an expression, floats in their shortest form,
// items separated by ", ".
var cypherFormat = valueFormat{
	str:     cypherlit.AppendQuote,
	int:     appendCypherInt,
	float:   appendCypherFloat,
	listSep: ", ",
}

// appendValue writes the property value v: a scalar, or a list of
// scalars (no null, no list inside).
func (f *valueFormat) appendValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case string:
		return f.str(b, x), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case int64:
		return f.int(b, x), nil
	case int:
		return f.int(b, int64(x)), nil
	case int32:
		return f.int(b, int64(x)), nil
	case int16:
		return f.int(b, int64(x)), nil
	case int8:
		return f.int(b, int64(x)), nil
	case uint32:
		return f.int(b, int64(x)), nil
	case uint16:
		return f.int(b, int64(x)), nil
	case uint8:
		return f.int(b, int64(x)), nil
	case float64:
		return f.appendFloat(b, x)
	case float32:
		return f.appendFloat(b, float64(x))
	case []string:
		return f.appendList(b, len(x), func(b []byte, i int) ([]byte, error) { return f.str(b, x[i]), nil })
	case []int64:
		return f.appendList(b, len(x), func(b []byte, i int) ([]byte, error) { return f.int(b, x[i]), nil })
	case []int:
		return f.appendList(b, len(x), func(b []byte, i int) ([]byte, error) { return f.int(b, int64(x[i])), nil })
	case []float64:
		return f.appendList(b, len(x), func(b []byte, i int) ([]byte, error) { return f.appendFloat(b, x[i]) })
	case []bool:
		return f.appendList(b, len(x), func(b []byte, i int) ([]byte, error) { return strconv.AppendBool(b, x[i]), nil })
	case []any:
		return f.appendList(b, len(x), func(b []byte, i int) ([]byte, error) {
			switch valueKind(x[i]) {
			case kindNull:
				return b, errors.New("a list cannot contain null")
			case kindList:
				return b, errors.New("lists of lists cannot be written")
			}
			return f.appendValue(b, x[i])
		})
	}
	return b, fmt.Errorf("cannot write a value of type %T", v)
}

// The kinds of property values, as Neo4j types them (integers and floats
// are both numbers); kindOther is a Go type neither writer handles.
const (
	kindNull   = "null"
	kindString = "string"
	kindBool   = "boolean"
	kindNumber = "number"
	kindList   = "list"
	kindMap    = "map"
	kindOther  = "other"
)

// valueKind is the kind of a property value. Its cases are exactly the Go
// types appendValue writes (and maps), so the checker accepts what the
// writers can write.
func valueKind(v any) string {
	switch v.(type) {
	case nil:
		return kindNull
	case string:
		return kindString
	case bool:
		return kindBool
	case int64, int, int32, int16, int8, uint32, uint16, uint8, float64, float32:
		return kindNumber
	case []any, []string, []int64, []int, []float64, []bool:
		return kindList
	case map[string]any:
		return kindMap
	}
	return kindOther
}

func (f *valueFormat) appendList(b []byte, n int, elem func([]byte, int) ([]byte, error)) ([]byte, error) {
	b = append(b, '[')
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, f.listSep...)
		}
		var err error
		if b, err = elem(b, i); err != nil {
			return b, err
		}
	}
	return append(b, ']'), nil
}

// appendFloat refuses NaN and the infinities, which neither output can
// hold, and writes the others with f.float.
func (f *valueFormat) appendFloat(b []byte, x float64) ([]byte, error) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return b, fmt.Errorf("cannot write %v", x)
	}
	return f.float(b, x), nil
}

// appendJSONFloat writes x as encoding/json does, then adds ".0" when the
// result would read back as an integer.
func appendJSONFloat(b []byte, x float64) []byte {
	format := byte('f')
	if abs := math.Abs(x); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(b)
	b = strconv.AppendFloat(b, x, format, -1, 64)
	for _, c := range b[start:] {
		if c == '.' || c == 'e' {
			return b
		}
	}
	return append(b, ".0"...)
}

// appendCypherInt writes n; the smallest int64 has no positive literal, so
// it is written as an expression.
func appendCypherInt(b []byte, n int64) []byte {
	if n == math.MinInt64 {
		return append(b, "(-9223372036854775807 - 1)"...)
	}
	return strconv.AppendInt(b, n, 10)
}

// appendCypherFloat writes x in its shortest round-trip form ('g', -1)
// without the exponent's '+', adding ".0" when the result would read back
// as an integer.
func appendCypherFloat(b []byte, x float64) []byte {
	start := len(b)
	b = strconv.AppendFloat(b, x, 'g', -1, 64)
	float := false
	for i := start; i < len(b); i++ {
		switch b[i] {
		case '.':
			float = true
		case 'e':
			float = true
			if i+1 < len(b) && b[i+1] == '+' {
				b = append(b[:i+1], b[i+2:]...)
			}
		}
	}
	if !float {
		b = append(b, ".0"...)
	}
	return b
}

// AppendCypherValue appends the property value v as a Cypher literal, as
// WriteCypher writes it: a string quoted by internal/cypherlit, a boolean,
// an integer, a float in its shortest form that reads back the same (".0"
// added to integral ones), or a list of those. Anything else (maps, nested
// lists, nulls in lists, NaN and infinities) is an error naming the
// problem. The debug Cypher of render pins relationships with it.
func AppendCypherValue(b []byte, v any) ([]byte, error) { return cypherFormat.appendValue(b, v) }
