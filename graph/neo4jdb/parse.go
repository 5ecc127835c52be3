package neo4jdb

import (
	"fmt"
	"strconv"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Records are read column by column with the driver's typed
// neo4j.GetRecordValue: integers are int64, floats float64, lists []any and
// maps map[string]any. A null, or a value of another type than expected, is
// an error naming the column and the value, never a zero.

// Column reads column key of rec as a T.
func Column[T neo4j.RecordValue](rec *neo4j.Record, key string) (T, error) {
	v, isNil, err := neo4j.GetRecordValue[T](rec, key)
	if err == nil && !isNil {
		return v, nil
	}
	var zero T
	raw, ok := rec.Get(key)
	if !ok {
		return zero, fmt.Errorf("Neo4j returned no column %q (keys %v)", key, rec.Keys)
	}
	return zero, fmt.Errorf("column %s: expected %s, got %s", key, kindOf(any(zero)), Describe(raw))
}

// kindOf names the kind of value a zero stands for, for Column's errors.
func kindOf(zero any) string {
	switch zero.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case map[string]any:
		return "a map"
	case []any:
		return "a list"
	}
	return fmt.Sprintf("a %T", zero)
}

// Strings reads column key of rec as a list of strings (labels).
func Strings(rec *neo4j.Record, key string) ([]string, error) {
	v, err := Column[[]any](rec, key)
	if err != nil {
		return nil, err
	}
	list, ok := apoc.StringList(v)
	if !ok {
		return nil, fmt.Errorf("column %s: expected a list of strings, got %s", key, Describe(v))
	}
	return list, nil
}

// NodeFromRecord reads a node's properties and labels from the columns
// propsKey and labelsKey; its id property must be the string id. Temporal
// and point values become the ISO strings APOC exports (plainProps).
func NodeFromRecord(rec *neo4j.Record, propsKey, labelsKey, id string) (graph.Node, error) {
	props, err := Column[map[string]any](rec, propsKey)
	if err != nil {
		return graph.Node{}, fmt.Errorf("node %q: %w", id, err)
	}
	labels, err := Strings(rec, labelsKey)
	if err != nil {
		return graph.Node{}, fmt.Errorf("node %q: %w", id, err)
	}
	if got, ok := props["id"].(string); !ok || got != id {
		return graph.Node{}, fmt.Errorf("node %q: property id is %s", id, Describe(props["id"]))
	}
	return graph.Node{ID: id, Labels: labels, Properties: plainProps(props)}, nil
}

// OneNode reads the answer to a lookup of the node whose id is id, with
// its properties in column "data" and labels in "labels": no record means
// no such node; more than one is an error, since ids must be unique.
func OneNode(recs []*neo4j.Record, id string) (graph.Node, bool, error) {
	switch len(recs) {
	case 0:
		return graph.Node{}, false, nil
	case 1:
	default:
		return graph.Node{}, false, fmt.Errorf("Neo4j has %d nodes with id %q; node ids must be unique", len(recs), id)
	}
	n, err := NodeFromRecord(recs[0], "data", "labels", id)
	if err != nil {
		return graph.Node{}, false, err
	}
	return n, true, nil
}

// RelatesEdge builds the RELATES edge from the node with id from to the one
// with id to out of the relationship's properties: its weight (nil when
// absent; an integer is valid) and tags (nil when absent) checked, errors
// naming the relationship, and temporal and point values made strings as
// the memory engine holds them.
func RelatesEdge(props map[string]any, from, to string) (graph.Edge, error) {
	rel := func(e error) error {
		return fmt.Errorf("relationship (%s)-[:%s]-(%s): %w", strconv.Quote(from), graph.Relates, strconv.Quote(to), e)
	}
	weight, err := edgeWeight(props)
	if err != nil {
		return graph.Edge{}, rel(err)
	}
	tags, err := edgeTags(props)
	if err != nil {
		return graph.Edge{}, rel(err)
	}
	return graph.Edge{SourceID: from, TargetID: to, Type: graph.Relates, Properties: plainProps(props), Weight: weight, Tags: tags}, nil
}

// edgeWeight reads an edge's weight property by graph.WeightOf (nil when
// absent; an integer weight, e.g. 1, is valid), its error naming the value.
func edgeWeight(props map[string]any) (*float64, error) {
	w, err := graph.WeightOf(props)
	if err != nil {
		return nil, fmt.Errorf("property weight must be a number, got %s", Describe(props["weight"]))
	}
	return w, nil
}

// edgeTags reads an edge's tags property: nil when absent, empty for an
// empty list.
func edgeTags(props map[string]any) ([]string, error) {
	v, ok := props["tags"]
	if !ok || v == nil {
		return nil, nil
	}
	tags, ok := apoc.StringList(v)
	if !ok {
		return nil, fmt.Errorf("property tags must be a list of strings, got %s", Describe(v))
	}
	return tags, nil
}

// Describe names a value's type and shows it briefly: `string "high"`.
// It is apoc.Describe, for the packages that read Neo4j without apoc.
func Describe(v any) string { return apoc.Describe(v) }
