package neo4jload

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/internal/cypherlit"
)

// labelCheckBatch is how many ids one query of the label check carries.
// A variable for tests.
var labelCheckBatch = 50000

// labelledConflictQuery finds the nodes of one label (the %s) that have one
// of $ids; with the id index of that label it is an index seek per id.
const labelledConflictQuery = `MATCH (n:%s) WHERE n.id IN $ids
RETURN n.id AS id, labels(n) AS labels, elementId(n) AS eid`

// unlabelledConflictQuery finds the unlabelled nodes that have one of $ids
// (no index serves them: a scan of the nodes).
const unlabelledConflictQuery = `MATCH (n) WHERE size(labels(n)) = 0 AND n.id IN $ids
RETURN n.id AS id, labels(n) AS labels, elementId(n) AS eid`

// LabelConflict is a node id that the database holds under labels Load
// would not merge it on.
type LabelConflict struct {
	ID string
	// DatabaseLabels are the labels of the node in the database (in the
	// server's order); FileLabels those the loaded graph gives it.
	DatabaseLabels, FileLabels []string
	eid                        string // the database node's element id
}

// LabelConflictError is Load refusing a graph because some of its node ids
// exist in the database under other labels: Load merges a node on its
// first label and id, so it would create a second node with that id, and
// every later exploration of the id would fail ("2 nodes with id"). Nothing
// has been written when Load returns it. With LoadOptions.Wipe there is no
// such error: Load takes the conflicting node over instead (see Load).
type LabelConflictError struct {
	// Conflicts lists up to apoc.MaxErrors conflicts, in the graph's node
	// order; Total counts them all.
	Conflicts []LabelConflict
	Total     int
}

