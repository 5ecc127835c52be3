package cli

import (
	"bytes"
	"testing"

	"github.com/memoria-graph/memoria/graph/inmem"
)

// TestStderrProgress: the line for 33 of 66 bytes read (50%: the bar's 24
// cells are the percentage "  50%" and 19 cells, round(19 × 0.5) = 10 of
// them full) with 57 nodes and 3 relationships, drawn over the previous line (\r, erase to the end), then
// cleared when the load ends, so no progress stays in stderr. A path with
// a control character is escaped, a long one keeps its last 31 runes
// after "…" (32 in all).
func TestStderrProgress(t *testing.T) {
	var b bytes.Buffer
	sp := newStderrProgress(&b, "demo\x1b.jsonl")
	sp.report(inmem.Progress{Bytes: 33, Total: 66, Nodes: 57, Rels: 3})
	want := "\r\x1b[Kloading demo\\x1b.jsonl ##########.........  50% 33 B of 66 B · 57 nodes · 3 relationships"
	if got := b.String(); got != want {
		t.Fatalf("line\n%q, want\n%q", got, want)
	}
	b.Reset()
	sp.finish()
	sp.finish() // once only
	if got := b.String(); got != "\r\x1b[K" {
		t.Fatalf("finish wrote %q, want the line erased once", got)
	}
	long := newStderrProgress(&b, "/very/long/path/to/some/directory/with/graphs/wordnet.jsonl")
	if want := "…ctory/with/graphs/wordnet.jsonl"; long.name != want {
		t.Errorf("name %q, want %q", long.name, want)
	}
}
