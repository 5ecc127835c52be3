package neo4jdb

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/cypherlit"
)

// weightIndexedTypes lists the relationship types with an online range
// index on exactly the property $property.
const weightIndexedTypes = `SHOW INDEXES YIELD entityType, type, labelsOrTypes, properties, state
WHERE entityType = 'RELATIONSHIP' AND type = 'RANGE' AND properties = [$property] AND state = 'ONLINE'
RETURN labelsOrTypes[0] AS type`

// UnitWeights reports whether every traversed relationship's weight is
// known to lie in [0, 1] (the schema's weight property; a relationship
// without one weighs the schema's default weight, else
// graph.MissingRelatesWeight), found without reading the relationships:
// each traversed type needs an online range index on the weight property
// (`memoria load` creates apoc.WeightIndexStatement's), and two index
// reads per type then take its least and its greatest weight in the
// index's order, both of which must be numbers in [0, 1]. Cypher orders
// every value that is not a number (a string, a boolean, a list) before
// the numbers, and NaN after them, so the two ends show any weight the
// embedded engine's rule (0 ≤ w ≤ 1) refuses; a search by comparison
// (w > 1.0, w < 0.0) would miss those, as both comparisons are false or
// null for them. Without such an index it answers false: not known.
// A mapping without a weight property weighs every relationship the
// default.
func (s *Source) UnitWeights(ctx context.Context) (bool, error) {
	sc := s.Schema()
	def := graph.MissingRelatesWeight
	if sc.DefaultWeight != nil {
		def = *sc.DefaultWeight
	}
	if !(def >= 0 && def <= 1) || len(sc.Traverse) == 0 {
		return false, nil
	}
	if sc.WeightProperty == "" {
		return true, nil
	}
	missing, err := s.unindexedWeights(ctx)
	if err != nil || len(missing) > 0 {
		return false, err
	}
	w := "r." + cypherlit.QuoteName(sc.WeightProperty)
	var ends []string
	for _, t := range sc.Traverse {
		m := "MATCH ()-[r:" + cypherlit.QuoteName(t) + "]->() WHERE " + w + " IS NOT NULL RETURN " + w + " ORDER BY " + w
		ends = append(ends, "COLLECT { "+m+" LIMIT 1 }", "COLLECT { "+m+" DESC LIMIT 1 }")
	}
	// WITH first: the planner evaluates each list once (inline, it splits
	// all() by condition and reads the index once per condition).
	recs, err := s.Query(ctx, "WITH "+strings.Join(ends, " + ")+
		" AS ends RETURN all(w IN ends WHERE (w IS :: INTEGER OR w IS :: FLOAT) AND 0.0 <= w <= 1.0) AS unit", nil)
	if err != nil {
		return false, err
	}
	return Column[bool](recs[0], "unit")
}

// unindexedWeights lists the traversed types without an online range index
// on the schema's weight property (none when it has no weight property).
func (s *Source) unindexedWeights(ctx context.Context) ([]string, error) {
	sc := s.Schema()
	if sc.WeightProperty == "" {
		return nil, nil
	}
	recs, err := s.Query(ctx, weightIndexedTypes, map[string]any{"property": sc.WeightProperty})
	if err != nil {
		return nil, err
	}
	indexed := map[string]bool{}
	for _, r := range recs {
		t, err := Column[string](r, "type")
		if err != nil {
			return nil, err
		}
		indexed[t] = true
	}
	var missing []string
	for _, t := range sc.Traverse {
		if !indexed[t] {
			missing = append(missing, t)
		}
	}
	return missing, nil
}

// WeightIndexNotice is the one sentence `why` shows when a traversed type
// has no range index on its weight, so that the search cannot learn that
// every weight lies in [0, 1] and reads by hop count alone, with the
// statements that fix it; "" when none is missing.
func (s *Source) WeightIndexNotice(ctx context.Context) (string, error) {
	missing, err := s.unindexedWeights(ctx)
	if err != nil || len(missing) == 0 {
		return "", err
	}
	fix := make([]string, len(missing))
	for i, t := range missing {
		fix[i] = "CREATE INDEX IF NOT EXISTS FOR ()-[r:" + cypherlit.QuoteName(t) + "]-() ON (r." + cypherlit.QuoteName(s.Schema().WeightProperty) + ")"
	}
	return fmt.Sprintf("no range index on the weight %s of %s: why reads every node a short enough route could pass through, where it could stop early; to fix, run: %s",
		strconv.Quote(s.Schema().WeightProperty), strings.Join(quoted(missing), ", "), strings.Join(fix, "; ")), nil
}
