// Package neo4jtest starts a real Neo4j 5 server for tests.
//
// If NEO4J_URI is set, that server is used (with NEO4J_USERNAME / NEO4J_PASSWORD) and
// nothing is started. The tests wipe it (and drop its indexes), so they refuse to unless
// MEMORIA_TEST_ALLOW_WIPE=1, and test processes take turns on it (LockExternal: Shared
// holds the lock for the whole package). Otherwise testdata/neo4j/launcher.sh (a small Java program around
// the official neo4j-harness) is built once — builds from parallel `go test` packages are
// serialized with a file lock — and started as a child process that serves Bolt on
// 127.0.0.1 with a free port. The child dies with the test binary: it watches its stdin
// (a pipe from this process) and also gets SIGTERM through Pdeathsig.
//
// Typical use, one server per test package:
//
//	func TestMain(m *testing.M) { neo4jtest.Main(m) }
//
//	func TestSomething(t *testing.T) {
//		srv := neo4jtest.Shared(t) // skips (or fails when CI=true) if no server
//		srv.Wipe(t)
//		driver := srv.Driver(t)
//		...
//	}
//
// Tests that need a server of their own (auth, stopping it mid-test) call New(t, ...).
package neo4jtest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Defaults used when no option overrides them.
const (
	DefaultStartTimeout = 120 * time.Second
	DefaultStopTimeout  = 30 * time.Second
	DefaultHeap         = "512m"
	DefaultPageCache    = "32m"
)

// Env variables read by this package.
const (
	EnvURI      = "NEO4J_URI"      // use this server instead of starting one
	EnvUsername = "NEO4J_USERNAME" // user for EnvURI (empty: no auth)
	EnvPassword = "NEO4J_PASSWORD" // password for EnvURI
	// EnvVerbose, when non-empty, copies the launcher's stderr (Neo4j/launcher messages)
	// to this process's stderr as it arrives.
	EnvVerbose = "NEO4JTEST_VERBOSE"
	// EnvJavaOpts overrides all JVM options of the launcher (see launcher.sh); when unset,
	// options are derived from WithHeap.
	EnvJavaOpts = "NEO4J_LAUNCHER_JAVA_OPTS"
)

// Server is a running Neo4j server: one started by this package, or the external one
// named by NEO4J_URI.
type Server struct {
	URI      string // bolt://127.0.0.1:PORT
	Username string // empty when auth is disabled
	Password string

	external bool
	cmd      *exec.Cmd
	pgid     int
	stdin    io.WriteCloser
	workDir  string
	stderr   *tailBuffer
	done     chan struct{} // closed when the child has exited and been reaped
	waitErr  error         // valid after done is closed

	stopOnce sync.Once
	stopErr  error
}

type config struct {
	user, password string
	auth           bool
	port           int
	pageCache      string
	heap           string
	dataDir        string
	startTimeout   time.Duration
	own            bool
	extraArgs      []string
	fullJIT        bool
}

// Option configures Start / New / Main.
type Option func(*config)

// WithAuth makes the server require user/password (launcher flag --auth). The built-in
// user "neo4j" gets the password; another name is created as a new user. Implies Own.
func WithAuth(user, password string) Option {
	return func(c *config) { c.auth, c.user, c.password, c.own = true, user, password, true }
}

// WithPort asks for a fixed Bolt port (default: a free port). Implies Own.
func WithPort(port int) Option { return func(c *config) { c.port, c.own = port, true } }

// WithPageCache sets Neo4j's page cache size, e.g. "64m" (default DefaultPageCache).
func WithPageCache(size string) Option { return func(c *config) { c.pageCache = size } }

// WithHeap sets the JVM heap (-Xmx), e.g. "1g" (default DefaultHeap). Ignored when
// NEO4J_LAUNCHER_JAVA_OPTS is set.
func WithHeap(size string) Option { return func(c *config) { c.heap = size } }

// WithPersonSettings runs the JVM as `make neo4j` does for a person: the
// whole heap reserved up front, G1, and the full JIT (tests use C1 only,
// which starts faster and runs queries 4-6x slower). For benchmarks.
func WithPersonSettings() Option { return func(c *config) { c.fullJIT = true } }

