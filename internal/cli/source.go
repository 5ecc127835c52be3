package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/graphrag"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/oninmem"
	"github.com/memoria-graph/memoria/retriever/activation/onneo4j"
)

// sourceFlags choose the graph: the demo graph, an APOC file, or Neo4j.
type sourceFlags struct {
	graph string
	neo4jFlags
	// schema maps a graph of another shape (schema.go).
	schema schemaFlags
	// progress, when set, receives the progress of loading --graph (the
	// explorer's loading screen); otherwise a terminal's stderr shows it
	// (stderrProgress), and nothing else does.
	progress func(inmem.Progress)
	// weightScale is --weight-scale: none or max (weightscale.go);
	// hinted says the checker's weight warning carried its hint.
	weightScale string
	hinted      bool
}

func (s *sourceFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.graph, "graph", "", "APOC JSON-lines or GraphML `FILE` (LightRAG's, nano-graphrag's, memoria export's),\n"+
		"or GraphRAG's output folder of parquet tables, to explore in memory (default: the embedded demo graph)")
	s.neo4jFlags.register(fs)
	s.schema.register(fs)
	fs.StringVar(&s.weightScale, "weight-scale", "none", "`how` the traversed weights are walked: none, as stored; max, each divided by the largest,\n"+
		"so that they lie in (0, 1] (LightRAG's merged weights run to 20 and more); files and the demo graph")
}

// open returns the chosen source. The Neo4j source is used when --uri or
// $NEO4J_URI is set and no --graph is given; it reads the database the
// flags name.
func (s *sourceFlags) open(ctx context.Context, env Env) (graph.Source, error) {
	if s.weightScale != "none" && s.weightScale != "max" && s.weightScale != "" {
		return nil, usagef("--weight-scale %s: want none or max", textsafe.Quote(s.weightScale))
	}
	src, err := s.openUnscaled(ctx, env)
	if err != nil {
		return nil, err
	}
	return s.scaleWeights(ctx, env, src)
}

// openUnscaled opens the source, its weights as stored.
func (s *sourceFlags) openUnscaled(ctx context.Context, env Env) (graph.Source, error) {
	if s.graph != "" && s.uri != "" {
		return nil, usagef("--graph and --uri both given: choose one source")
	}
	if s.database != "" && (s.graph != "" || (s.uri == "" && env.Getenv("NEO4J_URI") == "")) {
		return nil, usagef("--database %q applies to Neo4j only: give --uri or $NEO4J_URI", s.database)
	}
	schema, err := s.schema.schema()
	if err != nil {
		return nil, err
	}
	if s.graph != "" {
		var folder graphrag.Folder
		if isDir(s.graph) {
			f, ok := findGraphRAG(s.graph)
			if !ok {
				return nil, fmt.Errorf("loading %s: %s", s.graph, errNotGraphRAG)
			}
			folder = f
		}
		report, finish := s.progress, func() {}
		if report == nil && isTerminal(env.Stderr) {
			sp := newStderrProgress(env.Stderr, s.graph)
			report, finish = sp.report, sp.finish
		}
		var g *inmem.Graph
		switch {
		case folder.Dir != "":
			g, err = s.loadGraphRAG(env, schema, folder, report)
		case isGraphML(s.graph):
			g, err = s.loadGraphML(env, schema, report)
		default:
			g, err = inmem.LoadFileSchema(s.graph, schema, report)
		}
		finish() // before any message, on a line of its own
		if err != nil {
			return nil, fmt.Errorf("loading %s: %w", s.graph, err)
		}
		printWarnings(env.Stderr, s.graph, s.hintWeights(g))
		printNotes(env.Stderr, s.graph, g.Notes())
		return g, nil
	}
	if st, ok, err := s.settings(env); err != nil {
		return nil, err
	} else if ok {
		src, err := connectNeo4j(ctx, st, env)
		if err != nil {
			return nil, err
		}
		if err := src.SetSchema(schema); err != nil {
			_ = src.Close(ctx)
			return nil, usagef("--schema %s: %v", textsafe.Quote(schema.Name), err)
		}
		if err := src.CheckSchema(ctx); err != nil {
			_ = src.Close(ctx)
			return nil, err
		}
		return src, nil
	}
	if schema.IsDefault() {
		return openDemo(env.DemoGraph)
	}
	g, err := apoc.Parse(bytes.NewReader(env.DemoGraph))
	if err != nil {
		return nil, fmt.Errorf("the embedded demo graph is invalid: %w", err)
	}
	src, err := inmem.NewSchema(g, "demo graph", schema)
	if err != nil {
		return nil, fmt.Errorf("the demo graph: %w", err)
	}
	printNotes(env.Stderr, "demo graph", src.Notes())
	return src, nil
}

// errIsDir is what a graph file that is a directory is told. A directory
// opens, and its first read fails, which the loader reports as the file's
// line 1 ("line 1: read DIR: is a directory"): isDir is asked first.
const errIsDir = "is a directory, not an APOC JSON-lines file"

// isDir says whether path is a directory.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// printNotes prints what a mapping left out of a graph, one line each.
func printNotes(w io.Writer, name string, notes []string) {
	for _, n := range notes {
		fmt.Fprintln(w, textsafe.Escape("memoria: "+name+": "+n))
	}
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
