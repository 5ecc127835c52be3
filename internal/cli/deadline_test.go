package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/testkit/neo4jtest"
	"github.com/memoria-graph/memoria/tui"
)

// hang bounds a call that must return by itself, far above any deadline
// these tests set: a call that hangs fails the test instead of blocking it.
const hang = 20 * time.Second

// runCtx runs Main with args under ctx, with no Neo4j environment, and
// fails the test if it has not returned after hang.
func runCtx(t *testing.T, ctx context.Context, args ...string) (code int, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, DemoGraph: demo(t), Getenv: func(string) string { return "" }}
	done := make(chan int, 1)
	go func() { done <- Main(ctx, args, env) }()
	select {
	case code = <-done:
	case <-time.After(hang):
		t.Fatalf("memoria %s did not return within %s", strings.Join(args, " "), hang)
	}
	return code, errb.String()
}

// silentCommands are the commands that connect to the server of uri, with
// extra flags appended.
func silentCommands(uri string, extra ...string) map[string][]string {
	with := func(args ...string) []string { return append(append(args, "--uri", uri), extra...) }
	return map[string][]string{
		"explorer": with(),
		"explore":  with("explore", "--seed", "N2006"),
		"export":   with("export"),
		"load":     with("load", "../../testdata/demo.jsonl"),
	}
}

// TestSilentServerTimesOut: each command pointed at a server that accepts
// TCP and never answers (neo4jtest.Silent) exits 1, once its connect
// deadline (--timeout 300ms) has run out, with one line naming the server,
// the deadline and the flag. The explorer fails before it takes the
// terminal.
func TestSilentServerTimesOut(t *testing.T) {
	srv := neo4jtest.NewSilent(t)
	want := fmt.Sprintf("memoria: no answer from Neo4j at %s within 300ms of connecting: is the server up, and is this its Bolt port? (--timeout sets the deadline)\n", srv.URI)
	for name, args := range silentCommands(srv.URI, "--timeout", "300ms") {
		t.Run(name, func(t *testing.T) {
			code, stderr := runCtx(t, context.Background(), args...)
			if code != ExitRuntime || stderr != want {
				t.Errorf("exit %d, stderr %q; want 1 and %q", code, stderr, want)
			}
		})
	}
}

// TestSilentServerSignals: with a deadline of an hour, each command waits
// for the silent server's handshake answer; cancelling its context with
// the cause main gives a signal (Signalled) ends it at once with the
// shell's code, 128 + the signal's number (SIGINT 2, SIGTERM 15, SIGHUP 1),
// and the matching line.
func TestSilentServerSignals(t *testing.T) {
	signals := []struct {
		sig  syscall.Signal
		code int
		msg  string
	}{
		{syscall.SIGINT, 130, "memoria: interrupted\n"},
		{syscall.SIGTERM, 143, "memoria: terminated (SIGTERM)\n"},
		{syscall.SIGHUP, 129, "memoria: hung up (SIGHUP)\n"},
	}
	for _, s := range signals {
		for name := range silentCommands("") {
			t.Run(s.sig.String()+"/"+name, func(t *testing.T) {
				srv := neo4jtest.NewSilent(t)
				args := silentCommands(srv.URI, "--timeout", "1h")[name]
				ctx, cancel := context.WithCancelCause(context.Background())
				defer cancel(nil)
				go func() {
					<-srv.Handshake() // memoria is now blocked reading the answer
					cancel(Signalled{Signal: s.sig})
				}()
				code, stderr := runCtx(t, ctx, args...)
				select {
				case <-srv.Handshake():
				default:
					t.Fatalf("never reached the handshake (exit %d: %s)", code, stderr)
				}
				if code != s.code || stderr != s.msg {
					t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, s.code, s.msg)
				}
			})
		}
	}
}

// TestSignalAfterSuccess: a command that ran to its end on the demo graph
// but whose context a signal cancelled still exits with the signal's code
// (the process was told to stop; a script must see it).
func TestSignalAfterSuccess(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(Signalled{Signal: syscall.SIGTERM})
	code, stderr := runCtx(t, ctx, "export")
	if code != 143 || stderr != "memoria: terminated (SIGTERM)\n" {
		t.Errorf("exit %d, stderr %q; want 143 and the SIGTERM line", code, stderr)
	}
}

