// Package onneo4j is the Activation Energy retriever's expansion over Neo4j:
// the seed lookup and the batched frontier expansion of docs/ALGORITHM.md
// ("The Cypher"), run through graph/neo4jdb's read sessions.
package onneo4j

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// Neo4j is the Activation Energy expansion over a Neo4j database, one round
// trip per level, each in a read transaction. It is safe for concurrent
// use; each Open gets its own session (which the fast path uses only for
// its fallbacks: its seed lookups and levels go through the batcher).
//
// New gives the fast path: the seed is found through the id indexes
// (batchSeedQuery; a scan only for a node no index covers) and every level
// addresses its frontier by element id (FastExpandQuery), the seed lookups
// and level queries of concurrent explorations sent together
// (BatchExpandQuery; see batcher). NewSeedCypher
// runs the specification's queries as docs/ALGORITHM.md gives them
// (SeedQuery, ExpandQuery), which find every node by scanning. Both return
// the same results.
type Neo4j struct {
	src  *neo4jdb.Source
	fast bool

	mu       sync.Mutex
	coverage *neo4jdb.IDCoverage // read once, by the first exploration

	batch *batcher // the fast path's seed lookups and level queries, sent together

	// trace, when set (by tests), sees every query an expander runs.
	trace func(query string, params map[string]any)

	// filter, when not nil, is the relationship filter every expansion
	// query applies (SetFilter).
	filter *graph.RelFilter
}

// SetFilter makes every expansion leave out the relationships f does not
// keep (graph.RelFilter), in the query (neo4jdb.RelFilterWhere: its text
// as parameters); the degree stays the graph's. Call it before the first
// Open; an inactive f filters nothing.
func (n *Neo4j) SetFilter(f graph.RelFilter) {
	n.filter = nil
	if f.Active() {
		n.filter = &f
	}
}

// filterQuery is an expansion query with the filter's predicate where
// ("" for none) on its RELATES relationship r: an AND on the WHERE of the
// level queries' MATCH, or a WHERE on the adjacency read's OPTIONAL
// MATCH.
func filterQuery(query, where string) string {
	if where == "" {
		return query
	}
	const optional = "OPTIONAL MATCH (current)-[r:RELATES]-(neighbor)\n"
	if strings.Contains(query, optional) {
		return mustReplace(query, optional, optional+"WHERE "+where+"\n")
	}
	const match = "MATCH (current)-[r:RELATES]-(neighbor)\nWHERE "
	return mustReplace(query, match, match+"("+where+") AND ")
}

// where is the backend's filter predicate on r, its parameters added to
// params ("" without a filter).
func (n *Neo4j) where(params map[string]any) string {
	if n.filter == nil {
		return ""
	}
	return n.src.RelFilterWhereSchema(*n.filter, "r", params)
}

// New returns the fast expansion over src.
func New(src *neo4jdb.Source) *Neo4j {
	n := &Neo4j{src: src, fast: true}
	n.batch = newBatcher(src, func() func(string, map[string]any) { return n.trace })
	return n
}

// NewSeedCypher returns the expansion that runs the specification's queries.
func NewSeedCypher(src *neo4jdb.Source) *Neo4j { return &Neo4j{src: src} }

var (
	_ activation.Backend      = (*Neo4j)(nil)
	_ activation.NearExpander = (*neo4jExpander)(nil)
)

// Coverage returns which labels have an id index (read from the server once
// and kept; the fast path looks seeds up through them).
func (n *Neo4j) Coverage(ctx context.Context) (neo4jdb.IDCoverage, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.coverage != nil {
		return *n.coverage, nil
	}
	c, err := n.src.IDCoverage(ctx)
	if err != nil {
		return c, err
	}
	n.coverage = &c
	return c, nil
}

// resetCoverage forgets the coverage, to be read again by the next run.
func (n *Neo4j) resetCoverage() {
	n.mu.Lock()
	n.coverage = nil
	n.mu.Unlock()
}

