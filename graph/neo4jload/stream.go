package neo4jload

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
)

// writers runs batches in up to LoadOptions.Writers write transactions at
// once, each goroutine with its own session (a session is not safe for
// concurrent use). The first failure cancels the others and is the one
// reported.
type writers struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	jobs   chan func(context.Context, neo4j.SessionWithContext) error
	busy   sync.WaitGroup // batches handed over and not finished
	all    sync.WaitGroup // the goroutines
	mu     sync.Mutex
	err    error
}

func (l *loader) startWriters(ctx context.Context) *writers {
	wctx, cancel := context.WithCancelCause(ctx)
	w := &writers{ctx: wctx, cancel: cancel, jobs: make(chan func(context.Context, neo4j.SessionWithContext) error)}
	for range l.opt.Writers {
		w.all.Add(1)
		go func() {
			defer w.all.Done()
			sess := l.session(wctx)
			defer sess.Close(context.WithoutCancel(wctx))
			for job := range w.jobs {
				if err := job(wctx, sess); err != nil {
					w.fail(err)
				}
				w.busy.Done()
			}
		}()
	}
	return w
}

func (w *writers) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = err
		w.cancel(err)
	}
}

func (w *writers) first() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// submit hands a batch to the next free writer, waiting for one; it fails
// with the first failure of any batch.
func (w *writers) submit(job func(context.Context, neo4j.SessionWithContext) error) error {
	w.busy.Add(1)
	select {
	case w.jobs <- job:
		return nil
	case <-w.ctx.Done():
		w.busy.Done()
		if err := w.first(); err != nil {
			return err
		}
		return context.Cause(w.ctx)
	}
}

// wait waits until every batch handed over is done.
func (w *writers) wait() error {
	w.busy.Wait()
	if err := w.first(); err != nil {
		return err
	}
	return w.ctx.Err()
}

func (w *writers) close() {
	close(w.jobs)
	w.all.Wait()
	w.cancel(nil)
}

// buffer gathers the rows of one statement (one label list, or one
// relationship type) until a batch is full.
type buffer struct {
	grp   *nodeGroup // nodes
	rt    *relType   // relationships
	rows  []any
	total int64 // relationships the rows stand for (the sum of their k)
}

// stream reads the planned elements again and writes them: every node,
// then every relationship (see Plan.Load). On failure it returns the phase
// it was in, in IncompleteError's words.
func (l *loader) stream(ctx context.Context) (phase string, err error) {
	p := l.plan
	l.eids = make([]string, p.Nodes)
	w := l.startWriters(ctx)
	defer w.close()
	st := &streaming{l: l, w: w, nodeBuf: map[*nodeGroup]*buffer{}, relBuf: map[*relType]*buffer{}, phase: "writing nodes"}
	if p.groups != nil {
		st.sent = make(map[relKey]bool, len(p.groups))
	}
	// A writer's failure stops the reading with that failure, which is
	// the one to report (not the reader's "line N:" around it).
	read := func() error {
		err := p.read(st.onNode, st.onRel)
		if werr := w.first(); werr != nil {
			return werr
		}
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return err
	}
	if err := read(); err != nil {
		return st.phase, err
	}
	if !st.nodesDone {
		if err := st.finishNodes(); err != nil {
			return st.phase, err
		}
		if !p.nodesFirst {
			if err := read(); err != nil {
				return st.phase, err
			}
		}
	}
	for _, b := range st.relBufs {
		if err := l.flushRels(w, b); err != nil {
			return st.phase, err
		}
	}
	if err := w.wait(); err != nil {
		return st.phase, err
	}
	if st.relsSeen != p.Rels {
		return st.phase, fmt.Errorf("%w: %d relationships, %d before", errChanged, st.relsSeen, p.Rels)
	}
	return "", nil
}

// streaming is one stream's state: the writers, the rows buffered per
// node group and per relationship type (in the order first met), the
// groups of identical relationships already sent (with the first of them,
// when some group has more than one), what was seen, and the phase.
type streaming struct {
	l                   *loader
	w                   *writers
	sent                map[relKey]bool
	nodeBufs, relBufs   []*buffer
	nodeBuf             map[*nodeGroup]*buffer
	relBuf              map[*relType]*buffer
	nodesDone           bool
	nodesSeen, relsSeen int
	phase               string
}

// finishNodes writes the nodes still buffered, waits for every node's
// write and checks that each got its element id.
func (st *streaming) finishNodes() error {
	l, p := st.l, st.l.plan
	for _, b := range st.nodeBufs {
		if err := l.flushNodes(st.w, b); err != nil {
			return err
		}
	}
	if err := st.w.wait(); err != nil {
		return err
	}
	if st.nodesSeen != p.Nodes {
		return fmt.Errorf("%w: %d nodes, %d before", errChanged, st.nodesSeen, p.Nodes)
	}
	for i, eid := range l.eids {
		if eid == "" {
			return fmt.Errorf("the server returned no element id for node %q", p.nodes[i].id)
		}
	}
	st.nodesDone = true
	st.phase = "writing relationships"
	return nil
}