// WithDataDir keeps the databases in dir (survives Stop; a restarted server with the same
// dir sees the same data). Implies Own.
func WithDataDir(dir string) Option { return func(c *config) { c.dataDir, c.own = dir, true } }

// WithStartTimeout bounds the time from process start to the URI line (default 120 s).
func WithStartTimeout(d time.Duration) Option { return func(c *config) { c.startTimeout = d } }

// WithArgs passes extra flags to the launcher. Implies Own.
func WithArgs(args ...string) Option {
	return func(c *config) { c.extraArgs, c.own = append(c.extraArgs, args...), true }
}

// Own forces starting a local server even when NEO4J_URI is set (needed by tests that
// stop the server or need particular settings). WithAuth, WithPort, WithDataDir and
// WithArgs imply it.
func Own() Option { return func(c *config) { c.own = true } }

// External reports whether s is the NEO4J_URI server (not started by this package).
func (s *Server) External() bool { return s.external }

// PID returns the launcher's process id (0 for an external server).
func (s *Server) PID() int {
	if s.external || s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// Done is closed once a started server's process has exited (never for an external one).
func (s *Server) Done() <-chan struct{} { return s.done }

// Logs returns the last part of the launcher's stderr (Neo4j startup/shutdown messages,
// JVM warnings), for diagnostics.
func (s *Server) Logs() string {
	if s.stderr == nil {
		return ""
	}
	return s.stderr.String()
}

// Start returns a running server: the NEO4J_URI one if set (and no Own-implying option
// was given), otherwise a freshly started local one. The caller must call Stop.
func Start(ctx context.Context, opts ...Option) (*Server, error) {
	c := config{pageCache: DefaultPageCache, heap: DefaultHeap, startTimeout: DefaultStartTimeout}
	for _, o := range opts {
		o(&c)
	}
	if uri := os.Getenv(EnvURI); uri != "" && !c.own {
		return startExternal(ctx, uri)
	}
	return startLocal(ctx, c)
}

func startExternal(ctx context.Context, uri string) (*Server, error) {
	s := &Server{
		URI:      uri,
		Username: os.Getenv(EnvUsername),
		Password: os.Getenv(EnvPassword),
		external: true,
		done:     make(chan struct{}),
	}
	if s.Username == "" && s.Password != "" {
		s.Username = "neo4j"
	}
	vctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := s.verify(vctx); err != nil {
		return nil, fmt.Errorf("neo4jtest: cannot use %s=%s: %w", EnvURI, uri, err)
	}
	return s, nil
}

func startLocal(ctx context.Context, c config) (*Server, error) {
	launcher, err := LauncherPath()
	if err != nil {
		return nil, err
	}
	if err := Build(ctx); err != nil {
		return nil, err
	}

	workDir, err := os.MkdirTemp("", "neo4jtest-")
	if err != nil {
		return nil, fmt.Errorf("neo4jtest: %w", err)
	}
	cmd := launcherCmd(launcher, workDir, c)
	// Plain os.Pipes (not StdinPipe/StdoutPipe), so that cmd.Wait never races with our
	// reads. The child's stdin reaches EOF when this process exits: the launcher then
	// shuts Neo4j down.
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		os.RemoveAll(workDir)
		return nil, fmt.Errorf("neo4jtest: %w", err)
	}
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		stdinR.Close()
		stdinW.Close()
		os.RemoveAll(workDir)
		return nil, fmt.Errorf("neo4jtest: %w", err)
	}
	cmd.Stdin, cmd.Stdout = stdinR, stdoutW
	s := &Server{
		cmd:     cmd,
		stdin:   stdinW,
		workDir: workDir,
		stderr:  newTailBuffer(64 << 10),
		done:    make(chan struct{}),
	}
	if c.auth {
		s.Username, s.Password = c.user, c.password
	}
	if os.Getenv(EnvVerbose) != "" {
		cmd.Stderr = io.MultiWriter(s.stderr, os.Stderr)
	} else {
		cmd.Stderr = s.stderr
	}

	// Pdeathsig fires when the OS thread that forked the child exits, so fork from a
	// goroutine locked to its thread that lives until the child has been reaped.
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		err := cmd.Start()
		stdinR.Close() // the child has its own copies now
		stdoutW.Close()
		if err != nil {
			started <- err
			close(s.done)
			return
		}
		started <- nil
		s.waitErr = cmd.Wait()
		os.RemoveAll(s.workDir) // launcher removes its own dir; this covers SIGKILL
		close(s.done)
	}()
	if err := <-started; err != nil {
		stdinW.Close()
		stdoutR.Close()
		os.RemoveAll(workDir)
		return nil, fmt.Errorf("neo4jtest: starting %s: %w", launcher, err)
	}
	s.pgid = cmd.Process.Pid

	return s.awaitURI(ctx, stdoutR, c.startTimeout)
}

