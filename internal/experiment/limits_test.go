package experiment

import (
	"bytes"
	"github.com/memoria-graph/memoria/testkit/endless"
	"io"
	"strings"
	"testing"
)

// TestReadBounded: Read streams the file and refuses it where it breaks,
// or once it passes MaxFile. Before, it read the whole file first
// (`memoria --experiment /dev/zero` read GBs before saying anything).
//
// Expected: endless NUL bytes are refused on line 1 as not JSON, having
// read no more than the first read's buffer (bufio's 4 KiB); an endless
// list of tags, JSON that never ends, is refused once it passes MaxFile
// (128 MiB), having read at most MaxFile + 1 bytes.
func TestReadBounded(t *testing.T) {
	zeros := &endless.Reader{Pattern: []byte{0}, Stop: 4 * MaxFile}
	_, err := Read(zeros, "zero")
	if err == nil || !strings.HasPrefix(err.Error(), "experiment zero line 1: not JSON: ") || zeros.Served > 4096 {
		t.Errorf("endless NUL bytes: %v, read %d bytes", err, zeros.Served)
	}
	tags := &endless.Reader{Pattern: []byte(`"stockout", `), Stop: 4 * MaxFile}
	_, err = Read(io.MultiReader(strings.NewReader(`{"memoria_experiment": 1, "tags": [`), tags), "tags")
	if err == nil || err.Error() != "experiment tags: the file goes on past 128 MiB, the largest experiment file memoria reads" || tags.Served > MaxFile+1 {
		t.Errorf("endless tags: %v, read %d bytes", err, tags.Served)
	}
}

// TestReadRefusesWhatJSONLetThrough: a seed given twice, a name given twice
// in an object, and data after the object are refused, each named; before,
// the first two kept the last value silently and the third was ignored
// (the CLI refuses a seed given twice). A leading UTF-8 BOM is skipped, as
// in every file memoria reads (docs/CLI.md, "Input files").
//
// Expected lines: Write writes sample() indented, 43 lines each ending in a
// newline, "tags" on line 20 (the opening brace, the version, saved_at,
// graph's 6 lines and seeds' 10 come before it: 19); so data after it starts on line 44, or 45
// after one more newline.
func TestReadRefusesWhatJSONLetThrough(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, sample()); err != nil {
		t.Fatal(err)
	}
	ok := buf.String()
	twice := sample()
	twice.Seeds = append(twice.Seeds, twice.Seeds[0])
	buf.Reset()
	if err := Write(&buf, twice); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, text, want string }{
		{"a seed twice", buf.String(), `experiment x.json: seed "N2006" is given twice`},
		{"a key twice", strings.Replace(ok, `"tags": [`, `"tags": ["x"], "tags": [`, 1),
			`experiment x.json line 20: not JSON: jsontext: duplicate object member name "tags"`},
		{"trailing data", ok + "{}\n", "experiment x.json line 44: data after the experiment's object: a file holds one object"},
		{"trailing garbage", ok + "\n  x", "experiment x.json line 45: data after the experiment's object: a file holds one object"},
	} {
		if _, err := Read(strings.NewReader(c.text), "x.json"); err == nil || err.Error() != c.want {
			t.Errorf("%s: %v, want %s", c.name, err, c.want)
		}
	}
	if e, err := Read(strings.NewReader("\uFEFF"+ok+"\n\n"), "x.json"); err != nil || len(e.Seeds) != 2 {
		t.Errorf("a BOM and trailing white space: %v", err)
	}
}
