package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// badGraph is well-formed JSON on every line, with two new nodes first
// (which a loader that wrote as it read would already have written) and
// two problems: line 3's weight is a string and line 4 ends at a node that
// does not exist.
const badGraph = `{"type":"node","id":"0","labels":["Event"],"properties":{"id":"NEW1"}}
{"type":"node","id":"1","labels":["Event"],"properties":{"id":"NEW2"}}
{"type":"relationship","id":"0","label":"RELATES","properties":{"weight":"high"},"start":{"id":"0"},"end":{"id":"1"}}
{"type":"relationship","id":"1","label":"RELATES","properties":{"weight":0.5},"start":{"id":"0"},"end":{"id":"9"}}
`

func writeTemp(t *testing.T, name, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLoadUsageErrors: each mistake exits 2 with a message naming it, before
// any file is read or server contacted: no file, two files, --batch 0, no
// URI (the message names both --uri and $NEO4J_URI), a bad URI, and
// --wipe without --yes when there is no terminal to confirm on (run sets
// no PromptPassword, i.e. stdin is not a terminal).
func TestLoadUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"load", "--uri", "bolt://127.0.0.1:1"}, []string{"which file"}},
		{[]string{"load", "a.jsonl", "b.jsonl", "--uri", "bolt://127.0.0.1:1"}, []string{`"a.jsonl"`, `"b.jsonl"`}},
		{[]string{"load", "a.jsonl", "--uri", "bolt://127.0.0.1:1", "--batch", "0"}, []string{"--batch"}},
		{[]string{"load", "a.jsonl"}, []string{"--uri", "$NEO4J_URI"}},
		{[]string{"load", "a.jsonl", "--uri", "http://h:7474"}, []string{`scheme "http"`}},
		{[]string{"load", "a.jsonl", "--uri", "bolt://127.0.0.1:1", "--wipe"}, []string{"--wipe", "--yes", "terminal"}},
		{[]string{"load", "a.jsonl", "--bogus"}, []string{"bogus"}},
	} {
		code, out, errs := run(t, c.args...)
		ok := code == 2 && out == ""
		for _, w := range c.want {
			ok = ok && strings.Contains(errs, w)
		}
		if !ok {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, out, errs, c.want)
		}
	}
}

// TestLoadRejectsMalformedBeforeConnecting: a malformed file exits 1 with
// both problems by line number (3: the weight, 4: the unknown end node),
// and the error is about the file, not about the server at
// bolt://127.0.0.1:1, where nothing listens: load never got as far as
// connecting, so it cannot have written anything. Flags may come after
// FILE. A well-formed file with a node without an id is refused the same
// way, naming node 7.
func TestLoadRejectsMalformedBeforeConnecting(t *testing.T) {
	p := writeTemp(t, "bad.jsonl", badGraph)
	code, out, errs := run(t, "load", p, "--uri", "bolt://127.0.0.1:1", "--batch", "10")
	if code != 1 || out != "" || !strings.Contains(errs, "line 3") || !strings.Contains(errs, "weight") ||
		!strings.Contains(errs, "line 4") || !strings.Contains(errs, "nothing loaded") || strings.Contains(errs, "127.0.0.1") {
		t.Errorf("exit %d stdout %q stderr %q", code, out, errs)
	}
	// A node without an id (neo4jgraph.ValidateForLoad) is refused before
	// connecting too.
	p = writeTemp(t, "noid.jsonl", `{"type":"node","id":"0","labels":["Event"],"properties":{"id":"A"}}
{"type":"node","id":"7","labels":["Event"],"properties":{"text":"no id"}}
`)
	code, out, errs = run(t, "load", p, "--uri", "bolt://127.0.0.1:1")
	if code != 1 || out != "" || !strings.Contains(errs, "node 7 (#2, labels [Event]) has no id property") ||
		!strings.Contains(errs, "nothing loaded") || strings.Contains(errs, "127.0.0.1") {
		t.Errorf("node without id: exit %d stdout %q stderr %q", code, out, errs)
	}
	code, _, errs = run(t, "load", filepath.Join(t.TempDir(), "missing.jsonl"), "--uri", "bolt://127.0.0.1:1")
	if code != 1 || !strings.Contains(errs, "missing.jsonl") {
		t.Errorf("missing file: exit %d stderr %q", code, errs)
	}
}

// TestParseInterspersed: flags before, between and after positional
// arguments are all parsed; "--" makes the rest positional.
func TestParseInterspersed(t *testing.T) {
	env := Env{Stdout: discard{}, Stderr: discard{}}
	fs := newFlagSet(env, "t", "")
	a := fs.String("a", "", "")
	b := fs.Bool("b", false, "")
	pos, err := parseInterspersed(fs, env, []string{"-a", "1", "x", "--b", "y", "--", "-a"})
	if err != nil || *a != "1" || !*b || strings.Join(pos, ",") != "x,y,-a" {
		t.Errorf("a %q b %v pos %q err %v", *a, *b, pos, err)
	}
}
