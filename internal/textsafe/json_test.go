package textsafe

import (
	"encoding/json"
	"testing"
)

// TestJSON: a string holding U+202E (bidi override), U+200B (zero width),
// U+0085 (C1 NEL), DEL and U+E0041 (a tag character, beyond the BMP)
// encodes with encoding/json raw; through JSON each becomes a \u escape
// (the last the surrogate pair \udb40\udc41), the newline between values
// stays, plain text is untouched, and the result decodes to the same
// string.
func TestJSON(t *testing.T) {
	in := "a\u202eb\u200bc\u0085d\x7fe\U000E0041 ok"
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	got := string(JSON(append(raw, '\n')))
	want := `"a\u202eb\u200bc\u0085d\u007fe\udb40\udc41 ok"` + "\n"
	if got != want {
		t.Fatalf("JSON = %q, want %q", got, want)
	}
	var back string
	if err := json.Unmarshal([]byte(got), &back); err != nil || back != in {
		t.Fatalf("decodes to %q (%v), want %q", back, err, in)
	}
	if plain := []byte(`{"id":"N2006","text":"café"}`); string(JSON(plain)) != string(plain) {
		t.Errorf("plain JSON changed: %s", JSON(plain))
	}
}
