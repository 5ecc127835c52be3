// Package neo4jload is memoria's one writer: it loads an APOC graph into a
// Neo4j database (`memoria load`). Nothing under retriever/ may import it
// (docs/ARCHITECTURE.md).
package neo4jload

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/internal/cypherlit"
	"github.com/memoria-graph/memoria/internal/retry"
)

// DefaultBatchSize is how many rows one UNWIND (and one write transaction)
// of Load carries when LoadOptions.BatchSize is 0; it is also the default
// of memoria load's --batch. On the 1M-relationship benchmark
// (BenchmarkLoadFile) 5,000 took 65 s where 2,000 took 84 s.
const DefaultBatchSize = 5000

// DefaultWriters is LoadOptions.Writers when 0: how many write
// transactions of nodes or relationships run at once. The server does the
// work; on the 2-core benchmark machine 1, 2 and 3 writers loaded the
// 1M-relationship file in 51, 55 (on a cold server) and 47 s.
const DefaultWriters = 3

// deleteBatch is how many nodes, relationships or labels one transaction of
// the prune (LoadOptions.Wipe) removes.
const deleteBatch = 10000

// loadRetries is how often Load retries a batch after a transient failure,
// a deadlock between its concurrent writers included (every batch is
// idempotent; see Plan.Load).
const loadRetries = 5

