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
// three (BEGIN, the query, COMMIT). It ends the transaction when no open
// exploration sends another request, after any failed query, and before a
// query once it is older than linkMaxAge.
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
	maxAge  time.Duration // linkMaxAge, or another in tests

	unshared atomic.Int64 // numbers the keys of calls that go alone (batchKey)
	begun    atomic.Int64 // read transactions begun, for tests

	// fail, when set (by tests), may fail a query of n requests before it
	// is sent.
	fail func(n int) error
}

// Linger is how long the batcher waits for the next request of an open
// exploration before sending what it has: about what a level's records take
// to read, far less than a transaction saved.
const Linger = 2 * time.Millisecond

func newBatcher(src *neo4jdb.Source, trace func() func(string, map[string]any)) *batcher {
	return &batcher{src: src, trace: trace, wake: make(chan struct{}, 1), linger: Linger, maxAge: linkMaxAge}
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
	src   *neo4jdb.Source
	sess  *neo4jdb.Session
	tx    *neo4jdb.Tx
	since time.Time     // when tx began
	begun *atomic.Int64 // counts the transactions begun (the batcher's)
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
		l.tx, l.since = tx, time.Now()
		l.begun.Add(1)
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

// linkMaxAge is how long the loop keeps one read transaction: it begins
// another before the next query once this one is older (a server may bound
// a transaction's life with db.transaction.timeout).
const linkMaxAge = time.Second

// loop sends what is queued until no exploration has anything left to
// send. Between levels it waits for the open explorations (waitForCompany),
// so the transaction lasts the whole run.
func (b *batcher) loop(idle chan struct{}) {
	l := &link{src: b.src, begun: &b.begun}
	b.mu.Lock()
	for {
		b.waitForCompany()
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
			continue
		}
		calls := b.queue
		b.queue = nil
		b.mu.Unlock()
		if l.tx != nil && time.Since(l.since) > b.maxAge {
			l.end(context.Background())
		}
		groups := byKey(calls)
		// Requests with other settings (another run beside this one) go at
		// the same time, each group on a link of its own.
		var wg sync.WaitGroup
		for _, g := range groups[1:] {
			wg.Add(1)
			go func() {
				defer wg.Done()
				own := &link{src: b.src, begun: &b.begun}
				b.send(own, g)
				own.end(context.Background())
			}()
		}
		b.send(l, groups[0])
		wg.Wait()
		b.mu.Lock()
	}
}

// waitForCompany waits, with b.mu held (released while waiting), until
// every open exploration has a request queued, or nothing new has come
// for linger.
func (b *batcher) waitForCompany() {
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
			return
		}
	}
}

// byKey splits calls into groups of equal keys, in order of arrival.
func byKey(calls []*batchCall) [][]*batchCall {
	var groups [][]*batchCall
	at := map[string]int{}
	for _, c := range calls {
		i, ok := at[c.key]
		if !ok {
			i = len(groups)
			at[c.key] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], c)
	}
	return groups
}

// send runs one combined query for group and hands each call its rows.
//
//   - A query the server rejects for its data (a Neo.ClientError.Statement
//     error) is sent again one request at a time, so that only the request
//     whose rows caused it fails, as it would have alone.
//   - A query that ran out of its deadline is sent again one request at a
//     time, all at once, each on its own link and with its own deadline, as
//     before batching: a combined query costs about the sum of its
//     requests, and each may fit its deadline alone. (A server that stopped
//     answering costs a second deadline this way.)
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
	if err != nil && len(live) > 1 && neo4jdb.IsTimeout(err) {
		var wg sync.WaitGroup
		for _, c := range live {
			wg.Add(1)
			go func() {
				defer wg.Done()
				own := &link{src: b.src, begun: &b.begun}
				if err := b.run(own, []*batchCall{c}); err != nil {
					c.err = err
				}
				own.end(context.Background())
				close(c.done)
			}()
		}
		wg.Wait()
		return
	}
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
	if b.fail != nil {
		if err := b.fail(len(calls)); err != nil {
			l.end(ctx)
			return err
		}
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