// onNode buffers a node's row, and writes its group's batch when full.
func (st *streaming) onNode(n apoc.Node) error {
	if st.nodesDone {
		return nil
	}
	p := st.l.plan
	i, err := p.nodeOf(n.InternalID)
	if err != nil {
		return err
	}
	pn := p.nodes[i]
	if id, _ := n.Properties["id"].(string); id != pn.id || !slices.Equal(n.Labels, pn.grp.labels) {
		return fmt.Errorf("%w: node %s is not the node it was", errChanged, strconv.Quote(n.InternalID))
	}
	st.nodesSeen++
	b, ok := st.nodeBuf[pn.grp]
	if !ok {
		b = &buffer{grp: pn.grp}
		st.nodeBuf[pn.grp] = b
		st.nodeBufs = append(st.nodeBufs, b)
	}
	b.rows = append(b.rows, map[string]any{"i": int64(i), "id": pn.id, "props": n.Properties})
	if len(b.rows) < st.l.opt.BatchSize {
		return nil
	}
	return st.l.flushNodes(st.w, b)
}

// onRel buffers a relationship's row (once for a group of identical ones,
// k counting them), and writes its type's batch when full; the nodes are
// finished first.
func (st *streaming) onRel(r apoc.Relationship) error {
	p := st.l.plan
	if !st.nodesDone {
		if !p.nodesFirst {
			return nil // a later pass writes the relationships
		}
		if err := st.finishNodes(); err != nil {
			return err
		}
	}
	st.relsSeen++
	k := int64(1)
	if st.sent != nil {
		key := p.key(&r)
		if k = p.groups[key]; k == 0 {
			return fmt.Errorf("%w: relationship %s is new", errChanged, strconv.Quote(r.InternalID))
		}
		if st.sent[key] {
			return nil // its group was sent with the first of them
		}
		st.sent[key] = true
	}
	s, err := p.nodeOf(r.Start)
	if err != nil {
		return err
	}
	e, err := p.nodeOf(r.End)
	if err != nil {
		return err
	}
	rt := p.byType[r.Type]
	if rt == nil {
		return fmt.Errorf("%w: relationship type %q is new", errChanged, r.Type)
	}
	b, ok := st.relBuf[rt]
	if !ok {
		b = &buffer{rt: rt}
		st.relBuf[rt] = b
		st.relBufs = append(st.relBufs, b)
	}
	// i keeps rows apart in the aggregation of relsQuery.
	b.rows = append(b.rows, map[string]any{"i": int64(len(b.rows)), "s": st.l.eids[s], "e": st.l.eids[e], "props": r.Properties, "k": k})
	b.total += k
	if len(b.rows) < st.l.opt.BatchSize {
		return nil
	}
	return st.l.flushRels(st.w, b)
}

