package neo4jdb

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/memoria-graph/memoria/graph"
)

// MaxKeptStrengths bounds the strengths a Source keeps between
// retrievals (docs/NEO4J.md, "Strengths kept between runs"): at most this
// many nodes over all its tables, about 100 bytes each (an element id and
// a graph.Strength in a map), so about 50 MB. When a table would grow
// past it, the source's other tables (other filters, weights or types)
// are dropped first; when that table alone holds the bound, the
// strengths of further nodes are not kept: they are read from the server
// at every run, as without the cache, and the answers stay the same. The
// 1M-relationship benchmark graph has 100,000 nodes and a default
// personalized PageRank run weighs 34,130 of them.
const MaxKeptStrengths = 1 << 19

// strengthCache keeps the strengths (graph.Reader.Strengths) a source's
// readers have read, for every later read on the same database: the
// strength W of a node is what personalized PageRank's push needs of
// every node it weighs, and on Neo4j only reading the node's
// relationships gives it (docs/PERFORMANCE.md, "Personalized
// PageRank"). A table is keyed by everything W is computed from: the
// Strengths query (the relationship type and the schema's traversed
// types, id property, labels, weight property and validity, as Cypher
// text) and its parameters (the missing weight, the schema's values), and
// the reader's relationship filter; its entries by element id.
//
// The tables hold while the database has not changed: the first
// Strengths call of each Read asks the server for its last transaction
// (the bookmark of a read transaction, lastVersion), and a bookmark other
// than the one the tables were read under drops them all. A write by
// anyone, anywhere in the database, drops them; so does a server that
// gives no bookmark (nothing is kept then). It is safe for concurrent
// use: the explorer runs retrievers in goroutines over one Source.
type strengthCache struct {
	mu      sync.Mutex
	version string // the bookmark the tables were read under
	gen     uint64 // bumped whenever the tables are dropped
	tables  map[string]map[string]graph.Strength
	size    int // entries over all tables
	bound   int // MaxKeptStrengths, lower in tests (SetStrengthBound)

	// read counts the nodes whose strength was read from the server,
	// dropped counts the times the tables were dropped for a change of
	// the database (tests and benchmarks read both).
	read, dropped atomic.Int64
}

// StrengthsRead is the number of nodes whose strength the source's
// readers have read from the server (each node of each Strengths query),
// not counting those served from the strengths kept (MaxKeptStrengths).
func (s *Source) StrengthsRead() int64 { return s.strengths.read.Load() }

// StrengthsKept is the number of strengths the source keeps, over all its
// tables (at most MaxKeptStrengths).
func (s *Source) StrengthsKept() int {
	s.strengths.mu.Lock()
	defer s.strengths.mu.Unlock()
	return s.strengths.size
}

// strengthKey is the table a Strengths query serves: the query, its
// parameters but the nodes, the reader's filter predicate and its
// parameters, and the database.
func strengthKey(database, query string, params map[string]any, filter string, fparams map[string]any) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q\n%s\n", database, query)
	canon := func(m map[string]any) {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if k != "refs" {
				fmt.Fprintf(&b, "%q=%#v\n", k, m[k])
			}
		}
	}
	canon(params)
	fmt.Fprintf(&b, "filter %s\n", filter)
	canon(fparams)
	return b.String()
}

// current makes sure the tables were read under the database as it is
// now, dropping them when not, and returns the generation a reader's
// additions must carry, or keep false when nothing may be kept (the
// server gives no bookmark).
func (c *strengthCache) current(ctx context.Context, s *Source) (gen uint64, keep bool, err error) {
	v, err := s.lastVersion(ctx)
	if err != nil {
		return 0, false, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if v != c.version || v == "" {
		if c.size > 0 {
			c.dropped.Add(1)
		}
		c.tables, c.size, c.version = nil, 0, v
		c.gen++
	}
	return c.gen, v != "", nil
}

// lookup fills out[i] for the nodes of table key that are kept and
// returns the positions of the others.
func (c *strengthCache) lookup(key string, nodes []graph.NodeRef, out []graph.Strength) []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.tables[key]
	var miss []int
	for i, n := range nodes {
		if w, ok := t[n.Ref]; ok {
			out[i] = w
		} else {
			miss = append(miss, i)
		}
	}
	return miss
}

// put keeps the strengths got (by element id) in table key, unless the
// tables were dropped since the reader's generation gen: within the
// bound, dropping the other tables first.
func (c *strengthCache) put(key string, gen uint64, got map[string]graph.Strength) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	bound := c.bound
	if bound <= 0 {
		bound = MaxKeptStrengths
	}
	if c.tables == nil {
		c.tables = map[string]map[string]graph.Strength{}
	}
	t := c.tables[key]
	if t == nil {
		t = map[string]graph.Strength{}
		c.tables[key] = t
	}
	for ref, w := range got {
		if _, ok := t[ref]; ok {
			continue
		}
		if c.size >= bound {
			for k, other := range c.tables {
				if k != key {
					c.size -= len(other)
					delete(c.tables, k)
				}
			}
			if c.size >= bound {
				return
			}
		}
		t[ref] = w
		c.size++
	}
}

// lastVersion is the bookmark of a read transaction that returns 1: the
// database's last committed transaction as the server reports it to a
// reader (it changes with every write), "" when the server gives none.
func (s *Source) lastVersion(ctx context.Context) (string, error) {
	var out string
	err := s.Bounded(ctx, func(qctx context.Context) error {
		sess := s.readSession(qctx)
		cctx, cancel := s.cleanupContext(ctx)
		defer cancel()
		defer sess.Close(cctx)
		_, err := neo4j.ExecuteRead(qctx, sess, func(tx neo4j.ManagedTransaction) (struct{}, error) {
			res, err := tx.Run(qctx, "RETURN 1 AS ok", nil)
			if err != nil {
				return struct{}{}, err
			}
			_, err = res.Consume(qctx)
			return struct{}{}, err
		})
		if err != nil {
			return err
		}
		out = strings.Join(sess.LastBookmarks(), " ")
		return nil
	})
	return out, err
}
