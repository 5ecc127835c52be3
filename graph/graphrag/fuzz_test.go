package graphrag

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/memoria-graph/memoria/graph/apoc"
)

// FuzzDecode: any bytes as entities.parquet, beside dulce's relationships
// and communities, are read or refused, never a panic (the parquet
// library's are caught and refused naming the file); a reading hands over
// at least the relationships' titles.
//
//	go test -run '^$' -fuzz FuzzDecode -fuzztime 60s ./graph/graphrag/
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"entities.parquet", "communities.parquet"} {
		b, err := os.ReadFile(filepath.Join(dulce, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
		f.Add(append([]byte("PAR1"), b[len(b)-200:]...))
	}
	rels, err := os.ReadFile(filepath.Join(dulce, "relationships.parquet"))
	if err != nil {
		f.Fatal(err)
	}
	coms, err := os.ReadFile(filepath.Join(dulce, "communities.parquet"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, ents []byte) {
		dir := t.TempDir()
		for name, b := range map[string][]byte{"entities.parquet": ents, "relationships.parquet": rels, "communities.parquet": coms} {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		fo, _ := Find(dir)
		nodes := 0
		_, _, err := Decode(fo, apoc.MappedRules, Options{Weight: "weight"},
			func(apoc.Node) error { nodes++; return nil }, func(apoc.Relationship) error { return nil }, nil)
		if err == nil && nodes == 0 {
			t.Error("read with no node")
		}
	})
}
