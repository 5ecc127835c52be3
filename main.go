// Command memoria is a terminal explorer for the Activation Energy graph
// retriever. See README.md.
package main

import (
	"context"
	_ "embed"
	"os"
	"os/signal"
	"syscall"

	"github.com/charmbracelet/x/term"
	"github.com/memoria-graph/memoria/internal/cli"
)

// demoGraph is the agent-memory demo graph (docs/DEMO_GRAPH.md).
//
//go:embed testdata/demo.jsonl
var demoGraph []byte

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	env := cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, DemoGraph: demoGraph}
	if term.IsTerminal(os.Stdin.Fd()) {
		env.PromptPassword = func(prompt string) (string, error) {
			os.Stderr.WriteString(prompt)
			b, err := term.ReadPassword(os.Stdin.Fd())
			os.Stderr.WriteString("\n")
			return string(b), err
		}
	}
	code := cli.Main(ctx, os.Args[1:], env)
	stop()
	os.Exit(code)
}
