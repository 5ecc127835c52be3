package inmem

import (
	"io"
	"os"

	"github.com/memoria-graph/memoria/graph/apoc"
)

// Progress is how far a load has come: the bytes read of Total (0 when the
// size is unknown) and the nodes and relationships built so far.
type Progress struct {
	Bytes, Total int64
	Nodes, Rels  int
}

// progressStep is how many bytes a load reads between two reports.
const progressStep = 1 << 20

// LoadFileProgress is LoadFile reporting its progress to report: after
// every progressStep bytes read, and once more when the graph is built
// (all bytes read). report runs on the loading goroutine and must be quick;
// it may be nil.
func LoadFileProgress(path string, report func(Progress)) (*Graph, error) {
	f, total, err := openSized(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return LoadProgress(f, path, total, report)
}

// openSized opens path and returns its size (0 when not a regular file).
func openSized(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	var total int64
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		total = fi.Size()
	}
	return f, total, nil
}

// LoadProgress is Load reporting its progress (see LoadFileProgress);
// total is r's size in bytes, 0 when unknown.
func LoadProgress(r io.Reader, name string, total int64, report func(Progress)) (*Graph, error) {
	b := newBuilder(name)
	cr := &countingReader{r: r}
	if report != nil {
		cr.report = func(n int64) {
			report(Progress{Bytes: n, Total: total, Nodes: len(b.g.nodeInternal), Rels: len(b.g.relStart)})
		}
	}
	rep, err := apoc.Decode(cr, b.addNode, b.addRel)
	if err != nil {
		return nil, err
	}
	b.g.report = rep
	g, err := b.finish()
	if err != nil {
		return nil, err
	}
	if report != nil {
		report(Progress{Bytes: cr.n, Total: max(total, cr.n), Nodes: len(g.nodeInternal), Rels: len(g.relStart)})
	}
	return g, nil
}

// countingReader counts the bytes read through it and calls report with
// the count each time it has grown by progressStep since the last call.
type countingReader struct {
	r      io.Reader
	n      int64
	last   int64
	report func(int64)
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.report != nil && c.n-c.last >= progressStep {
		c.last = c.n
		c.report(c.n)
	}
	return n, err
}
