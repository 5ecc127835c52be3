package inmem

import (
	"bytes"
	"context"
	"os"
	"testing"
)

// TestFingerprint: testdata/demo.jsonl has 57 node lines and 69
// relationship lines (counted in the file); loading it twice gives the same
// content hash, and changing one weight (0.82 → 0.83 on N2006–N2003) gives
// another with the same counts.
func TestFingerprint(t *testing.T) {
	data, err := os.ReadFile("../../testdata/demo.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	fp := func(b []byte) (n, r int64, hash string) {
		g, err := Load(bytes.NewReader(b), "demo")
		if err != nil {
			t.Fatal(err)
		}
		f, err := g.Fingerprint(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return f.Nodes, f.Relationships, f.ContentSHA256
	}
	n, r, h1 := fp(data)
	if n != 57 || r != 69 || len(h1) != 64 {
		t.Fatalf("fingerprint %d nodes, %d relationships, hash %q", n, r, h1)
	}
	if _, _, h2 := fp(data); h2 != h1 {
		t.Fatalf("same file, two hashes: %s, %s", h1, h2)
	}
	changed := bytes.Replace(data, []byte(`"weight":0.82`), []byte(`"weight":0.83`), 1)
	if bytes.Equal(changed, data) {
		t.Fatal("the demo file has no weight 0.82 to change")
	}
	if n3, r3, h3 := fp(changed); h3 == h1 || n3 != n || r3 != r {
		t.Fatalf("one weight changed: %d, %d, hash %s (was %s)", n3, r3, h3, h1)
	}
}
