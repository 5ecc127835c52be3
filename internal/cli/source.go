package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"

	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/apoc"
	"github.com/memoria-graph/memoria/retriever/inmem"
)

// sourceFlags choose the graph: the demo graph, an APOC file, or Neo4j.
type sourceFlags struct {
	graph string
	neo4jFlags
}

func (s *sourceFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.graph, "graph", "", "APOC JSON-lines `FILE` to explore in memory (default: the embedded demo graph)")
	s.neo4jFlags.register(fs)
}

// open returns the chosen source. The Neo4j source is used when --uri or
// $NEO4J_URI is set and no --graph is given; its database then goes into
// cfg.Database, which the retriever opens its sessions on.
func (s *sourceFlags) open(ctx context.Context, env Env, cfg *retriever.Config) (retriever.Source, error) {
	if s.graph != "" && s.uri != "" {
		return nil, usagef("--graph and --uri both given: choose one source")
	}
	if s.database != "" && (s.graph != "" || (s.uri == "" && env.Getenv("NEO4J_URI") == "")) {
		return nil, usagef("--database %q applies to Neo4j only: give --uri or $NEO4J_URI", s.database)
	}
	if s.graph != "" {
		g, err := inmem.LoadFile(s.graph)
		if err != nil {
			return nil, fmt.Errorf("loading %s: %w", s.graph, err)
		}
		return g, nil
	}
	if st, ok, err := s.settings(env); err != nil {
		return nil, err
	} else if ok {
		cfg.Database = st.Database
		return openNeo4j(ctx, st, env)
	}
	return openDemo(env.DemoGraph)
}

// openDemo loads the embedded demo graph.
func openDemo(data []byte) (retriever.Source, error) {
	g, err := apoc.Parse(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("the embedded demo graph is invalid: %w", err)
	}
	return inmem.New(g, "demo graph")
}