// TestTimeoutFlag: --timeout takes one duration for both deadlines, or
// connect=D and query=D in any order (the other keeps its default, 10s
// and 30s: graph/neo4jdb's DefaultConnectTimeout and DefaultQueryTimeout),
// in one flag or in two (each deadline from the flag that names it), and
// a deadline given twice with the same value.
func TestTimeoutFlag(t *testing.T) {
	for _, c := range []struct {
		in             []string
		connect, query time.Duration
	}{
		{[]string{"5s"}, 5 * time.Second, 5 * time.Second},
		{[]string{"connect=1s"}, time.Second, 30 * time.Second},
		{[]string{"query=2m"}, 10 * time.Second, 2 * time.Minute},
		{[]string{"query=250ms, connect=3s"}, 3 * time.Second, 250 * time.Millisecond},
		{[]string{"connect=1s", "query=2m"}, time.Second, 2 * time.Minute},
		{[]string{"5s", "query=5s"}, 5 * time.Second, 5 * time.Second},
	} {
		var nf neo4jFlags
		fs := newFlagSet(Env{Stderr: io.Discard}, "t", "")
		nf.register(fs)
		var args []string
		for _, v := range c.in {
			args = append(args, "--timeout", v)
		}
		if err := parse(fs, Env{Stdout: io.Discard}, args); err != nil {
			t.Errorf("--timeout %q: %v", c.in, err)
			continue
		}
		st, ok, err := nf.settings(Env{Getenv: func(k string) string {
			if k == "NEO4J_URI" {
				return "bolt://127.0.0.1:7687"
			}
			return ""
		}})
		if !ok || err != nil || st.ConnectTimeout != c.connect || st.QueryTimeout != c.query {
			t.Errorf("--timeout %q: connect %v query %v (%v); want %v and %v", c.in, st.ConnectTimeout, st.QueryTimeout, err, c.connect, c.query)
		}
	}
}

// TestTimeoutUsageErrors: a bad --timeout is a usage error (exit 2) whose
// message quotes the value and says what is wrong with it; a deadline
// given twice with different values names it and both values, in one
// flag or across two (the second value kept silently before).
func TestTimeoutUsageErrors(t *testing.T) {
	for in, want := range map[string]string{
		"0":                          `"0": a deadline must be positive`,
		"-1s":                        `"-1s": a deadline must be positive`,
		"fast":                       `"fast" is not a duration like 10s or 1m`,
		"connect=":                   `connect: "" is not a duration`,
		"read=1s":                    `"read" is neither connect nor query`,
		"connect=1s,x=2":             `"x" is neither connect nor query`,
		"connect=1s,connect=2s":      `the connect deadline is given twice, 1s and then 2s: give it once`,
		"5s --timeout query=1m":      `the query deadline is given twice, 5s and then 1m0s: give it once`,
		"query=1m --timeout 5s":      `the query deadline is given twice, 1m0s and then 5s: give it once`,
		"connect=3s --timeout 3s,4s": `"3s,4s" is not a duration`,
	} {
		code, _, stderr := run(t, append([]string{"explore", "--seed", "N2006", "--timeout"}, strings.Split(in, " ")...)...)
		if code != ExitUsage || !strings.Contains(stderr, "-timeout") || !strings.Contains(stderr, want) {
			t.Errorf("--timeout %q: exit %d, stderr %q; want 2 and %q", in, code, stderr, want)
		}
	}
}

