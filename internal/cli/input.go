package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/eval"
)

// readInput opens the file of --flag and hands it to parse as a stream
// (never read whole first: the parser enforces its line and file limits
// while it reads, docs/CLI.md "Input files"); an error starts with prefix
// (the command's "eval: ", or "") and names the flag and the file.
func readInput[T any](prefix, flag, path string, parse func(io.Reader) (T, error)) (T, error) {
	var zero T
	f, err := os.Open(path)
	if err != nil {
		return zero, fmt.Errorf("%s--%s: %w", prefix, flag, err)
	}
	defer f.Close()
	v, err := parse(f)
	if err != nil {
		return zero, fmt.Errorf("%s--%s %s: %w", prefix, flag, textsafe.Escape(path), err)
	}
	return v, nil
}

// MaxQueryVectorFile is the largest --query-vector file: a JSON array of
// numbers as long as a query set's line may be (eval.MaxQueryLine), which
// holds tens of thousands of dimensions many times over.
const MaxQueryVectorFile = eval.MaxQueryLine

// parseQueryVector reads a --query-vector file (retriever.ParseQueryVector)
// as a stream: what is not JSON is refused where it stops being JSON
// (/dev/urandom at its first bytes), and a file going on past
// MaxQueryVectorFile bytes as soon as it has. A leading UTF-8 BOM is
// skipped, as in every file memoria reads.
func parseQueryVector(r io.Reader) ([]float64, error) {
	lr := &io.LimitedReader{R: r, N: MaxQueryVectorFile + 1}
	br := bufio.NewReader(lr)
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, []byte("\xEF\xBB\xBF")) {
		br.Discard(3) //nolint:errcheck // peeked
	}
	tooLong := fmt.Errorf("the file goes on past %d MiB, the largest query vector file memoria reads", MaxQueryVectorFile>>20)
	dec := json.NewDecoder(br)
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		if lr.N <= 0 {
			return nil, tooLong
		}
		if err == io.EOF {
			return nil, errors.New("not a JSON array of numbers: the file is empty")
		}
		return nil, fmt.Errorf("not a JSON array of numbers: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		if lr.N <= 0 {
			return nil, tooLong
		}
		return nil, errors.New("not a JSON array of numbers: data after the array")
	}
	return retriever.ParseQueryVector(raw)
}

// makeOutDir makes dir and its parents (MkdirAll), saying what is wrong
// when it cannot: MkdirAll reports a symbolic link that loops or leads
// nowhere as "file exists" (it finds the link, not a directory), so the
// error is then the one reading the path gives ("too many levels of
// symbolic links"), or that the link's target is missing.
func makeOutDir(dir string) error {
	err := os.MkdirAll(dir, 0o755)
	if err == nil {
		return nil
	}
	_, serr := os.Stat(dir)
	switch {
	case serr != nil && !errors.Is(serr, fs.ErrNotExist):
		return serr
	case serr != nil:
		if fi, lerr := os.Lstat(dir); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(dir)
			return fmt.Errorf("%s is a symbolic link to %s, which does not exist", dir, target)
		}
	}
	return err
}
