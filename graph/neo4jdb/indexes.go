package neo4jdb

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/internal/cypherlit"
)

// IDCoverage says which node labels of a database have an index on the
// property id, which is what lets a node be found by its id without reading
// every node (docs/ALGORITHM.md, "Indexes").
type IDCoverage struct {
	// Indexed are the labels with an online range index (or a constraint's
	// index) on exactly the property id, sorted.
	Indexed []string
	// Unindexed are the labels in use without one, sorted. Nodes carrying
	// only these labels, and nodes without a label, are found by a scan.
	Unindexed []string
	// Property is the id property a mapping reads ("" for memoria's id;
	// schema.go): the labels are those indexed, or not, on it.
	Property string
}

// Fix returns the statements that would index the unindexed labels.
func (c IDCoverage) Fix() []string {
	if c.Property == "" {
		return apoc.IndexStatements(c.Unindexed)
	}
	out := make([]string, len(c.Unindexed))
	for i, l := range c.Unindexed {
		out[i] = "CREATE INDEX IF NOT EXISTS FOR (n:" + cypherlit.QuoteName(l) + ") ON (n." + cypherlit.QuoteName(c.Property) + ")"
	}
	return out
}

// Notice is the one sentence to show when some labels lack an index, or ""
// when none does.
func (c IDCoverage) Notice() string {
	if len(c.Unindexed) == 0 {
		return ""
	}
	if c.Property != "" {
		return fmt.Sprintf("%d label(s) have no index on %s (%s): a seed with only those labels is found by reading every node; to fix, run: %s",
			len(c.Unindexed), strconv.Quote(c.Property), strings.Join(quoted(c.Unindexed), ", "), strings.Join(c.Fix(), "; "))
	}
	return fmt.Sprintf("%d label(s) have no index on id (%s): a seed with only those labels is found by reading every node; to fix, run: %s",
		len(c.Unindexed), strings.Join(quoted(c.Unindexed), ", "), strings.Join(c.Fix(), "; "))
}

func quoted(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// indexedLabelsQuery lists the labels of online range indexes on exactly
// the property id (a uniqueness or key constraint's index is one of them).
const indexedLabelsQuery = `SHOW INDEXES YIELD entityType, type, labelsOrTypes, properties, state
WHERE entityType = 'NODE' AND type = 'RANGE' AND properties = ['id'] AND state = 'ONLINE'
RETURN labelsOrTypes[0] AS label`

// indexedLabelsMapped is indexedLabelsQuery for the property $property.
const indexedLabelsMapped = `SHOW INDEXES YIELD entityType, type, labelsOrTypes, properties, state
WHERE entityType = 'NODE' AND type = 'RANGE' AND properties = [$property] AND state = 'ONLINE'
RETURN labelsOrTypes[0] AS label`

// IDCoverage reads the database's indexes and labels (two catalog reads,
// no scan of the data).
func (s *Source) IDCoverage(ctx context.Context) (IDCoverage, error) {
	var c IDCoverage
	query, params := indexedLabelsQuery, map[string]any(nil)
	m := s.mapping()
	if m != nil {
		c.Property = m.s.IDProperty
		query, params = indexedLabelsMapped, map[string]any{"property": m.s.IDProperty}
	}
	recs, err := s.Query(ctx, query, params)
	if err != nil {
		return c, err
	}
	indexed := map[string]bool{}
	for _, r := range recs {
		l, err := Column[string](r, "label")
		if err != nil {
			return c, err
		}
		if !indexed[l] {
			indexed[l] = true
			c.Indexed = append(c.Indexed, l)
		}
	}
	recs, err = s.Query(ctx, `CALL db.labels() YIELD label RETURN label`, nil)
	if err != nil {
		return c, err
	}
	for _, r := range recs {
		l, err := Column[string](r, "label")
		if err != nil {
			return c, err
		}
		if m != nil && m.s.NodeLabel != "" && l != m.s.NodeLabel {
			continue // under a label filter only its label is read
		}
		if !indexed[l] {
			c.Unindexed = append(c.Unindexed, l)
		}
	}
	slices.Sort(c.Indexed)
	slices.Sort(c.Unindexed)
	return c, nil
}
