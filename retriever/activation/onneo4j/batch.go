package onneo4j

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/memoria-graph/memoria/graph/neo4jdb"
)

// batcher sends the fast path's seed lookups and level queries of
// concurrent explorations together (docs/ALGORITHM.md, "One query for all
// seeds"). On a warm server a level query's own work is a few hundred
// database hits; what costs is its transaction and round trips (about 2 ms
// each on this project's machine), so five seeds of four levels each cost
// twenty-five transactions where five would do.
//
// The requests that arrive while a query runs go out together in the next
// one (group commit). Before sending, it waits for the explorations it
// knows to be open (Neo4j.Open registers each) to have sent their next
// request, but never longer than Linger after it last heard from one: an
// exploration may be busy elsewhere (its own session's fallback query, a
// retry's pause, a slow reader of its events). So one exploration alone
// goes out at once, and the seeds of one run, which start together and
// finish their levels at about the same pace, share each level's query
// instead of drifting into alternate ones.
//
// Requests share a query when their query text and shared parameters are
// equal (the same thresholds and tags); each is one element of $requests,
// numbered by its `i`, and its rows come back under `request`.
//
// While it has work, the batcher keeps one read transaction open and sends
// its queries in it one after another, so a level costs one round trip, not
// three (BEGIN, the query, COMMIT); it ends the transaction when the queue
// is empty, and after any failed query.
type batcher struct {
	src   *neo4jdb.Source
	trace func() func(query string, params map[string]any) // the backend's current trace hook

	mu      sync.Mutex
	queue   []*batchCall
	running bool
	open    int           // explorations registered and not yet released
	wake    chan struct{} // a request arrived or an exploration ended
	idle    chan struct{} // closed when the running loop has ended its link
	linger  time.Duration // Linger, or longer in tests

	unshared atomic.Int64 // numbers the keys of calls that go alone (batchKey)
}

// Linger is how long the batcher waits for the next request of an open
// exploration before sending what it has: about what a level's records take
// to read, far less than a transaction saved.
const Linger = 2 * time.Millisecond

func newBatcher(src *neo4jdb.Source, trace func() func(string, map[string]any)) *batcher {
	return &batcher{src: src, trace: trace, wake: make(chan struct{}, 1), linger: Linger}
}

// register counts an exploration as open until the returned func is
// called. When the last open exploration is done, done waits for the loop
// to end its transaction and session, so that nothing of the run is left
// reading when its explorations have returned (a caller may close the
// driver next).
func (b *batcher) register() (done func()) {
	b.mu.Lock()
	b.open++
	b.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			b.open--
			var idle chan struct{}
			if b.open == 0 && b.running {
				idle = b.idle
			}
			b.mu.Unlock()
			b.poke()
			if idle != nil {
				<-idle
			}
		})
	}
}

// poke wakes a loop waiting for company.
func (b *batcher) poke() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// batchCall is one request waiting for its rows.
type batchCall struct {
	ctx    context.Context
	query  string         // the combined query: UNWIND $requests AS q ...
	shared map[string]any // its parameters other than $requests
	key    string         // query and shared, as one string
	item   map[string]any // this request's element of $requests, without "i"

	done chan struct{}
	recs []*neo4j.Record
	err  error
}

