package onneo4j

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/testkit/neo4jtest"
	"github.com/memoria-graph/memoria/testkit/randgraph"
	"github.com/memoria-graph/memoria/testkit/scale1m"
)

// BenchmarkNeo4jScale is docs/ALGORITHM.md's fast path against the
// specification's Cypher on graphs of real size, in one run, on a server
// with `make neo4j`'s settings (1 GB page cache, 2 GB heap, full JIT):
//
//   - uniform: testkit/randgraph.Scale, 100k nodes, 1M RELATES (hub power
//     2.5: the largest hub about 1% of the relationships);
//   - hubs: 100k nodes, 200k RELATES, hub power 2 (hubs of several hundred,
//     like a real memory graph's).
//
// It explores the same 5 seeds (default thresholds, 2 query tags) with
// both, checks they give the same paths, and warms both up for 10 s each
// (the fast path's queries are short, and the server's JIT needs a few
// hundred runs of them before their code is compiled; the seed's scans run
// the same code 10^5 times a run, so a few of its runs suffice).
// Then it measures, in one
// run, 15 fast explorations, 3 of the seed's Cypher and 15 fast again, and
// reports the fast path's p50 and spread over its 30 runs, the seed's
// Cypher's over its 3, their ratio, and apart the first fast run after the
// seed's (the scans leave the server's heap and caches disturbed), then the
// fast path's p50 again after 200,000 unconnected nodes were added (and 3
// s of explorations after that write; then they are removed), and the p50 of a threshold step (MIN_ACTIVATION 0.002 → 0.005)
// replayed from a Snapshot. ns/op is one fast exploration.
func BenchmarkNeo4jScale(b *testing.B) {
	for _, g := range []struct {
		name string
		n, m int
		hub  float64
	}{{"uniform", 100_000, 1_000_000, 2.5}, {"hubs", 100_000, 200_000, 2}} {
		b.Run(g.name, func(b *testing.B) { benchScale(b, g.name, g.n, g.m, g.hub) })
	}
}

// scaleSource starts the benchmark server for graph name (loading it when
// its data directory does not hold it yet) and returns it, a source on it,
// and the five seeds and two tags of the benchmarks.
func scaleSource(b *testing.B, name string, n, m int, hub float64) (*neo4jtest.Server, *neo4jdb.Source, []retriever.Seed, []string) {
	srv, src := scale1m.Server(b, name, int64(n), int64(m), func() []byte { return randgraph.Scale(n, m, hub, 1) })

	r := rand.New(rand.NewPCG(7, 7))
	seeds := make([]retriever.Seed, 5)
	for i := range seeds {
		seeds[i] = retriever.Seed{NodeID: fmt.Sprintf("N%06d", r.IntN(n)), Score: 0.95 - 0.05*float64(i)}
	}
	return srv, src, seeds, []string{randgraph.ScaleTag(0), randgraph.ScaleTag(3)}
}

