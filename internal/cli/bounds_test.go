package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestHTMLTopKLargest: --format html runs a ranking retriever to 2K (its
// hits beyond K the losers drawn); K = MaxInt64 doubled wrapped to -2, and
// explore failed with "top k must be at least 1, got -2", exit 1. twice
// saturates at MaxInt: the page draws every hit, as with any K above the
// graph's size.
func TestHTMLTopKLargest(t *testing.T) {
	for _, r := range []string{"expansion", "spreading", "ppr", "fusion"} {
		code, out, errs := run(t, "explore", "--seed", "N2006", "--retriever", r, "--top-k", "9223372036854775807", "--format", "html")
		if code != 0 || !strings.Contains(out, "<html") {
			t.Errorf("%s: exit %d, %d bytes: %s", r, code, len(out), errs)
		}
	}
	if twice(3) != 6 || twice(1<<62) != 1<<63-1 || twice(1<<62-1) != 1<<63-2 {
		t.Errorf("twice: %d %d %d", twice(3), twice(1<<62), twice(1<<62-1))
	}
}

// TestSmallRefusalsSayWhatIsWrong: the smaller refusals of issue 35, each
// naming what is wrong.
//
//   - sweep --values: a fraction for a whole-number parameter is echoed as
//     typed (2147483647.5), not as 2.1474836475e+09.
//   - --default-weight -1 is refused at parse time naming the flag, exit
//     2; before, it was accepted and ppr failed at the first relationship
//     without a weight, exit 1, naming the relationship.
//   - the flag package's own refusals (a value out of float64's range)
//     lead with the command as every other refusal does: `--rrf-k 1e309`
//     said "memoria: invalid value …" where `--rrf-k -1` said "memoria:
//     explore: --rrf-k: …".
//   - --out into a symbolic link that loops says so; MkdirAll said "file
//     exists".
func TestSmallRefusalsSayWhatIsWrong(t *testing.T) {
	dir := t.TempDir()
	loop := filepath.Join(dir, "loop")
	if err := os.Symlink(loop, loop); err != nil {
		t.Fatal(err)
	}
	lightrag := filepath.Join(dir, "lr.jsonl")
	if err := os.WriteFile(lightrag, []byte(`{"type":"node","id":"0","labels":["base"],"properties":{"entity_id":"A"}}
{"type":"node","id":"1","labels":["base"],"properties":{"entity_id":"B"}}
{"type":"node","id":"2","labels":["base"],"properties":{"entity_id":"C"}}
{"type":"relationship","id":"0","label":"DIRECTED","properties":{"keywords":"x","weight":0.5},"start":{"id":"0"},"end":{"id":"1"}}
{"type":"relationship","id":"1","label":"DIRECTED","properties":{"keywords":"x"},"start":{"id":"1"},"end":{"id":"2"}}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	refuses(t, []badInput{
		{[]string{"sweep", "--queries", demoQueries, "--retriever", "expansion", "--param", "top-k", "--values", "2147483647.5"}, ExitUsage,
			"memoria: sweep: --values: item 1: top-k takes whole numbers, got 2147483647.5\n"},
		{[]string{"explore", "--graph", lightrag, "--schema", "lightrag", "--seed", "A", "--retriever", "ppr", "--default-weight", "-1"}, ExitUsage,
			"memoria: --default-weight \"-1\": want a finite number of at least 0\n"},
		{[]string{"explore", "--seed", "N2006", "--retriever", "fusion", "--rrf-k", "1e309"}, ExitUsage,
			"memoria: explore: invalid value \"1e309\" for flag -rrf-k: value out of range (see --help)\n"},
		{[]string{"eval", "--queries", demoQueries, "--format", "trec", "--out", loop}, ExitRuntime,
			"memoria: eval: --out: stat " + loop + ": too many levels of symbolic links\n"},
	})
	// --default-weight 0 stays accepted: ppr takes weights of at least 0.
	if code, _, errs := run(t, "explore", "--graph", lightrag, "--schema", "lightrag", "--seed", "A", "--retriever", "ppr", "--default-weight", "0", "--format", "ranking"); code != 0 {
		t.Errorf("--default-weight 0: exit %d: %s", code, errs)
	}
}

// TestTreeNumbersBounded: the tree shows R, T and w in at most 16
// characters each (render.Num); R = 5e-324 took 326 characters and a weight
// of 1e308 309 digits, stretching a line to 376 characters.
//
// Expected: on the chain A -1e308-> B -0.5-> C with the seed A at R =
// 5e-324, the lines are "seed A R=4.941e-324: …", "A (A) R=4.941e-324",
// "└── B (B) T=… w=1e+308 …" and C's: none longer than 100 characters.
func TestTreeNumbersBounded(t *testing.T) {
	g := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(g, []byte(`{"type":"node","id":"0","labels":["A"],"properties":{"id":"A"}}
{"type":"node","id":"1","labels":["B"],"properties":{"id":"B"}}
{"type":"node","id":"2","labels":["C"],"properties":{"id":"C"}}
{"type":"relationship","id":"0","label":"RELATES","properties":{"weight":1e308,"tags":[]},"start":{"id":"0"},"end":{"id":"1"}}
{"type":"relationship","id":"1","label":"RELATES","properties":{"weight":0.5,"tags":[]},"start":{"id":"1"},"end":{"id":"2"}}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, "explore", "--graph", g, "--seed", "A=5e-324", "--format", "tree", "--min-activation", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "A (A) R=4.941e-324\n") || !strings.Contains(out, " w=1e+308 ") {
		t.Errorf("tree:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if utf8.RuneCountInString(l) > 100 {
			t.Errorf("a line of %d characters: %.120s…", utf8.RuneCountInString(l), l)
		}
	}
}