// do sends one request and returns its rows (the records whose `request`
// is its number), or the query's error. It returns ctx's error as soon as
// ctx ends; the query is cancelled when every request in it has gone.
func (b *batcher) do(ctx context.Context, query string, shared, item map[string]any) ([]*neo4j.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c := &batchCall{ctx: ctx, query: query, shared: shared, key: b.batchKey(query, shared), item: item, done: make(chan struct{})}
	b.mu.Lock()
	b.queue = append(b.queue, c)
	if !b.running {
		b.running = true
		b.idle = make(chan struct{})
		go b.loop(b.idle)
	}
	b.mu.Unlock()
	b.poke()
	select {
	case <-c.done:
		return c.recs, c.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// batchKey is what requests must share to go in one query: the query and
// its shared parameters, exactly (JSON: maps in key order, numbers as they
// round-trip, strings quoted, so tags "a b" and "a", "b" differ). Parameters
// JSON cannot hold make the key the call's own (a number no JSON object
// spells).
func (b *batcher) batchKey(query string, shared map[string]any) string {
	j, err := json.Marshal(shared)
	if err != nil {
		return fmt.Sprintf("%s\x00#%d", query, b.unshared.Add(1))
	}
	return query + "\x00" + string(j)
}

// link is the loop's session and read transaction, opened by the first
// query that needs them and ended by end.
type link struct {
	src  *neo4jdb.Source
	sess *neo4jdb.Session
	tx   *neo4jdb.Tx
}

// collect runs one query in the link's transaction, beginning one if
// needed. After a failure the link ends, so the next query starts afresh.
func (l *link) collect(ctx context.Context, query string, params map[string]any) ([]*neo4j.Record, error) {
	if l.tx == nil {
		l.sess = l.src.OpenSession(ctx)
		tx, err := l.sess.Begin(ctx)
		if err != nil {
			l.end(ctx)
			return nil, err
		}
		l.tx = tx
	}
	recs, err := l.tx.Collect(ctx, query, params)
	if err != nil {
		l.end(ctx)
	}
	return recs, err
}

// end closes the transaction and the session (errors of closing a read
// transaction lose nothing: its queries' results were complete).
func (l *link) end(ctx context.Context) {
	if l.tx != nil {
		_ = l.tx.Close(ctx)
	}
	if l.sess != nil {
		_ = l.sess.Close(ctx)
	}
	l.tx, l.sess = nil, nil
}

// loop sends what is queued, group by group, until the queue is empty.
func (b *batcher) loop(idle chan struct{}) {
	l := &link{src: b.src}
	for {
		b.mu.Lock()
		if len(b.queue) == 0 {
			b.mu.Unlock()
			l.end(context.Background()) // not under mu: it waits on the server
			b.mu.Lock()
			if len(b.queue) == 0 {
				b.running = false
				close(idle)
				b.mu.Unlock()
				return
			}
		}
		for len(b.queue) < b.open {
			b.mu.Unlock()
			t := time.NewTimer(b.linger)
			lingered := false
			select {
			case <-b.wake:
			case <-t.C:
				lingered = true
			}
			t.Stop()
			b.mu.Lock()
			if lingered {
				break
			}
		}
		calls := b.queue
		b.queue = nil
		b.mu.Unlock()
		for len(calls) > 0 {
			var group, rest []*batchCall
			for _, c := range calls {
				if c.key == calls[0].key {
					group = append(group, c)
				} else {
					rest = append(rest, c)
				}
			}
			b.send(l, group)
			calls = rest
		}
	}
}

// send runs one combined query for group and hands each call its rows. A
// query the server rejects for its data (a Neo.ClientError.Statement
// error) is sent again one request at a time, so that only the request
// whose rows caused it fails, as it would have alone.
func (b *batcher) send(l *link, group []*batchCall) {
	live := group[:0:0]
	for _, c := range group {
		if err := c.ctx.Err(); err != nil {
			c.err = err
			close(c.done)
			continue
		}
		live = append(live, c)
	}
	if len(live) == 0 {
		return
	}
	err := b.run(l, live)
	if err != nil && len(live) > 1 && isStatementError(err) {
		for _, c := range live {
			if err := b.run(l, []*batchCall{c}); err != nil {
				c.err = err
			}
			close(c.done)
		}
		return
	}
	for _, c := range live {
		if err != nil {
			c.err = err
		}
		close(c.done)
	}
}

// run sends calls as one query and files the rows under each call. Its
// context ends when the last call's context has ended.
func (b *batcher) run(l *link, calls []*batchCall) error {
	ctx, cancel := context.WithCancel(context.WithoutCancel(calls[0].ctx))
	defer cancel()
	left := atomic.Int64{}
	left.Store(int64(len(calls)))
	for _, c := range calls {
		stop := context.AfterFunc(c.ctx, func() {
			if left.Add(-1) == 0 {
				cancel()
			}
		})
		defer stop()
	}
	requests := make([]any, len(calls))
	for i, c := range calls {
		item := make(map[string]any, len(c.item)+1)
		for k, v := range c.item {
			item[k] = v
		}
		item["i"] = int64(i)
		requests[i] = item
	}
	params := make(map[string]any, len(calls[0].shared)+1)
	for k, v := range calls[0].shared {
		params[k] = v
	}
	params["requests"] = requests
	if trace := b.trace(); trace != nil {
		trace(calls[0].query, params)
	}
	recs, err := l.collect(ctx, calls[0].query, params)
	if err != nil {
		return err
	}
	for _, c := range calls {
		c.recs = []*neo4j.Record{}
	}
	for _, rec := range recs {
		i, err := neo4jdb.Column[int64](rec, "request")
		if err != nil {
			return err
		}
		if i < 0 || i >= int64(len(calls)) {
			return fmt.Errorf("Neo4j returned rows of request %d; %d were sent", i, len(calls))
		}
		calls[i].recs = append(calls[i].recs, rec)
	}
	return nil
}

// isStatementError reports whether Neo4j rejected a query for what it met
// while running it (a type or arithmetic error: Neo.ClientError.Statement).
func isStatementError(err error) bool {
	var ne *neo4j.Neo4jError
	return errors.As(err, &ne) && strings.HasPrefix(ne.Code, "Neo.ClientError.Statement.")
}
