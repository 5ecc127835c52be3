// Package neo4jload is memoria's one writer: it loads an APOC graph into a
// Neo4j database (`memoria load`). Nothing under retriever/ may import it
// (docs/ARCHITECTURE.md).
package neo4jload

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/internal/cypherlit"
	"github.com/memoria-graph/memoria/internal/retry"
)

// DefaultBatchSize is how many rows one UNWIND (and one write transaction)
// of Load carries when LoadOptions.BatchSize is 0; it is also the default
// of memoria load's --batch.
const DefaultBatchSize = 1000

// wipeBatch is how many relationships or nodes one transaction of the wipe
// deletes.
const wipeBatch = 10000

// loadRetries is how often Load retries a batch after a transient failure
// (every batch is idempotent).
const loadRetries = 3

// LoadOptions tune Load.
type LoadOptions struct {
	// BatchSize is the number of rows per UNWIND and write transaction
	// (DefaultBatchSize when 0).
	BatchSize int
	// Wipe deletes every node and relationship of the database first (in
	// batches), after the graph has been validated.
	Wipe bool
	// Progress, if set, is called after each batch.
	Progress func(LoadProgress)
}

// LoadProgress reports how far Load has come in one phase.
type LoadProgress struct {
	// Phase is "wipe", "check" (the ids, see LabelConflictError; Done and
	// Total count the labels of the database checked, plus one for the
	// unlabelled nodes), "indexes", "nodes" or "relationships".
	Phase       string
	Done, Total int
}

// LoadStats counts what Load did.
type LoadStats struct {
	// NodesDeleted and RelsDeleted count what the wipe deleted.
	NodesDeleted, RelsDeleted int64
	// IndexesCreated counts the id indexes that did not exist yet.
	IndexesCreated int64
	// Indexes names every id index Load made sure of.
	Indexes []string
	// NodesCreated are new nodes; NodesMatched already existed (same first
	// label and id) and had their properties replaced.
	NodesCreated, NodesMatched int64
	// RelsCreated are new relationships; RelsMatched already existed
	// (identical endpoints, type and properties) and were left alone.
	RelsCreated, RelsMatched int64
	// Batches counts the write transactions of nodes and relationships.
	Batches int
}

// Load writes g into the database in batches of write transactions; it is
// the one writer of the product (`memoria load`). It validates the whole
// graph before writing anything (ValidateForLoad: apoc.Validate, and every
// node must have a string `id`, which nodes are merged on). Unless
// opt.Wipe, it then reads which ids of g the database already holds under
// labels the merge would not match, and refuses the graph with a
// *LabelConflictError naming them, before writing anything: merging would
// create a second node with the id.
//
// Loading is idempotent. Nodes are merged on their first label and id
// (`MERGE (n:Label {id: ...}) SET n = props`, further labels added; a node
// without labels is matched by id among unlabelled nodes). Relationships
// have no application id, so Load counts: identical relationships (same
// endpoints, direction, type and properties; an integer 1 and a float 1.0
// differ) are grouped with their number k, and only k minus the identical
// ones already in the database are created (never deleted). Loading a file
// twice gives the same graph, and parallel identical relationships survive.
// Nodes are written first, then relationships, each batch in its own write
// transaction: an interrupted load is completed by loading again. Before
// writing nodes it creates the id index of docs/ALGORITHM.md "Indexes" for the six labels
// and for every other label met
// (`CREATE INDEX idx_<label>_id IF NOT EXISTS FOR (n:Label) ON (n.id)`).
func Load(ctx context.Context, src *neo4jdb.Source, g *apoc.Graph, opt LoadOptions) (LoadStats, error) {
	var st LoadStats
	if err := ValidateForLoad(g); err != nil {
		return st, fmt.Errorf("the graph cannot be loaded: %w", err)
	}
	if opt.BatchSize <= 0 {
		opt.BatchSize = DefaultBatchSize
	}
	l := &loader{opt: opt, st: &st, src: src}
	l.sess = src.Driver().NewSession(ctx, neo4j.SessionConfig{AccessMode: neo4j.AccessModeWrite, DatabaseName: src.Database()})
	defer l.sess.Close(context.WithoutCancel(ctx))

	if opt.Wipe {
		if err := l.wipe(ctx); err != nil {
			return st, err
		}
	} else if err := l.checkLabels(ctx, g); err != nil {
		return st, err
	}
	if err := l.indexes(ctx, g); err != nil {
		return st, err
	}
	eids, err := l.nodes(ctx, g)
	if err != nil {
		return st, err
	}
	if err := l.rels(ctx, g, eids); err != nil {
		return st, err
	}
	return st, nil
}

