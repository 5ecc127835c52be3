package neo4jdb

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
)

// ReadAPOC reads the whole database, in one read transaction, into the
// APOC model (for `memoria export`). Internal ids are a counter: nodes "0",
// "1", ... in the order the server returns them, relationships likewise.
// Temporal property values become their ISO-8601 strings (as APOC exports
// them); byte arrays and points cannot be exported and are errors naming
// the element and property. The graph is not validated (a database may hold
// duplicate ids, which apoc.Validate would reject).
//
// With inmem.Graph's APOC method it lets a caller get the APOC graph of
// whichever source it opened (memoria export). Under a mapping it reads the
// graph as stored, less what the mapping leaves out (the nodes without the
// label, the relationships touching them, invalidated facts), as the
// embedded engine exports it.
func (s *Source) ReadAPOC(ctx context.Context) (*apoc.Graph, error) {
	nodesQuery, relsQuery, params := readNodesQuery, readRelsQuery, map[string]any{}
	if m := s.mapping(); m != nil {
		nodesQuery, relsQuery = m.readQueries(params)
	}
	return Read(ctx, s, func(ctx context.Context, tx neo4j.ManagedTransaction) (*apoc.Graph, error) {
		g := &apoc.Graph{}
		res, err := tx.Run(ctx, nodesQuery, params)
		if err != nil {
			return nil, err
		}
		nodes, err := res.Collect(ctx)
		if err != nil {
			return nil, err
		}
		internal := make(map[string]string, len(nodes))
		g.Nodes = make([]apoc.Node, 0, len(nodes))
		for _, rec := range nodes {
			eid, err := Column[string](rec, "eid")
			if err != nil {
				return nil, err
			}
			labels, err := Strings(rec, "labels")
			if err != nil {
				return nil, fmt.Errorf("node %s: %w", eid, err)
			}
			props, err := Column[map[string]any](rec, "props")
			if err != nil {
				return nil, fmt.Errorf("node %s: %w", eid, err)
			}
			if err := exportProps(props); err != nil {
				return nil, fmt.Errorf("node %s%s: %w", eid, idSuffix(props), err)
			}
			id := strconv.Itoa(len(g.Nodes))
			internal[eid] = id
			g.Nodes = append(g.Nodes, apoc.Node{InternalID: id, Labels: labels, Properties: props})
		}
		// The first query's result is fully consumed: run the second.
		res, err = tx.Run(ctx, relsQuery, params)
		if err != nil {
			return nil, err
		}
		rels, err := res.Collect(ctx)
		if err != nil {
			return nil, err
		}
		g.Rels = make([]apoc.Relationship, 0, len(rels))
		for _, rec := range rels {
			start, err := Column[string](rec, "start")
			if err != nil {
				return nil, err
			}
			end, err := Column[string](rec, "end")
			if err != nil {
				return nil, err
			}
			typ, err := Column[string](rec, "type")
			if err != nil {
				return nil, err
			}
			props, err := Column[map[string]any](rec, "props")
			if err != nil {
				return nil, err
			}
			s, okS := internal[start]
			e, okE := internal[end]
			if !okS || !okE {
				return nil, fmt.Errorf("a %s relationship joins a node that was not read (the graph changed during the export?)", typ)
			}
			if err := exportProps(props); err != nil {
				return nil, fmt.Errorf("%s relationship from node %s to node %s: %w", typ, s, e, err)
			}
			g.Rels = append(g.Rels, apoc.Relationship{InternalID: strconv.Itoa(len(g.Rels)), Type: typ, Start: s, End: e, Properties: props})
		}
		return g, nil
	})
}

func idSuffix(props map[string]any) string {
	if id, ok := props["id"].(string); ok {
		return fmt.Sprintf(" (id %q)", id)
	}
	return ""
}

// exportProps converts property values in place to what the APOC model
// holds (plainValue), refusing those an export cannot hold: points and byte
// arrays.
func exportProps(props map[string]any) error {
	for k, v := range props {
		nv, err := plainValue(v, true)
		if err != nil {
			return fmt.Errorf("property %s: %w", k, err)
		}
		props[k] = nv
	}
	return nil
}

