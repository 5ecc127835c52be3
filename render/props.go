package render

import (
	"encoding/json"
	"reflect"
	"strings"
)

// MaxNumberList is the longest list of numbers DisplayProperties keeps;
// longer ones are taken for vectors.
const MaxNumberList = 16

// DisplayProperties returns a shallow copy of props without the values no
// reader wants to see: any property whose key contains "embedding" (in any
// case), and any property whose value is a list of more than MaxNumberList
// numbers (a vector, whatever its key). Lists mixing numbers with other
// values are kept. A nil slice or map value becomes an empty one, so the
// JSON holds [] or {} rather than null. The result is never nil, and props
// is not modified.
func DisplayProperties(props map[string]any) map[string]any {
	out := make(map[string]any, len(props))
	for k, v := range props {
		if strings.Contains(strings.ToLower(k), "embedding") || isLongNumberList(v) {
			continue
		}
		out[k] = nonNil(v)
	}
	return out
}

// nonNil replaces a nil slice or map by an empty one of the same type.
func nonNil(v any) any {
	rv := reflect.ValueOf(v)
	switch {
	case rv.Kind() == reflect.Slice && rv.IsNil():
		return reflect.MakeSlice(rv.Type(), 0, 0).Interface()
	case rv.Kind() == reflect.Map && rv.IsNil():
		return reflect.MakeMap(rv.Type()).Interface()
	}
	return v
}

// isLongNumberList reports whether v is a slice or array of more than
// MaxNumberList elements that are all numbers.
func isLongNumberList(v any) bool {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return false
	}
	if rv.Len() <= MaxNumberList {
		return false
	}
	for i := range rv.Len() {
		if !isNumber(rv.Index(i)) {
			return false
		}
	}
	return true
}

var jsonNumberType = reflect.TypeFor[json.Number]()

func isNumber(v reflect.Value) bool {
	for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return false
		}
		v = v.Elem()
	}
	if v.Type() == jsonNumberType {
		return true
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}
