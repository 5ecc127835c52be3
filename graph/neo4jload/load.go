// Package neo4jload is memoria's one writer: it loads an APOC graph into a
// Neo4j database (`memoria load`). Nothing under retriever/ may import it
// (docs/ARCHITECTURE.md).
package neo4jload

import (
	"context"
	"fmt"
	"slices"
	"sort"
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

// deleteBatch is how many nodes, relationships or labels one transaction of
// the prune (LoadOptions.Wipe) removes.
const deleteBatch = 10000

// loadRetries is how often Load retries a batch after a transient failure
// (every batch is idempotent).
const loadRetries = 3

// LoadOptions tune Load.
type LoadOptions struct {
	// BatchSize is the number of rows per UNWIND and write transaction
	// (DefaultBatchSize when 0).
	BatchSize int
	// Wipe makes the database hold exactly the graph: once the whole graph
	// is loaded, Load removes every node, relationship and label that the
	// graph does not hold. Nothing is removed before that.
	Wipe bool
	// Progress, if set, is called after each batch.
	Progress func(LoadProgress)
}

// LoadProgress reports how far Load has come in one phase.
type LoadProgress struct {
	// Phase is "check" (the ids, see LabelConflictError; Done and Total
	// count the labels of the database checked, plus one for the
	// unlabelled nodes), "indexes", "nodes", "relationships", or with
	// Wipe "prune" (Done counts what was removed; Total is 0).
	Phase       string
	Done, Total int
}

// LoadStats counts what Load did.
type LoadStats struct {
	// NodesDeleted, RelsDeleted and LabelsRemoved count what the prune of
	// a load with Wipe removed.
	NodesDeleted, RelsDeleted, LabelsRemoved int64
	// IndexesCreated counts the id indexes that did not exist yet.
	IndexesCreated int64
	// Indexes names every id index Load made sure of.
	Indexes []string
	// NodesCreated are new nodes; NodesMatched already existed (same first
	// label and id, or with Wipe a node with the id that Load took over)
	// and had their properties replaced.
	NodesCreated, NodesMatched int64
	// RelsCreated are new relationships; RelsMatched already existed
	// (identical endpoints, type and properties) and were left alone.
	RelsCreated, RelsMatched int64
	// Batches counts the write transactions of nodes and relationships.
	Batches int
}

// IncompleteError is Load stopping after it began to write: the database
// holds part of the graph and, unless the prune of a load with Wipe had
// begun, every node and relationship it held before (nodes the graph also
// holds may already carry the graph's properties). Loading the same graph
// again completes it.
type IncompleteError struct {
	// Phase is what Load was doing: "creating the indexes", "writing
	// nodes", "writing relationships" or "removing what the graph does not
	// hold".
	Phase string
	// Stats is what had been written and removed; Nodes and Rels are the
	// graph's totals.
	Stats       LoadStats
	Nodes, Rels int
	Wipe        bool
	Err         error
}

func (e *IncompleteError) Error() string {
	var b strings.Builder
	s := e.Stats
	fmt.Fprintf(&b, "the load stopped while %s: %v\n", e.Phase, e.Err)
	fmt.Fprintf(&b, "written so far: %d of %d nodes (%d created, %d matched), %d of %d relationships (%d created, %d matched)",
		s.NodesCreated+s.NodesMatched, e.Nodes, s.NodesCreated, s.NodesMatched, s.RelsCreated+s.RelsMatched, e.Rels, s.RelsCreated, s.RelsMatched)
	switch {
	case s.NodesDeleted+s.RelsDeleted+s.LabelsRemoved > 0:
		fmt.Fprintf(&b, "; removed, as the graph does not hold them: %d nodes, %d relationships, %d labels", s.NodesDeleted, s.RelsDeleted, s.LabelsRemoved)
	case e.Wipe:
		b.WriteString("; nothing removed (what the graph does not hold is removed only once all of it is loaded)")
	}
	b.WriteString(".\nRunning the same load again completes it: loading is idempotent.")
	return b.String()
}

func (e *IncompleteError) Unwrap() error { return e.Err }

// Load writes g into the database in batches of write transactions; it is
// the one writer of the product (`memoria load`). Before it writes
// anything it checks the whole graph (Prepare: the checker of every graph
// file, docs/EXPORTS.md "The APOC file", which covers what Neo4j refuses),
// and reads which ids of g the database already holds under labels the
// merge would not match: without opt.Wipe it refuses the graph with a
// *LabelConflictError naming them (merging would create a second node with
// the id); with opt.Wipe it writes those nodes onto the conflicting ones
// (takeOver), so no id is ever held twice.
//
// Loading is idempotent. Nodes are merged on their first label and id
// (`MERGE (n:Label {id: ...}) SET n = props`, further labels added; a node
// without labels is matched by id among unlabelled nodes). Relationships
// have no application id, so Load counts: identical relationships (same
// endpoints, direction, type and properties; an integer 1 and a float 1.0
// differ) are grouped with their number k, and only k minus the identical
// ones already in the database are created. Loading a file twice gives the
// same graph, and parallel identical relationships survive. Before writing
// nodes it creates the id index of docs/ALGORITHM.md "Indexes" for the six
// labels and for every other label met (`CREATE INDEX idx_<label>_id IF
// NOT EXISTS FOR (n:Label) ON (n.id)`); then it writes the nodes, then the
// relationships, each batch in its own write transaction.
//
// With opt.Wipe, once the whole graph is loaded, Load removes what the
// graph does not hold (the prune): relationships other than the ones
// loaded (at most k of each group), nodes other than the ones loaded, and
// labels of loaded nodes that the graph does not give them. Nothing is
// removed before the whole graph is in the database, so a load that stops
// leaves everything the database held.
//
// Load never leaves the database worse than it found it: when it stops
// after writing began (the server fails, the context ends) it returns an
// *IncompleteError saying what was written and removed so far, and loading
// the same graph again completes the load.
func Load(ctx context.Context, src *neo4jdb.Source, g *apoc.Graph, opt LoadOptions) (LoadStats, error) {
	var st LoadStats
	p, err := Prepare(g, opt.BatchSize)
	if err != nil {
		return st, fmt.Errorf("the graph cannot be loaded: %w", err)
	}
	opt.BatchSize = p.batch
	l := &loader{opt: opt, st: &st, src: src}
	l.sess = src.Driver().NewSession(ctx, neo4j.SessionConfig{AccessMode: neo4j.AccessModeWrite, DatabaseName: src.Database()})
	defer l.sess.Close(context.WithoutCancel(ctx))

	conflicts, err := l.checkLabels(ctx, g)
	if err != nil {
		return st, err
	}
	var over map[string]string
	switch {
	case len(conflicts) > 0 && !opt.Wipe:
		return st, conflictError(conflicts)
	case len(conflicts) > 0:
		if over, err = l.takeOver(ctx, g, conflicts); err != nil {
			return st, err
		}
	}

	// From here on the database changes.
	stopped := func(phase string, err error) error {
		return &IncompleteError{Phase: phase, Stats: st, Nodes: len(g.Nodes), Rels: len(g.Rels), Wipe: opt.Wipe, Err: err}
	}
	if err := l.indexes(ctx, p); err != nil {
		return st, stopped("creating the indexes", err)
	}
	loaded, err := l.nodes(ctx, p, over)
	if err != nil {
		return st, stopped("writing nodes", err)
	}
	keptRels, err := l.rels(ctx, p, loaded.eids)
	if err != nil {
		return st, stopped("writing relationships", err)
	}
	if opt.Wipe {
		if err := l.prune(ctx, loaded, keptRels); err != nil {
			return st, stopped("removing what the graph does not hold", err)
		}
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

// write runs work in a write transaction, within the source's query
// deadline (neo4jdb.Source.Bounded), retrying it after transient failures
// (every caller's work is idempotent).
func (l *loader) write(ctx context.Context, work func(ctx context.Context, tx neo4j.ManagedTransaction, out *txResult) error) (*txResult, error) {
	var out *txResult
	err := retry.Do(ctx, loadRetries, nil, func() error {
		return l.src.Bounded(ctx, func(ctx context.Context) error {
			var err error
			out, err = neo4j.ExecuteWrite(ctx, l.sess, func(tx neo4j.ManagedTransaction) (*txResult, error) {
				out := &txResult{}
				return out, work(ctx, tx, out)
			})
			return err
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// writeQuery runs one query in a write transaction (write).
func (l *loader) writeQuery(ctx context.Context, query string, params map[string]any) (*txResult, error) {
	return l.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction, out *txResult) error {
		_, err := run(ctx, tx, out, query, params)
		return err
	})
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

// indexes creates the id index of every label (each in its own schema
// transaction) and waits for them to come online.
func (l *loader) indexes(ctx context.Context, p *Plan) error {
	for i, q := range p.indexes {
		name := p.indexNames[i]
		out, err := l.writeQuery(ctx, q, nil)
		if err != nil {
			return fmt.Errorf("creating index %s: %w", name, err)
		}
		l.st.IndexesCreated += out.sum(neo4j.Counters.IndexesAdded)
		l.st.Indexes = append(l.st.Indexes, name)
		l.progress("indexes", i+1, len(p.indexes))
	}
	if _, err := l.writeQuery(ctx, "CALL db.awaitIndexes(300)", nil); err != nil {
		return fmt.Errorf("waiting for the indexes: %w", err)
	}
	return nil
}

// loadedNodes is what the node phase wrote: the element id of each node by
// application id and, with Wipe, the labels of loaded nodes that the graph
// does not give them (by element id).
type loadedNodes struct {
	eids  map[string]string
	extra map[string][]string
}

// nodes writes every node: merged, or with Wipe written onto the node
// takeOver chose (over: id -> element id).
func (l *loader) nodes(ctx context.Context, p *Plan, over map[string]string) (loadedNodes, error) {
	loaded := loadedNodes{eids: make(map[string]string, len(p.g.Nodes)), extra: map[string][]string{}}
	done := 0
	for _, grp := range p.nodeGroups {
		var merged, taken []any
		for _, row := range grp.rows {
			if eid, ok := over[row["id"].(string)]; ok {
				taken = append(taken, map[string]any{"eid": eid, "id": row["id"], "props": row["props"]})
			} else {
				merged = append(merged, row)
			}
		}
		for _, part := range []struct {
			rows     []any
			takeOver bool
		}{{merged, false}, {taken, true}} {
			for lo := 0; lo < len(part.rows); lo += p.batch {
				rows := part.rows[lo:min(lo+p.batch, len(part.rows))]
				var out *txResult
				var err error
				switch {
				case part.takeOver:
					out, err = l.writeQuery(ctx, grp.takeOver, map[string]any{"rows": rows})
				case len(grp.labels) == 0:
					out, err = l.unlabelledBatch(ctx, rows)
				default:
					out, err = l.writeQuery(ctx, grp.merge, map[string]any{"rows": rows})
				}
				if err == nil {
					err = l.readLoaded(out.recs, grp.labels, loaded)
				}
				if err != nil {
					return loaded, fmt.Errorf("writing nodes: %w", err)
				}
				created := out.sum(neo4j.Counters.NodesCreated)
				l.st.NodesCreated += created
				l.st.NodesMatched += int64(len(rows)) - created
				l.st.Batches++
				done += len(rows)
				l.progress("nodes", done, len(p.g.Nodes))
			}
		}
	}
	return loaded, nil
}

// readLoaded records the element ids (and, with Wipe, the labels beyond
// the graph's) of the nodes a batch wrote.
func (l *loader) readLoaded(recs []*neo4j.Record, labels []string, loaded loadedNodes) error {
	for _, rec := range recs {
		id, err := neo4jdb.Column[string](rec, "id")
		if err != nil {
			return err
		}
		eid, err := neo4jdb.Column[string](rec, "eid")
		if err != nil {
			return err
		}
		loaded.eids[id] = eid
		if !l.opt.Wipe {
			continue
		}
		have, err := neo4jdb.Strings(rec, "labels")
		if err != nil {
			return err
		}
		var extra []string
		for _, lb := range have {
			if !slices.Contains(labels, lb) {
				extra = append(extra, lb)
			}
		}
		if extra != nil {
			slices.Sort(extra)
			loaded.extra[eid] = extra
		} else {
			delete(loaded.extra, eid)
		}
	}
	return nil
}

// unlabelledBatch merges nodes without labels: one scan finds those that
// exist (no index can serve an unlabelled node), the others are created.
// It returns the records of the nodes written: id, eid, labels.
func (l *loader) unlabelledBatch(ctx context.Context, rows []any) (*txResult, error) {
	ids := make([]any, len(rows))
	for i, r := range rows {
		ids[i] = r.(map[string]any)["id"]
	}
	return l.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction, out *txResult) error {
		found, err := tx.Run(ctx, "MATCH (n) WHERE size(labels(n)) = 0 AND n.id IN $ids RETURN n.id AS id, elementId(n) AS eid", map[string]any{"ids": ids})
		if err != nil {
			return err
		}
		recs, err := found.Collect(ctx)
		if err != nil {
			return err
		}
		existing := make(map[string]string, len(recs))
		for _, rec := range recs {
			id, err := neo4jdb.Column[string](rec, "id")
			if err != nil {
				return err
			}
			eid, err := neo4jdb.Column[string](rec, "eid")
			if err != nil {
				return err
			}
			existing[id] = eid
		}
		var upd, add []any
		for _, r := range rows {
			m := r.(map[string]any)
			if eid, ok := existing[m["id"].(string)]; ok {
				upd = append(upd, map[string]any{"eid": eid, "id": m["id"], "props": m["props"]})
			} else {
				add = append(add, r)
			}
		}
		if len(upd) > 0 {
			if _, err := run(ctx, tx, out, "UNWIND $rows AS row MATCH (n) WHERE elementId(n) = row.eid SET n = row.props RETURN row.id AS id, elementId(n) AS eid, labels(n) AS labels", map[string]any{"rows": upd}); err != nil {
				return err
			}
		}
		if len(add) > 0 {
			if _, err := run(ctx, tx, out, "UNWIND $rows AS row CREATE (n) SET n = row.props RETURN row.id AS id, elementId(n) AS eid, labels(n) AS labels", map[string]any{"rows": add}); err != nil {
				return err
			}
		}
		return nil
	})
}

// rels creates the relationships that are missing, counting identical
// ones; with Wipe it returns the element ids of the relationships the
// graph holds (at most k of each group of k identical ones).
func (l *loader) rels(ctx context.Context, p *Plan, eids map[string]string) (map[string]struct{}, error) {
	var kept map[string]struct{}
	if l.opt.Wipe {
		kept = make(map[string]struct{}, len(p.g.Rels))
	}
	done := 0
	for _, rt := range p.relTypes {
		for lo := 0; lo < len(rt.groups); lo += p.batch {
			batch := rt.groups[lo:min(lo+p.batch, len(rt.groups))]
			rows := make([]any, len(batch))
			var total int64
			for i, grp := range batch {
				rows[i] = map[string]any{"i": int64(i), "s": eids[grp.start], "e": eids[grp.end], "props": grp.props, "k": grp.k}
				total += grp.k
			}
			out, err := l.writeQuery(ctx, rt.query, map[string]any{"rows": rows})
			if err != nil {
				return nil, fmt.Errorf("writing %s relationships: %w", rt.typ, err)
			}
			if kept != nil {
				for _, rec := range out.recs {
					ids, err := neo4jdb.Strings(rec, "kept")
					if err != nil {
						return nil, fmt.Errorf("writing %s relationships: %w", rt.typ, err)
					}
					for _, id := range ids {
						kept[id] = struct{}{}
					}
				}
			}
			created := out.sum(neo4j.Counters.RelationshipsCreated)
			l.st.RelsCreated += created
			l.st.RelsMatched += total - created
			l.st.Batches++
			done += int(total)
			l.progress("relationships", done, len(p.g.Rels))
		}
	}
	return kept, nil
}

// prune removes, once the whole graph is loaded, what it does not hold:
// relationships not in keptRels, nodes not loaded, and the labels of loaded
// nodes beyond the graph's. What to remove is read in one read transaction
// per kind (element ids, streamed); it is removed deleteBatch at a time.
func (l *loader) prune(ctx context.Context, loaded loadedNodes, keptRels map[string]struct{}) error {
	keptNodes := make(map[string]struct{}, len(loaded.eids))
	for _, eid := range loaded.eids {
		keptNodes[eid] = struct{}{}
	}
	removed := func() int { return int(l.st.RelsDeleted + l.st.NodesDeleted + l.st.LabelsRemoved) }
	for _, kind := range []struct {
		list, remove string
		keep         map[string]struct{}
		count        func(neo4j.Counters) int
		into         *int64
	}{
		{"MATCH ()-[r]->() RETURN elementId(r) AS eid", "UNWIND $eids AS e MATCH ()-[r]->() WHERE elementId(r) = e DELETE r",
			keptRels, neo4j.Counters.RelationshipsDeleted, &l.st.RelsDeleted},
		{"MATCH (n) RETURN elementId(n) AS eid", "UNWIND $eids AS e MATCH (n) WHERE elementId(n) = e DETACH DELETE n",
			keptNodes, neo4j.Counters.NodesDeleted, &l.st.NodesDeleted},
	} {
		doomed, err := neo4jdb.Read(ctx, l.src, func(ctx context.Context, tx neo4j.ManagedTransaction) ([]any, error) {
			res, err := tx.Run(ctx, kind.list, nil)
			if err != nil {
				return nil, err
			}
			var doomed []any
			for res.Next(ctx) {
				eid, err := neo4jdb.Column[string](res.Record(), "eid")
				if err != nil {
					return nil, err
				}
				if _, ok := kind.keep[eid]; !ok {
					doomed = append(doomed, eid)
				}
			}
			return doomed, res.Err()
		})
		if err != nil {
			return err
		}
		for lo := 0; lo < len(doomed); lo += deleteBatch {
			out, err := l.writeQuery(ctx, kind.remove, map[string]any{"eids": doomed[lo:min(lo+deleteBatch, len(doomed))]})
			if err != nil {
				return err
			}
			*kind.into += out.sum(kind.count)
			l.progress("prune", removed(), 0)
		}
	}
	// Labels beyond the graph's, by the set of labels to remove.
	byLabels := map[string][]any{}
	for eid, extra := range loaded.extra {
		key := strings.Join(extra, "\x00")
		byLabels[key] = append(byLabels[key], eid)
	}
	keys := make([]string, 0, len(byLabels))
	for k := range byLabels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		var q strings.Builder
		q.WriteString("UNWIND $eids AS e MATCH (n) WHERE elementId(n) = e REMOVE n")
		for _, lb := range strings.Split(key, "\x00") {
			q.WriteString(":" + cypherlit.QuoteName(lb))
		}
		eids := byLabels[key]
		for lo := 0; lo < len(eids); lo += deleteBatch {
			out, err := l.writeQuery(ctx, q.String(), map[string]any{"eids": eids[lo:min(lo+deleteBatch, len(eids))]})
			if err != nil {
				return err
			}
			l.st.LabelsRemoved += out.sum(neo4j.Counters.LabelsRemoved)
			l.progress("prune", removed(), 0)
		}
	}
	return nil
}