// flushNodes hands b's rows to a writer as one batch (two, when some of
// them are taken over, see loader.takeOver).
func (l *loader) flushNodes(w *writers, b *buffer) error {
	if len(b.rows) == 0 {
		return nil
	}
	rows, grp := b.rows, b.grp
	b.rows = make([]any, 0, min(len(rows), l.opt.BatchSize))
	var taken []any
	if len(l.over) > 0 {
		merged := rows[:0:0]
		for _, r := range rows {
			m := r.(map[string]any)
			if eid, ok := l.over[m["id"].(string)]; ok {
				taken = append(taken, map[string]any{"i": m["i"], "eid": eid, "id": m["id"], "props": m["props"]})
			} else {
				merged = append(merged, r)
			}
		}
		rows = merged
	}
	for _, part := range []struct {
		rows     []any
		takeOver bool
	}{{rows, false}, {taken, true}} {
		if len(part.rows) == 0 {
			continue
		}
		err := w.submit(func(ctx context.Context, sess neo4j.SessionWithContext) error {
			var out *txResult
			var err error
			switch {
			case part.takeOver:
				out, err = l.writeQuery(ctx, sess, grp.takeOver, map[string]any{"rows": part.rows})
			case len(grp.labels) == 0:
				out, err = l.unlabelledBatch(ctx, sess, part.rows)
			default:
				out, err = l.write(ctx, sess, func(ctx context.Context, tx neo4j.ManagedTransaction, retried bool, out *txResult) error {
					// Into a database that had no nodes, a merge could
					// only match a node of this load with another id:
					// never. A retried batch, which may have been
					// committed before its connection failed, merges.
					q := grp.merge
					if l.noNodes && !retried {
						q = grp.create
					}
					_, err := run(ctx, tx, out, q, map[string]any{"rows": part.rows})
					return err
				})
			}
			if err != nil {
				return err
			}
			l.mu.Lock()
			defer l.mu.Unlock()
			if err := l.readLoaded(out.recs, grp.labels); err != nil {
				return err
			}
			created := out.sum(neo4j.Counters.NodesCreated)
			l.st.NodesCreated += created
			l.st.NodesMatched += int64(len(part.rows)) - created
			l.st.Batches++
			l.nodesDone += len(part.rows)
			l.progress("nodes", l.nodesDone, l.plan.Nodes)
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// readLoaded records the element ids (and, with Wipe, the labels beyond
// the graph's) of the nodes a batch wrote. The caller holds l.mu.
func (l *loader) readLoaded(recs []*neo4j.Record, labels []string) error {
	for _, rec := range recs {
		i, err := neo4jdb.Column[int64](rec, "i")
		if err != nil {
			return err
		}
		eid, err := neo4jdb.Column[string](rec, "eid")
		if err != nil {
			return err
		}
		if i < 0 || int(i) >= len(l.eids) {
			return fmt.Errorf("the server returned node #%d of %d", i, len(l.eids))
		}
		l.eids[i] = eid
		if l.extra == nil || l.noNodes {
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
			l.extra[eid] = extra
		} else {
			delete(l.extra, eid)
		}
	}
	return nil
}

// unlabelledBatch merges nodes without labels: one scan finds those that
// exist (no index can serve an unlabelled node), the others are created.
// Into a database that had no nodes the first attempt only creates (see
// flushNodes). It returns the records of the nodes written: i, eid,
// labels.
func (l *loader) unlabelledBatch(ctx context.Context, sess neo4j.SessionWithContext, rows []any) (*txResult, error) {
	ids := make([]any, len(rows))
	for i, r := range rows {
		ids[i] = r.(map[string]any)["id"]
	}
	return l.write(ctx, sess, func(ctx context.Context, tx neo4j.ManagedTransaction, retried bool, out *txResult) error {
		existing := map[string]string{}
		if !l.noNodes || retried {
			found, err := tx.Run(ctx, "MATCH (n) WHERE size(labels(n)) = 0 AND n.id IN $ids RETURN n.id AS id, elementId(n) AS eid", map[string]any{"ids": ids})
			if err != nil {
				return err
			}
			recs, err := found.Collect(ctx)
			if err != nil {
				return err
			}
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
		}
		var upd, add []any
		for _, r := range rows {
			m := r.(map[string]any)
			if eid, ok := existing[m["id"].(string)]; ok {
				upd = append(upd, map[string]any{"i": m["i"], "eid": eid, "props": m["props"]})
			} else {
				add = append(add, r)
			}
		}
		if len(upd) > 0 {
			if _, err := run(ctx, tx, out, "UNWIND $rows AS row MATCH (n) WHERE elementId(n) = row.eid SET n = row.props RETURN row.i AS i, elementId(n) AS eid, labels(n) AS labels", map[string]any{"rows": upd}); err != nil {
				return err
			}
		}
		if len(add) > 0 {
			if _, err := run(ctx, tx, out, "UNWIND $rows AS row CREATE (n) SET n = row.props RETURN row.i AS i, elementId(n) AS eid, labels(n) AS labels", map[string]any{"rows": add}); err != nil {
				return err
			}
		}
		return nil
	})
}

// flushRels hands b's rows to a writer as one batch.
func (l *loader) flushRels(w *writers, b *buffer) error {
	if len(b.rows) == 0 {
		return nil
	}
	rows, total, rt := b.rows, b.total, b.rt
	b.rows, b.total = make([]any, 0, min(len(rows), l.opt.BatchSize)), 0
	return w.submit(func(ctx context.Context, sess neo4j.SessionWithContext) error {
		out, err := l.write(ctx, sess, func(ctx context.Context, tx neo4j.ManagedTransaction, retried bool, out *txResult) error {
			// Only the first attempt may skip the look for identical
			// relationships: a retried batch may have been committed
			// before its connection failed.
			q := rt.query
			if l.noRels && !retried {
				q = rt.create
			}
			_, err := run(ctx, tx, out, q, map[string]any{"rows": rows})
			return err
		})
		if err != nil {
			return fmt.Errorf("writing %s relationships: %w", strconv.Quote(rt.typ), err)
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.keptRels != nil {
			for _, rec := range out.recs {
				ids, err := neo4jdb.Strings(rec, "kept")
				if err != nil {
					return fmt.Errorf("writing %s relationships: %w", strconv.Quote(rt.typ), err)
				}
				for _, id := range ids {
					l.keptRels[id] = struct{}{}
				}
			}
		}
		created := out.sum(neo4j.Counters.RelationshipsCreated)
		l.st.RelsCreated += created
		l.st.RelsMatched += total - created
		l.st.Batches++
		l.relsDone += int(total)
		l.progress("relationships", l.relsDone, l.plan.Rels)
		return nil
	})
}
