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

func main() { os.Exit(run()) }

// run is main with its deferred calls (the terminal restore) run before the
// process exits.
func run() int {
	// Interrupt and terminate cancel the headless commands cleanly; in the
	// explorer ctrl+c arrives as a key, since the terminal is in raw mode.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// After the first signal, stop catching: a second ctrl+c kills at once
	// even if something is slow to notice the cancellation.
	go func() { <-ctx.Done(); stop() }()
	env := cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, DemoGraph: demoGraph}
	if fd := os.Stdin.Fd(); term.IsTerminal(fd) {
		if saved, err := term.GetState(fd); err == nil {
			// Whatever happens at the password prompt, leave the terminal
			// as it was found (echo on).
			defer term.Restore(fd, saved)
		}
		env.PromptPassword = func(prompt string) (string, error) { return promptPassword(ctx, prompt) }
	}
	defer stop()
	return cli.Main(ctx, os.Args[1:], env)
}

// promptPassword reads a password without echo. If ctx ends first (ctrl+c)
// it puts the terminal back as it was, echo included, and returns ctx's error.
func promptPassword(ctx context.Context, prompt string) (string, error) {
	fd := os.Stdin.Fd()
	saved, err := term.GetState(fd)
	if err != nil {
		return "", err
	}
	type read struct {
		b   []byte
		err error
	}
	got := make(chan read, 1)
	os.Stderr.WriteString(prompt)
	go func() {
		b, err := term.ReadPassword(fd)
		got <- read{b, err}
	}()
	select {
	case r := <-got:
		os.Stderr.WriteString("\n")
		return string(r.b), r.err
	case <-ctx.Done():
		term.Restore(fd, saved)
		os.Stderr.WriteString("\n")
		return "", ctx.Err()
	}
}
