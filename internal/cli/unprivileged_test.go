package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// unprivilegedArgs, set in the environment of this test binary, makes it
// run memoria with the JSON list of arguments it holds, as run does, and
// exit with its code instead of running the tests (TestMain): what
// runUnprivileged starts as an unprivileged user.
const unprivilegedArgs = "MEMORIA_CLI_TEST_UNPRIVILEGED_ARGS"

// runIfUnprivilegedChild runs memoria and exits when this process is
// runUnprivileged's copy of the test binary; otherwise it returns. The
// demo graph comes on its standard input: the copy runs as nobody, who
// may not be able to read the clone it was built from.
func runIfUnprivilegedChild() {
	v := os.Getenv(unprivilegedArgs)
	if v == "" {
		return
	}
	var args []string
	if err := json.Unmarshal([]byte(v), &args); err != nil {
		panic(err)
	}
	demo, err := io.ReadAll(os.Stdin)
	if err != nil {
		panic(err)
	}
	env := Env{Stdin: strings.NewReader(""), Stdout: os.Stdout, Stderr: os.Stderr, DemoGraph: demo, Getenv: func(string) string { return "" }}
	os.Exit(Main(context.Background(), args, env))
}

// runUnprivileged is run, as a user without the rights file modes
// deny: the tests' own user, unless that is root, which writes into a
// read-only directory all the same; then a copy of this test binary runs
// memoria as nobody (uid and gid 65534), in a directory of its own, the
// demo graph on its standard input. Nothing it reads may lie in the clone,
// which nobody may be unable to enter (a clone under a directory of mode
// 0700, or made with umask 077): a file it reads is a readableCopy. Where
// root cannot start a process as another user, the test is skipped: the
// case cannot be made.
func runUnprivileged(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	if os.Geteuid() != 0 {
		return run(t, args...)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := searchableTempDir(t)
	bin := filepath.Join(dir, "cli.test")
	copyFile(t, self, bin, 0o755)
	a, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	cmd := exec.Command(bin)
	cmd.Dir, cmd.Stdin = dir, bytes.NewReader(demo(t))
	cmd.Env = append(os.Environ(), unprivilegedArgs+"="+string(a))
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), out.String(), errb.String()
	case err != nil:
		t.Skipf("running as root, which writes into read-only directories, and memoria cannot be run as nobody: %v", err)
	}
	return 0, out.String(), errb.String()
}

// searchableTempDir is a new directory, removed when the test ends, that
// every user may search and read (t.TempDir's is its owner's only).
func searchableTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "memoria-cli-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// copyFile copies the file from to to, with mode perm.
func copyFile(t *testing.T, from, to string, perm os.FileMode) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	// The mode as asked, whatever the umask.
	if err := os.Chmod(to, perm); err != nil {
		t.Fatal(err)
	}
}

// readableCopy is a copy of the file at path in dir (a searchableTempDir),
// readable by every user, for runUnprivileged's child to read.
func readableCopy(t *testing.T, dir, path string) string {
	t.Helper()
	to := filepath.Join(dir, filepath.Base(path))
	copyFile(t, path, to, 0o644)
	return to
}

// TestEvalTrecReadOnlyOut: eval --format trec into a directory it may not
// write in fails naming the file the user would have got (DIR/ppr.run);
// it named the temporary file it writes first, "open
// DIR/.ppr.run.123.tmp: permission denied", a name the user never chose.
func TestEvalTrecReadOnlyOut(t *testing.T) {
	base := searchableTempDir(t)
	dir := filepath.Join(base, "runs")
	if err := os.Mkdir(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runUnprivileged(t, "eval", "--queries", readableCopy(t, base, demoQueries), "--retrievers", "ppr", "--format", "trec", "--out", dir)
	if want := "memoria: eval: --out: " + filepath.Join(dir, "ppr.run") + ": permission denied\n"; code != ExitRuntime || out != "" || errs != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1 and %q", code, out, errs, want)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Errorf("--out holds %v (%v), want nothing", entries, err)
	}
}
