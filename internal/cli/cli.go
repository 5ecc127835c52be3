// Package cli is memoria's command line: the explorer (no subcommand) and
// the headless subcommands. It parses flags, opens a graph source and hands
// off to the retriever, the renderers or the terminal UI.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/internal/textsafe"
)

// Env is what a command may touch of the outside world.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	// DemoGraph is the embedded demo graph in APOC JSON-lines form.
	DemoGraph []byte
	// PromptPassword reads a password without echo; nil when stdin is not
	// a terminal.
	PromptPassword func(prompt string) (string, error)
}

// Exit codes. A signal ends memoria with the shell's 128 + its number:
// Signalled.ExitCode.
const (
	ExitOK      = 0
	ExitRuntime = 1
	ExitUsage   = 2
	// ExitInterrupted follows the shell's 128 + SIGINT; it is also the code
	// of a context cancelled without a Signalled cause.
	ExitInterrupted = 130
)

// Signalled is the cause with which main cancels the context of Main when
// the process receives SIGINT, SIGTERM or SIGHUP (context.WithCancelCause).
// Main then ends with ExitCode, whatever the command was doing.
type Signalled struct{ Signal os.Signal }

// ExitCode is 128 + the signal's number, as shells report a process ended
// by it: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP.
func (s Signalled) ExitCode() int {
	if n, ok := s.Signal.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return ExitInterrupted
}

// Error is what Main prints for s, after "memoria: ".
func (s Signalled) Error() string {
	switch s.Signal {
	case syscall.SIGINT:
		return "interrupted"
	case syscall.SIGTERM:
		return "terminated (SIGTERM)"
	case syscall.SIGHUP:
		return "hung up (SIGHUP)"
	}
	return "stopped by " + s.Signal.String()
}

// usageError is a mistake in the command line: exit code 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// eachLine is msg with prefix before every line of it: a message that
// joins several mistakes (several flag values bad at once, errors.Join)
// is then one line each, every line saying whose it is (docs/CLI.md,
// "Exit codes").
func eachLine(prefix, msg string) string {
	return prefix + strings.ReplaceAll(msg, "\n", "\n"+prefix)
}

// command is one of memoria's commands: its name (none for the explorer),
// its synopsis and one-line purpose as the main usage lists them, and its
// run. The main usage and Main's dispatch are both made from commands.
type command struct {
	name, synopsis string
	purpose        []string
	run            func(ctx context.Context, args []string, env Env) error
}

// commands are memoria's commands, in the order the usage lists them.
var commands = []command{
	{"", "[source flags] [--seed ID[=SCORE]]... [--tags a,b] [--max-seeds N]",
		[]string{"Open the terminal explorer (on the embedded demo graph by default)."}, runUI},
	{"explore", "[source flags] --seed ID[=SCORE]... [options]",
		[]string{"Run a retriever headless and print the results."}, runExplore},
	{"load", "FILE [neo4j flags] [--wipe] [--batch N]",
		[]string{"Write an APOC JSON-lines graph into Neo4j."}, runLoad},
	{"export", "[source flags] [--format jsonl|cypher|graphml]",
		[]string{"Print the graph as APOC JSON lines, a Cypher script or GraphML."}, runExport},
	{"diff", "[--format text|json] A.jsonl B.jsonl",
		[]string{"Compare two saved 'explore --format json' outputs, seed by seed."}, runDiff},
	{"sweep", "[source flags] --seed ID[=SCORE]... --param NAME [values] [options]",
		[]string{"Explore at each value of one threshold: a chart, bands, breakpoints.",
			"With --queries Q.jsonl: any retriever's parameter, recall and nDCG at each value."}, runSweep},
	{"why", "[source flags] --seed ID[=SCORE]... --node ID [options]",
		[]string{"Say why a node is or is not in the result, and where the run left its best route."}, runWhy},
	{"stats", "[source flags] [--format text|json] [--sample N] [--sample-seed S]",
		[]string{"Print the graph's metrics: counts, degree percentiles, clustering, hubs."}, runStats},
	{"compare", "[source flags] --seed ID[=SCORE]... --retrievers A,B,... [options]",
		[]string{"Run several retrievers on the same seeds: the union of their top K, overlaps."}, runCompare},
	{"eval", "[source flags] --queries Q.jsonl [--qrels FILE] --retrievers A,B,... [options]",
		[]string{"Measure retrievers against relevance labels: P@k, Recall@k, nDCG@k, MRR, MAP."}, runEval},
	{"tune", "[source flags] --queries Q.jsonl --retriever NAME --param P [--values ...]... [options]",
		[]string{"Choose a retriever's setting on held-out queries: a grid, K-fold cross-validation, the flags to paste."}, runTune},
	{"gather", "[source flags] --query TEXT... [--query-vector FILE] [options]",
		[]string{"Find the seeds of a question: text, BM25 and vector matches fused, as a memory system does."}, runGather},
}

