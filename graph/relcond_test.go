package graph

import "testing"

// TestParseRelCondSplitNotEqual: `weight ! = 0.8`, a != split by a space,
// is refused. Before, the first operator found was the =, so the key was
// "weight !" and the condition was described as `weight !=0.8`, the
// opposite of what it tested (the key "weight !" equal to 0.8, which no
// relationship has: everything filtered out). A ! inside a key, followed
// by no =, stays a key's character, and the description reads back as the
// same condition.
func TestParseRelCondSplitNotEqual(t *testing.T) {
	for _, s := range []string{"weight ! = 0.8", "weight!  =0.8", "a b !=1"} {
		_, err := ParseRelCond(s)
		if s == "a b !=1" {
			if err != nil {
				t.Errorf("%q: %v", s, err)
			}
			continue
		}
		if err == nil || err.Error() != `property name "weight !" ends with '!' before =: write != with no space inside it` &&
			err.Error() != `property name "weight!" ends with '!' before =: write != with no space inside it` {
			t.Errorf("%q: %v", s, err)
		}
	}
	c, err := ParseRelCond("wow!x = 3")
	if err != nil || c.Key != "wow!x" || c.Op != OpEQ || c.String() != "wow!x=3" {
		t.Fatalf("wow!x = 3: %+v %v", c, err)
	}
	if back, err := ParseRelCond(c.String()); err != nil || back != c {
		t.Errorf("read back %+v %v", back, err)
	}
}