// LoadOptions tune Load.
type LoadOptions struct {
	// BatchSize is the number of rows per UNWIND and write transaction
	// (the Plan's, DefaultBatchSize unless Prepare was given another, when
	// 0).
	BatchSize int
	// Writers is how many write transactions of nodes or relationships
	// may run at once, each in its own session (DefaultWriters when 0).
	Writers int
	// Wipe makes the database hold exactly the graph: once the whole graph
	// is loaded, Load removes every node, relationship and label that the
	// graph does not hold. Nothing is removed before that.
	Wipe bool
	// Progress, if set, is called after each batch, never by two
	// goroutines at once.
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
	// IndexesCreated counts the indexes (each label's id index, RELATES' weight
	// index) that did not exist yet.
	IndexesCreated int64
	// Indexes names every index Load made sure of.
	Indexes []string
	// NodesCreated are new nodes; NodesMatched already existed (same first
	// label and id, or with Wipe a node with the id that Load took over)
	// and had their properties replaced.
	NodesCreated, NodesMatched int64
	// RelsCreated are new relationships; RelsMatched already existed
	// (identical endpoints, type and properties) and were left alone.
	RelsCreated, RelsMatched int64
	// Batches counts the write transactions of nodes and relationships;
	// Retries counts the attempts beyond the first of any write
	// transaction (after a transient failure, such as a deadlock between
	// concurrent writers).
	Batches, Retries int
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

// Load writes g into the database: Prepare, then the Plan's Load, which
// says what it does. It is the one writer of the product (`memoria load`
// streams its file through PrepareFile instead).
func Load(ctx context.Context, src *neo4jdb.Source, g *apoc.Graph, opt LoadOptions) (LoadStats, error) {
	p, err := Prepare(g, opt.BatchSize)
	if err != nil {
		return LoadStats{}, fmt.Errorf("the graph cannot be loaded: %w", err)
	}
	return p.Load(ctx, src, opt)
}

// Load writes the planned graph into the database in batches of write
// transactions. The whole graph was checked when it was planned (the
// checker of every graph file, docs/EXPORTS.md "The APOC file", which
// covers what Neo4j refuses). Before it writes anything Load reads which
// ids of the graph the database already holds under labels the merge would
// not match: without opt.Wipe it refuses the graph with a
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
// ones already in the database are created. Loading a graph twice gives
// the same graph, and parallel identical relationships survive. Into a
// database that had no nodes (or no relationships) when the load began,
// the first attempt of a batch creates instead of merging (there is
// nothing to match: the graph's ids are unique and its identical
// relationships are counted in one row); a retried batch, which may have
// been committed before its connection failed, merges and looks as above.
//
// Before writing nodes it creates the id index of docs/ALGORITHM.md
// "Indexes" for the six labels and for every other label met (`CREATE
// INDEX idx_<label>_id IF NOT EXISTS FOR (n:Label) ON (n.id)`), and, when
// the graph has RELATES relationships, the index on their weight
// (apoc.WeightIndexStatement, which why's pruning reads). Then it
// reads the graph again (the file, for PrepareFile) and sends it in
// batches of opt.BatchSize rows, up to opt.Writers write transactions at
// a time, each in its own session: every node first, then, once every
// node batch has committed, the relationships. When the input lists every
// node before every relationship (as APOC writes a file) one pass does
// both; otherwise one pass for the nodes and one for the relationships.
//
// Concurrent writers: node batches never touch the same node (the ids are
// unique) and no relationship batch starts before the last node batch has
// committed. Two relationship batches may lock the same nodes (a hub) in
// opposite orders; Neo4j then aborts one with a transient DeadlockDetected
// error, and Load retries it (loadRetries times, with internal/retry's
// backoff; LoadStats.Retries counts them): a retried batch merges and looks
// for identical relationships, so it never writes twice.
//
// With opt.Wipe, once the whole graph is loaded, Load removes what the
// graph does not hold (the prune): relationships other than the ones
// loaded (at most k of each group), nodes other than the ones loaded, and
// labels of loaded nodes that the graph does not give them. Nothing is
// removed before the whole graph is in the database, so a load that stops
// leaves everything the database held. When the database had no
// relationships (no nodes) when the load began, there are none of them to
// remove, and Load keeps no list of the ones it wrote.
//
// Load never leaves the database worse than it found it: when it stops
// after writing began (the server fails, the context ends) it returns an
// *IncompleteError saying what was written and removed so far, and loading
// the same graph again completes the load. A Plan's Load must not run
// twice at once.
func (p *Plan) Load(ctx context.Context, src *neo4jdb.Source, opt LoadOptions) (LoadStats, error) {
	var st LoadStats
	if opt.BatchSize <= 0 {
		opt.BatchSize = p.batch
	}
	if opt.Writers <= 0 {
		opt.Writers = DefaultWriters
	}
	l := &loader{opt: opt, st: &st, src: src, plan: p}
	sess := l.session(ctx)
	defer sess.Close(context.WithoutCancel(ctx))

	nodes, rels, err := src.Counts(ctx)
	if err != nil {
		return st, fmt.Errorf("checking the node ids against the database: %w", err)
	}
	l.noNodes, l.noRels = nodes == 0, rels == 0
	var conflicts []LabelConflict
	if !l.noNodes {
		if conflicts, err = l.checkLabels(ctx); err != nil {
			return st, err
		}
	}
	switch {
	case len(conflicts) > 0 && !opt.Wipe:
		return st, conflictError(conflicts)
	case len(conflicts) > 0:
		if l.over, err = l.takeOver(ctx, conflicts); err != nil {
			return st, err
		}
	}

	// From here on the database changes.
	stopped := func(phase string, err error) error {
		return &IncompleteError{Phase: phase, Stats: st, Nodes: p.Nodes, Rels: p.Rels, Wipe: opt.Wipe, Err: err}
	}
	if err := l.indexes(ctx, sess); err != nil {
		return st, stopped("creating the indexes", err)
	}
	if opt.Wipe {
		l.extra = map[string][]string{}
		if !l.noRels {
			l.keptRels = make(map[string]struct{}, p.Rels)
		}
	}
	if phase, err := l.stream(ctx); err != nil {
		return st, stopped(phase, err)
	}
	if opt.Wipe && !l.noNodes {
		if err := l.prune(ctx, sess); err != nil {
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
// apoc.MaxErrors problems, joined. PrepareFile checks files with the same
// checker, so a file Load would refuse is refused, with line numbers,
// before it connects.
func ValidateForLoad(g *apoc.Graph) error {
	_, err := apoc.Check(g, apoc.FileRules)
	return err
}

type loader struct {
	opt  LoadOptions
	st   *LoadStats
	src  *neo4jdb.Source // for reads
	plan *Plan

	// mu guards st, what the writers record below, and the calls of
	// opt.Progress, which the writers make.
	mu        sync.Mutex
	nodesDone int
	relsDone  int
	// eids is the element id of each node, by position in plan.nodes.
	eids []string
	// over maps the ids that a load with Wipe takes over to the element
	// ids of the nodes it writes them onto (takeOver).
	over map[string]string
	// With Wipe: extra holds the labels of loaded nodes that the graph
	// does not give them, by element id; keptRels the element ids of the
	// relationships the graph holds (nil when the database had none).
	extra    map[string][]string
	keptRels map[string]struct{}
	// noNodes and noRels tell that the database had no nodes, or no
	// relationships, when the load began (see Plan.Load).
	noNodes, noRels bool
}

func (l *loader) session(ctx context.Context) neo4j.SessionWithContext {
	return l.src.Driver().NewSession(ctx, neo4j.SessionConfig{AccessMode: neo4j.AccessModeWrite, DatabaseName: l.src.Database()})
}

// progress reports to opt.Progress; callers from the writers hold l.mu.
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

// write runs work in a write transaction of sess, within the source's
// query deadline (neo4jdb.Source.Bounded), retrying it after transient
// failures (every caller's work is idempotent). work learns whether this is
// a retry: an attempt that failed may have been committed all the same.
func (l *loader) write(ctx context.Context, sess neo4j.SessionWithContext, work func(ctx context.Context, tx neo4j.ManagedTransaction, retried bool, out *txResult) error) (*txResult, error) {
	var out *txResult
	attempts := 0
	err := retry.Do(ctx, loadRetries, nil, func() error {
		return l.src.Bounded(ctx, func(ctx context.Context) error {
			var err error
			out, err = neo4j.ExecuteWrite(ctx, sess, func(tx neo4j.ManagedTransaction) (*txResult, error) {
				attempts++
				if attempts > 1 {
					l.mu.Lock()
					l.st.Retries++
					l.mu.Unlock()
				}
				out := &txResult{}
				return out, work(ctx, tx, attempts > 1, out)
			})
			if err == nil && committedHook != nil {
				err = committedHook(out)
			}
			return err
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// committedHook, when a test sets it, is called after each write
// transaction that committed, and its error is taken for the transaction's
// (to test a batch committed whose answer was lost, then sent again).
var committedHook func(out *txResult) error

// writeQuery runs one query in a write transaction (write).
func (l *loader) writeQuery(ctx context.Context, sess neo4j.SessionWithContext, query string, params map[string]any) (*txResult, error) {
	return l.write(ctx, sess, func(ctx context.Context, tx neo4j.ManagedTransaction, _ bool, out *txResult) error {
		_, err := run(ctx, tx, out, query, params)
		return err
	})
}

// ranHook, when a test sets it, is called after each query that run ran,
// and its error fails the transaction (to test retries).
var ranHook func(query string) error

// run runs one query in tx, collecting its records and counters into out.
func run(ctx context.Context, tx neo4j.ManagedTransaction, out *txResult, query string, params map[string]any) ([]*neo4j.Record, error) {
	res, err := tx.Run(ctx, query, params)
	if err != nil {
		return nil, err
	}
	if ranHook != nil {
		if err := ranHook(query); err != nil {
			return nil, err
		}
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

// indexes creates the plan's indexes (each label's id index, RELATES'
// weight index, the gather's fulltext index), each in its own schema
// transaction, and waits for them to come online.
func (l *loader) indexes(ctx context.Context, sess neo4j.SessionWithContext) error {
	p := l.plan
	for i, q := range p.indexes {
		name := p.indexNames[i]
		out, err := l.writeQuery(ctx, sess, q, nil)
		if err != nil {
			return fmt.Errorf("creating index %s: %w", name, err)
		}
		l.st.IndexesCreated += out.sum(neo4j.Counters.IndexesAdded)
		l.st.Indexes = append(l.st.Indexes, name)
		l.progress("indexes", i+1, len(p.indexes))
	}
	if p.fulltext != "" {
		out, err := l.writeQuery(ctx, sess, p.fulltext, nil)
		if err != nil {
			return fmt.Errorf("creating index %s: %w", neo4jdb.GatherIndexName, err)
		}
		l.st.IndexesCreated += out.sum(neo4j.Counters.IndexesAdded)
		l.st.Indexes = append(l.st.Indexes, neo4jdb.GatherIndexName)
	}
	if _, err := l.writeQuery(ctx, sess, "CALL db.awaitIndexes(300)", nil); err != nil {
		return fmt.Errorf("waiting for the indexes: %w", err)
	}
	return nil
}

// prune removes, once the whole graph is loaded, what it does not hold:
// relationships not in l.keptRels (when the database had some before the
// load), nodes not loaded, and the labels of loaded nodes beyond the
// graph's. What to remove is read in one read transaction per kind
// (element ids, streamed); it is removed deleteBatch at a time.
func (l *loader) prune(ctx context.Context, sess neo4j.SessionWithContext) error {
	keptNodes := make(map[string]struct{}, len(l.eids))
	for _, eid := range l.eids {
		keptNodes[eid] = struct{}{}
	}
	type kind struct {
		list, remove string
		keep         map[string]struct{}
		count        func(neo4j.Counters) int
		into         *int64
	}
	var kinds []kind
	if l.keptRels != nil {
		kinds = append(kinds, kind{"MATCH ()-[r]->() RETURN elementId(r) AS eid", "UNWIND $eids AS e MATCH ()-[r]->() WHERE elementId(r) = e DELETE r",
			l.keptRels, neo4j.Counters.RelationshipsDeleted, &l.st.RelsDeleted})
	}
	kinds = append(kinds, kind{"MATCH (n) RETURN elementId(n) AS eid", "UNWIND $eids AS e MATCH (n) WHERE elementId(n) = e DETACH DELETE n",
		keptNodes, neo4j.Counters.NodesDeleted, &l.st.NodesDeleted})
	removed := func() int { return int(l.st.RelsDeleted + l.st.NodesDeleted + l.st.LabelsRemoved) }
	for _, kind := range kinds {
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
			out, err := l.writeQuery(ctx, sess, kind.remove, map[string]any{"eids": doomed[lo:min(lo+deleteBatch, len(doomed))]})
			if err != nil {
				return err
			}
			*kind.into += out.sum(kind.count)
			l.progress("prune", removed(), 0)
		}
	}
	// Labels beyond the graph's, by the set of labels to remove.
	byLabels := map[string][]any{}
	for eid, extra := range l.extra {
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
			out, err := l.writeQuery(ctx, sess, q.String(), map[string]any{"eids": eids[lo:min(lo+deleteBatch, len(eids))]})
			if err != nil {
				return err
			}
			l.st.LabelsRemoved += out.sum(neo4j.Counters.LabelsRemoved)
			l.progress("prune", removed(), 0)
		}
	}
	return nil
}