// ValidateForLoad is the check Load makes before it touches the database:
// apoc.Check by apoc.FileRules, the rules a file meets (docs/EXPORTS.md,
// "The APOC file"), so that a graph built in Go is judged as a file is:
// every node has a string id (nodes are merged on it), no name is empty or
// holds NUL, every value is one Neo4j stores as it is. It reports up to
// apoc.MaxErrors problems, joined. The CLI parses files with the same
// checker, so a file Load would refuse is refused, with line numbers,
// before it connects.
func ValidateForLoad(g *apoc.Graph) error {
	_, err := apoc.Check(g, apoc.FileRules)
	return err
}

type loader struct {
	opt  LoadOptions
	st   *LoadStats
	sess neo4j.SessionWithContext
	src  *neo4jdb.Source // for reads
}

func (l *loader) progress(phase string, done, total int) {
	if l.opt.Progress != nil {
		l.opt.Progress(LoadProgress{Phase: phase, Done: done, Total: total})
	}
}

// txResult gathers what one write transaction returned.
type txResult struct {
	recs     []*neo4j.Record
	counters []neo4j.Counters
}

// write runs work in a write transaction, retrying it after transient
// failures (every caller's work is idempotent).
func (l *loader) write(ctx context.Context, work func(ctx context.Context, tx neo4j.ManagedTransaction, out *txResult) error) (*txResult, error) {
	var out *txResult
	err := retry.Do(ctx, loadRetries, nil, func() error {
		var err error
		out, err = neo4j.ExecuteWrite(ctx, l.sess, func(tx neo4j.ManagedTransaction) (*txResult, error) {
			out := &txResult{}
			return out, work(ctx, tx, out)
		})
		return l.src.Classify(ctx, err)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// run runs one query in tx, collecting its records and counters into out.
func run(ctx context.Context, tx neo4j.ManagedTransaction, out *txResult, query string, params map[string]any) ([]*neo4j.Record, error) {
	res, err := tx.Run(ctx, query, params)
	if err != nil {
		return nil, err
	}
	recs, err := res.Collect(ctx)
	if err != nil {
		return nil, err
	}
	sum, err := res.Consume(ctx)
	if err != nil {
		return nil, err
	}
	out.recs = append(out.recs, recs...)
	out.counters = append(out.counters, sum.Counters())
	return recs, nil
}

func (r *txResult) sum(f func(neo4j.Counters) int) int64 {
	var n int64
	for _, c := range r.counters {
		n += int64(f(c))
	}
	return n
}

// wipe deletes every relationship, then every node, wipeBatch at a time.
func (l *loader) wipe(ctx context.Context) error {
	for _, q := range []string{
		"MATCH ()-[r]->() WITH r LIMIT $n DELETE r",
		"MATCH (n) WITH n LIMIT $n DETACH DELETE n",
	} {
		for {
			out, err := l.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction, out *txResult) error {
				_, err := run(ctx, tx, out, q, map[string]any{"n": int64(wipeBatch)})
				return err
			})
			if err != nil {
				return fmt.Errorf("wiping the database: %w", err)
			}
			rels, nodes := out.sum(neo4j.Counters.RelationshipsDeleted), out.sum(neo4j.Counters.NodesDeleted)
			l.st.RelsDeleted += rels
			l.st.NodesDeleted += nodes
			l.progress("wipe", int(l.st.NodesDeleted+l.st.RelsDeleted), 0)
			if rels+nodes == 0 {
				break
			}
		}
	}
	return nil
}

// indexes creates the id index of every label (each in its own schema
// transaction) and waits for them to come online.
func (l *loader) indexes(ctx context.Context, g *apoc.Graph) error {
	labels := apoc.IndexLabels(g)
	for i, name := range apoc.IndexNames(labels) {
		lb := labels[i]
		q := fmt.Sprintf("CREATE INDEX %s IF NOT EXISTS FOR (n:%s) ON (n.id)", cypherlit.QuoteName(name), cypherlit.QuoteName(lb))
		out, err := l.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction, out *txResult) error {
			_, err := run(ctx, tx, out, q, nil)
			return err
		})
		if err != nil {
			return fmt.Errorf("creating index %s: %w", name, err)
		}
		l.st.IndexesCreated += out.sum(neo4j.Counters.IndexesAdded)
		l.st.Indexes = append(l.st.Indexes, name)
		l.progress("indexes", i+1, len(labels))
	}
	_, err := l.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction, out *txResult) error {
		_, err := run(ctx, tx, out, "CALL db.awaitIndexes(300)", nil)
		return err
	})
	if err != nil {
		return fmt.Errorf("waiting for the indexes: %w", err)
	}
	return nil
}

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
}

