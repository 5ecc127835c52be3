package apoc

import (
	"bytes"
	"strings"
	"testing"
)

// TestWriteEscapesWhatActsOnATerminal: a property holding a right-to-left
// override (U+202E), DEL (U+007F), a zero-width space (U+200B), a C1 control
// (U+009B, the one-byte CSI) and a tag character above the BMP (U+E0001)
// is written with each of them as a \u escape (a surrogate pair for
// U+E0001: \udb40\udc01), so no raw byte of them reaches a terminal the
// file is printed to; the file reads back to the very same string, and
// printable non-ASCII (é, 日) stays as it is.
func TestWriteEscapesWhatActsOnATerminal(t *testing.T) {
	text := "a\u202eb\x7fc\u200bd\u009be\U000E0001f é日"
	g := &Graph{Nodes: []Node{{InternalID: "0", Labels: []string{"Event"}, Properties: map[string]any{"id": "N1", "text": text}}}}
	var b bytes.Buffer
	if err := Write(&b, g); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{`a\u202eb\u007fc\u200bd\u009be\udb40\udc01f é日`} {
		if !strings.Contains(out, want) {
			t.Fatalf("written %q, want it to contain %q", out, want)
		}
	}
	for _, raw := range []string{"\u202e", "\x7f", "\u200b", "\u009b", "\U000E0001"} {
		if strings.Contains(out, raw) {
			t.Errorf("raw %q in the output", raw)
		}
	}
	back, err := Parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Nodes[0].Properties["text"]; got != text {
		t.Fatalf("read back %q, want %q", got, text)
	}
}
