package neo4jgraph

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"

	"github.com/memoria-graph/memoria/retriever/apoc"
)

// ReadGraph reads the whole database, in one read transaction, into the
// APOC model (for `memoria export`). Internal ids are a counter: nodes "0",
// "1", ... in the order the server returns them, relationships likewise.
// Temporal property values become their ISO-8601 strings (as APOC exports
// them); byte arrays and points cannot be exported and are errors naming
// the element and property. The graph is not validated (a database may hold
// duplicate ids, which apoc.Validate would reject).
func ReadGraph(ctx context.Context, driver neo4j.DriverWithContext, database string) (*apoc.Graph, error) {
	return newSource(driver, database, "").ReadAPOC(ctx)
}

// ReadAPOC is ReadGraph of s's database: with inmem.Graph's APOC method it
// lets a caller get the APOC graph of whichever source it opened (memoria
// export).
func (s *Source) ReadAPOC(ctx context.Context) (*apoc.Graph, error) {
	out, err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) (any, error) {
		g := &apoc.Graph{}
		res, err := tx.Run(ctx, readNodesQuery, nil)
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
			eid, err := colString(rec, "eid")
			if err != nil {
				return nil, err
			}
			labels, err := colStrings(rec, "labels")
			if err != nil {
				return nil, fmt.Errorf("node %s: %w", eid, err)
			}
			props, err := colMap(rec, "props")
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
		res, err = tx.Run(ctx, readRelsQuery, nil)
		if err != nil {
			return nil, err
		}
		rels, err := res.Collect(ctx)
		if err != nil {
			return nil, err
		}
		g.Rels = make([]apoc.Relationship, 0, len(rels))
		for _, rec := range rels {
			start, err := colString(rec, "start")
			if err != nil {
				return nil, err
			}
			end, err := colString(rec, "end")
			if err != nil {
				return nil, err
			}
			typ, err := colString(rec, "type")
			if err != nil {
				return nil, err
			}
			props, err := colMap(rec, "props")
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
	if err != nil {
		return nil, err
	}
	return out.(*apoc.Graph), nil
}

func idSuffix(props map[string]any) string {
	if id, ok := props["id"].(string); ok {
		return fmt.Sprintf(" (id %q)", id)
	}
	return ""
}

// exportProps converts property values in place to what the APOC model
// holds: temporal values become strings.
func exportProps(props map[string]any) error {
	for k, v := range props {
		nv, err := exportValue(v)
		if err != nil {
			return fmt.Errorf("property %s: %w", k, err)
		}
		props[k] = nv
	}
	return nil
}

func exportValue(v any) (any, error) {
	switch x := v.(type) {
	case string, bool, int64, float64:
		return v, nil
	case []any:
		for i, e := range x {
			ne, err := exportValue(e)
			if err != nil {
				return nil, err
			}
			x[i] = ne
		}
		return x, nil
	case time.Time:
		return x.Format(time.RFC3339Nano), nil
	case dbtype.Date:
		return x.String(), nil
	case dbtype.LocalDateTime:
		return x.String(), nil
	case dbtype.LocalTime:
		return x.String(), nil
	case dbtype.Time:
		return x.String(), nil
	case dbtype.Duration:
		return x.String(), nil
	case []byte:
		return nil, fmt.Errorf("byte arrays cannot be exported")
	case dbtype.Point2D, dbtype.Point3D:
		return nil, fmt.Errorf("points cannot be exported")
	}
	return nil, fmt.Errorf("values of type %T cannot be exported", v)
}
