package graph

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// CanonicalProps is the one key of a property map: two maps get the same
// key exactly when Neo4j would store the same values for them, whichever
// engine or file they were read from. memoria load decides with it which
// relationships of the database are the file's; the Activation Energy
// retriever orders parallel edges that tie by it (activation.EdgeKey,
// docs/ALGORITHM.md rule 4); the tests compare graphs and databases with
// it.
//
// The rule is how Neo4j stores values, which is also how the APOC file
// writes them:
//
//   - An integer and a float are different values, even when equal: Neo4j
//     keeps Integer and Float as distinct property types (valueType says
//     INTEGER or FLOAT, though Cypher's = finds 1 = 1.0), and APOC's export
//     writes them as 1 and 1.0, which read back as an int64 and a float64.
//     So an integer is written as 1 and a float always with a '.' or an
//     exponent, as the APOC file has it: 1.0, 0.25, 1e-07. Every Go integer
//     type is an integer and float32 a float, as the driver sends them.
//   - A list is stored as one typed array, so a list that mixes integers
//     and floats is stored, and keyed, as floats: [1, 2.5] and [1.0, 2.5]
//     have the same key, while [1] (an integer array) and [1.0] (a float
//     array) do not. The element types of a []any and of a []string,
//     []int64, []float64 or []bool do not matter beyond that: []any{"a"}
//     and []string{"a"} alike.
//   - NaN (which Neo4j can store, though not the APOC file memoria writes)
//     is written NaN, and the infinities Infinity and -Infinity: a key must
//     equal itself, so two NaN properties have the same key even though NaN
//     = NaN is not true in Cypher.
//   - Strings are quoted (strconv.Quote), keys sorted. Values Neo4j cannot
//     store as a property (maps, lists of lists, null) still get a
//     deterministic key by the same rules, applied at each level.
func CanonicalProps(props map[string]any) string {
	var b strings.Builder
	canonicalMap(&b, props)
	return b.String()
}

func canonicalMap(b *strings.Builder, props map[string]any) {
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(k))
		b.WriteByte(':')
		canonicalValue(b, props[k], false)
	}
	b.WriteByte('}')
}

// canonicalValue writes v's key; asFloat writes an integer as the float
// Neo4j stores it as in a list that holds floats too.
func canonicalValue(b *strings.Builder, v any, asFloat bool) {
	if n, ok := integer(v); ok {
		if asFloat {
			canonicalFloat(b, float64(n))
		} else {
			b.WriteString(strconv.FormatInt(n, 10))
		}
		return
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case string:
		b.WriteString(strconv.Quote(x))
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case float64:
		canonicalFloat(b, x)
	case float32:
		canonicalFloat(b, float64(x))
	case map[string]any:
		canonicalMap(b, x)
	case []any:
		canonicalList(b, x)
	case []string:
		canonicalList(b, x)
	case []int64:
		canonicalList(b, x)
	case []int:
		canonicalList(b, x)
	case []float64:
		canonicalList(b, x)
	case []bool:
		canonicalList(b, x)
	default:
		fmt.Fprintf(b, "%T(%v)", v, v)
	}
}

func canonicalList[E any](b *strings.Builder, list []E) {
	var ints, floats bool
	for _, e := range list {
		if _, ok := integer(e); ok {
			ints = true
		}
		switch any(e).(type) {
		case float64, float32:
			floats = true
		}
	}
	b.WriteByte('[')
	for i, e := range list {
		if i > 0 {
			b.WriteByte(',')
		}
		canonicalValue(b, e, ints && floats)
	}
	b.WriteByte(']')
}

// integer returns v as an int64 when it is one of Go's integer types (and
// fits).
func integer(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case int32:
		return int64(x), true
	case int16:
		return int64(x), true
	case int8:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint8:
		return int64(x), true
	case uint64:
		return int64(x), x <= math.MaxInt64
	case uint:
		return int64(x), uint64(x) <= math.MaxInt64
	}
	return 0, false
}

// canonicalFloat writes x as encoding/json would (and the APOC file does),
// with ".0" added when that would read as an integer.
func canonicalFloat(b *strings.Builder, x float64) {
	switch {
	case math.IsNaN(x):
		b.WriteString("NaN")
		return
	case math.IsInf(x, 1):
		b.WriteString("Infinity")
		return
	case math.IsInf(x, -1):
		b.WriteString("-Infinity")
		return
	}
	format := byte('f')
	if abs := math.Abs(x); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	s := strconv.FormatFloat(x, format, -1, 64)
	b.WriteString(s)
	if !strings.ContainsAny(s, ".e") {
		b.WriteString(".0")
	}
}
