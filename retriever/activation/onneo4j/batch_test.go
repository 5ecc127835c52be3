package onneo4j

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/testkit/neo4jfix"
)

// TestSeedsShareEachLevel: five seeds explored together on the demo graph
// (MAX_DEPTH 5, MIN_ACTIVATION 0.001, tags campaign and stockout) send one
// seed lookup carrying all five, and one level query per depth carrying
// every seed still exploring at that depth: as many level queries as the
// deepest seed has levels, where one query per seed and level would be the
// sum. (The linger is raised to 10 s so that the grouping does not depend
// on the machine's speed; every exploration sends or ends long before.)
// Each seed's result is the one it gets explored alone.
func TestSeedsShareEachLevel(t *testing.T) {
	src := fx.Demo(t)
	b := New(src)
	b.batch.linger = 10 * time.Second
	var mu sync.Mutex
	var seedLookups, levelQueries []int // requests per query
	b.trace = func(q string, p map[string]any) {
		mu.Lock()
		defer mu.Unlock()
		n := len(p["requests"].([]any))
		if q == BatchExpandQuery {
			levelQueries = append(levelQueries, n)
		} else {
			seedLookups = append(seedLookups, n)
		}
	}
	cfg := activation.DefaultParams()
	cfg.MinActivation = 0.001
	seeds := []retriever.Seed{{NodeID: "N2006", Score: 1}, {NodeID: "N2003", Score: 0.5}, {NodeID: "T3000", Score: 0.7}, {NodeID: "P5001", Score: 0.6}, {NodeID: "N2010", Score: 0.9}}
	tags := []string{"campaign", "stockout"}
	t0 := time.Now()
	together, levels := neo4jfix.ExploreWithLevels(t, b, cfg, seeds, tags)
	if took := time.Since(t0); took > b.batch.linger {
		t.Errorf("the exploration took %v: the batcher waited out its linger for an exploration that had ended", took)
	}

	deepest, sum := 0, 0
	for i, lv := range levels {
		if together[i].Error != "" || together[i].SeedNode == nil {
			t.Fatalf("seed %s: %s %s", seeds[i].NodeID, together[i].TerminatedReason, together[i].Error)
		}
		deepest, sum = max(deepest, len(lv)), sum+len(lv)
	}
	if !slices.Equal(seedLookups, []int{5}) {
		t.Errorf("seed lookups carried %v requests; want one lookup of 5", seedLookups)
	}
	if len(levelQueries) != deepest || deepest == sum {
		t.Errorf("%d level queries (requests %v) for levels %d deep, %d in all; want one per depth", len(levelQueries), levelQueries, deepest, sum)
	}
	for i, lv := range levelQueries { // seeds drop out as they finish, never join
		if i > 0 && lv > levelQueries[i-1] {
			t.Errorf("level query %d carried %d requests, more than the one before (%v)", i, lv, levelQueries)
		}
	}
	for i, s := range seeds {
		alone, _ := neo4jfix.ExploreWithLevels(t, New(src), cfg, []retriever.Seed{s}, tags)
		if msg := compareResults(together[i], alone[0], nil, nil); msg != "" {
			t.Errorf("seed %s explored with others differs from alone: %s", s.NodeID, msg)
		}
	}
}

// sendTogether sends one request per item through b as two registered
// explorations would, and returns each call's rows' column col and error.
func sendTogether(t *testing.T, b *batcher, ctxs []context.Context, query string, items []map[string]any, col string) ([][]any, []error) {
	t.Helper()
	vals, errs := make([][]any, len(items)), make([]error, len(items))
	// Every exploration registers before any sends, so the batcher waits
	// for all of them whatever order the goroutines run in.
	dones := make([]func(), len(items))
	for i := range items {
		dones[i] = b.register()
	}
	var wg sync.WaitGroup
	for i, item := range items {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer dones[i]()
			recs, err := b.do(ctxs[i], query, map[string]any{}, item)
			errs[i] = err
			for _, r := range recs {
				v, _ := r.Get(col)
				vals[i] = append(vals[i], v)
			}
		}()
	}
	wg.Wait()
	return vals, errs
}

// TestBatchSplitsOnStatementError: two requests of one query, 10 / 0 and
// 10 / 5. Together Neo4j rejects the query (an ArithmeticError, a
// Neo.ClientError.Statement error), so the batcher sends each alone: the
// first fails with that error, the second gets its one row, 10 / 5 = 2.
// Three queries were sent: 2 requests, then 1 and 1.
func TestBatchSplitsOnStatementError(t *testing.T) {
	src := fx.Demo(t)
	var sent []int
	b := newBatcher(src, func() func(string, map[string]any) {
		return func(_ string, p map[string]any) { sent = append(sent, len(p["requests"].([]any))) }
	})
	b.linger = 10 * time.Second
	ctx := context.Background()
	vals, errs := sendTogether(t, b, []context.Context{ctx, ctx}, `UNWIND $requests AS q RETURN q.i AS request, 10 / q.d AS x`,
		[]map[string]any{{"d": int64(0)}, {"d": int64(5)}}, "x")
	if !isStatementError(errs[0]) {
		t.Errorf("10 / 0: want a Neo.ClientError.Statement error, got %v", errs[0])
	}
	if errs[1] != nil || !slices.Equal(vals[1], []any{int64(2)}) {
		t.Errorf("10 / 5: got %v, %v; want [2]", vals[1], errs[1])
	}
	if !slices.Equal(sent, []int{2, 1, 1}) {
		t.Errorf("queries carried %v requests; want [2 1 1]", sent)
	}
}

