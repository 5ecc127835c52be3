package eval

import (
	"encoding/json"
	"fmt"
	"github.com/memoria-graph/memoria/testkit/endless"
	"runtime"
	"strings"
	"testing"
)

// allocated is the bytes f allocated (runtime.MemStats.TotalAlloc).
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestReadLimits: a query set or qrels file without end is refused while
// it is read, naming the limit and the line: one endless line (/dev/zero)
// at the line limit, endless lines at the file limit. Before, a file of
// endless blank lines was read for ever (and the CLI read every file whole
// first: `eval --queries /dev/zero` reached 6.7 GB).
//
// Expected: a line of NUL bytes is refused on line 1 once it passes
// MaxQueryLine (16 MiB) or MaxQrelsLine (1 MiB), having read at most the
// line limit and one read's buffer more (the scanner reads in chunks of
// at most its buffer), and allocated at most about twice the line limit
// (the scanner's buffer doubles up to the limit: 64 KiB + 128 KiB + … +
// 16 MiB < 32 MiB). A file of 64-byte blank lines (63 spaces and a
// newline) is refused at the file limit, line limit/64 + 1: with the
// limit 1 MiB that is line 16385, and at most the limit is read.
func TestReadLimits(t *testing.T) {
	zeros := &endless.Reader{Pattern: []byte{0}, Stop: 4 * MaxQueryLine}
	var err error
	n := allocated(func() { _, err = ParseQueries(zeros) })
	if err == nil || err.Error() != "line 1: longer than 16 MiB, the longest line of a query set" {
		t.Errorf("endless line: %v", err)
	}
	if zeros.Served > MaxQueryLine+MaxQueryLine/2 || n > 2*MaxQueryLine+1<<20 {
		t.Errorf("endless line: read %d bytes and allocated %d, want at most about 16 MiB and 32 MiB", zeros.Served, n)
	}

	zeros = &endless.Reader{Pattern: []byte{0}, Stop: 4 * MaxQrelsLine}
	n = allocated(func() { _, err = ParseQrels(zeros) })
	if err == nil || err.Error() != "line 1: longer than 1 MiB, the longest line of a qrels file" {
		t.Errorf("qrels, endless line: %v", err)
	}
	if zeros.Served > MaxQrelsLine+MaxQrelsLine/2 || n > 2*MaxQrelsLine+1<<20 {
		t.Errorf("qrels, endless line: read %d bytes and allocated %d, want at most about 1 MiB and 2 MiB", zeros.Served, n)
	}

	blank := []byte(strings.Repeat(" ", 63) + "\n")
	for _, c := range []struct {
		what  string
		parse func(*endless.Reader) error
	}{
		{"query set", func(r *endless.Reader) error { _, err := parseQueries(r, 1<<10, 1<<20); return err }},
		{"qrels file", func(r *endless.Reader) error { _, err := parseQrels(r, 1<<10, 1<<20); return err }},
	} {
		lines := &endless.Reader{Pattern: blank, Stop: 4 << 20}
		err := c.parse(lines)
		want := fmt.Sprintf("line 16385: the file goes on past 1 MiB, the largest %s memoria reads", c.what)
		if err == nil || err.Error() != want {
			t.Errorf("%s of endless blank lines: %v, want %s", c.what, err, want)
		}
		if lines.Served > 1<<20+1 { // the limit and the byte that told it was passed

			t.Errorf("%s of endless blank lines: read %d bytes, past the limit", c.what, lines.Served)
		}
	}
	// The exported readers hold the documented limits.
	if MaxQueryFile != 1<<30 || MaxQrelsFile != 1<<30 || MaxQueryLine != 16<<20 || MaxQrelsLine != 1<<20 {
		t.Errorf("limits %d %d %d %d differ from docs/EVALUATION.md", MaxQueryLine, MaxQueryFile, MaxQrelsLine, MaxQrelsFile)
	}
}

// TestFileOfExactlyTheLimit: a file of exactly the limit is read whole; one
// byte more is refused (capped tells the two apart).
func TestFileOfExactlyTheLimit(t *testing.T) {
	line := `{"id": "q1", "seeds": [{"node_id": "A", "score": 1}], "relevant": {"B": 1}}` + "\n"
	if _, err := parseQueries(strings.NewReader(line), 1<<10, int64(len(line))); err != nil {
		t.Errorf("a file of exactly the limit: %v", err)
	}
	if _, err := parseQueries(strings.NewReader(line+" "), 1<<10, int64(len(line))); err == nil || !strings.Contains(err.Error(), "goes on past") {
		t.Errorf("a byte past the limit: %v", err)
	}
}

// TestBOMSkipped: a UTF-8 BOM at the start of a query set or a qrels file
// is skipped (docs/CLI.md, "Input files": the rule of every file, as the
// --graph reader has it). Before, the qrels' first qid was "\uFEFFq1",
// which no query has, so its judgment was dropped as a query not run, and
// the query set was refused as not JSON.
//
// Expected: the query q1 judges B (grade 1) in the query set and C
// (grade 2) in the qrels: after Judge, q1's relevant are B 1 and C 2, and
// no qrels' query is unknown.
func TestBOMSkipped(t *testing.T) {
	qs, err := ParseQueries(strings.NewReader("\uFEFF" + `{"id": "q1", "seeds": [{"node_id": "A", "score": 1}], "relevant": {"B": 1}}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	qrels, err := ParseQrels(strings.NewReader("\uFEFFq1 0 C 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	judged, unknown, err := Judge(qs, qrels)
	if err != nil || len(unknown) != 0 || len(judged[0].Relevant) != 2 || judged[0].Relevant["C"] != 2 || judged[0].Relevant["B"] != 1 {
		t.Errorf("judged %+v, unknown %q, %v", judged, unknown, err)
	}
}

// TestControlCharactersInIDs: a query id or a node id with a control
// character is refused wherever a TREC file would hold it: trec_eval ends
// a field at a NUL, so "q1\x00x" was read back as "q1", and an ESC reached
// the terminal of whoever printed the file. Before, only white space was
// refused.
func TestControlCharactersInIDs(t *testing.T) {
	for _, id := range []string{"q1\x00x", "q\x1b[31m", "a\x7fb", "c\u009bd"} {
		js, _ := json.Marshal(id)
		line := fmt.Sprintf(`{"id": %s, "seeds": [{"node_id": "A", "score": 1}], "relevant": {"B": 1}}`, js)
		if _, err := ParseQueries(strings.NewReader(line)); err == nil || !strings.Contains(err.Error(), "holds a control character") {
			t.Errorf("query id %q: %v", id, err)
		}
		if _, err := ParseQrels(strings.NewReader("q1 0 " + id + " 1\n")); err == nil || !strings.Contains(err.Error(), "line 1: node id") {
			t.Errorf("qrels node id %q: %v", id, err)
		}
		var b strings.Builder
		if err := WriteRun(&b, "run", "q1", []string{"A", id}, []float64{1, 0.5}); err == nil || b.Len() != 0 || !strings.Contains(err.Error(), "holds a control character") {
			t.Errorf("run with node id %q: %v, wrote %q", id, err, b.String())
		}
		if err := WriteRun(&b, "run", id, []string{"A"}, []float64{1}); err == nil || b.Len() != 0 {
			t.Errorf("run with query id %q: %v, wrote %q", id, err, b.String())
		}
		if err := WriteQrels(&b, []Query{{ID: "q1", Relevant: map[string]int{id: 1}}}); err == nil || b.Len() != 0 {
			t.Errorf("qrels with node id %q: %v, wrote %q", id, err, b.String())
		}
	}
}
