package graphrag

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/parquet-go/parquet-go"
)

// batch is how many values a column reads at a time: a column holds one
// page of the file and this many values, never its whole chunk.
const batch = 1024

// want is what a column must hold.
type want int

const (
	wantString  want = iota // a string (BYTE_ARRAY)
	wantNumber              // an integer or a floating-point number
	wantScalar              // a string, an integer, a number or a boolean
	wantStrings             // a list of strings
)

func (w want) String() string {
	switch w {
	case wantString:
		return "a string"
	case wantNumber:
		return "a number"
	case wantStrings:
		return "a list of strings"
	}
	return "a string, an integer, a number or a boolean"
}

// column reads one column of a table, row by row, in step with the
// table's other columns: one value a row, or one list a row.
type column struct {
	name   string
	leaf   int
	want   want
	list   bool
	maxDef int
	kind   parquet.Kind

	r    parquet.ColumnChunkValueReader
	buf  []parquet.Value
	i, n int
}

// errShort is a column that ends before its row group's rows do.
var errShort = errors.New("the column ends before the row group's rows do")

// lookup finds the column name in the file's schema and checks its type;
// ok is false when the file has no such column.
func lookup(s *parquet.Schema, name string, w want) (*column, bool, error) {
	var path []string
	for _, p := range s.Columns() {
		if len(p) > 0 && p[0] == name {
			if path != nil {
				return nil, true, fmt.Errorf("column %s is a group of several columns: want %s", strconv.Quote(name), w)
			}
			path = p
		}
	}
	if path == nil {
		return nil, false, nil
	}
	leaf, _ := s.Lookup(path...)
	c := &column{name: name, leaf: leaf.ColumnIndex, want: w, maxDef: leaf.MaxDefinitionLevel, kind: leaf.Node.Type().Kind()}
	c.list = leaf.MaxRepetitionLevel > 0
	switch {
	case leaf.MaxRepetitionLevel > 1:
		return nil, true, fmt.Errorf("column %s is a list of lists: want %s", strconv.Quote(name), w)
	case c.list != (w == wantStrings):
		if c.list {
			return nil, true, fmt.Errorf("column %s is a list: want %s", strconv.Quote(name), w)
		}
		return nil, true, fmt.Errorf("column %s holds one value a row: want %s", strconv.Quote(name), w)
	}
	ok := true
	switch w {
	case wantString, wantStrings:
		ok = c.kind == parquet.ByteArray
	case wantNumber:
		ok = c.kind == parquet.Int32 || c.kind == parquet.Int64 || c.kind == parquet.Float || c.kind == parquet.Double
	case wantScalar:
		ok = c.kind != parquet.Int96 && c.kind != parquet.FixedLenByteArray
	}
	if !ok {
		return nil, true, fmt.Errorf("column %s holds %s values: want %s", strconv.Quote(name), c.kind, w)
	}
	return c, true, nil
}

// start begins the column's chunk of a row group.
func (c *column) start(rg parquet.RowGroup) {
	c.close()
	c.r = parquet.NewColumnChunkValueReader(rg.ColumnChunks()[c.leaf])
	if c.buf == nil {
		c.buf = make([]parquet.Value, batch)
	}
	c.i, c.n = 0, 0
}

func (c *column) close() {
	if c.r != nil {
		_ = c.r.Close()
		c.r = nil
	}
}

// fill reads the next values (of one page); io.EOF at the chunk's end.
// A panic of the parquet library is its error.
func (c *column) fill() (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = errPanic{p}
		}
	}()
	n, err := c.r.ReadValues(c.buf)
	if n > 0 {
		c.i, c.n = 0, n
		return nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return err
}

// next is the column's next value. Its bytes are the page's: they are
// copied before the next fill.
func (c *column) next() (parquet.Value, error) {
	if c.i == c.n {
		if err := c.fill(); err != nil {
			if err == io.EOF {
				err = errShort
			}
			return parquet.Value{}, err
		}
	}
	v := c.buf[c.i]
	c.i++
	return v, nil
}

// value is the row's value as a property value (nil when null): a string,
// an int64, a float64 or a bool.
func (c *column) value() (any, error) {
	v, err := c.next()
	if err != nil || v.IsNull() {
		return nil, err
	}
	switch c.kind {
	case parquet.ByteArray:
		return string(v.ByteArray()), nil
	case parquet.Int32:
		return int64(v.Int32()), nil
	case parquet.Int64:
		return v.Int64(), nil
	case parquet.Float:
		return float64(v.Float()), nil
	case parquet.Double:
		return v.Double(), nil
	case parquet.Boolean:
		return v.Boolean(), nil
	}
	return nil, fmt.Errorf("a %s value", c.kind)
}

// str is the row's string; null is ok false.
func (c *column) str() (string, bool, error) {
	v, err := c.next()
	if err != nil || v.IsNull() {
		return "", false, err
	}
	return string(v.ByteArray()), true, nil
}

// strings appends the row's list of strings to dst (a null list and null
// elements add nothing).
func (c *column) strings(dst []string) ([]string, error) {
	v, err := c.next()
	if err != nil {
		return dst, err
	}
	if v.RepetitionLevel() != 0 {
		return dst, errors.New("a list's values do not start a row where the other columns do")
	}
	for {
		if v.DefinitionLevel() == c.maxDef {
			dst = append(dst, string(v.ByteArray()))
		}
		if c.i == c.n {
			if err := c.fill(); err == io.EOF {
				return dst, nil // the chunk's last row
			} else if err != nil {
				return dst, err
			}
		}
		if c.buf[c.i].RepetitionLevel() == 0 {
			return dst, nil
		}
		v = c.buf[c.i]
		c.i++
	}
}