// Open returns an activation.Expander holding one read session, for one seed
// exploration; release closes the session.
// On the fast path the exploration is registered with the batcher until it
// is released, so that the batcher waits for its next level.
func (n *Neo4j) Open(ctx context.Context) (activation.Expander, func(context.Context) error, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	s := n.src.OpenSession(ctx)
	if !n.fast {
		return &neo4jExpander{sess: s, expandQuery: ExpandQuery, extras: true, trace: n.trace, backend: n}, s.Close, nil
	}
	done := n.batch.register()
	release := func(ctx context.Context) error {
		done()
		return s.Close(ctx)
	}
	return &neo4jExpander{sess: s, extras: true, backend: n, elements: map[string][]string{}, trace: n.trace}, release, nil
}

// neo4jExpander serves one exploration over one session. Tests build one
// with the specification's verbatim expansion (expandQuery, extras false:
// it returns no degree and tag_sim) to show where memoria departs from it.
// On the fast path (elements not nil) it remembers the element id of every
// node it has returned, to address it when it is on a frontier.
type neo4jExpander struct {
	sess        *neo4jdb.Session
	expandQuery string
	extras      bool

	trace    func(query string, params map[string]any)
	backend  *Neo4j              // its Coverage says which labels have an id index
	indexed  []string            // those labels, read by the first FetchSeed
	elements map[string][]string // node id → element ids; nil for the seed's Cypher
}

func (c *neo4jExpander) fast() bool { return c.elements != nil }

// FetchSeed finds the seed: by SeedQuery, or on the fast path through the
// id indexes and, when they do not hold it, by a scan.
func (c *neo4jExpander) FetchSeed(ctx context.Context, nodeID string) (graph.Node, bool, error) {
	if !c.fast() {
		recs, err := c.collect(ctx, SeedQuery, map[string]any{"node_id": nodeID})
		if err != nil {
			return graph.Node{}, false, err
		}
		return neo4jdb.OneNode(recs, nodeID)
	}
	if err := c.readCoverage(ctx); err != nil {
		return graph.Node{}, false, err
	}
	if sc := c.schema(); sc != nil {
		return c.mappedSeed(ctx, sc, nodeID)
	}
	params := map[string]any{"node_id": nodeID}
	var recs []*neo4j.Record
	var err error
	if len(c.indexed) > 0 {
		if recs, err = c.backend.batch.do(ctx, batchSeedQuery(c.indexed), map[string]any{}, params); err != nil {
			return graph.Node{}, false, err
		}
	}
	if len(recs) == 0 {
		if recs, err = c.collect(ctx, seedScanQuery, params); err != nil {
			return graph.Node{}, false, err
		}
	}
	n, found, err := neo4jdb.OneNode(recs, nodeID)
	if err != nil || !found {
		return n, found, err
	}
	eid, err := neo4jdb.Column[string](recs[0], "element_id")
	if err != nil {
		return graph.Node{}, false, err
	}
	c.elements[nodeID] = []string{eid}
	return n, true, nil
}

// readCoverage learns which labels have an id index (once per backend).
func (c *neo4jExpander) readCoverage(ctx context.Context) error {
	cov, err := c.backend.Coverage(ctx)
	c.indexed = cov.Indexed
	return err
}

// resolve finds the element ids of the frontier nodes not yet seen: through
// the id indexes first, then by a scan for the rest.
func (c *neo4jExpander) resolve(ctx context.Context, ids []string) error {
	if err := c.readCoverage(ctx); err != nil {
		return err
	}
	queries := []string{resolveScanQuery}
	if len(c.indexed) > 0 {
		queries = []string{resolveIndexQuery(c.indexed), resolveScanQuery}
	}
	shared := map[string]any{}
	if sc := c.schema(); sc != nil {
		queries, shared = lookupQueries(sc, c.indexed, mappedResolveQuery), withSchema(shared, sc)
	}
	for _, q := range queries {
		var missing []string
		for _, id := range ids {
			if _, ok := c.elements[id]; !ok {
				missing = append(missing, id)
			}
		}
		if len(missing) == 0 {
			return nil
		}
		params := maps.Clone(shared)
		params["ids"] = missing
		recs, err := c.collect(ctx, q, params)
		if err != nil {
			return err
		}
		for _, r := range recs {
			id, err := neo4jdb.Column[string](r, "id")
			if err != nil {
				return err
			}
			eid, err := neo4jdb.Column[string](r, "element_id")
			if err != nil {
				return err
			}
			c.elements[id] = append(c.elements[id], eid)
		}
	}
	return nil
}

