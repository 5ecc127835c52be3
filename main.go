// Command memoria is a terminal explorer, and a command line, for the graph
// retrievers of AI-agent memory systems: it runs them over a memory graph
// (Neo4j, or a file in its embedded engine), shows why each kept or
// dropped a memory, and measures them against labels. See README.md.
package main

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/memoria-graph/memoria/internal/cli"
)

// demoGraph is the agent-memory demo graph (docs/DEMO_GRAPH.md).
//
//go:embed testdata/demo.jsonl
var demoGraph []byte

// grace is how long a command has, after SIGINT, SIGTERM or SIGHUP
// cancelled its context, to end by itself (the explorer's teardown takes
// milliseconds) before main restores the terminal and exits regardless,
// so that a signal always ends memoria within a second.
const grace = 750 * time.Millisecond

func main() { os.Exit(run()) }

// run is main with its deferred calls (the terminal restore) run before the
// process exits.
//
// main is the one owner of signals: the explorer installs no handler of its
// own (tui.Run). SIGINT, SIGTERM and SIGHUP cancel the command's context
// with a cli.Signalled cause, and cli.Main then ends with 130, 143 or 129.
// In the explorer ctrl+c is a key (the terminal is in raw mode) and quits
// normally; a SIGINT comes from elsewhere (kill -INT).
func run() int {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)

	env := cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, DemoGraph: demoGraph}
	restoreTTY := func() {}
	if fd := os.Stdin.Fd(); term.IsTerminal(fd) {
		if saved, err := term.GetState(fd); err == nil {
			// Whatever happens (the password prompt, the explorer), leave
			// the terminal as it was found (echo on).
			restoreTTY = func() { _ = term.Restore(fd, saved) }
			defer restoreTTY()
		}
		env.PromptPassword = func(prompt string) (string, error) { return promptPassword(ctx, prompt) }
	}
	go watchSignals(sigs, cancel, func(s cli.Signalled) {
		cli.ForceRestoreTerminal()
		restoreTTY()
		fmt.Fprintf(os.Stderr, "memoria: %v (did not stop within %s; exiting)\n", s, grace)
		os.Exit(s.ExitCode())
	})
	return cli.Main(ctx, os.Args[1:], env)
}

// watchSignals waits for the first signal and cancels the command with it.
// If the command has not ended after grace, or a second signal comes, it
// calls exit, which restores the terminal and exits with the signal's code.
func watchSignals(sigs <-chan os.Signal, cancel context.CancelCauseFunc, exit func(cli.Signalled)) {
	s := cli.Signalled{Signal: <-sigs}
	cancel(s)
	t := time.NewTimer(grace)
	select {
	case <-sigs:
	case <-t.C:
	}
	exit(s)
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
