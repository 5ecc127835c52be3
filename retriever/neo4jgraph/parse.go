package neo4jgraph

import (
	"fmt"
	"math"
	"strconv"

	"github.com/memoria-graph/memoria/retriever/apoc"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Records are read column by column with Record.Get: the driver returns
// integers as int64, floats as float64, strings, booleans, lists as []any
// and maps as map[string]any. A value of another type than expected is an
// error, never a zero.

func column(rec *neo4j.Record, key string) (any, error) {
	v, ok := rec.Get(key)
	if !ok {
		return nil, fmt.Errorf("Neo4j returned no column %q (keys %v)", key, rec.Keys)
	}
	return v, nil
}

func colString(rec *neo4j.Record, key string) (string, error) {
	v, err := column(rec, key)
	if err != nil {
		return "", err
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("column %s: expected a string, got %s", key, describe(v))
	}
	return s, nil
}

func colInt(rec *neo4j.Record, key string) (int64, error) {
	v, err := column(rec, key)
	if err != nil {
		return 0, err
	}
	i, ok := v.(int64)
	if !ok {
		return 0, fmt.Errorf("column %s: expected an integer, got %s", key, describe(v))
	}
	return i, nil
}

func colFloat(rec *neo4j.Record, key string) (float64, error) {
	v, err := column(rec, key)
	if err != nil {
		return 0, err
	}
	f, ok := v.(float64)
	if !ok {
		return 0, fmt.Errorf("column %s: expected a float, got %s", key, describe(v))
	}
	return f, nil
}

func colBool(rec *neo4j.Record, key string) (bool, error) {
	v, err := column(rec, key)
	if err != nil {
		return false, err
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("column %s: expected a boolean, got %s", key, describe(v))
	}
	return b, nil
}

func colMap(rec *neo4j.Record, key string) (map[string]any, error) {
	v, err := column(rec, key)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("column %s: expected a map, got %s", key, describe(v))
	}
	return m, nil
}

// colStrings reads a list of strings (labels).
func colStrings(rec *neo4j.Record, key string) ([]string, error) {
	v, err := column(rec, key)
	if err != nil {
		return nil, err
	}
	list, ok := apoc.StringList(v)
	if !ok {
		return nil, fmt.Errorf("column %s: expected a list of strings, got %s", key, describe(v))
	}
	return list, nil
}

// edgeWeight reads an edge's weight property: nil when absent; an integer
// weight (e.g. 1) is valid.
func edgeWeight(props map[string]any) (*float64, error) {
	v, ok := props["weight"]
	if !ok || v == nil {
		return nil, nil
	}
	var w float64
	switch x := v.(type) {
	case float64:
		w = x
	case int64:
		w = float64(x)
	default:
		return nil, fmt.Errorf("property weight must be a number, got %s", describe(v))
	}
	return &w, nil
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
		return nil, fmt.Errorf("property tags must be a list of strings, got %s", describe(v))
	}
	return tags, nil
}

// describe names a value's type and shows it briefly: `string "high"`.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		if len(x) > 40 {
			x = x[:40] + "..."
		}
		return "string " + strconv.Quote(x)
	case bool:
		return "boolean " + strconv.FormatBool(x)
	case int64:
		return "integer " + strconv.FormatInt(x, 10)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Sprintf("float %v", x)
		}
		return "float " + strconv.FormatFloat(x, 'g', -1, 64)
	case []any:
		for _, e := range x {
			if _, ok := e.(string); !ok {
				return "a list containing " + describe(e)
			}
		}
		return "a list of strings"
	case map[string]any:
		return "a map"
	}
	return fmt.Sprintf("a value of type %T", v)
}
