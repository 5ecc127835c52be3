package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestInputWithoutEnd: every file a command reads is streamed, its line
// and file limits enforced while it is read (docs/CLI.md, "Input files"),
// so a file without end is refused naming the flag, the file, the line
// and the limit, in bounded memory. Before, `eval --queries /dev/zero`
// (and --qrels, --experiment, --graph) read GBs before checking anything
// and died out of memory; `--query-vector /dev/urandom` reached 19 GB.
//
// Expected: /dev/zero is one line of NUL bytes without end. A query set
// refuses it on line 1 past eval.MaxQueryLine (16 MiB), its scanner's
// buffer doubling up to that (< 32 MiB); a qrels file past
// eval.MaxQrelsLine (1 MiB); a --graph file past apoc.MaxLine (64 MiB, its
// buffer doubling up to that: < 128 MiB); an experiment file and a query
// vector at the first byte, which is not JSON. Each bound below is that
// and 16 MiB for the rest of the command.
func TestInputWithoutEnd(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Fatalf("this test reads /dev/zero: %v", err)
	}
	qs := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(qs, []byte(`{"id": "q1", "seeds": [{"node_id": "N2006", "score": 1}], "relevant": {"N2003": 1}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const slack = 16 << 20
	for _, c := range []struct {
		args  []string
		msg   string
		bound uint64
	}{
		{[]string{"eval", "--queries", "/dev/zero"},
			"memoria: eval: --queries /dev/zero: line 1: longer than 16 MiB, the longest line of a query set\n", 32<<20 + slack},
		{[]string{"eval", "--queries", qs, "--qrels", "/dev/zero"},
			"memoria: eval: --qrels /dev/zero: line 1: longer than 1 MiB, the longest line of a qrels file\n", 2<<20 + slack},
		{[]string{"stats", "--graph", "/dev/zero"},
			"memoria: loading /dev/zero: line 1: longer than 64 MiB, the longest line memoria reads\n", 128<<20 + slack},
		{[]string{"eval", "--graph", "/dev/zero", "--queries", qs},
			"memoria: loading /dev/zero: line 1: longer than 64 MiB, the longest line memoria reads\n", 128<<20 + slack},
		{[]string{"--experiment", "/dev/zero"},
			"memoria: experiment /dev/zero line 1: not JSON: jsontext: invalid character '\\x00' at start of value\n", slack},
		{[]string{"explore", "--seed", "N2006", "--retriever", "spreading", "--query-vector", "/dev/zero"},
			"memoria: explore: --query-vector /dev/zero: not a JSON array of numbers: invalid character '\\x00' looking for beginning of value\n", slack},
	} {
		var a, b runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&a)
		refuses(t, []badInput{{c.args, ExitRuntime, c.msg}})
		runtime.ReadMemStats(&b)
		if n := b.TotalAlloc - a.TotalAlloc; n > c.bound {
			t.Errorf("%q allocated %d bytes, more than %d", c.args, n, c.bound)
		}
	}
}
