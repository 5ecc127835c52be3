package neo4jdb

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/memoria-graph/memoria/graph/apoc"
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
}

// Fix returns the statements that would index the unindexed labels.
func (c IDCoverage) Fix() []string { return apoc.IndexStatements(c.Unindexed) }

// Notice is the one sentence to show when some labels lack an index, or ""
// when none does.
func (c IDCoverage) Notice() string {
	if len(c.Unindexed) == 0 {
		return ""
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

// IDCoverage reads the database's indexes and labels (two catalog reads,
// no scan of the data).
func (s *Source) IDCoverage(ctx context.Context) (IDCoverage, error) {
	var c IDCoverage
	recs, err := s.Query(ctx, indexedLabelsQuery, nil)
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
		if !indexed[l] {
			c.Unindexed = append(c.Unindexed, l)
		}
	}
	slices.Sort(c.Indexed)
	slices.Sort(c.Unindexed)
	return c, nil
}
