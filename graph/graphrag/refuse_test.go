package graphrag

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/inmem"
	. "github.com/memoria-graph/memoria/testkit/parquetgraph"
)

// table is one file of a folder a test writes.
type tableFile struct {
	name  string
	write func(path string) error
}

func rows[T any](name string, r ...T) tableFile {
	return tableFile{name, func(p string) error { return Write(p, r, 0, 0) }}
}

func raw(name, text string) tableFile {
	return tableFile{name, func(p string) error { return os.WriteFile(p, []byte(text), 0o600) }}
}

func folder(t *testing.T, files ...tableFile) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		if err := f.write(filepath.Join(dir, f.name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// abc are three good entities and two good relationships.
var (
	abc = rows("entities.parquet",
		Entity{ID: S("a"), Title: S("A"), Type: S("PERSON")},
		Entity{ID: S("b"), Title: S("B"), Type: S("PERSON")},
		Entity{ID: S("c"), Title: S("C")})
	abRels = rows("relationships.parquet",
		Relationship{Source: S("A"), Target: S("B"), Weight: F(1)},
		Relationship{Source: S("B"), Target: S("C"), Weight: F(2)})
)

// Tables of the wrong shape.
type noTitle struct {
	ID   string `parquet:"id"`
	Name string `parquet:"name"`
}

type intTitle struct {
	Title int64 `parquet:"title"`
}

type textWeight struct {
	Source string `parquet:"source"`
	Target string `parquet:"target"`
	Weight string `parquet:"weight"`
}

type listTitle struct {
	Title []string `parquet:"title,list"`
}

type communityNoIDs struct {
	Title string `parquet:"title"`
}

// TestRefusals: each bad table is refused naming the file and the row or
// column and what is wrong, and a table refused for its columns hands
// nothing over (every table's columns are checked before any row is
// read).
func TestRefusals(t *testing.T) {
	half := func(name string) tableFile {
		return tableFile{name, func(p string) error {
			b, err := os.ReadFile(filepath.Join(dulce, name))
			if err != nil {
				return err
			}
			return os.WriteFile(p, b[:len(b)/2], 0o600)
		}}
	}
	for _, c := range []struct {
		what    string
		files   []tableFile
		want    string
		columns bool // refused before any row
	}{
		{"CSV named parquet", []tableFile{raw("entities.parquet", "title,type\nA,PERSON\n"), abRels},
			"entities.parquet: not a parquet file: ", true},
		{"a file cut in half", []tableFile{abc, half("relationships.parquet")},
			"relationships.parquet: not a parquet file: ", true},
		{"no title column", []tableFile{rows("entities.parquet", noTitle{"a", "A"}), abRels},
			`entities.parquet: no column "title", which memoria needs (the title that keys a node): its columns are "id", "name"`, true},
		{"an integer title", []tableFile{rows("entities.parquet", intTitle{1}), abRels},
			`entities.parquet: column "title" holds INT64 values: want a string`, true},
		{"a list title", []tableFile{rows("entities.parquet", listTitle{[]string{"A"}}), abRels},
			`entities.parquet: column "title" is a list: want a string`, true},
		{"a weight of text", []tableFile{abc, rows("relationships.parquet", textWeight{"A", "B", "heavy"})},
			`relationships.parquet: column "weight" holds BYTE_ARRAY values: want a number`, true},
		{"no target column", []tableFile{abc, rows("relationships.parquet", noTitle{"A", "B"})},
			`relationships.parquet: no column "source", which memoria needs (the title of a relationship's first end)`, true},
		{"communities without entity_ids", []tableFile{abc, abRels, rows("communities.parquet", communityNoIDs{"Community 0"})},
			`communities.parquet: no column "entity_ids", which memoria needs (the entities a row links to)`, true},
		{"entities without id, text units linking", []tableFile{rows("entities.parquet", communityNoIDs{"A"}), abRels,
			rows("text_units.parquet", TextUnit{ID: S("t"), EntityIDs: []string{"a"}})},
			`entities.parquet: no column "id", which memoria needs (the id that other tables name): its columns are "title"`, true},
		{"entities without id, communities linking", []tableFile{rows("entities.parquet", struct {
			Title string `parquet:"title"`
		}{"A"}), abRels, rows("communities.parquet", Community{Title: S("Community 0"), EntityIDs: []string{"a"}})},
			`entities.parquet: no column "id", which memoria needs (the id that other tables name)`, true},
		{"a null title", []tableFile{rows("entities.parquet", Entity{Title: S("A")}, Entity{Type: S("PERSON")}), abRels},
			"entities.parquet row 1: title is null", false},
		{"an empty target", []tableFile{abc, rows("relationships.parquet",
			Relationship{Source: S("A"), Target: S("B")}, Relationship{Source: S("A"), Target: S("C")}, Relationship{Source: S("A"), Target: S("")})},
			"relationships.parquet row 2: target is empty", false},
		{"a title twice", []tableFile{rows("entities.parquet", Entity{Title: S("A")}, Entity{Title: S("B")}, Entity{Title: S("A")}), abRels},
			`entities.parquet row 2: the title "A" again (first at row 0): a title keys an entity`, false},
		{"a description not UTF-8", []tableFile{rows("entities.parquet", Entity{Title: S("A")}, Entity{Title: S("B"), Description: S("caf\xe9")}), abRels},
			`entities.parquet row 1: node 1: property "description": string "caf\xe9" is not valid UTF-8`, false},
		{"a weight not finite", []tableFile{abc, rows("relationships.parquet", Relationship{Source: S("A"), Target: S("B"), Weight: F(math.NaN())})},
			`relationships.parquet row 0: relationship 0: property "weight": NaN is not a finite number`, false},
		{"a text unit id that is a title", []tableFile{abc, abRels, rows("text_units.parquet", TextUnit{ID: S("B"), EntityIDs: []string{"a"}})},
			`text_units.parquet row 0: the id "B" is the title of another node already`, false},
		{"a type that is not UTF-8", []tableFile{rows("entities.parquet", Entity{Title: S("A"), Type: S("P\xff")}), abRels},
			`entities.parquet row 0: node 0: label "P\xff" is not valid UTF-8`, false},
		{"no rows", []tableFile{rows[Entity]("entities.parquet"), rows[Relationship]("relationships.parquet")},
			"entities.parquet and relationships.parquet hold no rows: an empty graph", true},
	} {
		t.Run(c.what, func(t *testing.T) {
			f, ok := Find(folder(t, c.files...))
			if !ok {
				t.Fatal("not a GraphRAG folder")
			}
			handed := 0
			_, _, err := Decode(f, apoc.MappedRules, Options{Weight: "weight"},
				func(apoc.Node) error { handed++; return nil }, func(apoc.Relationship) error { handed++; return nil }, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
			if c.columns && handed > 0 {
				t.Errorf("%d elements handed over before the refusal", handed)
			}
		})
	}
}

// TestRefusedNothingLoaded: a refusal at the last row of the last table
// leaves no graph (inmem.LoadRead returns none), though every earlier row
// was built.
func TestRefusedNothingLoaded(t *testing.T) {
	dir := folder(t, abc, rows("relationships.parquet",
		Relationship{Source: S("A"), Target: S("B")}, Relationship{Source: S("A"), Target: S("C")}, Relationship{Source: S("A")}))
	f, _ := Find(dir)
	s, _ := graph.Preset(graph.SchemaGraphRAG)
	g, err := inmem.LoadRead(dir, f.Size(), s, nil, func(rules apoc.Rules, onNode func(apoc.Node) error, onRel func(apoc.Relationship) error, read func(int64)) (apoc.Report, error) {
		_, rep, err := Decode(f, rules, Options{Weight: "weight"}, onNode, onRel, read)
		return rep, err
	})
	if g != nil || err == nil || err.Error() != "relationships.parquet row 2: target is null" {
		t.Errorf("got %v, %v", g, err)
	}
}

// numericDescription is a relationships table whose description is a
// number.
type numericDescription struct {
	Source      string  `parquet:"source"`
	Target      string  `parquet:"target"`
	Description float64 `parquet:"description"`
}

// TestWeightColumnIsDescription: with the weight read from the
// description column (--weight-property description), the column is read
// once a row: the relationships weigh 0.5, 0.25 and 0.125 as written (it
// was read twice a row, taking row 1's value into row 0 and running out of
// values at row 2).
func TestWeightColumnIsDescription(t *testing.T) {
	dir := folder(t, abc, rows("relationships.parquet", numericDescription{"A", "B", 0.5}, numericDescription{"B", "C", 0.25}, numericDescription{"A", "C", 0.125}))
	f, _ := Find(dir)
	var ws []any
	_, _, err := Decode(f, apoc.MappedRules, Options{Weight: "description"}, func(apoc.Node) error { return nil },
		func(r apoc.Relationship) error { ws = append(ws, r.Properties["description"]); return nil }, nil)
	if err != nil || len(ws) != 3 || ws[0] != 0.5 || ws[1] != 0.25 || ws[2] != 0.125 {
		t.Errorf("got %v, %v", ws, err)
	}
}