// expandParams are ExpandQuery's parameters, named as in the specification.
// With elements (the fast path) each frontier entry carries an element id
// too, one entry per element id of the node.
// With near (the fast path's ExpandNear) each entry carries its node's
// limit too (null for none).
func expandParams(req activation.ExpandRequest, elements map[string][]string, near *activation.Near) map[string]any {
	frontier := make([]any, 0, len(req.Frontier))
	for _, f := range req.Frontier {
		if elements == nil {
			frontier = append(frontier, map[string]any{"node_id": f.NodeID, "activation": f.Activation})
			continue
		}
		for _, eid := range elements[f.NodeID] {
			entry := map[string]any{"node_id": f.NodeID, "element_id": eid, "activation": f.Activation}
			if near != nil {
				entry["limit"] = nil
				if l, ok := near.Limit[f.NodeID]; ok {
					entry["limit"] = []any{int64(l[0]), int64(l[1])}
				}
			}
			frontier = append(frontier, entry)
		}
	}
	tags := req.QueryTags
	if tags == nil {
		tags = []string{}
	}
	return map[string]any{
		"frontier":         frontier,
		"visited_ids":      req.VisitedIDs(),
		"query_tags":       tags,
		"query_tags_count": int64(len(tags)),
		"tag_sim_floor":    req.TagSimFloor,
		"min_threshold":    req.MinActivation,
	}
}

// ExpandFrontier runs the expansion query: one round trip for the whole
// frontier.
func (c *neo4jExpander) ExpandFrontier(ctx context.Context, req activation.ExpandRequest) ([]activation.Candidate, error) {
	return c.expand(ctx, req, nil)
}

// ExpandNear is ExpandFrontier with near applied on the server
// (BatchNearQuery): the rows it leaves out are never sent. The
// specification's queries have no such form, so there it filters
// ExpandFrontier's answer.
func (c *neo4jExpander) ExpandNear(ctx context.Context, req activation.ExpandRequest, near activation.Near) ([]activation.Candidate, error) {
	if !c.fast() {
		cands, err := c.expand(ctx, req, nil)
		if err != nil {
			return nil, err
		}
		return near.Filter(cands), nil
	}
	return c.expand(ctx, req, &near)
}

func (c *neo4jExpander) expand(ctx context.Context, req activation.ExpandRequest, near *activation.Near) ([]activation.Candidate, error) {
	if len(req.Frontier) == 0 {
		return []activation.Candidate{}, nil
	}
	if c.fast() {
		ids := make([]string, len(req.Frontier))
		for i, f := range req.Frontier {
			ids[i] = f.NodeID
		}
		if err := c.resolve(ctx, ids); err != nil {
			return nil, err
		}
	}
	params := expandParams(req, c.elements, near)
	var where string
	if c.backend != nil {
		where = c.backend.where(params)
	}
	var recs []*neo4j.Record
	var err error
	if c.fast() {
		item := map[string]any{"frontier": params["frontier"], "visited_ids": params["visited_ids"]}
		delete(params, "frontier")
		delete(params, "visited_ids")
		query := BatchExpandQuery
		if near != nil {
			query, item["near"] = BatchNearQuery, nearParam(*near)
			if near.Degrees {
				query = BatchNearDegreesQuery
			}
		}
		query = filterQuery(query, where)
		if sc := c.schema(); sc != nil {
			query, params = mapQuery(query, sc), withSchema(params, sc)
		}
		recs, err = c.backend.batch.do(ctx, query, params, item)
	} else {
		recs, err = c.collect(ctx, filterQuery(c.expandQuery, where), params)
	}
	if err != nil {
		return nil, err
	}
	acts := make(map[string]float64, len(req.Frontier))
	for _, f := range req.Frontier {
		if _, dup := acts[f.NodeID]; !dup {
			acts[f.NodeID] = f.Activation
		}
	}
	out := make([]activation.Candidate, 0, len(recs))
	for _, rec := range recs {
		cand, err := parseCandidate(rec, acts, c.extras, c.schema())
		if err != nil {
			return nil, err
		}
		if c.fast() {
			if err := c.remember(rec, cand.NeighborNode.ID); err != nil {
				return nil, err
			}
		}
		out = append(out, cand)
	}
	activation.SortTiedEdges(out)
	return out, nil
}

