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
	var b *builder
	rules, onNode, onRel := apoc.FileRules, (func(apoc.Node) error)(nil), (func(apoc.Relationship) error)(nil)
	var mp *mapper
	if s.IsDefault() {
		b = newBuilder(path)
		onNode, onRel = b.addNode, b.addRel
	} else {
		if err := s.Validate(); err != nil {
			return nil, err
		}
		mp = newMapper(path, s)
		b = mp.b
		rules, onNode, onRel = apoc.MappedRules, mp.node, mp.rel
	}
	cr := &countingReader{r: f}
	if report != nil {
		cr.report = func(n int64) {
			report(Progress{Bytes: n, Total: total, Nodes: len(b.g.nodeInternal), Rels: len(b.g.relStart)})
		}
	}
	rep, err := decode(cr, rules, onNode, onRel)
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
		report(Progress{Bytes: cr.n, Total: max(total, cr.n), Nodes: len(g.nodeInternal), Rels: len(g.relStart)})
	}
	return g, nil
}
