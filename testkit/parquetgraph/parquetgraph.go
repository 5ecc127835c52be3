// Package parquetgraph is test support: it writes GraphRAG's output tables
// (entities, relationships, communities, text units) with the columns and
// types of GraphRAG 3's output (as pandas and pyarrow write them: nullable
// columns, lists of strings, snappy compression, dictionary-encoded
// strings), for graph/graphrag's tests, the CLI's and the load benchmark.
package parquetgraph

import (
	"bytes"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"

	"github.com/memoria-graph/memoria/graph/apoc"
)

// Entity is a row of entities.parquet; a nil pointer is a null cell.
type Entity struct {
	ID              *string  `parquet:"id,optional,dict"`
	HumanReadableID *int64   `parquet:"human_readable_id,optional"`
	Title           *string  `parquet:"title,optional,dict"`
	Type            *string  `parquet:"type,optional,dict"`
	Description     *string  `parquet:"description,optional"`
	TextUnitIDs     []string `parquet:"text_unit_ids,list"`
	Frequency       *int64   `parquet:"frequency,optional"`
	Degree          *int64   `parquet:"degree,optional"`
}

// Relationship is a row of relationships.parquet.
type Relationship struct {
	ID              *string  `parquet:"id,optional,dict"`
	HumanReadableID *int64   `parquet:"human_readable_id,optional"`
	Source          *string  `parquet:"source,optional,dict"`
	Target          *string  `parquet:"target,optional,dict"`
	Description     *string  `parquet:"description,optional"`
	Weight          *float64 `parquet:"weight,optional"`
	CombinedDegree  *int64   `parquet:"combined_degree,optional"`
	TextUnitIDs     []string `parquet:"text_unit_ids,list"`
}

// Community is a row of communities.parquet.
type Community struct {
	ID              *string  `parquet:"id,optional"`
	HumanReadableID *int64   `parquet:"human_readable_id,optional"`
	Community       *int64   `parquet:"community,optional"`
	Level           *int64   `parquet:"level,optional"`
	Parent          *int64   `parquet:"parent,optional"`
	Children        []int64  `parquet:"children,list"`
	Title           *string  `parquet:"title,optional"`
	EntityIDs       []string `parquet:"entity_ids,list"`
	RelationshipIDs []string `parquet:"relationship_ids,list"`
	TextUnitIDs     []string `parquet:"text_unit_ids,list"`
	Period          *string  `parquet:"period,optional"`
	Size            *int64   `parquet:"size,optional"`
}

// TextUnit is a row of text_units.parquet.
type TextUnit struct {
	ID              *string  `parquet:"id,optional"`
	HumanReadableID *int64   `parquet:"human_readable_id,optional"`
	Text            *string  `parquet:"text,optional"`
	NTokens         *int64   `parquet:"n_tokens,optional"`
	DocumentID      *string  `parquet:"document_id,optional"`
	EntityIDs       []string `parquet:"entity_ids,list"`
	RelationshipIDs []string `parquet:"relationship_ids,list"`
	CovariateIDs    []string `parquet:"covariate_ids,list"`
}

// S, I and F are a cell's value.
func S(s string) *string   { return &s }
func I(i int64) *int64     { return &i }
func F(f float64) *float64 { return &f }

// RowsPerGroup is the rows of a row group, pyarrow's default (2^20).
const RowsPerGroup = 1 << 20

// Write writes rows as the parquet file path, in row groups of rowsPerGroup
// rows (0: RowsPerGroup) and pages of at most pageBytes bytes (0: the
// library's default).
func Write[T any](path string, rows []T, rowsPerGroup int64, pageBytes int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := newWriter[T](f, rowsPerGroup, pageBytes)
	if _, err := w.Write(rows); err != nil {
		f.Close()
		return err
	}
	if err := w.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func newWriter[T any](f *os.File, rowsPerGroup int64, pageBytes int) *parquet.GenericWriter[T] {
	if rowsPerGroup == 0 {
		rowsPerGroup = RowsPerGroup
	}
	opts := []parquet.WriterOption{parquet.Compression(&parquet.Snappy), parquet.MaxRowsPerRowGroup(rowsPerGroup),
		parquet.CreatedBy("memoria testkit/parquetgraph", "", "")}
	if pageBytes > 0 {
		opts = append(opts, parquet.PageBufferSize(pageBytes))
	}
	return parquet.NewGenericWriter[T](f, opts...)
}

// FromAPOC writes the APOC graph in data as GraphRAG's entities.parquet and
// relationships.parquet in dir, decoded a line at a time: each node an
// entity titled by its `id`, typed by its first label, described by its
// `text`, its human_readable_id its place; each relationship a row from
// its start's title to its end's, with its `weight` and its place as
// human_readable_id (GraphRAG has no tags: they are not written), the
// other columns null. Rows are written 4,096 at a time.
func FromAPOC(dir string, data []byte) error {
	ef, err := os.Create(filepath.Join(dir, "entities.parquet"))
	if err != nil {
		return err
	}
	defer ef.Close()
	rf, err := os.Create(filepath.Join(dir, "relationships.parquet"))
	if err != nil {
		return err
	}
	defer rf.Close()
	ew, rw := newWriter[Entity](ef, 0, 0), newWriter[Relationship](rf, 0, 0)
	title := map[string]*string{}
	var ents []Entity
	var rels []Relationship
	nrels := int64(0)
	const step = 4096
	_, err = apoc.Decode(bytes.NewReader(data), func(n apoc.Node) error {
		id, _ := n.Properties["id"].(string)
		e := Entity{ID: S("e" + n.InternalID), HumanReadableID: I(int64(len(title))), Title: S(id)}
		if len(n.Labels) > 0 {
			e.Type = S(n.Labels[0])
		}
		if t, ok := n.Properties["text"].(string); ok {
			e.Description = S(t)
		}
		title[n.InternalID] = e.Title
		ents = append(ents, e)
		if len(ents) == step {
			_, err := ew.Write(ents)
			ents = ents[:0]
			return err
		}
		return nil
	}, func(r apoc.Relationship) error {
		row := Relationship{ID: S("r" + r.InternalID), HumanReadableID: I(nrels), Source: title[r.Start], Target: title[r.End]}
		if w, ok := apoc.Number(r.Properties["weight"]); ok {
			row.Weight = F(w)
		}
		rels = append(rels, row)
		nrels++
		if len(rels) == step {
			_, err := rw.Write(rels)
			rels = rels[:0]
			return err
		}
		return nil
	})
	if err != nil {
		return err
	}
	if _, err := ew.Write(ents); err != nil {
		return err
	}
	if _, err := rw.Write(rels); err != nil {
		return err
	}
	if err := ew.Close(); err != nil {
		return err
	}
	return rw.Close()
}