// nearParam is near's Dist as BatchNearQuery takes it: a map from node id
// to its two hop counts.
func nearParam(near activation.Near) map[string]any {
	m := make(map[string]any, len(near.Dist))
	for id, d := range near.Dist {
		m[id] = []any{int64(d[0]), int64(d[1])}
	}
	return m
}

// remember keeps the element id of a candidate's neighbour (once per
// element id: parallel edges return a neighbour on several rows).
func (c *neo4jExpander) remember(rec *neo4j.Record, id string) error {
	eid, err := neo4jdb.Column[string](rec, "neighbor_element_id")
	if err != nil {
		return err
	}
	if !slices.Contains(c.elements[id], eid) {
		c.elements[id] = append(c.elements[id], eid)
	}
	return nil
}

func parseCandidate(rec *neo4j.Record, acts map[string]float64, extras bool, sc *neo4jdb.SchemaCypher) (activation.Candidate, error) {
	var zero activation.Candidate
	parent, err := neo4jdb.Column[string](rec, "parent_id")
	if err != nil {
		return zero, err
	}
	act, ok := acts[parent]
	if !ok {
		return zero, fmt.Errorf("Neo4j returned a candidate of %q, which is not on the frontier", parent)
	}
	rawID, _ := rec.Get("neighbor_id")
	nid, ok := rawID.(string)
	if !ok {
		return zero, fmt.Errorf("a RELATES neighbour of node %q has property id %s; node ids must be strings", parent, neo4jdb.Describe(rawID))
	}
	props, err := neo4jdb.Column[map[string]any](rec, "edge_data")
	if err != nil {
		return zero, err
	}
	var nb graph.Node
	var edge graph.Edge
	if sc != nil {
		nb, edge, err = mappedCandidate(rec, sc, props, parent, nid)
	} else {
		nb, err = neo4jdb.NodeFromRecord(rec, "neighbor_data", "neighbor_labels", nid)
		if err == nil {
			edge, err = neo4jdb.RelatesEdge(props, parent, nid)
		}
	}
	if err != nil {
		return zero, err
	}
	rel := func(e error) error {
		return fmt.Errorf("relationship (%s)-[:%s]-(%s): %w", strconv.Quote(parent), graph.Relates, strconv.Quote(nid), e)
	}
	te, err := neo4jdb.Column[float64](rec, "transfer_energy")
	if err != nil {
		return zero, rel(err)
	}
	cand := activation.Candidate{ParentID: parent, NeighborNode: nb, Edge: edge, Activation: act, TransferEnergy: te}
	if _, asked := rec.Get("neighbor_degree"); asked {
		if cand.NeighborDegree, err = neo4jdb.Column[int64](rec, "neighbor_degree"); err != nil {
			return zero, rel(err)
		}
	}
	if extras {
		if cand.Degree, err = neo4jdb.Column[int64](rec, "degree"); err != nil {
			return zero, rel(err)
		}
		if cand.TagSim, err = neo4jdb.Column[float64](rec, "tag_sim"); err != nil {
			return zero, rel(err)
		}
		if cand.Edge.ElementID, err = neo4jdb.Column[string](rec, "edge_eid"); err != nil {
			return zero, rel(err)
		}
	}
	return cand, nil
}

// UnitWeights says whether every traversed weight is known to lie in
// [0, 1] (activation.UnitWeigher): on the fast path, from the weight
// index (neo4jdb.Source.UnitWeights); the specification's queries say
// nothing.
func (c *neo4jExpander) UnitWeights(ctx context.Context) (bool, error) {
	if c.backend == nil || !c.fast() {
		return false, nil
	}
	return c.backend.src.UnitWeights(ctx)
}

// collect runs one query of the exploration in the session.
func (c *neo4jExpander) collect(ctx context.Context, query string, params map[string]any) ([]*neo4j.Record, error) {
	if c.trace != nil {
		c.trace(query, params)
	}
	return c.sess.Collect(ctx, query, params)
}