// launcherCmd is the launcher's command for c, working in workDir: its
// flags, its JVM options (unless $NEO4J_LAUNCHER_JAVA_OPTS sets them) and
// a process group of its own that dies with this process.
func launcherCmd(launcher, workDir string, c config) *exec.Cmd {
	args := []string{launcher, "run", "--port", fmt.Sprint(c.port), "--pagecache", c.pageCache, "--work-dir", workDir}
	if c.auth {
		args = append(args, "--auth", c.user+":"+c.password)
	}
	if c.dataDir != "" {
		args = append(args, "--data", c.dataDir)
	}
	args = append(args, c.extraArgs...)

	cmd := exec.Command("bash", args...)
	cmd.Env = os.Environ()
	switch {
	case os.Getenv(EnvJavaOpts) != "":
	case c.fullJIT:
		cmd.Env = append(cmd.Env, EnvJavaOpts+"=-Xms"+c.heap+" -Xmx"+c.heap+" -XX:+UseG1GC -XX:+DisplayVMOutputToStderr")
	default:
		cmd.Env = append(cmd.Env, EnvJavaOpts+"=-Xms64m -Xmx"+c.heap+
			" -XX:+UseSerialGC -XX:+DisplayVMOutputToStderr -XX:TieredStopAtLevel=1")
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid:   true,            // own process group: Stop signals launcher.sh and java alike
		Pdeathsig: syscall.SIGTERM, // dies with us (see the locked thread in startLocal)
	}
	return cmd
}

// awaitURI waits for the launcher to print its bolt:// URI on stdout
// (read, then drained, by a goroutine of its own), at most timeout; a
// launcher that exits first, or is too slow, is killed, and its output
// is in the error.
func (s *Server) awaitURI(ctx context.Context, stdoutR *os.File, timeout time.Duration) (*Server, error) {
	uriCh := make(chan string, 1)
	go func() {
		defer stdoutR.Close()
		sc := bufio.NewScanner(stdoutR)
		sent := false
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if !sent && strings.HasPrefix(line, "bolt://") {
				uriCh <- line
				sent = true
			}
		}
		io.Copy(io.Discard, stdoutR) //nolint:errcheck // drain until exit
		if !sent {
			close(uriCh)
		}
	}()

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	fail := func(why string) (*Server, error) {
		s.terminate(syscall.SIGKILL, 0)
		return nil, fmt.Errorf("neo4jtest: Neo4j launcher %s; launcher output:\n%s", why, indent(s.Logs()))
	}
	select {
	case uri, ok := <-uriCh:
		if !ok {
			<-s.done
			return fail(fmt.Sprintf("exited before printing its URI (%v)", s.waitErr))
		}
		s.URI = uri
	case <-timer.C:
		return fail(fmt.Sprintf("printed no URI within %v", timeout))
	case <-ctx.Done():
		return fail("start cancelled: " + ctx.Err().Error())
	}
	return s, nil
}

// Stop shuts a started server down: SIGTERM to its process group, then SIGKILL if it has
// not exited within DefaultStopTimeout. It waits for the process and is idempotent. For
// an external server it does nothing.
func (s *Server) Stop() error { return s.terminate(syscall.SIGTERM, DefaultStopTimeout) }

