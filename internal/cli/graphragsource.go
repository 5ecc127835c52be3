package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/graphrag"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/internal/textsafe"
)

// errNotGraphRAG is what a --graph directory without GraphRAG's tables is
// told.
const errNotGraphRAG = "is a directory without GraphRAG's entities.parquet and relationships.parquet, nor an APOC JSON-lines file"

// loadGraphRAG loads the GraphRAG output folder --graph names
// (docs/RETRIEVERS.md, "GraphRAG's output folder"; or a GraphRAG
// project whose output/ holds them): without --schema it
// reads as graphrag (with the mapping flags given over it), said on
// stderr; the titles the entities lack and the ids that name no entity
// are counted there too.
func (s *sourceFlags) loadGraphRAG(env Env, schema graph.Schema, f graphrag.Folder, report func(inmem.Progress)) (*inmem.Graph, error) {
	if !s.schema.setFlag("schema") {
		s.schema.preset = graph.SchemaGraphRAG
		var err error
		if schema, err = s.schema.schema(); err != nil {
			return nil, err
		}
		hint := ""
		if f.Communities != "" || f.TextUnits != "" {
			hint = " (--traverse-types RELATES," + graphrag.InCommunity + "," + graphrag.Mentions + " walks the communities and text units too)"
		}
		fmt.Fprintln(env.Stderr, textsafe.Escape("memoria: "+s.graph+": read as --schema graphrag: it holds GraphRAG's "+tableNames(f, s.graph)+hint))
	}
	var sum graphrag.Summary
	g, err := inmem.LoadRead(s.graph, f.Size(), schema, report, func(rules apoc.Rules, onNode func(apoc.Node) error, onRel func(apoc.Relationship) error, read func(int64)) (apoc.Report, error) {
		var rep apoc.Report
		var err error
		sum, rep, err = graphrag.Decode(f, rules, graphrag.Options{Weight: schema.WeightProperty}, onNode, onRel, read)
		return rep, err
	})
	if err != nil {
		return nil, err
	}
	printNotes(env.Stderr, s.graph, sum.Notes(f))
	return g, nil
}

// findGraphRAG finds GraphRAG's tables in dir, or in its output/ (a
// GraphRAG project's root).
func findGraphRAG(dir string) (graphrag.Folder, bool) {
	if f, ok := graphrag.Find(dir); ok {
		return f, true
	}
	return graphrag.Find(filepath.Join(dir, "output"))
}

// tableNames lists the tables a folder holds, by their paths under root
// (--graph: the folder, or a project whose tables are in output/).
func tableNames(f graphrag.Folder, root string) string {
	var names []string
	for _, p := range []string{f.Entities, f.Relationships, f.Communities, f.TextUnits} {
		if p != "" {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				rel = filepath.Base(p)
			}
			names = append(names, rel)
		}
	}
	return strings.Join(names, ", ")
}