func benchScale(b *testing.B, name string, n, m int, hub float64) {
	srv, src, seeds, tags := scaleSource(b, name, n, m, hub)
	ctx := context.Background()
	fast := mustRetriever(b, New(src), activation.DefaultParams())
	spec := mustRetriever(b, NewSeedCypher(src), activation.DefaultParams())
	run := func(rt *activation.Retriever) ([]activation.Result, time.Duration) {
		t0 := time.Now()
		res, err := rt.ExploreAll(ctx, seeds, tags)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range res {
			if r.TerminatedReason == activation.TerminatedError || r.TerminatedReason == activation.TerminatedSeedNotFound {
				b.Fatalf("seed %s: %s %s", r.Seed.NodeID, r.TerminatedReason, r.Error)
			}
		}
		return res, time.Since(t0)
	}
	stats := func(ds []time.Duration) (median, lo, hi time.Duration) {
		ds = slices.Clone(ds)
		slices.Sort(ds)
		return ds[len(ds)/2], ds[0], ds[len(ds)-1]
	}
	p50 := func(rt *activation.Retriever, k int) (median, lo, hi time.Duration) {
		ds := make([]time.Duration, k)
		for i := range ds {
			_, ds[i] = run(rt)
		}
		return stats(ds)
	}
	fr, _ := run(fast) // warm both up, and check they agree
	sr, _ := run(spec)
	for i := range fr {
		if msg := compareResults(fr[i], sr[i], nil, nil); msg != "" {
			b.Fatalf("seed %s: the fast path and the seed's Cypher differ: %s", seeds[i].NodeID, msg)
		}
	}
	// More warm-up: plans cached, pages in the cache, the JIT done.
	warmSpec := 0
	for t0 := time.Now(); time.Since(t0) < 10*time.Second; warmSpec++ {
		run(spec)
	}
	warm := 0
	for t0 := time.Now(); time.Since(t0) < 10*time.Second; warm++ {
		run(fast)
	}
	hops := 0
	for _, r := range fr {
		for _, p := range r.Paths {
			hops += p.Len()
		}
	}
	// The seed's Cypher between two blocks of fast runs, so that a drift of
	// the machine (other load) shows in the fast path's spread.
	var fastDs, specDs []time.Duration
	for range 15 {
		_, d := run(fast)
		fastDs = append(fastDs, d)
	}
	for range 3 {
		_, d := run(spec)
		specDs = append(specDs, d)
	}
	_, afterScan := run(fast)
	fastDs = append(fastDs, afterScan)
	for range 14 {
		_, d := run(fast)
		fastDs = append(fastDs, d)
	}
	fastP50, fastLo, fastHi := stats(fastDs)
	specP50, specLo, specHi := stats(specDs)

	// A threshold step replayed from a snapshot: fill it at MIN_ACTIVATION
	// 0.002, then step to the default 0.005 (what the explorer's key does).
	snap := NewSnapshot(src)
	loose := activation.DefaultParams()
	loose.MinActivation = 0.002
	run(mustRetriever(b, snap, loose))
	filled := snap.Stats().Fetched
	replayP50, replayLo, replayHi := p50(mustRetriever(b, snap, activation.DefaultParams()), 15)
	if snap.Stats().Fetched != filled {
		b.Fatalf("the replay read %d nodes from the server", snap.Stats().Fetched-filled)
	}

	addUnconnected(b, srv, 200_000)
	// The write leaves the server busy (its heap, a checkpoint): explore
	// for 3 s before measuring, as the warm-up did.
	for t0 := time.Now(); time.Since(t0) < 3*time.Second; {
		run(fast)
	}
	grownP50, _, _ := p50(fast, 15)
	removeUnconnected(b, srv)

	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.Logf("%s: after %d and %d warm-up runs, fast p50 %.1f ms [%.1f–%.1f] (%.1f ms right after the seed's), seed's Cypher p50 %.0f ms [%.0f–%.0f], %.0f× faster; +200k nodes: fast p50 %.1f ms (%.2f×); replay from a snapshot of %d nodes p50 %.2f ms [%.2f–%.2f]; %d hops",
		name, warm, warmSpec, ms(fastP50), ms(fastLo), ms(fastHi), ms(afterScan), ms(specP50), ms(specLo), ms(specHi), ms(specP50)/ms(fastP50), ms(grownP50), ms(grownP50)/ms(fastP50),
		filled, ms(replayP50), ms(replayLo), ms(replayHi), hops)
	b.ResetTimer()
	for b.Loop() {
		run(fast)
	}
	b.ReportMetric(ms(fastP50), "fast-p50-ms")
	b.ReportMetric(ms(specP50), "seed-cypher-p50-ms")
	b.ReportMetric(ms(specP50)/ms(fastP50), "speedup-x")
	b.ReportMetric(ms(grownP50)/ms(fastP50), "growth-x")
	b.ReportMetric(ms(replayP50), "replay-p50-ms")
}

// addUnconnected adds k nodes (:Event {id: "U<i>"}) with no relationship,
// in batches of 10,000; removeUnconnected deletes them again.
func addUnconnected(b *testing.B, srv *neo4jtest.Server, k int) {
	d := srv.Driver(b)
	for i := 0; i < k; i += 10_000 {
		if _, err := neo4j.ExecuteQuery(context.Background(), d, `UNWIND range($from, $to) AS i CREATE (:Event {id: 'U' + toString(i)})`,
			map[string]any{"from": i, "to": min(i+10_000, k) - 1}, neo4j.EagerResultTransformer); err != nil {
			b.Fatal(err)
		}
	}
}

func removeUnconnected(b *testing.B, srv *neo4jtest.Server) {
	d := srv.Driver(b)
	for {
		res, err := neo4j.ExecuteQuery(context.Background(), d, `MATCH (n:Event) WHERE n.id STARTS WITH 'U' WITH n LIMIT 10000 DELETE n RETURN count(*) AS c`,
			nil, neo4j.EagerResultTransformer)
		if err != nil {
			b.Fatal(err)
		}
		if c, _ := res.Records[0].Get("c"); c.(int64) == 0 {
			return
		}
	}
}
