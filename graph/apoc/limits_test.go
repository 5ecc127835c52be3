package apoc

import (
	"github.com/memoria-graph/memoria/testkit/endless"
	"runtime"
	"strings"
	"testing"
)

// TestLineLimit: a line longer than MaxLine is refused while it is read,
// naming the limit and the line, in bounded memory. Before, the decoder
// gathered a line without end (`--graph /dev/zero`) until the memory ran
// out: 6.7 GB in 6 s.
//
// Expected: an endless line of NUL bytes after one good node line is
// refused on line 2 once it passes MaxLine (64 MiB), having read at most
// MaxLine and one buffer (64 KiB) more; the line is gathered in a buffer
// that doubles from 64 KiB up to MaxLine, so the allocation is at most
// 64 KiB + 128 KiB + … + 64 MiB < 2 × MaxLine (and 1 MiB for the rest of
// the test's reading). A line of exactly the limit is read (here, with a limit of
// 1 KiB, a node padded with spaces to 1024 bytes and its newline).
func TestLineLimit(t *testing.T) {
	r := &endless.Reader{Pattern: []byte{0}, Stop: 4 * MaxLine}
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	_, err := Parse(&prefixed{first: []byte(nodeA + "\n"), r: r})
	runtime.ReadMemStats(&b)
	if err == nil || err.Error() != "line 2: longer than 64 MiB, the longest line memoria reads" {
		t.Errorf("endless line: %v", err)
	}
	if r.Served > MaxLine+1<<17 || b.TotalAlloc-a.TotalAlloc > 2*MaxLine+1<<20 {
		t.Errorf("endless line: read %d bytes, allocated %d", r.Served, b.TotalAlloc-a.TotalAlloc)
	}

	exact := nodeA + strings.Repeat(" ", 1024-len(nodeA)) + "\n"
	noop := func(Node) error { return nil }
	if _, err := decodeMax(strings.NewReader(exact), FileRules, noop, func(Relationship) error { return nil }, 1025); err != nil {
		t.Errorf("a line of exactly the limit: %v", err)
	}
	if _, err := decodeMax(strings.NewReader(" "+exact), FileRules, noop, func(Relationship) error { return nil }, 1025); err == nil ||
		err.Error() != "line 1: longer than 1025 bytes, the longest line memoria reads" {
		t.Errorf("a line one byte longer: %v", err)
	}
}

// prefixed reads first, then r.
type prefixed struct {
	first []byte
	r     *endless.Reader
}

func (p *prefixed) Read(b []byte) (int, error) {
	if len(p.first) > 0 {
		n := copy(b, p.first)
		p.first = p.first[n:]
		return n, nil
	}
	return p.r.Read(b)
}
