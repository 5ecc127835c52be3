package graph

import (
	"strings"
	"testing"
	"time"
)

// FuzzParseRelCond (make fuzz) holds --rel-where's parser
// (internal/cli/relfilter.go reads each value with ParseRelCond into a
// RelFilter) to what docs/RETRIEVERS.md "Relationship filters" promises,
// on any text:
//
//   - it never panics, and within a second answers a condition or an
//     error, never both (a refusal is the zero RelCond and a message);
//   - an accepted condition has a trimmed, non-empty key, one of the six
//     operators, and a string, an int64 or a finite float64 as its value;
//   - its String, which is the filter's String when the filter holds it
//     alone, parses back to the same condition (a float that is a whole
//     number below 1e6 prints as one and comes back an int64 of the same
//     value, which every comparison treats alike), and that condition's
//     String is the same text, except for -0.0: it says -0, which reads
//     back as the integer 0, which says 0 (a fixed point at the second
//     round, and equal to -0 in every comparison);
//   - both conditions hold on the same property values.
func FuzzParseRelCond(f *testing.F) {
	for _, s := range []string{
		// TestParseRelCond's accepted inputs.
		"attitude>=4", " attitude <= 4.5 ", "kind!=enemy", "a>-1e3", "a<0", `kind="best friend"`, `kind='4'`,
		`kind="4"`, `note="a \"q\" \\ b"`, "x=a=b", `x='=b'`, `x="=b"`, `k=' OR 1=1 //`, "since>=2026-01-01",
		"weird key with spaces=1",
		// and its refused ones.
		"attitude", ">=4", "attitude>=", "a>=1e999", "a>=NaN", "a>=Inf", `a="unterminated\"`, "weight==0.8",
		"weight>>0.5", "kind!==x", "a<=<3", "kind=!enemy", `kind="unclosed`, `kind="`,
		// TestRelCondHolds's conditions.
		"a=4.0", "a>z", "a>\uFFFD", "a<\U0001F601", "a=true", "a>-1",
	} {
		f.Add(s)
	}
	probes := []any{int64(0), int64(4), int64(-1), 4.0, 4.5, -1000.0, 1e21, "", "4", "friend", "best friend", "z", "é", true}
	f.Fuzz(func(t *testing.T, s string) {
		start := time.Now()
		c, err := ParseRelCond(s)
		if d := time.Since(start); d > time.Second {
			t.Fatalf("ParseRelCond took %v on %d bytes", d, len(s))
		}
		if err != nil {
			if c != (RelCond{}) || err.Error() == "" {
				t.Fatalf("refused with %q but answered %#v", err, c)
			}
			return
		}
		if c.Key == "" || c.Key != strings.TrimSpace(c.Key) {
			t.Fatalf("key %q", c.Key)
		}
		switch c.Op {
		case OpGE, OpLE, OpNE, OpGT, OpLT, OpEQ:
		default:
			t.Fatalf("operator %q", c.Op)
		}
		switch v := c.Value.(type) {
		case string, int64:
		case float64:
			if v != v || v-v != 0 {
				t.Fatalf("value %v is not finite", v)
			}
		default:
			t.Fatalf("value %#v of type %T", c.Value, c.Value)
		}
		text := c.String()
		if ft := (RelFilter{Where: []RelCond{c}}).String(); ft != text {
			t.Fatalf("the filter says %q, its condition %q", ft, text)
		}
		back, err := ParseRelCond(text)
		if err != nil {
			t.Fatalf("%q from %q is refused: %v", text, s, err)
		}
		if back.Key != c.Key || back.Op != c.Op || !sameValue(back.Value, c.Value) {
			t.Fatalf("%q (from %q) reads back as %#v, not %#v", text, s, back, c)
		}
		if again := back.String(); again != text {
			// Only a number can say itself two ways (-0.0 says -0, read
			// back as 0); the second description is then the last.
			if _, isString := c.Value.(string); isString {
				t.Fatalf("%q reads back as %#v, which says %q", text, back, again)
			}
			if last, err := ParseRelCond(again); err != nil || last != back {
				t.Fatalf("%q reads back as %#v, which says %q, which reads as %#v (%v)", text, back, again, last, err)
			}
		}
		for _, v := range append(probes, c.Value) {
			if c.Holds(v) != back.Holds(v) {
				t.Fatalf("%#v and %#v disagree on %#v", c, back, v)
			}
		}
	})
}

// sameValue: equal strings, or numbers of equal value.
func sameValue(a, b any) bool {
	num := func(v any) (float64, bool) {
		switch x := v.(type) {
		case int64:
			return float64(x), true
		case float64:
			return x, true
		}
		return 0, false
	}
	if x, ok := num(a); ok {
		y, ok := num(b)
		if ai, aok := a.(int64); aok {
			if bi, bok := b.(int64); bok {
				return ai == bi
			}
		}
		return ok && x == y
	}
	return a == b
}
