package cypherlit

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// AppendValue appends v as a Cypher literal: a string as AppendQuote
// writes it, a boolean, an integer, a float in its shortest form that reads
// back as the same float64 (with ".0" added to integral values, so it stays
// a float), or a list of those. These are the values a Neo4j property can
// hold. It fails, naming the problem, on anything else: maps, nested lists,
// nulls inside lists, NaN and infinities.
func AppendValue(b []byte, v any) ([]byte, error) { return appendValue(b, v, true) }

func appendValue(b []byte, v any, top bool) ([]byte, error) {
	switch x := v.(type) {
	case string:
		return AppendQuote(b, x), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case int64:
		return appendCypherInt(b, x), nil
	case int:
		return appendCypherInt(b, int64(x)), nil
	case int32:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int16:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int8:
		return strconv.AppendInt(b, int64(x), 10), nil
	case uint32:
		return strconv.AppendUint(b, uint64(x), 10), nil
	case uint16:
		return strconv.AppendUint(b, uint64(x), 10), nil
	case uint8:
		return strconv.AppendUint(b, uint64(x), 10), nil
	case float64:
		return appendCypherFloat(b, x)
	case float32:
		return appendCypherFloat(b, float64(x))
	case []string:
		return appendCypherList(b, len(x), func(b []byte, i int) ([]byte, error) { return AppendQuote(b, x[i]), nil })
	case []int64:
		return appendCypherList(b, len(x), func(b []byte, i int) ([]byte, error) { return appendCypherInt(b, x[i]), nil })
	case []int:
		return appendCypherList(b, len(x), func(b []byte, i int) ([]byte, error) { return appendCypherInt(b, int64(x[i])), nil })
	case []float64:
		return appendCypherList(b, len(x), func(b []byte, i int) ([]byte, error) { return appendCypherFloat(b, x[i]) })
	case []bool:
		return appendCypherList(b, len(x), func(b []byte, i int) ([]byte, error) { return strconv.AppendBool(b, x[i]), nil })
	case []any:
		if !top {
			return b, errors.New("lists of lists cannot be written")
		}
		return appendCypherList(b, len(x), func(b []byte, i int) ([]byte, error) {
			if x[i] == nil {
				return b, errors.New("a list cannot contain null")
			}
			return appendValue(b, x[i], false)
		})
	}
	return b, fmt.Errorf("cannot write a value of type %T", v)
}

func appendCypherList(b []byte, n int, elem func([]byte, int) ([]byte, error)) ([]byte, error) {
	b = append(b, '[')
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ", "...)
		}
		var err error
		if b, err = elem(b, i); err != nil {
			return b, err
		}
	}
	return append(b, ']'), nil
}

// appendCypherInt writes n; the smallest int64 has no positive literal, so
// it is written as an expression.
func appendCypherInt(b []byte, n int64) []byte {
	if n == math.MinInt64 {
		return append(b, "(-9223372036854775807 - 1)"...)
	}
	return strconv.AppendInt(b, n, 10)
}

// appendCypherFloat writes f in its shortest round-trip form ('g', -1)
// without the exponent's '+', adding ".0" when the result would read back
// as an integer.
func appendCypherFloat(b []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, fmt.Errorf("cannot write %v", f)
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, 'g', -1, 64)
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
	return b, nil
}

// AppendName appends a label, relationship type, property key or index
// name: bare when it is a plain identifier and not a keyword, else between
// backticks (a backtick inside doubled). Cypher has no escapes inside
// backticks, so every other character is written as it is; callers that
// write for a terminal check the name with textsafe.Safe first.
func AppendName(b []byte, name string) []byte {
	if plainName(name) {
		return append(b, name...)
	}
	b = append(b, '`')
	b = append(b, strings.ReplaceAll(name, "`", "``")...)
	return append(b, '`')
}

func plainName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return !cypherKeywords[strings.ToUpper(s)]
}

// cypherKeywords are Cypher's reserved words (Cypher manual, "Reserved
// keywords"), quoted to be safe wherever a name is written.
var cypherKeywords = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Fields(`CALL CREATE DELETE DETACH EXISTS FOREACH LOAD MATCH MERGE
		OPTIONAL REMOVE RETURN SET START UNION UNWIND WITH LIMIT ORDER SKIP WHERE YIELD
		ASC ASCENDING ASSERT BY CSV DESC DESCENDING ON ALL CASE COUNT ELSE END THEN WHEN
		AND AS CONTAINS DISTINCT ENDS IN IS NOT OR STARTS XOR CONSTRAINT DROP INDEX NODE
		KEY UNIQUE JOIN SCAN USING FALSE NULL TRUE ADD DO FOR MANDATORY OF REQUIRE SCALAR`) {
		m[k] = true
	}
	return m
}()