func (e *LabelConflictError) Error() string {
	line := func(c LabelConflict) string {
		return fmt.Sprintf("node %q exists in the database %s, the file has it %s", c.ID, asLabels(c.DatabaseLabels), asLabels(c.FileLabels))
	}
	if e.Total == 1 && len(e.Conflicts) == 1 {
		return line(e.Conflicts[0]) + "; refusing to create a duplicate"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d nodes of the file exist in the database under other labels; refusing to create duplicates:", e.Total)
	for _, c := range e.Conflicts {
		b.WriteString("\n  " + line(c))
	}
	if more := e.Total - len(e.Conflicts); more > 0 {
		fmt.Fprintf(&b, "\n  and %d more", more)
	}
	return b.String()
}

// asLabels renders a label list as "as :A:B", or "without labels".
func asLabels(labels []string) string {
	if len(labels) == 0 {
		return "without labels"
	}
	return "as :" + strings.Join(labels, ":")
}

// checkLabels finds the ids of the planned graph that exist in the database under labels
// the merge would not match (see LabelConflictError): a node with the id
// that lacks the first label the file gives it, or that has labels where
// the file gives none. It returns them all, in the graph's node order. It
// only reads (Load skips it for a database without nodes, recognised from
// the counts store): for each label of the
// database (db.labels()), the ids that the file does not give that label
// first are looked up among the nodes of the label, labelCheckBatch ids per
// query, which the label's id index serves when there is one (Load creates
// one for every label it writes); and the ids the file gives a label are
// looked up among the unlabelled nodes, one scan per labelCheckBatch ids.
// The check and the writes are separate transactions: a concurrent writer
// can still create such a node in between.
func (l *loader) checkLabels(ctx context.Context) ([]LabelConflict, error) {
	nodes := l.plan.nodes
	wrap := func(err error) error { return fmt.Errorf("checking the node ids against the database: %w", err) }
	dbLabels, err := l.src.Query(ctx, "CALL db.labels() YIELD label RETURN label ORDER BY label", nil)
	if err != nil {
		return nil, wrap(err)
	}
	pos := make(map[string]int, len(nodes)) // id -> node index in the graph
	for i := range nodes {
		pos[nodes[i].id] = i
	}
	first := func(i int) string { // the label Load merges node i on; "" for none
		if lbs := nodes[i].grp.labels; len(lbs) > 0 {
			return lbs[0]
		}
		return ""
	}
	// One pass per label of the database, then one for the unlabelled
	// nodes; each skips the ids whose nodes it cannot find in conflict (a
	// node of label L with an id the file merges on L is matched).
	type pass struct {
		query string
		skip  func(want string) bool
	}
	passes := make([]pass, 0, len(dbLabels)+1)
	for _, rec := range dbLabels {
		lb, err := neo4jdb.Column[string](rec, "label")
		if err != nil {
			return nil, wrap(err)
		}
		passes = append(passes, pass{fmt.Sprintf(labelledConflictQuery, cypherlit.QuoteName(lb)), func(want string) bool { return want == lb }})
	}
	passes = append(passes, pass{unlabelledConflictQuery, func(want string) bool { return want == "" }})

	var found []LabelConflict
	seen := make(map[string]bool) // element ids of nodes already found (a node has several labels)
	for p, ps := range passes {
		ids := make([]any, 0, min(len(nodes), labelCheckBatch))
		flush := func() error {
			if len(ids) == 0 {
				return nil
			}
			recs, err := l.src.Query(ctx, ps.query, map[string]any{"ids": ids})
			if err != nil {
				return wrap(err)
			}
			ids = ids[:0]
			for _, rec := range recs {
				id, err := neo4jdb.Column[string](rec, "id")
				if err != nil {
					return wrap(err)
				}
				labels, err := neo4jdb.Strings(rec, "labels")
				if err != nil {
					return wrap(err)
				}
				eid, err := neo4jdb.Column[string](rec, "eid")
				if err != nil {
					return wrap(err)
				}
				want := first(pos[id])
				if seen[eid] || (want == "" && len(labels) == 0) || (want != "" && slices.Contains(labels, want)) {
					continue
				}
				seen[eid] = true
				found = append(found, LabelConflict{ID: id, DatabaseLabels: labels, FileLabels: nodes[pos[id]].grp.labels, eid: eid})
			}
			return nil
		}
		for i := range nodes {
			if ps.skip(first(i)) {
				continue
			}
			ids = append(ids, nodes[i].id)
			if len(ids) == labelCheckBatch {
				if err := flush(); err != nil {
					return nil, err
				}
			}
		}
		if err := flush(); err != nil {
			return nil, err
		}
		l.progress("check", p+1, len(passes))
	}
	sort.SliceStable(found, func(a, b int) bool { return pos[found[a].ID] < pos[found[b].ID] })
	return found, nil
}

// conflictError is the refusal of a graph whose ids conflict.
func conflictError(found []LabelConflict) error {
	return &LabelConflictError{Conflicts: found[:min(len(found), apoc.MaxErrors)], Total: len(found)}
}

// takeOver chooses, for a load with Wipe, the database nodes that the
// nodes of the graph with conflicting ids take over: rather than merge a
// second node with the id (a duplicate until the prune after the load, for
// good if the load stops half way), the graph's node is written onto the
// conflicting node, which gets the graph's labels and properties (its other
// labels are removed after the whole graph is loaded). An id is taken over
// only when no node would match the merge (one with the graph's first label
// and the id, or for a node without labels an unlabelled one with the id),
// and then onto one conflicting node; any other node with the id is removed
// by the prune. It returns the element id to write each such id onto.
func (l *loader) takeOver(ctx context.Context, found []LabelConflict) (map[string]string, error) {
	wrap := func(err error) error { return fmt.Errorf("checking the node ids against the database: %w", err) }
	first := make(map[string]string, len(found)) // id -> the graph's first label
	for _, c := range found {
		if len(c.FileLabels) > 0 {
			first[c.ID] = c.FileLabels[0]
		}
	}
	// The conflicting ids, by the label the merge would match them on.
	byLabel := map[string][]any{}
	for _, c := range found {
		byLabel[first[c.ID]] = append(byLabel[first[c.ID]], c.ID)
	}
	matched := map[string]bool{}
	for _, lb := range slices.Sorted(maps.Keys(byLabel)) {
		q := unlabelledMatchQuery
		if lb != "" {
			q = fmt.Sprintf(labelledMatchQuery, cypherlit.QuoteName(lb))
		}
		recs, err := l.src.Query(ctx, q, map[string]any{"ids": byLabel[lb]})
		if err != nil {
			return nil, wrap(err)
		}
		for _, rec := range recs {
			id, err := neo4jdb.Column[string](rec, "id")
			if err != nil {
				return nil, wrap(err)
			}
			matched[id] = true
		}
	}
	over := map[string]string{}
	for _, c := range found {
		if _, done := over[c.ID]; !done && !matched[c.ID] {
			over[c.ID] = c.eid
		}
	}
	return over, nil
}

// labelledMatchQuery and unlabelledMatchQuery find which of $ids a merge
// on the label (the %s) or among unlabelled nodes would match.
const (
	labelledMatchQuery   = "MATCH (n:%s) WHERE n.id IN $ids RETURN DISTINCT n.id AS id"
	unlabelledMatchQuery = "MATCH (n) WHERE size(labels(n)) = 0 AND n.id IN $ids RETURN DISTINCT n.id AS id"
)