// LabelConflictError is Load refusing a graph because some of its node ids
// exist in the database under other labels: Load merges a node on its
// first label and id, so it would create a second node with that id, and
// every later exploration of the id would fail ("2 nodes with id"). Nothing
// has been written when Load returns it.
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

// checkLabels refuses g when one of its ids exists in the database under
// labels the merge would not match (see LabelConflictError): a node with
// the id that lacks the first label the file gives it, or that has labels
// where the file gives none. It only reads: an empty database is
// recognised from the counts store; otherwise, for each label of the
// database (db.labels()), the ids that the file does not give that label
// first are looked up among the nodes of the label, labelCheckBatch ids per
// query, which the label's id index serves when there is one (Load creates
// one for every label it writes); and the ids the file gives a label are
// looked up among the unlabelled nodes, one scan per labelCheckBatch ids.
// The check and the writes are separate transactions: a concurrent writer
// can still create such a node in between.
func (l *loader) checkLabels(ctx context.Context, g *apoc.Graph) error {
	wrap := func(err error) error { return fmt.Errorf("checking the node ids against the database: %w", err) }
	n, _, err := l.src.Counts(ctx)
	if err != nil {
		return wrap(err)
	}
	if n == 0 {
		return nil
	}
	dbLabels, err := l.src.Query(ctx, "CALL db.labels() YIELD label RETURN label ORDER BY label", nil)
	if err != nil {
		return wrap(err)
	}
	pos := make(map[string]int, len(g.Nodes)) // id -> node index in g
	for i := range g.Nodes {
		pos[g.Nodes[i].Properties["id"].(string)] = i
	}
	first := func(i int) string { // the label Load merges node i on; "" for none
		if lbs := g.Nodes[i].Labels; len(lbs) > 0 {
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
			return wrap(err)
		}
		passes = append(passes, pass{fmt.Sprintf(labelledConflictQuery, cypherlit.QuoteName(lb)), func(want string) bool { return want == lb }})
	}
	passes = append(passes, pass{unlabelledConflictQuery, func(want string) bool { return want == "" }})

	var found []LabelConflict
	seen := make(map[string]bool) // element ids of nodes already found (a node has several labels)
	for p, ps := range passes {
		ids := make([]any, 0, min(len(g.Nodes), labelCheckBatch))
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
				found = append(found, LabelConflict{ID: id, DatabaseLabels: labels, FileLabels: g.Nodes[pos[id]].Labels})
			}
			return nil
		}
		for i := range g.Nodes {
			if ps.skip(first(i)) {
				continue
			}
			ids = append(ids, g.Nodes[i].Properties["id"])
			if len(ids) == labelCheckBatch {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		if err := flush(); err != nil {
			return err
		}
		l.progress("check", p+1, len(passes))
	}
	if len(found) == 0 {
		return nil
	}
	sort.SliceStable(found, func(a, b int) bool { return pos[found[a].ID] < pos[found[b].ID] })
	return &LabelConflictError{Conflicts: found[:min(len(found), apoc.MaxErrors)], Total: len(found)}
}

// nodeGroup is the nodes that share one label list.
type nodeGroup struct {
	labels []string
	rows   []any
}

