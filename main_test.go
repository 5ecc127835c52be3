package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/memoria-graph/memoria/testkit/neo4jtest"
)

// hang bounds a run of the binary that must end by itself, far above any
// deadline these tests set: one that hangs fails the test instead of
// blocking it.
const hang = 20 * time.Second

var built struct {
	once      sync.Once
	dir, path string
	err       error
}

// TestMain removes the binary the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// binary builds memoria once (go build, as users do) and returns its path.
func binary(t testing.TB) string {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "memoria-bin-")
		if built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "memoria")
		out, err := exec.Command("go", "build", "-o", built.path, ".").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// start starts the binary with args; its stderr goes to the returned buffer.
func start(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &stderr
}

// wait waits for cmd to exit by itself and returns its exit code; after
// hang it kills it and fails the test. A process ended by a signal (one it
// did not catch) fails the test too: memoria must exit with a code.
func wait(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(hang):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%v did not exit within %s", cmd.Args, hang)
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		t.Fatalf("%v was killed by %v instead of exiting", cmd.Args, ws.Signal())
	}
	return cmd.ProcessState.ExitCode()
}

// TestBinarySilentServerTimesOut: the built binary, `memoria explore --uri
// <silent server> --timeout 500ms`, exits 1 once the connect deadline has
// run out, with one line on stderr naming the server, the deadline and
// the flag.
func TestBinarySilentServerTimesOut(t *testing.T) {
	srv := neo4jtest.NewSilent(t)
	cmd, stderr := start(t, "explore", "--uri", srv.URI, "--seed", "N2006", "--timeout", "500ms")
	code := wait(t, cmd)
	want := fmt.Sprintf("memoria: no answer from Neo4j at %s within 500ms of connecting: is the server up, and is this its Bolt port? (--timeout sets the deadline)\n", srv.URI)
	if code != 1 || stderr.String() != want {
		t.Errorf("exit %d, stderr %q; want 1 and %q", code, stderr.String(), want)
	}
}

// TestBinarySignalsDuringHandshake: the built binary, `memoria explore`
// with a deadline of an hour, blocked reading the silent server's answer
// to its Bolt handshake, gets SIGINT, SIGTERM or SIGHUP (from kill, as a
// shell or a supervisor sends it) and exits by itself at once (main owns
// the signals: main.go) with 128 + the signal's number and the matching
// line: 130 "interrupted", 143 "terminated (SIGTERM)", 129 "hung up
// (SIGHUP)".
func TestBinarySignalsDuringHandshake(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		code int
		msg  string
	}{
		{syscall.SIGINT, 130, "memoria: interrupted\n"},
		{syscall.SIGTERM, 143, "memoria: terminated (SIGTERM)\n"},
		{syscall.SIGHUP, 129, "memoria: hung up (SIGHUP)\n"},
	} {
		t.Run(c.sig.String(), func(t *testing.T) {
			srv := neo4jtest.NewSilent(t)
			cmd, stderr := start(t, "explore", "--uri", srv.URI, "--seed", "N2006", "--timeout", "1h")
			ctx, cancel := context.WithTimeout(context.Background(), hang)
			defer cancel()
			select {
			case <-srv.Handshake():
			case <-ctx.Done():
				cmd.Process.Kill()
				t.Fatal("the binary never sent its Bolt handshake")
			}
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			if code := wait(t, cmd); code != c.code || stderr.String() != c.msg {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr.String(), c.code, c.msg)
			}
		})
	}
}
