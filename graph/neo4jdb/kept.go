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
// retrievals (docs/NEO4J.md, "What a source keeps between runs"): at most
// this many nodes over all its tables, about 100 bytes each (an element id
// and a graph.Strength in a map, measured with Neo4j 5's element ids of 45
// bytes), so about 50 MB. When a table would grow
// past it, the source's other strength tables (other filters, weights or
// types) are dropped first; when that table alone holds the bound, the
// strengths of further nodes are not kept: they are read from the server
// at every run, as without the cache, and the answers stay the same. The
// 1M-relationship benchmark graph has 100,000 nodes and a default
// personalized PageRank run weighs 34,130 of them.
const MaxKeptStrengths = 1 << 19

// MaxKeptArcs bounds the relationships (graph.Reader.Arcs' answers) a
// Source keeps between retrievals, counted as MaxKeptStrengths counts
// nodes, with the same rule beyond it: at most this many arcs over all its
// tables (a node without any counts one), about 115 bytes each (the other
// end's id and element id, the weight; measured with Neo4j 5's element
// ids of 45 bytes), so about 60 MB. A default
// personalized PageRank run on the 1M-relationship benchmark graph reads
// 72,208 arcs of 3,070 nodes.
const MaxKeptArcs = 1 << 19

// keptReads keeps what a source's readers read of two kinds, for every
// later read on the same database: the strengths (graph.Reader.Strengths)
// and the arcs (graph.Reader.Arcs). Personalized PageRank's push needs the
// strength W of every node it weighs and the arcs of every node it pushes,
// and on Neo4j only reading the nodes' relationships gives them
// (docs/PERFORMANCE.md, "Personalized PageRank"). A table is keyed by
// everything its values are computed from: the query (the relationship
// type, the relationship filter, the schema's traversed types, id
// property, labels, weight property and validity, as Cypher text) and its
// parameters (the missing weight, the filter's and the schema's values)
// but the nodes, and, for strengths, the reader's relationship filter
// (which the Strengths query does not apply); its entries by element id.
//
// The tables hold while the database has not changed: the first
// Strengths or Arcs call of each Read asks the server for its last
// transaction (the bookmark of a read transaction, lastVersion), and a
// bookmark other than the one the tables were read under drops them all.
// A write by anyone, anywhere in the database, drops them; so does a
// server that gives no bookmark (nothing is kept then). It is safe for
// concurrent use: the explorer runs retrievers in goroutines over one
// Source.
type keptReads struct {
	mu        sync.Mutex
	version   string // the bookmark the tables were read under
	gen       uint64 // bumped whenever the tables are dropped
	strengths tables[graph.Strength]
	arcs      tables[[]keptArc]

	// strengthsRead and arcsRead count the nodes whose strengths or arcs
	// were read from the server (tests and benchmarks read them).
	strengthsRead, arcsRead atomic.Int64
}

// keptArc is one arc kept: the other end's id and element id, the weight.
type keptArc struct {
	id, ref string
	weight  float64
}

// tables are the tables of one kind, under keptReads.mu.
type tables[V any] struct {
	byKey map[string]map[string]V
	size  int         // the cost of every entry, over all tables
	bound int         // the most size may be; 0 for the kind's Max
	cost  func(V) int // an entry's share of the bound
	max   int         // the kind's Max
}

// StrengthsRead is the number of nodes whose strength the source's
// readers have read from the server (each node a Strengths query
// returned), not counting those served from the strengths kept
// (MaxKeptStrengths).
func (s *Source) StrengthsRead() int64 { return s.kept.strengthsRead.Load() }

// ArcsRead is the number of nodes whose arcs the source's readers have
// read from the server (each node an Arcs query returned), not counting
// those served from the arcs kept (MaxKeptArcs).
func (s *Source) ArcsRead() int64 { return s.kept.arcsRead.Load() }

