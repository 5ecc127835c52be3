package cli

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/graphml"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/internal/textsafe"
)

// isGraphML says whether the file at path is GraphML: its name ends in
// .graphml or .xml, or its first byte after white space is '<' (an APOC
// file's lines start with '{').
func isGraphML(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".graphml", ".xml":
		return true
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	head = bytes.TrimPrefix(head[:n], []byte("\xEF\xBB\xBF"))
	return bytes.HasPrefix(bytes.TrimLeft(head, " \t\r\n"), []byte("<"))
}

// given reports whether --schema or a mapping flag was set.
func (f *schemaFlags) given() bool {
	set := false
	f.fs.Visit(func(fl *flag.Flag) {
		if fl.Name == "schema" || strings.Contains(","+strings.Join(schemaFlagNames, ",")+",", ","+fl.Name+",") {
			set = true
		}
	})
	return set
}

// setFlag reports whether flag name was set.
func (f *schemaFlags) setFlag(name string) bool {
	set := false
	f.fs.Visit(func(fl *flag.Flag) { set = set || fl.Name == name })
	return set
}

// graphMLSchema is the mapping a GraphML file is read by
// (docs/RETRIEVERS.md, "Other schemas"): without --schema or a mapping
// flag, a file declaring LightRAG's node key entity_id or nano-graphrag's
// clusters or source_id reads as lightrag, said on stderr. The lightrag
// preset on a file whose edges carry no type (NetworkX's) traverses every
// edge (RELATES) and keeps every node (GraphML has no label base), unless
// --traverse-types or --node-label says otherwise; a weight or tags key
// the file does not declare (nano-graphrag has no keywords) is a graph
// without weights (each weighs the preset's 1) or tags, unless
// --weight-property or --tags-property names it.
func (s *sourceFlags) graphMLSchema(env Env, schema graph.Schema, head graphml.Head) (graph.Schema, error) {
	if !s.schema.given() {
		why := ""
		switch {
		case head.NodeKey("entity_id"):
			why = `it declares the node key "entity_id" (LightRAG's)`
		case head.NodeKey("clusters"):
			why = `it declares the node key "clusters" (nano-graphrag's)`
		case head.NodeKey("source_id"):
			why = `it declares the node key "source_id" (LightRAG's and nano-graphrag's)`
		}
		if why != "" {
			p, _ := graph.Preset(graph.SchemaLightRAG)
			schema = p
			s.schema.preset = graph.SchemaLightRAG // the gather stage's fields follow it
			fmt.Fprintln(env.Stderr, textsafe.Escape("memoria: "+s.graph+": read as --schema lightrag: "+why+" (--schema memoria reads it as memoria's own shape)"))
		}
	}
	if schema.Name == graph.SchemaLightRAG && !head.EdgeTypes() {
		if !s.schema.setFlag("traverse-types") {
			schema.Traverse = []string{graph.Relates}
		}
		if !s.schema.setFlag("node-label") {
			schema.NodeLabel = ""
		}
		// A key the file does not declare (nano-graphrag has no
		// keywords) is a graph without it, not a refusal.
		if !head.EdgeKey(schema.TagsProperty) && !s.schema.setFlag("tags-property") {
			schema.TagsProperty = ""
		}
		if !head.EdgeKey(schema.WeightProperty) && !s.schema.setFlag("weight-property") {
			schema.WeightProperty = ""
		}
	}
	return schema, nil
}

// loadGraphML loads the GraphML file --graph names by schema (the one the
// flags give, or the one its keys choose).
func (s *sourceFlags) loadGraphML(env Env, schema graph.Schema, report func(inmem.Progress)) (*inmem.Graph, error) {
	f, err := os.Open(s.graph)
	if err != nil {
		return nil, err
	}
	head, err := graphml.ReadHead(f)
	f.Close()
	if err != nil {
		return nil, err
	}
	if schema, err = s.graphMLSchema(env, schema, head); err != nil {
		return nil, err
	}
	opt := graphml.Options{IDProperty: schema.IDProperty}
	g, err := inmem.LoadFileDecoder(s.graph, schema, report, func(r io.Reader, rules apoc.Rules, onNode func(apoc.Node) error, onRel func(apoc.Relationship) error) (apoc.Report, error) {
		return graphml.Decode(r, rules, opt, onNode, onRel)
	})
	if err != nil {
		return nil, err
	}
	if !head.NodeKey(schema.IDProperty) {
		printNotes(env.Stderr, s.graph, []string{fmt.Sprintf("GraphML: no node key %s: each node's GraphML id is its %s, as written",
			graph.QuoteName(schema.IDProperty), graph.QuoteName(schema.IDProperty))})
	}
	return g, nil
}
