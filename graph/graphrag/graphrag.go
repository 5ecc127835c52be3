// Package graphrag reads the parquet tables Microsoft GraphRAG writes in
// its output folder (entities.parquet and relationships.parquet, or the
// older create_final_entities.parquet and create_final_relationships.parquet;
// communities.parquet and text_units.parquet when present) into the APOC
// nodes and relationships the embedded engine builds from
// (docs/RETRIEVERS.md, "Other schemas" and "GraphRAG's output folder"). It
// reads each table row group by row group, each column a page at a time,
// in step: only a page of each column read is held, never a table.
//
// What it makes of them:
//
//   - An entity row is a node labelled by its `type` (no label when null or
//     empty), keyed by `title`, with `title`, `type`, `description`,
//     `frequency`, `degree` and `human_readable_id` as properties (a null
//     cell is a property the node lacks). Its internal id is its row,
//     counted from 0 as pandas does.
//   - A relationship row runs from the entity its `source` names to the one
//     its `target` names (by title), typed RELATES, with the weight column
//     (Options.Weight) and `description`. Its internal id is its row.
//     GraphRAG builds its graph from the relationships, so a title the
//     entities lack is a node of its own with its title only (Summary
//     counts them), made when first named.
//   - A community row, when communities.parquet is there, is a node
//     labelled Community (`title`, `community`, `level`, `parent`, `size`,
//     `human_readable_id`), and each entity its `entity_ids` names (by the
//     entities' `id`) has a relationship IN_COMMUNITY to it. A text unit
//     row is a node labelled TextUnit whose title is its `id` (with `text`,
//     `n_tokens`, `human_readable_id`), with a relationship MENTIONS to
//     each entity its `entity_ids` names. An id that names no entity links
//     nothing (counted).
//
// What it refuses, each naming the file and the row or column: a file that
// is not parquet (or that the parquet library cannot read: its panics are
// caught and refused); a table lacking a column the reading needs (`title`
// of entities, `source` and `target` of relationships, the weight column
// when one is named, `id` of entities when communities or text units link
// to them, `title` and `entity_ids` of communities, `id` and `entity_ids`
// of text units) or holding one of another type; a null or empty title,
// source, target or id; a title twice; and whatever the APOC checker
// (apoc.Checker) refuses (a string that is not UTF-8, a number that is not
// finite), named by table and row.
package graphrag

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/memoria-graph/memoria/graph"
)

// The labels and relationship types of communities and text units.
const (
	CommunityLabel = "Community"
	TextUnitLabel  = "TextUnit"
	InCommunity    = "IN_COMMUNITY"
	Mentions       = "MENTIONS"
)

// tableFiles are each table's file names: GraphRAG 1.0's and later first,
// then the older create_final_ ones.
var tableFiles = [4][2]string{
	{"entities.parquet", "create_final_entities.parquet"},
	{"relationships.parquet", "create_final_relationships.parquet"},
	{"communities.parquet", "create_final_communities.parquet"},
	{"text_units.parquet", "create_final_text_units.parquet"},
}

// Folder is a GraphRAG output folder: the paths of its tables ("" for a
// table it lacks).
type Folder struct {
	Dir                                             string
	Entities, Relationships, Communities, TextUnits string
}

// Find reports the tables dir holds; ok is false unless it holds both
// entities and relationships.
func Find(dir string) (f Folder, ok bool) {
	f.Dir = dir
	paths := [4]*string{&f.Entities, &f.Relationships, &f.Communities, &f.TextUnits}
	for i, names := range tableFiles {
		for _, n := range names {
			p := filepath.Join(dir, n)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				*paths[i] = p
				break
			}
		}
	}
	return f, f.Entities != "" && f.Relationships != ""
}

// Size is the tables' bytes.
func (f Folder) Size() int64 {
	var n int64
	for _, p := range []string{f.Entities, f.Relationships, f.Communities, f.TextUnits} {
		if fi, err := os.Stat(p); p != "" && err == nil {
			n += fi.Size()
		}
	}
	return n
}

// Options say how the tables map onto memoria's nodes.
type Options struct {
	// Weight is the relationships' column read as their weight property
	// of the same name ("" for none); a table lacking it is refused.
	Weight string
}

// Summary counts what was read.
type Summary struct {
	Entities, Relationships int64
	// MissingTitles are the titles relationships name that no entity
	// has, each made a node of its title only; MissingRels are the
	// relationships naming one.
	MissingTitles, MissingRels int64
	Communities, TextUnits     int64
	InCommunity, Mentions      int64
	// UnknownInCommunities and UnknownInTextUnits are the entity ids of
	// communities' and text units' entity_ids that name no entity.
	UnknownInCommunities, UnknownInTextUnits int64
}

// Notes says what a reader should know of the reading, one line each:
// the titles the entities lack, the ids that name no entity.
func (s Summary) Notes(f Folder) []string {
	var notes []string
	if s.MissingTitles > 0 {
		notes = append(notes, fmt.Sprintf("%s of %s relationships in %s name %s titles %s lacks: each kept as a node with its title only",
			graph.Commas(s.MissingRels), graph.Commas(s.Relationships), filepath.Base(f.Relationships),
			graph.Commas(s.MissingTitles), filepath.Base(f.Entities)))
	}
	if s.UnknownInCommunities > 0 {
		notes = append(notes, fmt.Sprintf("%s entity ids in %s name no entity of %s: not linked",
			graph.Commas(s.UnknownInCommunities), filepath.Base(f.Communities), filepath.Base(f.Entities)))
	}
	if s.UnknownInTextUnits > 0 {
		notes = append(notes, fmt.Sprintf("%s entity ids in %s name no entity of %s: not linked",
			graph.Commas(s.UnknownInTextUnits), filepath.Base(f.TextUnits), filepath.Base(f.Entities)))
	}
	return notes
}

