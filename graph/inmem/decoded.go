package inmem

import (
	"io"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
)

// DecodeFunc reads a graph file of another format (GraphML: graph/graphml)
// into APOC nodes and relationships checked by rules, with
// apoc.DecodeRules's contract: each handed over in file order, nothing
// after the first problem, the checker's report or the problems by line.
type DecodeFunc func(r io.Reader, rules apoc.Rules, onNode func(apoc.Node) error, onRel func(apoc.Relationship) error) (apoc.Report, error)

// ReadFunc reads a graph held in several files (GraphRAG's parquet tables:
// graph/graphrag) with DecodeFunc's contract; it calls read with the bytes
// it has read so far, as often as it likes and at least once at the end
// (a report goes out each time they have grown by progressStep).
type ReadFunc func(rules apoc.Rules, onNode func(apoc.Node) error, onRel func(apoc.Relationship) error, read func(n int64)) (apoc.Report, error)

// LoadFileDecoder is LoadFileSchema for a file that decode reads: memoria's
// own schema builds as LoadFileProgress does (by apoc.FileRules), another
// is translated as LoadSchema does (by apoc.MappedRules), each element as
// it is decoded, so the file is never held whole.
func LoadFileDecoder(path string, s graph.Schema, report func(Progress), decode DecodeFunc) (*Graph, error) {
	f, total, err := openSized(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return LoadRead(path, total, s, report, func(rules apoc.Rules, onNode func(apoc.Node) error, onRel func(apoc.Relationship) error, read func(int64)) (apoc.Report, error) {
		cr := &countingReader{r: f, report: read}
		rep, err := decode(cr, rules, onNode, onRel)
		read(cr.n)
		return rep, err
	})
}

// LoadRead is LoadFileDecoder for a graph that rd reads from wherever it
// is (name names it in messages; total is its size in bytes, 0 when
// unknown): each element is built or translated as it is handed over.
func LoadRead(name string, total int64, s graph.Schema, report func(Progress), rd ReadFunc) (*Graph, error) {
	var b *builder
	rules, onNode, onRel := apoc.FileRules, (func(apoc.Node) error)(nil), (func(apoc.Relationship) error)(nil)
	var mp *mapper
	if s.IsDefault() {
		b = newBuilder(name)
		onNode, onRel = b.addNode, b.addRel
	} else {
		if err := s.Validate(); err != nil {
			return nil, err
		}
		mp = newMapper(name, s)
		b = mp.b
		rules, onNode, onRel = apoc.MappedRules, mp.node, mp.rel
	}
	var n, last int64
	read := func(bytes int64) {
		n = bytes
		if report != nil && n-last >= progressStep {
			last = n
			report(Progress{Bytes: n, Total: total, Nodes: len(b.g.nodeInternal), Rels: len(b.g.relStart)})
		}
	}
	rep, err := rd(rules, onNode, onRel, read)
	if err != nil {
		return nil, err
	}
	var g *Graph
	if mp != nil {
		g, err = mp.finish(rep)
	} else {
		b.g.report = rep
		g, err = b.finish()
	}
	if err != nil {
		return nil, err
	}
	if report != nil {
		report(Progress{Bytes: n, Total: max(total, n), Nodes: len(g.nodeInternal), Rels: len(g.relStart)})
	}
	return g, nil
}
