package cli

import (
	"bufio"
	"context"
	"fmt"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/render/subgraph"
)

const exportUsage = `Usage: memoria export [source flags] [--format jsonl|cypher|graphml]

Prints the whole graph (the embedded demo graph by default, or --graph FILE,
or the Neo4j database of --uri / $NEO4J_URI) on standard output.

Formats:
  jsonl   APOC JSON lines, as CALL apoc.export.json.all writes them; memoria
          load and --graph read them back (a graph read by a schema
          keyed by another property, graphrag's title or lightrag's
          entity_id, gets that key as its id too, which load merges on)
  cypher  a Cypher script that recreates the graph in an empty database:
          paste it into Neo4j Browser or pipe it into cypher-shell
  graphml GraphML (Gephi, yEd, Cytoscape): every node with its labels and
          properties, every relationship with its type and properties
          (docs/EXPORTS.md, "GraphML")

Flags:
`

func runExport(ctx context.Context, args []string, env Env) error {
	fs := newFlagSet(env, "export", exportUsage)
	var src sourceFlags
	src.register(fs)
	format := fs.String("format", "jsonl", "output `format`: jsonl, cypher or graphml")
	if err := parse(fs, env, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("export: unexpected argument %q (the file goes in --graph)", fs.Arg(0))
	}
	if *format != "jsonl" && *format != "cypher" && *format != "graphml" {
		return usagef("export: unknown --format %q (want jsonl, cypher or graphml)", *format)
	}
	source, err := src.open(ctx, env)
	if err != nil {
		return err
	}
	defer source.Close(context.WithoutCancel(ctx))
	g, err := apocGraph(ctx, source)
	if err != nil {
		return err
	}
	if *format != "graphml" {
		if note := keyAsID(source, g); note != "" {
			printNotes(env.Stderr, "export", []string{note})
		}
	}
	w := bufio.NewWriter(env.Stdout)
	switch *format {
	case "cypher":
		err = apoc.WriteCypher(w, g)
	case "graphml":
		err = subgraph.WholeGraphML(w, g)
	default:
		err = apoc.Write(w, g)
	}
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return w.Flush()
}

// apocHolder is a source that holds its whole graph (inmem.Graph).
type apocHolder interface{ APOC() *apoc.Graph }

// apocReader is a source that reads its whole graph (neo4jdb.Source).
type apocReader interface {
	ReadAPOC(context.Context) (*apoc.Graph, error)
}

// Every source sourceFlags.open returns can be exported.
var (
	_ apocHolder = (*inmem.Graph)(nil)
	_ apocReader = (*neo4jdb.Source)(nil)
)

// apocGraph returns the whole graph of the source sourceFlags.open chose,
// so that export picks its source exactly as explore does.
func apocGraph(ctx context.Context, src graph.Source) (*apoc.Graph, error) {
	switch s := src.(type) {
	case apocHolder:
		return s.APOC(), nil
	case apocReader:
		g, err := s.ReadAPOC(ctx)
		if err != nil {
			return nil, fmt.Errorf("reading the graph of %s: %w", src.Describe(), err)
		}
		return g, nil
	}
	return nil, fmt.Errorf("export: %s cannot be exported", src.Describe())
}

// keyAsID gives every node of g that has no "id" property the value of
// the source's id property (its schema's: "title" under graphrag,
// "entity_id" under lightrag) as "id", the property memoria load merges
// nodes on (docs/CLI.md, "memoria load"), so that a graph read by any
// schema loads into Neo4j, where --schema reads it by its own key again.
// A node that has an "id" keeps it. It returns the note saying so ("" when
// the source is keyed by "id" already, or nothing was added).
func keyAsID(src graph.Source, g *apoc.Graph) string {
	sc, ok := src.(interface{ Schema() graph.Schema })
	if !ok {
		return ""
	}
	key := sc.Schema().IDProperty
	if key == "" || key == "id" {
		return ""
	}
	n := 0
	for i := range g.Nodes {
		p := g.Nodes[i].Properties
		v, ok := p[key].(string)
		if _, has := p["id"]; has || !ok || v == "" {
			continue
		}
		q := make(map[string]any, len(p)+1) // the engine's map stays as it was
		for k, x := range p {
			q[k] = x
		}
		q["id"] = v
		g.Nodes[i].Properties = q
		n++
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("each node's %s written as its id too (%s of %s nodes), the property memoria load keys nodes on",
		graph.QuoteName(key), graph.Commas(n), graph.Commas(len(g.Nodes)))
}