// Kill stops a started server abruptly (SIGKILL, no clean shutdown) and waits for it.
func (s *Server) Kill() error { return s.terminate(syscall.SIGKILL, 0) }

func (s *Server) terminate(sig syscall.Signal, grace time.Duration) error {
	if s == nil || s.external {
		return nil
	}
	s.stopOnce.Do(func() {
		select {
		case <-s.done:
		default:
			_ = syscall.Kill(-s.pgid, sig)
			if grace > 0 {
				select {
				case <-s.done:
				case <-time.After(grace):
					s.stopErr = fmt.Errorf("neo4jtest: server (pid %d) ignored SIGTERM for %v; killed", s.pgid, grace)
					_ = syscall.Kill(-s.pgid, syscall.SIGKILL)
				}
			}
			<-s.done
		}
		_ = s.stdin.Close()
		if s.stopErr == nil && s.waitErr != nil && sig == syscall.SIGTERM && !exitedOnSignal(s.waitErr) {
			s.stopErr = fmt.Errorf("neo4jtest: server exited with %v; launcher output:\n%s", s.waitErr, indent(s.Logs()))
		}
		// Reap any leftover member of the group (e.g. a JVM whose wrapper died first).
		_ = syscall.Kill(-s.pgid, syscall.SIGKILL)
	})
	return s.stopErr
}

// exitedOnSignal reports whether err is an exit by SIGTERM/SIGKILL or the JVM's 143/137
// (128+signal) status, the normal result of stopping the server.
func exitedOnSignal(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return true
	}
	code := ee.ExitCode()
	return code == 143 || code == 137 || code == 130
}

var (
	buildMu   sync.Mutex
	buildDone bool
)

// Build builds the launcher (testdata/neo4j/launcher.sh build) once per process, holding
// an exclusive flock on testdata/neo4j/.build.lock so that parallel test packages do not
// run Maven on the same directory at the same time.
func Build(ctx context.Context) error {
	buildMu.Lock()
	defer buildMu.Unlock()
	if buildDone {
		return nil
	}
	launcher, err := LauncherPath()
	if err != nil {
		return err
	}
	if _, err := exec.LookPath("bash"); err != nil {
		return fmt.Errorf("neo4jtest: bash not found: %w", err)
	}
	if os.Getenv("JAVA_HOME") == "" {
		if _, err := exec.LookPath("java"); err != nil {
			return fmt.Errorf("neo4jtest: java not found on PATH (need Java 17+ to run the Neo4j test server, or set %s)", EnvURI)
		}
	}
	lockPath := filepath.Join(filepath.Dir(launcher), ".build.lock")
	lf, err := os.OpenFile(lockPath, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return fmt.Errorf("neo4jtest: %w", err)
	}
	defer lf.Close()
	if err := flock(ctx, lf); err != nil {
		return fmt.Errorf("neo4jtest: locking %s: %w", lockPath, err)
	}
	defer syscall.Flock(int(lf.Fd()), syscall.LOCK_UN) //nolint:errcheck

	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, "bash", launcher, "build")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("neo4jtest: building the Neo4j launcher (%s build) failed: %w\n%s", launcher, err, indent(out.String()))
	}
	buildDone = true
	return nil
}

func flock(ctx context.Context, f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// LauncherPath returns the absolute path of testdata/neo4j/launcher.sh, found by walking
// up from the working directory to the module root (the directory with go.mod that has
// testdata/neo4j/launcher.sh).
func LauncherPath() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("neo4jtest: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, "testdata", "neo4j", "launcher.sh")
			if _, err := os.Stat(p); err == nil {
				return p, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("neo4jtest: testdata/neo4j/launcher.sh not found in any parent directory (with go.mod) of the working directory")
		}
		dir = parent
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu      sync.Mutex
	buf     []byte
	max     int
	dropped bool
}

func newTailBuffer(max int) *tailBuffer { return &tailBuffer{max: max} }

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
		b.dropped = true
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dropped {
		return "[...]\n" + string(b.buf)
	}
	return string(b.buf)
}

func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return "    (no output)"
	}
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}
