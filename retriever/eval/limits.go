package eval

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// The limits of what ParseQueries and ParseQrels read (docs/EVALUATION.md,
// "Limits"), enforced while reading: a file is streamed, never read whole
// first, so a file without end (/dev/zero) is refused after at most a
// line's worth of memory, and one of endless short lines once its size
// passes the file's limit.
const (
	// MaxQueryLine is the longest line of a query set: a query vector of
	// a few thousand numbers fits many times over.
	MaxQueryLine = 16 << 20
	// MaxQueryFile is the largest query set.
	MaxQueryFile = 1 << 30
	// MaxQrelsLine is the longest line of a qrels file (four fields).
	MaxQrelsLine = 1 << 20
	// MaxQrelsFile is the largest qrels file.
	MaxQrelsFile = 1 << 30
)

// bom is the UTF-8 byte order mark. One at the very start of a query set
// or a qrels file is skipped, as graph/apoc skips it in a --graph file
// (docs/CLI.md, "Input files"): the first id is read without it.
var bom = []byte{0xEF, 0xBB, 0xBF}

// trimBOM is line without a leading BOM.
func trimBOM(line []byte) []byte { return bytes.TrimPrefix(line, bom) }

// errFileTooLarge is what a capped reader returns past its limit.
var errFileTooLarge = errors.New("file too large")

// capped reads r and fails with errFileTooLarge once more than max bytes
// came: the limit is enforced while reading.
type capped struct {
	r    io.Reader
	left int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		// Tell a file of exactly max bytes from a longer one.
		var one [1]byte
		n, err := c.r.Read(one[:])
		if n > 0 {
			return 0, errFileTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// scanner is a line scanner of r, lines up to maxLine bytes, the whole
// input up to maxFile bytes.
func scanner(r io.Reader, maxLine, maxFile int64) *bufio.Scanner {
	sc := bufio.NewScanner(&capped{r: r, left: maxFile})
	sc.Buffer(make([]byte, 0, 64<<10), int(maxLine))
	return sc
}

// scanErr is the refusal of a scanner's error after line lines were read:
// a line too long or a file too large names the limit and the line it was
// passed on; another error is the reader's own.
func scanErr(err error, line int, what string, maxLine, maxFile int64) error {
	switch {
	case errors.Is(err, bufio.ErrTooLong):
		return lineErr(line+1, "longer than %s, the longest line of a %s", size(maxLine), what)
	case errors.Is(err, errFileTooLarge):
		return lineErr(line+1, "the file goes on past %s, the largest %s memoria reads", size(maxFile), what)
	}
	return err
}

// size writes a limit in bytes as a person reads it: "16 MiB".
func size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