// nodes merges every node and returns the element id of each by id.
func (l *loader) nodes(ctx context.Context, g *apoc.Graph) (map[string]string, error) {
	var groups []*nodeGroup
	byKey := make(map[string]*nodeGroup)
	for i := range g.Nodes {
		n := &g.Nodes[i]
		key := strings.Join(n.Labels, "\x00")
		grp, ok := byKey[key]
		if !ok {
			grp = &nodeGroup{labels: n.Labels}
			byKey[key] = grp
			groups = append(groups, grp)
		}
		grp.rows = append(grp.rows, map[string]any{"id": n.Properties["id"], "props": n.Properties})
	}
	eids := make(map[string]string, len(g.Nodes))
	done := 0
	for _, grp := range groups {
		for lo := 0; lo < len(grp.rows); lo += l.opt.BatchSize {
			rows := grp.rows[lo:min(lo+l.opt.BatchSize, len(grp.rows))]
			var created int64
			var err error
			if len(grp.labels) == 0 {
				created, err = l.unlabelledBatch(ctx, rows, eids)
			} else {
				created, err = l.labelledBatch(ctx, grp.labels, rows, eids)
			}
			if err != nil {
				return nil, fmt.Errorf("writing nodes: %w", err)
			}
			l.st.NodesCreated += created
			l.st.NodesMatched += int64(len(rows)) - created
			l.st.Batches++
			done += len(rows)
			l.progress("nodes", done, len(g.Nodes))
		}
	}
	return eids, nil
}

func readEids(recs []*neo4j.Record, eids map[string]string) error {
	for _, rec := range recs {
		id, err := neo4jdb.Column[string](rec, "id")
		if err != nil {
			return err
		}
		eid, err := neo4jdb.Column[string](rec, "eid")
		if err != nil {
			return err
		}
		eids[id] = eid
	}
	return nil
}

func (l *loader) labelledBatch(ctx context.Context, labels []string, rows []any, eids map[string]string) (int64, error) {
	var q strings.Builder
	q.WriteString("UNWIND $rows AS row\nMERGE (n:")
	q.WriteString(cypherlit.QuoteName(labels[0]))
	q.WriteString(" {id: row.id})\nSET n = row.props")
	if len(labels) > 1 {
		q.WriteString(", n")
		for _, lb := range labels[1:] {
			q.WriteString(":" + cypherlit.QuoteName(lb))
		}
	}
	q.WriteString("\nRETURN row.id AS id, elementId(n) AS eid")
	out, err := l.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction, out *txResult) error {
		_, err := run(ctx, tx, out, q.String(), map[string]any{"rows": rows})
		return err
	})
	if err != nil {
		return 0, err
	}
	return out.sum(neo4j.Counters.NodesCreated), readEids(out.recs, eids)
}