// plainProps converts the property values of a node or relationship read by
// the retriever or the catalog in place (plainValue): temporal values become
// their ISO-8601 strings and points their Cypher text, so that JSON output
// and activation.EdgeKey see them as the memory engine does (it reads APOC
// exports, where such values are strings). It returns props.
func plainProps(props map[string]any) map[string]any {
	for k, v := range props {
		if !isPlain(v) {
			props[k], _ = plainValue(v, false)
		}
	}
	return props
}

// isPlain reports whether v needs no conversion (the common case, checked
// without allocating).
func isPlain(v any) bool {
	switch x := v.(type) {
	case string, bool, int64, float64, nil:
		return true
	case []any:
		for _, e := range x {
			if !isPlain(e) {
				return false
			}
		}
		return true
	}
	return false
}

// plainValue is the one conversion of property values read through the
// driver into the form the APOC model holds, for every reader (the
// retriever's expansion, the catalog and ReadAPOC). Strings, booleans, integers and
// floats stay as they are; lists are converted element by element, in
// place. Temporal values become their ISO-8601 strings as Neo4j's
// toString() and APOC's export write them: date "2026-03-02", datetime
// "2026-03-02T09:14:00Z" or "2026-03-02T09:14:00+01:00" (with
// "[Europe/Berlin]" after a named zone), localdatetime
// "2026-03-02T09:14:00", time "09:14:00Z", localtime "09:14:00", duration
// "P1DT2H". Points become their Cypher text, as toString() writes it:
// "point({x: 1.0, y: 2.0, crs: 'cartesian'})".
//
// With export, points and byte arrays are errors (an export read back would
// hold a string where the database held a point), as is any other type;
// without, a byte array and an unknown type are returned unchanged.
func plainValue(v any, export bool) (any, error) {
	switch x := v.(type) {
	case string, bool, int64, float64:
		return v, nil
	case []any:
		for i, e := range x {
			ne, err := plainValue(e, export)
			if err != nil {
				return nil, err
			}
			x[i] = ne
		}
		return x, nil
	case time.Time:
		return isoDateTime(x), nil
	case dbtype.Date:
		return isoDate(time.Time(x)), nil
	case dbtype.LocalDateTime:
		t := time.Time(x)
		return isoDate(t) + "T" + isoClock(t), nil
	case dbtype.LocalTime:
		return isoClock(time.Time(x)), nil
	case dbtype.Time:
		return isoClock(time.Time(x)) + isoOffset(time.Time(x)), nil
	case dbtype.Duration:
		return isoDuration(x), nil
	case dbtype.Point2D:
		if export {
			return nil, fmt.Errorf("points cannot be exported")
		}
		return fmt.Sprintf("point({x: %s, y: %s, %s})", javaDouble(x.X), javaDouble(x.Y), crs(x.SpatialRefId)), nil
	case dbtype.Point3D:
		if export {
			return nil, fmt.Errorf("points cannot be exported")
		}
		return fmt.Sprintf("point({x: %s, y: %s, z: %s, %s})", javaDouble(x.X), javaDouble(x.Y), javaDouble(x.Z), crs(x.SpatialRefId)), nil
	case []byte:
		if export {
			return nil, fmt.Errorf("byte arrays cannot be exported")
		}
		return v, nil
	}
	if export {
		return nil, fmt.Errorf("values of type %T cannot be exported", v)
	}
	return v, nil
}

// isoDate writes t's date as ISO-8601 does: four digits of year, more with
// a sign outside 0000-9999.
func isoDate(t time.Time) string {
	y := t.Year()
	var year string
	switch {
	case y < 0:
		year = fmt.Sprintf("-%04d", -y)
	case y > 9999:
		year = fmt.Sprintf("+%d", y)
	default:
		year = fmt.Sprintf("%04d", y)
	}
	return fmt.Sprintf("%s-%02d-%02d", year, int(t.Month()), t.Day())
}

// isoClock writes t's time of day, with the fraction of a second only when
// there is one and without its trailing zeros: "09:14:00", "09:14:05.12".
func isoClock(t time.Time) string { return t.Format("15:04:05.999999999") }