// TestBatchCallerLeaves: two requests share a query that counts 3·10^6
// rows (most of a second). The first caller's context is cancelled after
// 50 ms: it returns context.Canceled at once, and the second still gets its
// count, 3,000,000. Then both leave a slow query (10^11 rows) after
// 200 ms: both return at once, and the query is cancelled on the server,
// so the batcher's loop ends well before the query could have.
func TestBatchCallerLeaves(t *testing.T) {
	src := fx.Demo(t)
	b := newBatcher(src, func() func(string, map[string]any) { return nil })
	b.linger = 10 * time.Second
	count := func(n int64) string {
		return `UNWIND $requests AS q CALL (q) { UNWIND range(1, ` + itoa(n) + `) AS x RETURN count(x) AS c } RETURN q.i AS request, c`
	}
	early, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	t0 := time.Now()
	vals, errs := sendTogether(t, b, []context.Context{early, context.Background()}, count(3_000_000), []map[string]any{{}, {}}, "c")
	if !errors.Is(errs[0], context.Canceled) {
		t.Errorf("the caller that left: %v", errs[0])
	}
	if errs[1] != nil || !slices.Equal(vals[1], []any{int64(3_000_000)}) {
		t.Errorf("the caller that stayed: %v, %v; want [30000000]", vals[1], errs[1])
	}
	t.Logf("shared query took %v", time.Since(t0))

	both, cancelBoth := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancelBoth)
	t0 = time.Now()
	_, errs = sendTogether(t, b, []context.Context{both, both}, count(100_000_000_000), []map[string]any{{}, {}}, "c")
	if took := time.Since(t0); !errors.Is(errs[0], context.Canceled) || !errors.Is(errs[1], context.Canceled) || took > 5*time.Second {
		t.Errorf("both left after 200 ms: errors %v, %v, returned after %v", errs[0], errs[1], took)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		b.mu.Lock()
		running := b.running
		b.mu.Unlock()
		if !running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the batcher still runs a query no caller waits for, 15 s after they left")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestRunsWithOtherSettingsKeepApart: two runs on one backend at once, the
// same five demo seeds with MIN_ACTIVATION 0.001 and with 0.01 (and other
// tags), send their queries through one batcher; requests go together only
// when thresholds and tags are equal, so every query the batcher sent
// carries one min_threshold, and each run's results are those of the same
// run alone on a fresh backend.
func TestRunsWithOtherSettingsKeepApart(t *testing.T) {
	src := fx.Demo(t)
	b := New(src)
	var mu sync.Mutex
	thresholds := map[float64]int{}
	b.trace = func(q string, p map[string]any) {
		if q == BatchExpandQuery {
			mu.Lock()
			thresholds[p["min_threshold"].(float64)]++
			mu.Unlock()
		}
	}
	seeds := []retriever.Seed{{NodeID: "N2006", Score: 1}, {NodeID: "N2003", Score: 0.5}, {NodeID: "T3000", Score: 0.7}, {NodeID: "P5001", Score: 0.6}, {NodeID: "N2010", Score: 0.9}}
	loose, strict := activation.DefaultParams(), activation.DefaultParams()
	loose.MinActivation, strict.MinActivation = 0.001, 0.01
	runs := []struct {
		cfg  activation.Params
		tags []string
	}{{loose, []string{"campaign", "stockout"}}, {strict, []string{"stockout"}}}
	got := make([][]activation.Result, len(runs))
	var wg sync.WaitGroup
	for i, r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], _ = neo4jfix.ExploreWithLevels(t, b, r.cfg, seeds, r.tags)
		}()
	}
	wg.Wait()
	if len(thresholds) != 2 || thresholds[0.001] == 0 || thresholds[0.01] == 0 {
		t.Errorf("level queries by min_threshold: %v; want both runs' own", thresholds)
	}
	for i, r := range runs {
		alone, _ := neo4jfix.ExploreWithLevels(t, New(src), r.cfg, seeds, r.tags)
		for j := range seeds {
			if msg := compareResults(got[i][j], alone[j], nil, nil); msg != "" {
				t.Errorf("run %d, seed %s: beside the other run it differs from alone: %s", i, seeds[j].NodeID, msg)
			}
		}
	}
}

