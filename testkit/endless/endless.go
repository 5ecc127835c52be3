// Package endless is test support: a reader that never ends, for the tests
// that hold a reader to its limits (a line without end, a file without
// end: `--queries /dev/zero`).
package endless

import "errors"

// ErrRanPast is what a Reader returns once Stop bytes were served: a reader
// under test that does not enforce its limit then fails the test rather
// than filling the memory.
var ErrRanPast = errors.New("the test's endless reader was read past its stop: no limit was enforced")

// Reader serves Pattern again and again, counting what it served (Served),
// until Stop bytes.
type Reader struct {
	Pattern []byte
	Stop    int64
	Served  int64
}

func (e *Reader) Read(p []byte) (int, error) {
	if e.Served >= e.Stop {
		return 0, ErrRanPast
	}
	n := 0
	for n < len(p) {
		n += copy(p[n:], e.Pattern[int((e.Served+int64(n))%int64(len(e.Pattern))):])
	}
	e.Served += int64(n)
	return n, nil
}
