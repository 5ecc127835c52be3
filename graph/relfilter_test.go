package graph

import (
	"math"
	"strings"
	"testing"
)

// TestParseRelCond: the operator is the first of >=, <=, !=, >, <, = found
// (two-rune ones before their one-rune prefixes); an unquoted value is an
// integer, else a finite float, else a string; quotes make a string. A key
// ending in '!' is refused: "kind! =enemy" would read kind! = enemy, which
// String writes kind!=enemy, the opposite condition (FuzzParseRelCond
// found "! =0").
func TestParseRelCond(t *testing.T) {
	for in, want := range map[string]RelCond{
		"attitude>=4":             {"attitude", OpGE, int64(4)},
		" attitude <= 4.5 ":       {"attitude", OpLE, 4.5},
		"kind!=enemy":             {"kind", OpNE, "enemy"},
		"a>-1e3":                  {"a", OpGT, -1000.0},
		"a<0":                     {"a", OpLT, int64(0)},
		`kind="best friend"`:      {"kind", OpEQ, "best friend"},
		`kind='4'`:                {"kind", OpEQ, "4"},
		`kind="4"`:                {"kind", OpEQ, "4"},
		`note="a \"q\" \\ b"`:     {"note", OpEQ, `a "q" \ b`},
		"x=a=b":                   {"x", OpEQ, "a=b"},
		`x='=b'`:                  {"x", OpEQ, "=b"},
		`x="=b"`:                  {"x", OpEQ, "=b"},
		`k=' OR 1=1 //`:           {"k", OpEQ, "' OR 1=1 //"},
		"since>=2026-01-01":       {"since", OpGE, "2026-01-01"},
		"weird key with spaces=1": {"weird key with spaces", OpEQ, int64(1)},
	} {
		got, err := ParseRelCond(in)
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if got != want {
			t.Errorf("%q: got %#v, want %#v", in, got, want)
		}
	}
	for in, msg := range map[string]string{
		"attitude":          "no comparison",
		">=4":               "no property name",
		"attitude>=":        "no value",
		"a>=1e999":          "not a finite number",
		"a>=NaN":            "not a finite number",
		"a>=Inf":            "not a finite number",
		`a="unterminated\"`: "not a well-formed",
		"weight==0.8":       `value =0.8 begins with '=': write the operator once, or quote the value to compare it as a string`,
		"weight>>0.5":       `value >0.5 begins with '>'`,
		"kind!==x":          `value =x begins with '='`,
		"a<=<3":             `value <3 begins with '<'`,
		"kind=!enemy":       `value !enemy begins with '!'`,
		`kind="unclosed`:    `value "unclosed: a double quote without its closing one`,
		`kind="`:            `value ": a double quote without its closing one`,
		"kind! =enemy":      `property name "kind!" ends with '!' before =: write != with no space inside it`,
		"! =0":              `property name "!" ends with '!'`,
	} {
		if _, err := ParseRelCond(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: error %v, want one saying %q", in, err, msg)
		}
	}
}

// TestRelCondHolds: numbers compare as numbers whatever their kind (4 =
// 4.0); a string compares with a string only, by UTF-16 code unit as
// Neo4j does (so "é" > "z", and U+1F600 < U+FFFD, where code point order
// would put it above; U+1F600 > U+D7FF either way); a
// value of the other kind, a list, a boolean, a NaN and a missing
// property fail every comparison, != included.
func TestRelCondHolds(t *testing.T) {
	c := func(s string) RelCond {
		x, err := ParseRelCond(s)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	cases := []struct {
		cond string
		v    any
		want bool
	}{
		{"a>=4", int64(4), true},
		{"a>=4", 3.999, false},
		{"a>=4", 4.0, true},
		{"a=4", 4.0, true},
		{"a=4.0", int64(4), true},
		{"a!=4", int64(5), true},
		{"a!=4", int64(4), false},
		{"a>4", math.Inf(1), true},
		{"a<4", math.Inf(-1), true},
		{"a>=4", math.NaN(), false},
		{"a<=4", math.NaN(), false},
		{"a!=4", math.NaN(), false},
		{"a=4", math.NaN(), false},
		{"a>=4", "5", false},
		{"a!=4", "5", false},
		{"a=4", "4", false},
		{"a!=x", int64(4), false},
		{"a=x", "x", true},
		{"a!=x", "y", true},
		{"a>z", "é", true},
		{"a<b", "B", true}, // "B" (U+0042) < "b" (U+0062)
		{"a>\uFFFD", "\U0001F600", false},
		{"a<\uFFFD", "\U0001F600", true},
		{"a>\uD7FF", "\U0001F600", true},
		{"a<\U0001F601", "\U0001F600", true},
		{"a<ab", "a", true},
		{"a>=4", []any{int64(5)}, false},
		{"a!=4", []string{}, false},
		{"a!=4", true, false},
		{"a=true", true, false}, // "true" is a string; a boolean is not
		{"a>-1", int64(math.MaxInt64), true},
	}
	for _, k := range cases {
		if got := c(k.cond).Holds(k.v); got != k.want {
			t.Errorf("%s on %#v: %v, want %v", k.cond, k.v, got, k.want)
		}
	}
}

// TestRelFilterKeep: types, then excluded types, then every condition; a
// missing property fails its condition; the zero filter keeps everything.
func TestRelFilterKeep(t *testing.T) {
	props := func(m map[string]any) func(string) (any, bool) {
		return func(k string) (any, bool) { v, ok := m[k]; return v, ok }
	}
	ge4, _ := ParseRelCond("attitude>=4")
	f := RelFilter{Types: []string{"KNOWS", "RELATES"}, Exclude: []string{"RELATES"}, Where: []RelCond{ge4}}
	if !f.Active() || (RelFilter{}).Active() {
		t.Error("Active")
	}
	for _, k := range []struct {
		typ  string
		p    map[string]any
		want bool
	}{
		{"KNOWS", map[string]any{"attitude": int64(5)}, true},
		{"KNOWS", map[string]any{"attitude": int64(3)}, false},
		{"KNOWS", map[string]any{}, false},
		{"RELATES", map[string]any{"attitude": int64(5)}, false}, // excluded
		{"LIKES", map[string]any{"attitude": int64(5)}, false},   // not listed
	} {
		if got := f.Keep(k.typ, props(k.p)); got != k.want {
			t.Errorf("%s %v: %v, want %v", k.typ, k.p, got, k.want)
		}
	}
	if !(RelFilter{}).Keep("ANY", props(nil)) {
		t.Error("the zero filter left a relationship out")
	}
	if got := f.String(); got != "types KNOWS,RELATES · not RELATES · attitude>=4" {
		t.Errorf("String: %q", got)
	}
}