// mainUsage is memoria's usage: the commands' table, then what every
// command shares.
func mainUsage() string {
	var b strings.Builder
	b.WriteString("memoria explores graph retrievers over a memory graph: why each kept or dropped a memory.\n\nUsage:\n")
	for _, c := range commands {
		b.WriteString("  memoria ")
		if c.name != "" {
			b.WriteString(c.name + " ")
		}
		b.WriteString(c.synopsis + "\n")
		for _, p := range c.purpose {
			b.WriteString("      " + p + "\n")
		}
	}
	return b.String() + mainUsageShared
}

// mainUsageShared is the part of the usage every command shares.
const mainUsageShared = `
Source flags (one source; the embedded demo graph when none is given):
  --graph FILE       an APOC JSON-lines export (CALL apoc.export.json.all)
  --uri URI          a Neo4j server: bolt, bolt+s, bolt+ssc, neo4j, neo4j+s, neo4j+ssc
  --username NAME    Neo4j user (default $NEO4J_USERNAME, else neo4j)
  --database NAME    Neo4j database (default $NEO4J_DATABASE, else the server's default)
  --timeout D        Neo4j deadlines: D for all, or connect=D,query=D (default
                     connect=10s,query=30s); a silent server fails, never hangs
The URI falls back to $NEO4J_URI. The password comes only from $NEO4J_PASSWORD
or, on a terminal, a prompt; it is never a flag and never printed.

Explorer options (memoria without a command; it needs a terminal):
  --max-seeds N      most seeds picked at once (default 5)
  --no-color         no colours (also when $NO_COLOR is set)
  --out-dir DIR      directory for exported D3 and LLM-context files (default .)
  --seed ID[=SCORE]  preselect a seed (repeatable; SCORE defaults to 1)
  --tags a,b         preselect query tags
  --retriever NAME   open with this retriever (default activation)
  --retrievers A,B   open the compare view with these retrievers
  --experiment FILE  reopen a saved experiment (S saves one)
  Thresholds and every retriever's parameters as for explore.

Exit codes: 0 done, 1 runtime error (a timeout included), 2 usage error;
SIGINT (ctrl+c), SIGTERM and SIGHUP end any command at once with 130, 143
and 129, the explorer with the terminal restored.

Run 'memoria COMMAND --help' for a command's flags.
`

// Main runs memoria with args (without the program name) and returns the
// exit code.
func Main(ctx context.Context, args []string, env Env) int {
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	var err error
	run := runUI // no command: the explorer, its flags in args
	if len(args) > 0 {
		switch args[0] {
		case "help", "-h", "--help", "-help":
			fmt.Fprint(env.Stdout, mainUsage())
			return ExitOK
		}
		for _, c := range commands {
			if c.name != "" && c.name == args[0] {
				run, args = c.run, args[1:]
				break
			}
		}
	}
	err = run(ctx, args, env)
	var sig Signalled
	if errors.As(context.Cause(ctx), &sig) {
		// Whatever the command returned, it was cut short by the signal.
		fmt.Fprintf(env.Stderr, "memoria: %v\n", sig)
		return sig.ExitCode()
	}
	var ue usageError
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, errHelpShown):
		return ExitOK
	case errors.As(err, &ue):
		fmt.Fprintln(env.Stderr, eachLine("memoria: ", textsafe.EscapeLines(err.Error())))
		return ExitUsage
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		fmt.Fprintln(env.Stderr, "memoria: interrupted")
		return ExitInterrupted
	case neo4jdb.IsTimeout(err):
		fmt.Fprintf(env.Stderr, "memoria: %s (--timeout sets the deadline)\n", textsafe.EscapeLines(err.Error()))
		return ExitRuntime
	default:
		fmt.Fprintf(env.Stderr, "memoria: %s\n", textsafe.EscapeLines(err.Error()))
		return ExitRuntime
	}
}

// errHelpShown ends a command after its --help was printed.
var errHelpShown = errors.New("help shown")