// table is one open parquet file.
type table struct {
	name string // its base name, for messages
	f    *os.File
	pf   *parquet.File
	// base is the checker's position of the row before its first.
	base int
}

// counter counts the bytes read of every table.
type counter struct {
	n    int64
	read func(int64)
}

type countingReaderAt struct {
	f *os.File
	c *counter
}

func (r countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := r.f.ReadAt(p, off)
	r.c.n += int64(n)
	if r.c.read != nil {
		r.c.read(r.c.n)
	}
	return n, err
}

// caught turns a panic of the parquet library (on a file it cannot
// read) into an error of the file.
func caught(name string, err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("%s: not a parquet file memoria can read: %v", name, p)
	}
}

// errPanic is the parquet library's panic on a page it cannot read.
type errPanic struct{ v any }

func (e errPanic) Error() string { return fmt.Sprintf("a page memoria cannot read (%v)", e.v) }

func openTable(path string, c *counter) (t *table, err error) {
	name := filepath.Base(path)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer caught(name, &err)
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := checkFooter(f, fi.Size()); err != nil {
		return nil, fmt.Errorf("%s: not a parquet file: %v", name, err)
	}
	pf, err := parquet.OpenFile(countingReaderAt{f, c}, fi.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, fmt.Errorf("%s: not a parquet file: %v", name, err)
	}
	return &table{name: name, f: f, pf: pf}, nil
}

// checkFooter checks the file's last 8 bytes: the length of its footer
// (the table's schema and row groups) and the magic "PAR1". parquet-go
// allocates the length the file claims before it reads it: a footer longer
// than the file is refused first (3 bytes changed in a 19 KB file made it
// allocate 448 MiB).
func checkFooter(f *os.File, size int64) error {
	var tail [8]byte
	if size < 12 {
		return fmt.Errorf("%d bytes, fewer than a parquet file's 12", size)
	}
	if _, err := f.ReadAt(tail[:], size-8); err != nil {
		return err
	}
	if string(tail[4:]) != "PAR1" {
		return errors.New("it does not end with the magic PAR1")
	}
	if n := int64(binary.LittleEndian.Uint32(tail[:4])); n > size-12 {
		return fmt.Errorf("its footer claims %d bytes, more than the file holds", n)
	}
	return nil
}

// columns looks up the columns a reading needs (refused when absent) and
// those it reads when present.
func (t *table) columns(need, opt map[string]want) (map[string]*column, error) {
	cols := map[string]*column{}
	for _, m := range []map[string]want{need, opt} {
		for _, name := range slices.Sorted(maps.Keys(m)) {
			if _, dup := cols[name]; dup {
				continue // needed, and read once (--weight-property description)
			}
			c, ok, err := lookup(t.pf.Schema(), name, m[name])
			switch {
			case err != nil:
				return nil, fmt.Errorf("%s: %v", t.name, err)
			case ok:
				cols[name] = c
			case isNeeded(need, name):
				return nil, fmt.Errorf("%s: no column %s, which memoria needs (%s): its columns are %s",
					t.name, strconv.Quote(name), why(name), t.columnList())
			}
		}
	}
	return cols, nil
}

func isNeeded(need map[string]want, name string) bool {
	_, ok := need[name]
	return ok
}

// why says what a needed column is for.
func why(name string) string {
	switch name {
	case "title":
		return "the title that keys a node"
	case "source":
		return "the title of a relationship's first end"
	case "target":
		return "the title of a relationship's second end"
	case "id":
		return "the id that other tables name"
	case "entity_ids":
		return "the entities a row links to"
	}
	return "the weight of a relationship"
}

// columnList names the file's top-level columns, cut to 20.
func (t *table) columnList() string {
	var names []string
	for _, f := range t.pf.Schema().Fields() {
		names = append(names, strconv.Quote(f.Name()))
	}
	if len(names) > 20 {
		names = append(names[:20], "...")
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// rows calls each for every row (counted from 0 across the row groups),
// its columns started at its row group.
func (t *table) rows(cols map[string]*column, each func(row int64) error) error {
	defer func() {
		for _, c := range cols {
			c.close()
		}
	}()
	var row int64
	for _, rg := range t.pf.RowGroups() {
		for _, c := range cols {
			c.start(rg)
		}
		for n := rg.NumRows(); n > 0; n-- {
			if err := each(row); err != nil {
				return err
			}
			row++
		}
	}
	return nil
}

// rowError is a refusal at a row of a table.
type rowError struct {
	table string
	row   int64
	msg   string
}

func (e *rowError) Error() string {
	return fmt.Sprintf("%s row %d: %s", e.table, e.row, e.msg)
}

// cellError is a column that could not be read at a row.
func (t *table) cellError(row int64, c *column, err error) error {
	return &rowError{t.name, row, fmt.Sprintf("column %s: %v", strconv.Quote(c.name), err)}
}

// errStop ends a reading the checker has refused (its problems are
// returned instead).
var errStop = errors.New("stop")
