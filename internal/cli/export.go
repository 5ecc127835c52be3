package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"

	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/apoc"
	"github.com/memoria-graph/memoria/retriever/neo4jgraph"
)

const exportUsage = `Usage: memoria export [source flags] [--format jsonl|cypher]

Prints the whole graph (the embedded demo graph by default, or --graph FILE,
or the Neo4j database of --uri / $NEO4J_URI) on standard output.

Formats:
  jsonl   APOC JSON lines, as CALL apoc.export.json.all writes them; memoria
          load and --graph read them back
  cypher  a Cypher script that recreates the graph in an empty database:
          paste it into Neo4j Browser or pipe it into cypher-shell

Flags:
`

func runExport(ctx context.Context, args []string, env Env) error {
	fs := newFlagSet(env, "export", exportUsage)
	var src sourceFlags
	src.register(fs)
	format := fs.String("format", "jsonl", "output `format`: jsonl or cypher")
	if err := parse(fs, env, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("export: unexpected argument %q (the file goes in --graph)", fs.Arg(0))
	}
	if *format != "jsonl" && *format != "cypher" {
		return usagef("export: unknown --format %q (want jsonl or cypher)", *format)
	}
	g, err := src.readGraph(ctx, env)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(env.Stdout)
	if *format == "cypher" {
		err = apoc.WriteCypher(w, g)
	} else {
		err = apoc.Write(w, g)
	}
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return w.Flush()
}

// readGraph reads the whole chosen graph, as open chooses it.
func (s *sourceFlags) readGraph(ctx context.Context, env Env) (*apoc.Graph, error) {
	if s.graph != "" && s.uri != "" {
		return nil, usagef("--graph and --uri both given: choose one source")
	}
	if s.graph != "" {
		g, err := apoc.ParseFile(s.graph)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", s.graph, err)
		}
		return g, nil
	}
	st, ok, err := s.settings(env, retriever.DefaultConfig())
	if err != nil {
		return nil, err
	}
	if ok {
		src, err := connectNeo4j(ctx, st, env)
		if err != nil {
			return nil, err
		}
		defer src.Close(context.WithoutCancel(ctx))
		g, err := neo4jgraph.ReadGraph(ctx, src.Driver(), st.Database)
		if err != nil {
			return nil, fmt.Errorf("reading the graph of %s: %w", st.URI, err)
		}
		return g, nil
	}
	g, err := apoc.Parse(bytes.NewReader(env.DemoGraph))
	if err != nil {
		return nil, fmt.Errorf("the embedded demo graph is invalid: %w", err)
	}
	return g, nil
}