// StrengthsKept is the number of strengths the source keeps, over all its
// tables (at most MaxKeptStrengths); ArcsKept the number of arcs (a node
// without any counting one; at most MaxKeptArcs).
func (s *Source) StrengthsKept() int {
	s.kept.mu.Lock()
	defer s.kept.mu.Unlock()
	return s.kept.strengths.size
}

// ArcsKept: see StrengthsKept.
func (s *Source) ArcsKept() int {
	s.kept.mu.Lock()
	defer s.kept.mu.Unlock()
	return s.kept.arcs.size
}

// keptKey is the table a query serves: the database, the query, its
// parameters but the nodes, and any more text that changes the values
// (for strengths, the reader's filter predicate and its parameters).
func keptKey(database, query string, params map[string]any, more string, mparams map[string]any) string {
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
	fmt.Fprintf(&b, "and %s\n", more)
	canon(mparams)
	return b.String()
}

// current makes sure the tables were read under the database as it is
// now, dropping them when not, and returns the generation a reader's
// additions must carry, or keep false when nothing may be kept (the
// server gives no bookmark).
func (c *keptReads) current(ctx context.Context, s *Source) (gen uint64, keep bool, err error) {
	v, err := s.lastVersion(ctx)
	if err != nil {
		return 0, false, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if v != c.version || v == "" {
		c.strengths.drop()
		c.arcs.drop()
		c.version = v
		c.gen++
	}
	return c.gen, v != "", nil
}

// drop empties the tables.
func (t *tables[V]) drop() { t.byKey, t.size = nil, 0 }

// lookup returns the entries of table key kept for refs and the refs
// not kept, in order; under c.mu.
func lookup[V any](c *keptReads, t *tables[V], key string, refs []string) (map[string]V, []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	tab := t.byKey[key]
	if len(tab) == 0 {
		return nil, refs
	}
	found := map[string]V{}
	var miss []string
	for _, ref := range refs {
		if v, ok := tab[ref]; ok {
			found[ref] = v
		} else {
			miss = append(miss, ref)
		}
	}
	return found, miss
}

// lookupInto sets out[i] for each node of nodes whose entry table key
// keeps and returns the positions of the others; under c.mu.
func lookupInto[V any](c *keptReads, t *tables[V], key string, nodes []graph.NodeRef, out []V) []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	tab := t.byKey[key]
	var miss []int
	for i, n := range nodes {
		if v, ok := tab[n.Ref]; ok {
			out[i] = v
		} else {
			miss = append(miss, i)
		}
	}
	return miss
}

// put keeps the entries got in table key, unless the tables were dropped
// since the reader's generation gen: within the bound, dropping the
// kind's other tables first, then keeping no more.
func put[V any](c *keptReads, t *tables[V], key string, gen uint64, got map[string]V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	bound := t.bound
	if bound <= 0 {
		bound = t.max
	}
	if t.byKey == nil {
		t.byKey = map[string]map[string]V{}
	}
	tab := t.byKey[key]
	if tab == nil {
		tab = map[string]V{}
		t.byKey[key] = tab
	}
	for ref, v := range got {
		if _, ok := tab[ref]; ok {
			continue
		}
		cost := t.cost(v)
		if t.size+cost > bound {
			for k, other := range t.byKey {
				if k != key {
					for _, o := range other {
						t.size -= t.cost(o)
					}
					delete(t.byKey, k)
				}
			}
			if t.size+cost > bound {
				return
			}
		}
		tab[ref] = v
		t.size += cost
	}
}

// newKeptReads returns the empty cache of a source.
func newKeptReads() *keptReads {
	c := &keptReads{}
	c.strengths = tables[graph.Strength]{cost: func(graph.Strength) int { return 1 }, max: MaxKeptStrengths}
	c.arcs = tables[[]keptArc]{cost: func(a []keptArc) int { return max(1, len(a)) }, max: MaxKeptArcs}
	return c
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