// TestExplorerFrozenServer: the explorer on the demo graph in Neo4j,
// through a proxy that then freezes (the server stops answering in the
// middle of the session), with a query deadline of 3 s. The seed list
// comes through the proxy; after the freeze, choosing seed N2006 starts a
// run whose first query (the seed's lookup) runs out of its deadline, and
// the explorer shows "Neo4j at <proxy> did not answer a query within 3s". The
// explorer stays usable: ? opens the key help, esc closes it, and q quits.
func TestExplorerFrozenServer(t *testing.T) {
	srv, _ := freshServer(t)
	mustLoad(t, srv)
	proxy := neo4jtest.NewProxy(t, srv.URI)
	ctx := context.Background()
	src, err := connectNeo4j(ctx, neo4jdb.Settings{URI: proxy.URI, Username: srv.Username, Password: srv.Password,
		ConnectTimeout: 10 * time.Second, QueryTimeout: 3 * time.Second}, Env{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close(ctx)
	// Warm the server's query plans of the catalog the explorer reads
	// first, so that a busy test machine's first planning does not run out
	// of the deadline before the freeze.
	for range 3 {
		_, _, err1 := src.ListNodes(ctx, "", 0, 100)
		_, err2 := src.Tags(ctx)
		if err1 == nil && err2 == nil {
			break
		}
	}
	backend, err := backendFor(src, graph.RelFilter{})
	if err != nil {
		t.Fatal(err)
	}
	// No retries: the timeout is not transient anyway (graph/neo4jdb,
	// "Deadlines"), so none would happen.
	out := &syncBuffer{}
	// The model's work stops when the test ends, as tui.Run stops it, so
	// that closing the source meets no query in flight.
	work, stop := context.WithCancel(ctx)
	defer stop()
	m, err := tui.New(work, tui.Options{Source: src, Backend: backend, RunOptions: activation.Options{}, NoColor: true, OutDir: t.TempDir(), Out: out})
	if err != nil {
		t.Fatal(err)
	}
	p := tea.NewProgram(m, tea.WithInput(nil), tea.WithOutput(m.Output()), tea.WithoutSignalHandler())
	done := make(chan error, 1)
	go func() { _, err := p.Run(); done <- err }()
	p.Send(tea.WindowSizeMsg{Width: 120, Height: 40})
	// wait polls the screen output written since the previous wait.
	seen := 0
	wait := func(what, text string) {
		t.Helper()
		for end := time.Now().Add(hang); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			b := out.String()
			if strings.Contains(ansi.Strip(b[seen:]), text) {
				seen = len(b)
				return
			}
		}
		t.Fatalf("no %s (%q) on the screen after %s; screen:\n%s", what, text, hang, ansi.Strip(out.String()[seen:]))
	}
	key := func(k tea.KeyType, r ...rune) { p.Send(tea.KeyMsg{Type: k, Runes: r}) }
	wait("seed list", "N2006 UserRequest")
	proxy.Freeze()
	for _, r := range "/N2006" {
		key(tea.KeyRunes, r)
	}
	key(tea.KeyEnter)
	key(tea.KeySpace, ' ')
	wait("timeout", fmt.Sprintf("Neo4j at %s did not answer a query within 3s", proxy.URI))
	key(tea.KeyRunes, '?')
	wait("key help", "Keys (? or esc to close")
	key(tea.KeyEsc)
	key(tea.KeyRunes, 'q')
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the explorer ended with %v", err)
		}
	case <-time.After(hang):
		t.Fatal("q did not quit the explorer")
	}
}

// syncBuffer is a bytes.Buffer safe for the program's writer goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestHelpDocumentsTimeoutAndExitCodes: memoria --help names --timeout with
// its defaults and the exit codes of the signals; explore, export and load
// --help list -timeout with its defaults (connect=10s,query=30s).
func TestHelpDocumentsTimeoutAndExitCodes(t *testing.T) {
	_, out, _ := run(t, "--help")
	for _, want := range []string{"--timeout D", "connect=10s,query=30s", "Exit codes: 0 done, 1 runtime error", "130, 143\nand 129"} {
		if !strings.Contains(out, want) {
			t.Errorf("memoria --help lacks %q", want)
		}
	}
	for _, cmd := range [][]string{{"explore", "--help"}, {"export", "--help"}, {"load", "--help"}} {
		code, out, _ := run(t, cmd...)
		if code != 0 || !strings.Contains(out, "-timeout D") || !strings.Contains(out, "(default connect=10s,query=30s)") {
			t.Errorf("memoria %s: exit %d, no -timeout with its defaults:\n%s", strings.Join(cmd, " "), code, out)
		}
	}
}