// TestBatchKey: requests share a query only when their shared parameters
// are equal. Tags "a b" (one tag with a space) and "a", "b" (two tags), and
// thresholds 0.005 and 0.0050000000000000001 (the same float64) against
// 0.0050000000000001 (another): the first pair differs, the second is one
// key, the third differs; a parameter JSON cannot hold (a channel) gives a
// key of its own each time.
func TestBatchKey(t *testing.T) {
	q := BatchExpandQuery
	batchKey := newBatcher(nil, nil).batchKey
	if batchKey(q, map[string]any{"query_tags": []string{"a b"}}) == batchKey(q, map[string]any{"query_tags": []string{"a", "b"}}) {
		t.Error(`tags ["a b"] and ["a" "b"] share a key`)
	}
	if batchKey(q, map[string]any{"min_threshold": 0.005}) != batchKey(q, map[string]any{"min_threshold": 0.0050000000000000001}) {
		t.Error("equal thresholds give different keys")
	}
	if batchKey(q, map[string]any{"min_threshold": 0.005}) == batchKey(q, map[string]any{"min_threshold": 0.0050000000000001}) {
		t.Error("different thresholds share a key")
	}
	odd := map[string]any{"x": make(chan int)}
	if first, second := batchKey(q, odd), batchKey(q, odd); first == second {
		t.Error("parameters JSON cannot hold share a key")
	}
}

// batchRun explores the five demo seeds of TestSeedsShareEachLevel with
// MIN_ACTIVATION 0.001 through b, waiting up to 10 s for company (so that
// the grouping does not depend on the machine's speed), and checks each
// result against the seed explored alone on a fresh backend. It returns how
// many queries b sent.
func batchRun(t *testing.T, src *neo4jdb.Source, b *Neo4j) int {
	t.Helper()
	b.batch.linger = 10 * time.Second
	var mu sync.Mutex
	sent := 0
	b.trace = func(string, map[string]any) { mu.Lock(); sent++; mu.Unlock() }
	cfg := activation.DefaultParams()
	cfg.MinActivation = 0.001
	seeds := []retriever.Seed{{NodeID: "N2006", Score: 1}, {NodeID: "N2003", Score: 0.5}, {NodeID: "T3000", Score: 0.7}, {NodeID: "P5001", Score: 0.6}, {NodeID: "N2010", Score: 0.9}}
	tags := []string{"campaign", "stockout"}
	together, _ := neo4jfix.ExploreWithLevels(t, b, cfg, seeds, tags)
	for i, s := range seeds {
		alone, _ := neo4jfix.ExploreWithLevels(t, New(src), cfg, []retriever.Seed{s}, tags)
		if msg := compareResults(together[i], alone[0], nil, nil); msg != "" {
			t.Errorf("seed %s: %s", s.NodeID, msg)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	return sent
}

// TestBatcherKeepsOneTransaction: the five seeds' whole run (a seed
// lookup and one query per level: 5 queries, the deepest seed having 4
// levels) goes in one read transaction: one Begin. With the transaction's age limit at 0, every
// query begins its own: as many Begins as queries.
func TestBatcherKeepsOneTransaction(t *testing.T) {
	src := fx.Demo(t)
	b := New(src)
	b.batch.maxAge = time.Minute
	if sent := batchRun(t, src, b); sent < 5 || b.batch.begun.Load() != 1 {
		t.Errorf("%d queries in %d transactions; want them all in one", sent, b.batch.begun.Load())
	}
	b = New(src)
	b.batch.maxAge = 0
	if sent := batchRun(t, src, b); int64(sent) != b.batch.begun.Load() {
		t.Errorf("age limit 0: %d queries in %d transactions; want one each", sent, b.batch.begun.Load())
	}
}

// TestBatchTimeoutSplits: every query of more than one request "runs out
// of its deadline" (the test's fail hook returns a neo4jdb.TimeoutError
// before sending it), so each is sent again one request at a time; every
// seed still gets exactly its result alone, and every combined query (the
// first carries all five seed lookups) is followed by one query per request
// it carried. (A query of one request is a seed exploring alone: it goes
// once.)
func TestBatchTimeoutSplits(t *testing.T) {
	src := fx.Demo(t)
	b := New(src)
	var mu sync.Mutex
	var sizes []int
	b.batch.fail = func(n int) error {
		mu.Lock()
		sizes = append(sizes, n)
		mu.Unlock()
		if n > 1 {
			return &neo4jdb.TimeoutError{URI: "bolt://test", After: time.Second}
		}
		return nil
	}
	batchRun(t, src, b)
	mu.Lock()
	defer mu.Unlock()
	combined := 0
	for i := 0; i < len(sizes); {
		n := sizes[i]
		if n == 1 {
			i++
			continue
		}
		combined++
		for j := 1; j <= n; j++ {
			if i+j >= len(sizes) || sizes[i+j] != 1 {
				t.Fatalf("the combined query %d of %d requests was not followed by %d single ones: %v", i, n, n, sizes)
			}
		}
		i += n + 1
	}
	if len(sizes) == 0 || sizes[0] != 5 || combined < 2 {
		t.Errorf("queries %v; want the first to carry all five seed lookups, and a level query too", sizes)
	}
}