// unlabelledBatch merges nodes without labels: one scan finds those that
// exist (no index can serve an unlabelled node), the others are created.
func (l *loader) unlabelledBatch(ctx context.Context, rows []any, eids map[string]string) (int64, error) {
	ids := make([]any, len(rows))
	for i, r := range rows {
		ids[i] = r.(map[string]any)["id"]
	}
	out, err := l.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction, out *txResult) error {
		found, err := run(ctx, tx, out, "MATCH (n) WHERE size(labels(n)) = 0 AND n.id IN $ids RETURN n.id AS id, elementId(n) AS eid", map[string]any{"ids": ids})
		if err != nil {
			return err
		}
		existing := make(map[string]string, len(found))
		if err := readEids(found, existing); err != nil {
			return err
		}
		var upd, add []any
		for _, r := range rows {
			m := r.(map[string]any)
			if eid, ok := existing[m["id"].(string)]; ok {
				upd = append(upd, map[string]any{"eid": eid, "props": m["props"]})
			} else {
				add = append(add, r)
			}
		}
		if len(upd) > 0 {
			if _, err := run(ctx, tx, out, "UNWIND $rows AS row MATCH (n) WHERE elementId(n) = row.eid SET n = row.props", map[string]any{"rows": upd}); err != nil {
				return err
			}
		}
		if len(add) > 0 {
			if _, err := run(ctx, tx, out, "UNWIND $rows AS row CREATE (n) SET n = row.props RETURN row.id AS id, elementId(n) AS eid", map[string]any{"rows": add}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return out.sum(neo4j.Counters.NodesCreated), readEids(out.recs, eids)
}

// relGroup is k identical relationships.
type relGroup struct {
	typ        string
	start, end string // application ids
	props      map[string]any
	k          int64
}

// rels creates the relationships that are missing, counting identical ones.
func (l *loader) rels(ctx context.Context, g *apoc.Graph, eids map[string]string) error {
	appID := make(map[string]string, len(g.Nodes))
	for i := range g.Nodes {
		appID[g.Nodes[i].InternalID] = g.Nodes[i].Properties["id"].(string)
	}
	var types []string
	byType := make(map[string][]*relGroup)
	index := make(map[string]*relGroup)
	for i := range g.Rels {
		r := &g.Rels[i]
		s, e := appID[r.Start], appID[r.End]
		key := strconv.Quote(r.Type) + " " + strconv.Quote(s) + " " + strconv.Quote(e) + " " + canonical(r.Properties)
		if grp, ok := index[key]; ok {
			grp.k++
			continue
		}
		grp := &relGroup{typ: r.Type, start: s, end: e, props: r.Properties, k: 1}
		index[key] = grp
		if _, ok := byType[r.Type]; !ok {
			types = append(types, r.Type)
		}
		byType[r.Type] = append(byType[r.Type], grp)
	}
	done := 0
	for _, typ := range types {
		q := fmt.Sprintf(`UNWIND $rows AS row
MATCH (a) WHERE elementId(a) = row.s
MATCH (b) WHERE elementId(b) = row.e
OPTIONAL MATCH (a)-[r:%[1]s]->(b)
  WHERE properties(r) = row.props
    AND all(k IN keys(row.props) WHERE valueType(r[k]) STARTS WITH 'LIST' OR valueType(r[k]) = valueType(row.props[k]))
WITH a, b, row, count(r) AS existing
UNWIND range(1, row.k - existing) AS i
CREATE (a)-[c:%[1]s]->(b) SET c = row.props`, cypherlit.QuoteName(typ))
		grps := byType[typ]
		for lo := 0; lo < len(grps); lo += l.opt.BatchSize {
			batch := grps[lo:min(lo+l.opt.BatchSize, len(grps))]
			rows := make([]any, len(batch))
			var total int64
			for i, grp := range batch {
				// i keeps rows apart in the aggregation: two rows whose maps
				// Cypher finds equal (weight 1 and 1.0) must not merge.
				rows[i] = map[string]any{"i": int64(i), "s": eids[grp.start], "e": eids[grp.end], "props": grp.props, "k": grp.k}
				total += grp.k
			}
			out, err := l.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction, out *txResult) error {
				_, err := run(ctx, tx, out, q, map[string]any{"rows": rows})
				return err
			})
			if err != nil {
				return fmt.Errorf("writing %s relationships: %w", typ, err)
			}
			created := out.sum(neo4j.Counters.RelationshipsCreated)
			l.st.RelsCreated += created
			l.st.RelsMatched += total - created
			l.st.Batches++
			done += int(total)
			l.progress("relationships", done, len(g.Rels))
		}
	}
	return nil
}

// canonical renders properties so that two maps render the same exactly
// when the relationship query finds them identical: equal (Cypher's =) and
// with scalar values of the same type (an integer weight 1 differs from a
// float 1.0); list elements compare by value only ([1] = [1.0]), as Neo4j
// may store a list of numbers with another element type than sent.
func canonical(props map[string]any) string {
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(k))
		b.WriteByte(':')
		canonicalValue(&b, props[k])
	}
	b.WriteByte('}')
	return b.String()
}

func canonicalValue(b *strings.Builder, v any) {
	canonicalElem(b, v, false)
}

func canonicalElem(b *strings.Builder, v any, inList bool) {
	switch x := v.(type) {
	case string:
		b.WriteString(strconv.Quote(x))
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int64:
		if inList && x > -1<<53 && x < 1<<53 {
			b.WriteString("n" + strconv.FormatFloat(float64(x), 'g', -1, 64))
		} else {
			b.WriteString("i" + strconv.FormatInt(x, 10))
		}
	case float64:
		if inList {
			b.WriteString("n" + strconv.FormatFloat(x, 'g', -1, 64))
		} else {
			b.WriteString("f" + strconv.FormatFloat(x, 'g', -1, 64))
		}
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			canonicalElem(b, e, true)
		}
		b.WriteByte(']')
	case []string:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(e))
		}
		b.WriteByte(']')
	default:
		fmt.Fprintf(b, "%T:%v", v, v)
	}
}
