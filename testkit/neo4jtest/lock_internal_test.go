package neo4jtest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// lockedElsewhere reports whether another open file description holds the flock on path
// (flock locks belong to open file descriptions, so this works within one process too).
func lockedElsewhere(t *testing.T, path string) bool {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if err == nil {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return false
	}
	if !errors.Is(err, syscall.EWOULDBLOCK) {
		t.Fatalf("flock %s: %v", path, err)
	}
	return true
}

// TestLockExternalCounts: within one process LockExternal nests: after two calls and one
// release the file ($NEO4JTEST_LOCK_FILE) is still locked, after the second release it is
// free, and calling a release twice does not unlock someone else's hold. Tests of several
// packages and New within a package share one lock per process.
func TestLockExternalCounts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ext.lock")
	t.Setenv(EnvLockFile, path)
	if ExternalLockPath() != path {
		t.Fatalf("ExternalLockPath() = %s", ExternalLockPath())
	}
	ctx := context.Background()
	r1, err := LockExternal(ctx, "bolt://x")
	if err != nil {
		t.Fatal(err)
	}
	r2, err := LockExternal(ctx, "bolt://x")
	if err != nil {
		t.Fatal(err)
	}
	if !lockedElsewhere(t, path) {
		t.Fatal("not locked after LockExternal")
	}
	r1()
	r1() // a second call of the same release does nothing
	if !lockedElsewhere(t, path) {
		t.Fatal("unlocked while a second hold remains")
	}
	r2()
	if lockedElsewhere(t, path) {
		t.Fatal("still locked after the last release")
	}
}

// envLockChild makes TestLockChild run (in a child process of TestSharedLocksExternal).
const envLockChild = "NEO4JTEST_LOCK_CHILD"

// TestLockChild is the child process of TestSharedLocksExternal: it takes the shared
// server (NEO4J_URI, so the external one), prints LOCKED and waits for its stdin to close.
func TestLockChild(t *testing.T) {
	if os.Getenv(envLockChild) != "1" {
		t.Skip("runs only as the child process of TestSharedLocksExternal")
	}
	srv := Shared(t)
	if !srv.External() {
		t.Fatal("Shared did not return the NEO4J_URI server")
	}
	fmt.Println("LOCKED")
	_, _ = io.Copy(io.Discard, os.Stdin)
}

// lockChild is a running child test process.
type lockChild struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	locked chan struct{} // closed when the child printed LOCKED
	stderr *tailBuffer
}

func startLockChild(t *testing.T, srv *Server, lockPath string) *lockChild {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), envLockChild+"=1", EnvLockFile+"="+lockPath,
		EnvURI+"="+srv.URI, EnvUsername+"="+srv.Username, EnvPassword+"="+srv.Password)
	c := &lockChild{cmd: cmd, locked: make(chan struct{}), stderr: newTailBuffer(16 << 10)}
	cmd.Stderr = c.stderr
	var err error
	if c.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if sc.Text() == "LOCKED" {
				close(c.locked)
			}
		}
	}()
	return c
}

// finish closes the child's stdin and waits for it to pass.
func (c *lockChild) finish(t *testing.T) {
	t.Helper()
	_ = c.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("child test process: %v\n%s", err, c.stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("child test process did not end\n%s", c.stderr.String())
	}
}

// TestSharedLocksExternal: two test processes (this test binary run as TestLockChild)
// whose NEO4J_URI names the same server take turns. The first one's Shared takes the lock
// ($NEO4JTEST_LOCK_FILE, a private file here) and holds it while its tests run: the file
// is locked, and the second process says on stderr that it is waiting and does not get
// past Shared (checked for 1 s after it said so). When the first process ends, the second gets the lock; when it
// ends, the file is free. This is what serialises `go test ./...` packages that wipe one
// external server. The server is this package's shared one, so no extra JVM is started.
func TestSharedLocksExternal(t *testing.T) {
	srv := Shared(t)
	lockPath := filepath.Join(t.TempDir(), "ext.lock")
	first := startLockChild(t, srv, lockPath)
	select {
	case <-first.locked:
	case <-time.After(60 * time.Second):
		t.Fatalf("first child never took the lock\n%s", first.stderr.String())
	}
	if !lockedElsewhere(t, lockPath) {
		t.Fatal("the first child holds no lock")
	}
	second := startLockChild(t, srv, lockPath)
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(second.stderr.String(), "waiting for another test process"); {
		if time.Now().After(deadline) {
			t.Fatalf("the second child does not say it waits: %q", second.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	select {
	case <-second.locked:
		t.Fatal("the second child got past Shared while the first held the lock")
	case <-time.After(time.Second):
	}
	first.finish(t)
	select {
	case <-second.locked:
	case <-time.After(60 * time.Second):
		t.Fatalf("second child never took the lock\n%s", second.stderr.String())
	}
	second.finish(t)
	if lockedElsewhere(t, lockPath) {
		t.Fatal("lock still held after both children ended")
	}
}
