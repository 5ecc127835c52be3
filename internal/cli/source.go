package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/oninmem"
	"github.com/memoria-graph/memoria/retriever/activation/onneo4j"
)

// sourceFlags choose the graph: the demo graph, an APOC file, or Neo4j.
type sourceFlags struct {
	graph string
	neo4jFlags
	// progress, when set, receives the progress of loading --graph (the
	// explorer's loading screen); otherwise a terminal's stderr shows it
	// (stderrProgress), and nothing else does.
	progress func(inmem.Progress)
}

func (s *sourceFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.graph, "graph", "", "APOC JSON-lines `FILE` to explore in memory (default: the embedded demo graph)")
	s.neo4jFlags.register(fs)
}

// open returns the chosen source. The Neo4j source is used when --uri or
// $NEO4J_URI is set and no --graph is given; it reads the database the
// flags name.
func (s *sourceFlags) open(ctx context.Context, env Env) (graph.Source, error) {
	if s.graph != "" && s.uri != "" {
		return nil, usagef("--graph and --uri both given: choose one source")
	}
	if s.database != "" && (s.graph != "" || (s.uri == "" && env.Getenv("NEO4J_URI") == "")) {
		return nil, usagef("--database %q applies to Neo4j only: give --uri or $NEO4J_URI", s.database)
	}
	if s.graph != "" {
		report, finish := s.progress, func() {}
		if report == nil && isTerminal(env.Stderr) {
			sp := newStderrProgress(env.Stderr, s.graph)
			report, finish = sp.report, sp.finish
		}
		g, err := inmem.LoadFileProgress(s.graph, report)
		finish() // before any message, on a line of its own
		if err != nil {
			return nil, fmt.Errorf("loading %s: %w", s.graph, err)
		}
		printWarnings(env.Stderr, s.graph, g.Report())
		return g, nil
	}
	if st, ok, err := s.settings(env); err != nil {
		return nil, err
	} else if ok {
		src, err := connectNeo4j(ctx, st, env)
		if err != nil {
			return nil, err
		}
		return src, nil
	}
	return openDemo(env.DemoGraph)
}

// openDemo loads the embedded demo graph.
func openDemo(data []byte) (graph.Source, error) {
	g, err := apoc.Parse(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("the embedded demo graph is invalid: %w", err)
	}
	return inmem.New(g, "demo graph")
}

// backendFor returns the Activation Energy expansion over whichever engine
// src is: the one place that pairs an engine with its expansion.
func backendFor(src graph.Source, f graph.RelFilter) (activation.Backend, error) {
	switch s := src.(type) {
	case *inmem.Graph:
		return oninmem.NewFiltered(s, f), nil
	case *neo4jdb.Source:
		n := onneo4j.New(s)
		n.SetFilter(f)
		return n, nil
	}
	return nil, fmt.Errorf("the Activation Energy retriever cannot run on %s", src.Describe())
}