// isoOffset writes t's UTC offset: "Z" or "+01:00".
func isoOffset(t time.Time) string { return t.Format("Z07:00") }

// isoDateTime writes a datetime; the driver names a zone given as an offset
// "Offset", any other location is a named zone, written after the offset.
func isoDateTime(t time.Time) string {
	s := isoDate(t) + "T" + isoClock(t) + isoOffset(t)
	if name := t.Location().String(); name != "Offset" && name != "Local" && name != "" {
		s += "[" + name + "]"
	}
	return s
}

// isoDuration writes a duration as Neo4j's toString() does: years and months
// from the months, the days, then hours, minutes and seconds from the
// seconds, each only when not zero, a negative part with its sign ("PT-1.5S",
// "P-1DT2H"); "PT0S" when all are zero.
func isoDuration(d dbtype.Duration) string {
	var b strings.Builder
	b.WriteByte('P')
	part := func(n int64, unit byte) {
		if n != 0 {
			b.WriteString(strconv.FormatInt(n, 10))
			b.WriteByte(unit)
		}
	}
	part(d.Months/12, 'Y')
	part(d.Months%12, 'M')
	part(d.Days, 'D')
	if s, n := d.Seconds, int64(d.Nanos); s != 0 || n != 0 {
		if s < 0 && n > 0 { // the driver's nanoseconds are never negative
			s++
			n -= 1e9
		}
		b.WriteByte('T')
		part(s/3600, 'H')
		s %= 3600
		part(s/60, 'M')
		s %= 60
		if s != 0 || n != 0 {
			if s == 0 && n < 0 {
				b.WriteByte('-')
			}
			b.WriteString(strconv.FormatInt(s, 10))
			if n != 0 {
				frac := fmt.Sprintf("%09d", max(n, -n))
				b.WriteString("." + strings.TrimRight(frac, "0"))
			}
			b.WriteByte('S')
		}
	}
	if b.Len() == 1 {
		b.WriteString("T0S")
	}
	return b.String()
}

// crs names a point's coordinate reference system as Cypher does.
func crs(srid uint32) string {
	switch srid {
	case 7203:
		return "crs: 'cartesian'"
	case 9157:
		return "crs: 'cartesian-3d'"
	case 4326:
		return "crs: 'wgs-84'"
	case 4979:
		return "crs: 'wgs-84-3d'"
	}
	return "srid: " + strconv.FormatUint(uint64(srid), 10)
}

// javaDouble writes a float as Java's Double.toString does, as Neo4j
// writes a point's coordinates: "1.0", "56.25", "1.0E20", "1.0E-5".
func javaDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	if a := math.Abs(f); a == 0 || a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // 1.5e-05
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}

// Counts counts the nodes and relationships of the database (so the CLI
// can say what a wipe would delete).
func (s *Source) Counts(ctx context.Context) (nodes, rels int64, err error) {
	c, err := Read(ctx, s, func(ctx context.Context, tx neo4j.ManagedTransaction) ([2]int64, error) {
		var counts [2]int64
		for i, q := range []string{countNodesQuery, countRelsQuery} {
			res, err := tx.Run(ctx, q, nil)
			if err != nil {
				return counts, err
			}
			rec, err := res.Single(ctx)
			if err != nil {
				return counts, err
			}
			if counts[i], err = Column[int64](rec, "count"); err != nil {
				return counts, err
			}
		}
		return counts, nil
	})
	if err != nil {
		return 0, 0, err
	}
	return c[0], c[1], nil
}

// Fingerprint counts the database's nodes and relationships (Counts), for
// experiment files; hashing a server's whole content would read all of it,
// so Neo4j gives no content hash (graph.Fingerprint).
func (s *Source) Fingerprint(ctx context.Context) (graph.Fingerprint, error) {
	n, r, err := s.Counts(ctx)
	if err != nil {
		return graph.Fingerprint{}, err
	}
	return graph.Fingerprint{Source: s.Describe(), Nodes: n, Relationships: r}, nil
}
