package graph

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// CanonicalProps renders a property map so that two maps render the same
// exactly when Neo4j finds them identical: equal (Cypher's =) and
// with scalar values of the same type (an integer weight 1 differs from a
// float 1.0); list elements compare by value only ([1] = [1.0]), as Neo4j
// may store a list of numbers with another element type than sent.
// memoria load decides with it which relationships of the database are the
// file's, and the engine-agreement tests which parallel edges are alike.
func CanonicalProps(props map[string]any) string {
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(k))
		b.WriteByte(':')
		canonicalValue(&b, props[k])
	}
	b.WriteByte('}')
	return b.String()
}

func canonicalValue(b *strings.Builder, v any) {
	canonicalElem(b, v, false)
}

func canonicalElem(b *strings.Builder, v any, inList bool) {
	switch x := v.(type) {
	case string:
		b.WriteString(strconv.Quote(x))
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int64:
		if inList && x > -1<<53 && x < 1<<53 {
			b.WriteString("n" + strconv.FormatFloat(float64(x), 'g', -1, 64))
		} else {
			b.WriteString("i" + strconv.FormatInt(x, 10))
		}
	case float64:
		if inList {
			b.WriteString("n" + strconv.FormatFloat(x, 'g', -1, 64))
		} else {
			b.WriteString("f" + strconv.FormatFloat(x, 'g', -1, 64))
		}
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			canonicalElem(b, e, true)
		}
		b.WriteByte(']')
	case []string:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(e))
		}
		b.WriteByte(']')
	default:
		fmt.Fprintf(b, "%T:%v", v, v)
	}
}
