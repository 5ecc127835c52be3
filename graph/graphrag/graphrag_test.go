package graphrag

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/testkit/parquetgraph"
)

// dulce is GraphRAG's own example output (testdata/graphrag/README.md).
const dulce = "../../testdata/graphrag/dulce"

// decoded is what Decode handed over.
type decoded struct {
	nodes []apoc.Node
	rels  []apoc.Relationship
	sum   Summary
}

func decode(t *testing.T, dir string) (decoded, error) {
	t.Helper()
	f, ok := Find(dir)
	if !ok {
		t.Fatalf("%s: no GraphRAG tables", dir)
	}
	var d decoded
	var err error
	d.sum, _, err = Decode(f, apoc.MappedRules, Options{Weight: "weight"},
		func(n apoc.Node) error { d.nodes = append(d.nodes, n); return nil },
		func(r apoc.Relationship) error { d.rels = append(d.rels, r); return nil }, nil)
	return d, err
}

func read[T any](t *testing.T, path string) []T {
	t.Helper()
	if path == "" {
		return nil
	}
	rows, err := parquet.ReadFile[T](path)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// byHand is the graph the package documentation describes, built from a
// second reading of the tables: parquet-go's row reader into the structs
// of testkit/parquetgraph (whole rows, by field name), not the column
// reader of this package.
func byHand(t *testing.T, dir string) decoded {
	t.Helper()
	f, _ := Find(dir)
	var d decoded
	title := map[string]int{}
	entity := map[string]int{}
	newNode := func(labels []string, props map[string]any) int {
		d.nodes = append(d.nodes, apoc.Node{InternalID: strconv.Itoa(len(d.nodes)), Labels: labels, Properties: props})
		return len(d.nodes) - 1
	}
	put := func(props map[string]any, k string, v any) {
		switch x := v.(type) {
		case *string:
			if x != nil {
				props[k] = *x
			}
		case *int64:
			if x != nil {
				props[k] = *x
			}
		case *float64:
			if x != nil {
				props[k] = *x
			}
		}
	}
	for _, e := range read[parquetgraph.Entity](t, f.Entities) {
		props := map[string]any{}
		for k, v := range map[string]any{"title": e.Title, "type": e.Type, "description": e.Description, "frequency": e.Frequency, "degree": e.Degree, "human_readable_id": e.HumanReadableID} {
			put(props, k, v)
		}
		labels := []string{}
		if e.Type != nil && *e.Type != "" {
			labels = []string{*e.Type}
		}
		title[*e.Title] = newNode(labels, props)
		if e.ID != nil {
			entity[*e.ID] = title[*e.Title]
		}
		d.sum.Entities++
	}
	ends := func(s string) (int, bool) {
		if k, ok := title[s]; ok {
			return k, false
		}
		title[s] = newNode([]string{}, map[string]any{"title": s})
		d.sum.MissingTitles++
		return title[s], true
	}
	for i, r := range read[parquetgraph.Relationship](t, f.Relationships) {
		s, m1 := ends(*r.Source)
		e, m2 := ends(*r.Target)
		if m1 || m2 || s >= int(d.sum.Entities) || e >= int(d.sum.Entities) {
			d.sum.MissingRels++
		}
		props := map[string]any{}
		put(props, "weight", r.Weight)
		put(props, "description", r.Description)
		d.rels = append(d.rels, apoc.Relationship{InternalID: strconv.Itoa(i), Type: graph.Relates, Start: strconv.Itoa(s), End: strconv.Itoa(e), Properties: props})
		d.sum.Relationships++
	}
	link := func(typ string, from, to int) {
		d.rels = append(d.rels, apoc.Relationship{InternalID: strconv.Itoa(len(d.rels)), Type: typ, Start: strconv.Itoa(from), End: strconv.Itoa(to), Properties: map[string]any{}})
	}
	for _, c := range read[parquetgraph.Community](t, f.Communities) {
		props := map[string]any{}
		for k, v := range map[string]any{"title": c.Title, "community": c.Community, "level": c.Level, "parent": c.Parent, "size": c.Size, "human_readable_id": c.HumanReadableID} {
			put(props, k, v)
		}
		k := newNode([]string{CommunityLabel}, props)
		d.sum.Communities++
		for _, id := range c.EntityIDs {
			if e, ok := entity[id]; ok {
				link(InCommunity, e, k)
				d.sum.InCommunity++
			} else {
				d.sum.UnknownInCommunities++
			}
		}
	}
	for _, u := range read[parquetgraph.TextUnit](t, f.TextUnits) {
		props := map[string]any{}
		for k, v := range map[string]any{"title": u.ID, "text": u.Text, "n_tokens": u.NTokens, "human_readable_id": u.HumanReadableID} {
			put(props, k, v)
		}
		k := newNode([]string{TextUnitLabel}, props)
		d.sum.TextUnits++
		for _, id := range u.EntityIDs {
			if e, ok := entity[id]; ok {
				link(Mentions, k, e)
				d.sum.Mentions++
			} else {
				d.sum.UnknownInTextUnits++
			}
		}
	}
	return d
}

// same reports the first difference between two readings.
func same(t *testing.T, got, want decoded) {
	t.Helper()
	if len(got.nodes) != len(want.nodes) || len(got.rels) != len(want.rels) {
		t.Fatalf("%d nodes and %d relationships, want %d and %d", len(got.nodes), len(got.rels), len(want.nodes), len(want.rels))
	}
	for i := range want.nodes {
		if !reflect.DeepEqual(got.nodes[i], want.nodes[i]) {
			t.Fatalf("node %d:\n%#v\nwant\n%#v", i, got.nodes[i], want.nodes[i])
		}
	}
	for i := range want.rels {
		if !reflect.DeepEqual(got.rels[i], want.rels[i]) {
			t.Fatalf("relationship %d:\n%#v\nwant\n%#v", i, got.rels[i], want.rels[i])
		}
	}
	if got.sum != want.sum {
		t.Errorf("summary %+v, want %+v", got.sum, want.sum)
	}
}

// TestDulce: GraphRAG's example output reads as its second reading
// (byHand) does, node by node and relationship by relationship, and holds
// what was counted by hand: 39 entities, 107 relationships, of which 2
// name a title the entities lack ("ELEVATOR" and "CONCRETE HALLWAY", the
// issue's 2 of 107), so 41 such nodes; 10 communities and 5 text units,
// 56 nodes in all. Entity row 0 is ALEX MERCER, a PERSON of frequency 5
// and degree 17; relationship row 0 runs from ALEX MERCER to PARANORMAL
// MILITARY SQUAD with weight 17.0.
func TestDulce(t *testing.T) {
	got, err := decode(t, dulce)
	if err != nil {
		t.Fatal(err)
	}
	want := byHand(t, dulce)
	same(t, got, want)
	s := got.sum
	if s.Entities != 39 || s.Relationships != 107 || s.MissingTitles != 2 || s.MissingRels != 2 || s.Communities != 10 || s.TextUnits != 5 || len(got.nodes) != 56 {
		t.Errorf("counts %+v, %d nodes", s, len(got.nodes))
	}
	var missing []string
	for _, n := range got.nodes[39:41] {
		missing = append(missing, n.Properties["title"].(string))
	}
	if strings.Join(missing, ",") != "ELEVATOR,CONCRETE HALLWAY" {
		t.Errorf("the titles the entities lack: %v", missing)
	}
	n0 := got.nodes[0]
	if n0.Properties["title"] != "ALEX MERCER" || !reflect.DeepEqual(n0.Labels, []string{"PERSON"}) || n0.Properties["frequency"] != int64(5) || n0.Properties["degree"] != int64(17) {
		t.Errorf("entity row 0: %v %v", n0.Labels, n0.Properties)
	}
	r0 := got.rels[0]
	if got.nodes[mustAtoi(t, r0.End)].Properties["title"] != "PARANORMAL MILITARY SQUAD" || r0.Start != "0" || r0.Properties["weight"] != 17.0 {
		t.Errorf("relationship row 0: %+v", r0)
	}
	notes := s.Notes(Folder{Dir: dulce, Entities: "entities.parquet", Relationships: "relationships.parquet"})
	if len(notes) != 1 || notes[0] != "2 of 107 relationships in relationships.parquet name 2 titles entities.parquet lacks: each kept as a node with its title only" {
		t.Errorf("notes: %q", notes)
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// copyAs copies dulce's tables into a new folder under the names given
// (entities, relationships, communities, text units; "" leaves one out).
func copyAs(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for i, src := range []string{"entities", "relationships", "communities", "text_units"} {
		if names[i] == "" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dulce, src+".parquet"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, names[i]), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestOlderNames: the same tables under GraphRAG's older names
// (create_final_*.parquet) read to the same graph; without communities and
// text units, to the entities and relationships alone (41 nodes, 107
// relationships).
func TestOlderNames(t *testing.T) {
	want, err := decode(t, dulce)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decode(t, copyAs(t, "create_final_entities.parquet", "create_final_relationships.parquet", "create_final_communities.parquet", "create_final_text_units.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	same(t, got, want)
	got, err = decode(t, copyAs(t, "create_final_entities.parquet", "create_final_relationships.parquet", "", ""))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.nodes) != 41 || len(got.rels) != 107 || got.sum.Communities != 0 {
		t.Errorf("entities and relationships alone: %d nodes, %d relationships", len(got.nodes), len(got.rels))
	}
	if _, ok := Find(copyAs(t, "entities.parquet", "", "communities.parquet", "")); ok {
		t.Error("a folder without relationships is not GraphRAG's output")
	}
}

// TestRowGroupsAndPages: tables cut into row groups of 3 rows and pages of
// 64 bytes, so that a row's list of entity ids runs over pages and the
// columns change pages at different rows, with null cells (no type: no
// label; no description; a null list and an empty one; an id naming no
// entity) read as their second reading (byHand) does: the column reader
// keeps its columns in step across pages and row groups.
func TestRowGroupsAndPages(t *testing.T) {
	dir := t.TempDir()
	var ents []parquetgraph.Entity
	var rels []parquetgraph.Relationship
	var coms []parquetgraph.Community
	var ids []string
	for i := range 20 {
		id := "entity-" + strconv.Itoa(i)
		e := parquetgraph.Entity{ID: parquetgraph.S(id), Title: parquetgraph.S("T" + strconv.Itoa(i)), HumanReadableID: parquetgraph.I(int64(i))}
		if i%3 != 0 {
			e.Type = parquetgraph.S("TYPE" + strconv.Itoa(i%4))
		}
		if i%2 == 0 {
			e.Description = parquetgraph.S(strings.Repeat("d", i))
		}
		ents = append(ents, e)
		ids = append(ids, id)
		rels = append(rels, parquetgraph.Relationship{Source: e.Title, Target: parquetgraph.S("T" + strconv.Itoa((i*7+1)%23)), Weight: parquetgraph.F(float64(i) / 4)})
	}
	// T22 again: a second relationship naming a title the entities lack.
	rels = append(rels, parquetgraph.Relationship{Source: parquetgraph.S("T1"), Target: parquetgraph.S("T22")})
	for i := range 7 {
		c := parquetgraph.Community{Title: parquetgraph.S("Community " + strconv.Itoa(i)), Level: parquetgraph.I(int64(i % 2))}
		switch i % 3 {
		case 0:
			c.EntityIDs = ids[i : i+9]
		case 1:
			c.EntityIDs = []string{}
		}
		if i == 5 {
			c.EntityIDs = []string{"nobody", ids[19]}
		}
		coms = append(coms, c)
	}
	texts := []parquetgraph.TextUnit{{ID: parquetgraph.S("u0"), Text: parquetgraph.S("x"), EntityIDs: ids}, {ID: parquetgraph.S("u1")}}
	for _, err := range []error{
		parquetgraph.Write(filepath.Join(dir, "entities.parquet"), ents, 3, 64),
		parquetgraph.Write(filepath.Join(dir, "relationships.parquet"), rels, 3, 64),
		parquetgraph.Write(filepath.Join(dir, "communities.parquet"), coms, 3, 64),
		parquetgraph.Write(filepath.Join(dir, "text_units.parquet"), texts, 1, 64),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	got, err := decode(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := byHand(t, dir)
	same(t, got, want)
	// By hand: T(i) relates to T((7i+1) mod 23), which is T20, T21 or
	// T22 (not entities) for i = 6, 16, 3 (7i ≡ 19, 20, 21 mod 23), and
	// T1 to T22 once more: 3 titles, named by 4 relationships.
	if got.sum.UnknownInCommunities != 1 || got.sum.MissingTitles != 3 || got.sum.MissingRels != 4 || got.sum.InCommunity != 9+9+9+1 || got.sum.Mentions != 20 {
		t.Errorf("summary %+v: want 1 unknown id, 3 titles T20-T22 missing in 4 relationships, 28 IN_COMMUNITY, 20 MENTIONS", got.sum)
	}
}

// TestCorruptPage: dulce's entities with bytes of its title column's
// pages overwritten (past their page header) is refused naming the table,
// not a panic.
func TestCorruptPage(t *testing.T) {
	dir := copyAs(t, "entities.parquet", "relationships.parquet", "", "")
	p := filepath.Join(dir, "entities.parquet")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	leaf, _ := pf.Schema().Lookup("title")
	start := pf.Metadata().RowGroups[0].Columns[leaf.ColumnIndex].MetaData.DictionaryPageOffset + 30
	for i := start; i < start+200; i++ {
		b[i] = 0xff
	}
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = decode(t, dir)
	if err == nil || !strings.HasPrefix(err.Error(), "entities.parquet") {
		t.Errorf("got %v", err)
	}
}

// TestFooterLongerThanFile: entities.parquet whose footer length (the 4
// bytes before the closing PAR1) claims 469,762,048 bytes of a 19,483-byte
// file is refused before parquet-go allocates them: the reading allocates
// less than 16 MiB in all (it allocated 448 MiB).
func TestFooterLongerThanFile(t *testing.T) {
	dir := copyAs(t, "entities.parquet", "relationships.parquet", "", "")
	p := filepath.Join(dir, "entities.parquet")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	copy(b[len(b)-8:], []byte{0, 0, 0, 0x1c})
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	_, err = decode(t, dir)
	runtime.ReadMemStats(&m1)
	if err == nil || err.Error() != "entities.parquet: not a parquet file: its footer claims 469762048 bytes, more than the file holds" {
		t.Errorf("got %v", err)
	}
	if a := m1.TotalAlloc - m0.TotalAlloc; a > 16<<20 {
		t.Errorf("%d MiB allocated", a>>20)
	}
}
