package onneo4j

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// adjacencyQuery reads, for each frontier node addressed by element id,
// its RELATES degree and every RELATES relationship with the neighbour at
// its other end, whatever the thresholds: what a Snapshot needs to answer
// any later expansion of that node by itself. A node without relationships
// still gives one row (a null neighbour), so that it is known to have none.
const adjacencyQuery = `UNWIND $frontier AS f
MATCH (current) WHERE elementId(current) = f.element_id
WITH current, f.node_id AS parent_id, COUNT { (current)-[:RELATES]-() } AS degree
OPTIONAL MATCH (current)-[r:RELATES]-(neighbor)
RETURN parent_id, degree,
       properties(neighbor) AS neighbor_data,
       labels(neighbor)     AS neighbor_labels,
       neighbor.id          AS neighbor_id,
       elementId(neighbor)  AS neighbor_element_id,
       properties(r)        AS edge_data,
       elementId(r)         AS edge_eid`

// batchAdjacencyQuery is adjacencyQuery for the frontiers of several
// explorations at once (see batcher): $requests holds {i, frontier} per
// exploration and each row says whose it is (`request`).
var batchAdjacencyQuery = mustReplace(mustReplace(mustReplace(adjacencyQuery,
	"UNWIND $frontier AS f\n", "UNWIND $requests AS q\nUNWIND q.frontier AS f\n"),
	"WITH current, f.node_id AS parent_id,", "WITH q.i AS request, current, f.node_id AS parent_id,"),
	"RETURN parent_id,", "RETURN request, parent_id,")

// Snapshot is the part of a Neo4j graph explorations have read: every node
// that has been on an exploration's frontier, with its degree and all its
// RELATES relationships (properties and neighbours), as read from the server
// (docs/ALGORITHM.md, "Replaying from a snapshot"). As an
// activation.Backend it answers a level from what it holds and asks the
// server, in one round trip per level (shared with the explorations
// running beside it, see batcher), only for the frontier nodes it lacks; the candidates it computes are the ones FastExpandQuery would
// return (the rules of docs/ALGORITHM.md evaluated in the Cypher's order,
// like the memory engine). A threshold, tag or score change that stays
// inside the explored part is then replayed with no round trip. Reset
// forgets it all. It is safe for concurrent use. The restricted reads of
// `why` (ExpandNear) replay what it holds but neither keep nor count what
// they read from the server: they read only part of a node's
// relationships.
type Snapshot struct {
	fast *Neo4j // seed lookups and element-id resolution

	mu      sync.Mutex
	nodes   map[string]*snapNode // by node id: nodes whose adjacency is held
	seeds   map[string]seedEntry // seeds found, by id
	taken   time.Time            // when the first node was read (zero when empty)
	fetched int                  // frontier nodes read from the server and kept, ever
}

type seedEntry struct {
	node graph.Node
	eid  string
}

type snapNode struct {
	degree int64
	edges  []snapEdge
}

type snapEdge struct {
	neighbor graph.Node
	nid      any    // the neighbour's id property as stored (nil, or not a string, is handled as the query does)
	eid      string // the neighbour's element id
	rid      string // the relationship's element id
	props    map[string]any
	schema   *neo4jdb.SchemaCypher // the mapping it was read under (nil: memoria's own shape)
}

// SetFilter applies the relationship filter f to everything the snapshot
// reads (Neo4j.SetFilter). Call it before the first Open.
func (s *Snapshot) SetFilter(f graph.RelFilter) { s.fast.SetFilter(f) }

// NewSnapshot returns an empty snapshot of src.
func NewSnapshot(src *neo4jdb.Source) *Snapshot {
	return &Snapshot{fast: New(src), nodes: map[string]*snapNode{}, seeds: map[string]seedEntry{}}
}

var (
	_ activation.Backend      = (*Snapshot)(nil)
	_ activation.NearExpander = (*snapExpander)(nil)
)

// SnapshotStats describes a snapshot.
type SnapshotStats struct {
	Nodes   int       // frontier nodes held with their relationships
	Taken   time.Time // when the oldest was read
	Fetched int       // frontier nodes read from the server and kept since New or Reset (why's restricted reads are not)
}

// Stats returns the snapshot's size and age.
func (s *Snapshot) Stats() SnapshotStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return SnapshotStats{Nodes: len(s.nodes), Taken: s.taken, Fetched: s.fetched}
}

// Reset forgets everything, so that the next explorations read the server
// afresh.
func (s *Snapshot) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nodes, s.seeds, s.taken, s.fetched = map[string]*snapNode{}, map[string]seedEntry{}, time.Time{}, 0
	s.fast.resetCoverage() // an index created since is seen on the next run
}

// Coverage is the id-index coverage of the source (see Neo4j.Coverage).
func (s *Snapshot) Coverage(ctx context.Context) (neo4jdb.IDCoverage, error) {
	return s.fast.Coverage(ctx)
}

// Open returns an expander over the snapshot with its own read session.
func (s *Snapshot) Open(ctx context.Context) (activation.Expander, func(context.Context) error, error) {
	e, release, err := s.fast.Open(ctx)
	if err != nil {
		return nil, nil, err
	}
	return &snapExpander{snap: s, server: e.(*neo4jExpander)}, release, nil
}

// snapExpander serves one exploration from the snapshot, reading what it
// lacks through server (whose element-id map it shares).
type snapExpander struct {
	snap   *Snapshot
	server *neo4jExpander
}

// UnitWeights is the server's answer (the weight index): the snapshot
// holds relationships as the server has them. What it replays says no
// neighbour's degree, which why then bounds by 1.
func (e *snapExpander) UnitWeights(ctx context.Context) (bool, error) {
	return e.server.UnitWeights(ctx)
}

// FetchSeed answers from the seeds the snapshot has found, else looks the
// seed up on the server (the fast path's lookup) and keeps it. A seed that was not
// found is asked again next time.
func (e *snapExpander) FetchSeed(ctx context.Context, nodeID string) (graph.Node, bool, error) {
	e.snap.mu.Lock()
	se, ok := e.snap.seeds[nodeID]
	e.snap.mu.Unlock()
	if ok {
		e.server.elements[nodeID] = []string{se.eid}
		return se.node, true, nil
	}
	n, found, err := e.server.FetchSeed(ctx, nodeID)
	if err != nil || !found {
		return n, found, err
	}
	e.snap.mu.Lock()
	e.snap.seeds[nodeID] = seedEntry{node: n, eid: e.server.elements[nodeID][0]}
	e.snap.mu.Unlock()
	return n, true, nil
}

// ExpandFrontier answers from the snapshot, first reading the adjacency of
// the frontier nodes it lacks in one round trip.
func (e *snapExpander) ExpandFrontier(ctx context.Context, req activation.ExpandRequest) ([]activation.Candidate, error) {
	x, err := e.expand(ctx, req, 0, false)
	return x.Candidates, err
}

// ExpandTrace is ExpandFrontier with the rest of each frontier node's
// neighbours accounted for (activation.Tracer), from the same round trip:
// the snapshot reads whole neighbourhoods.
func (e *snapExpander) ExpandTrace(ctx context.Context, req activation.ExpandRequest, nearMisses int) (activation.Expansion, error) {
	return e.expand(ctx, req, nearMisses, true)
}

func (e *snapExpander) expand(ctx context.Context, req activation.ExpandRequest, nearMisses int, trace bool) (activation.Expansion, error) {
	if len(req.Frontier) == 0 {
		return activation.Expansion{Candidates: []activation.Candidate{}}, nil
	}
	// The nodes are taken once, under the lock; held nodes never change, so
	// the replay runs unlocked (seeds replay in parallel, and a Reset in
	// between cannot pull a node from under it).
	nodes, err := e.fill(ctx, req.Frontier)
	if err != nil {
		return activation.Expansion{}, err
	}
	return e.replay(req, nodes, nearMisses, trace, nil)
}

// ExpandNear answers the frontier nodes the snapshot holds from what it
// holds, near applied, and reads the others from the server with near
// applied there (the fast path's ExpandNear), in one round trip. What it
// reads so is not kept: a node the snapshot holds has all its
// relationships.
func (e *snapExpander) ExpandNear(ctx context.Context, req activation.ExpandRequest, near activation.Near) ([]activation.Candidate, error) {
	if len(req.Frontier) == 0 {
		return []activation.Candidate{}, nil
	}
	nodes, held, missing := e.split(req.Frontier)
	sub := req
	sub.Frontier = held
	x, err := e.replay(sub, nodes, 0, false, &near)
	if err != nil {
		return nil, err
	}
	out := x.Candidates
	if len(missing) > 0 {
		sub.Frontier = missing
		read, err := e.server.ExpandNear(ctx, sub, near)
		if err != nil {
			return nil, err
		}
		out = append(out, read...)
		sortCandidates(out)
	}
	return out, nil
}

// replay computes a level from held nodes (every frontier node's among
// nodes), leaving out what near, when not nil, does not keep.
func (e *snapExpander) replay(req activation.ExpandRequest, nodes map[string]*snapNode, nearMisses int, trace bool, near *activation.Near) (activation.Expansion, error) {
	out := []activation.Candidate{}
	var x activation.Expansion
	if trace {
		x.Tallies = map[string]activation.Tally{}
	}
	below := map[string][]activation.Candidate{}
	seen := map[string]bool{}
	for _, f := range req.Frontier {
		if seen[f.NodeID] { // a repeated frontier id: the query's acts map keeps the first
			continue
		}
		seen[f.NodeID] = true
		n := nodes[f.NodeID]
		visited := map[string]bool{}
		for _, ed := range n.edges {
			if near != nil {
				if id, ok := ed.nid.(string); ok && !near.Keeps(f.NodeID, id) {
					continue
				}
			}
			c, kind, err := replay(f, n.degree, ed, req)
			if err != nil {
				return activation.Expansion{}, err
			}
			switch kind {
			case rowAbove:
				// the next level may address it: its element id is known
				if id := c.NeighborNode.ID; !slices.Contains(e.server.elements[id], ed.eid) {
					e.server.elements[id] = append(e.server.elements[id], ed.eid)
				}
				out = append(out, c)
			case rowBelow:
				below[f.NodeID] = append(below[f.NodeID], c)
			case rowVisited:
				visited[ed.neighbor.ID] = true
			}
		}
		if trace {
			x.Tallies[f.NodeID] = activation.Tally{Degree: n.degree, Visited: len(visited)}
		}
	}
	sortCandidates(out)
	x.Candidates = out
	if trace {
		above := map[string]map[string]bool{}
		for _, c := range out {
			if above[c.ParentID] == nil {
				above[c.ParentID] = map[string]bool{}
			}
			above[c.ParentID][c.NeighborNode.ID] = true
		}
		ids := make([]string, 0, len(below))
		for id := range below {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			picked, count := activation.PickNearMisses(below[id], above[id], nearMisses)
			t := x.Tallies[id]
			t.Below = count
			x.Tallies[id] = t
			x.NearMisses = append(x.NearMisses, picked...)
		}
	}
	return x, nil
}

// sortCandidates orders candidates as the level query does: by parent id,
// transfer energy descending and neighbour id, parallel edges that tie
// by EdgeKey (activation.SortTiedEdges).
func sortCandidates(out []activation.Candidate) {
	slices.SortStableFunc(out, func(a, b activation.Candidate) int {
		if c := cmp.Compare(a.ParentID, b.ParentID); c != 0 {
			return c
		}
		if c := cmp.Compare(b.TransferEnergy, a.TransferEnergy); c != 0 {
			return c
		}
		return cmp.Compare(a.NeighborNode.ID, b.NeighborNode.ID)
	})
	activation.SortTiedEdges(out)
}

// What a held relationship is, replayed for one level.
const (
	rowSkipped = iota // a neighbour without an id
	rowVisited        // a visited neighbour
	rowBelow          // at or below MIN_ACTIVATION
	rowAbove          // a candidate
)

// replay is one row of FastExpandQuery computed from a held relationship:
// the same filters (a neighbour with an id that is not visited), the same
// checks (a weight that is a number, tags that are strings, a string id;
// else the relationship is named in the error, as parseCandidate does) and
// the same arithmetic (docs/ALGORITHM.md rules 1 to 3).
func replay(f activation.FrontierInput, degree int64, ed snapEdge, req activation.ExpandRequest) (activation.Candidate, int, error) {
	if ed.nid == nil {
		return activation.Candidate{}, rowSkipped, nil
	}
	if id, ok := ed.nid.(string); ok {
		if _, visited := req.Visited[id]; visited {
			return activation.Candidate{}, rowVisited, nil
		}
	} else {
		return activation.Candidate{}, rowSkipped, fmt.Errorf("a RELATES neighbour of node %q has property id %s; node ids must be strings", f.NodeID, neo4jdb.Describe(ed.nid))
	}
	nid := ed.neighbor.ID
	var edge graph.Edge
	var err error
	if ed.schema != nil {
		edge, err = ed.schema.Edge(ed.props, f.NodeID, nid)
		if err != nil {
			err = fmt.Errorf("relationship (%s)-[:%s]-(%s): %w", strconv.Quote(f.NodeID), graph.Relates, strconv.Quote(nid), err)
		}
	} else {
		edge, err = neo4jdb.RelatesEdge(ed.props, f.NodeID, nid)
	}
	if err != nil {
		return activation.Candidate{}, rowSkipped, err
	}
	edge.ElementID = ed.rid
	ts := activation.TagSim(edge.Tags, req.QueryTags, req.TagSimFloor)
	t := activation.TransferEnergy(f.Activation, activation.EffectiveWeight(edge), degree, ts)
	c := activation.Candidate{ParentID: f.NodeID, NeighborNode: ed.neighbor, Edge: edge, Activation: f.Activation,
		Degree: degree, TagSim: ts, TransferEnergy: t}
	if !(t > req.MinActivation) {
		return c, rowBelow, nil
	}
	return c, rowAbove, nil
}

// split takes, under the lock, the nodes of the frontier the snapshot
// holds, and the frontier's entries it holds and lacks, in order.
func (e *snapExpander) split(frontier []activation.FrontierInput) (have map[string]*snapNode, held, missing []activation.FrontierInput) {
	e.snap.mu.Lock()
	defer e.snap.mu.Unlock()
	have = make(map[string]*snapNode, len(frontier))
	for _, f := range frontier {
		if n, ok := e.snap.nodes[f.NodeID]; ok {
			have[f.NodeID] = n
			held = append(held, f)
		} else {
			missing = append(missing, f)
		}
	}
	return have, held, missing
}

// fill returns the held nodes of the frontier, first reading the
// adjacency of those the snapshot lacks in one round trip.
func (e *snapExpander) fill(ctx context.Context, frontier []activation.FrontierInput) (map[string]*snapNode, error) {
	have, _, lacking := e.split(frontier)
	var missing []string
	for _, f := range lacking {
		if !slices.Contains(missing, f.NodeID) {
			missing = append(missing, f.NodeID)
		}
	}
	if len(missing) == 0 {
		return have, nil
	}
	if err := e.server.resolve(ctx, missing); err != nil {
		return nil, err
	}
	params := []any{}
	for _, id := range missing {
		for _, eid := range e.server.elements[id] {
			params = append(params, map[string]any{"node_id": id, "element_id": eid})
		}
	}
	shared := map[string]any{}
	query := filterQuery(batchAdjacencyQuery, e.snap.fast.where(shared))
	sc := e.server.schema()
	if sc != nil {
		query, shared = mapAdjacency(query, sc), withSchema(shared, sc)
	}
	recs, err := e.server.backend.batch.do(ctx, query, shared, map[string]any{"frontier": params})
	if err != nil {
		return nil, err
	}
	got := map[string]*snapNode{}
	for _, rec := range recs {
		parent, err := neo4jdb.Column[string](rec, "parent_id")
		if err != nil {
			return nil, err
		}
		n := got[parent]
		if n == nil {
			deg, err := neo4jdb.Column[int64](rec, "degree")
			if err != nil {
				return nil, err
			}
			n = &snapNode{degree: deg}
			got[parent] = n
		}
		raw, _ := rec.Get("neighbor_id")
		eid, _ := rec.Get("neighbor_element_id")
		if eid == nil { // no relationship at all
			continue
		}
		ed := snapEdge{nid: raw, eid: eid.(string), schema: sc}
		if id, ok := raw.(string); ok {
			if ed.neighbor, err = snapNeighbor(rec, sc, id); err != nil {
				return nil, err
			}
			if !slices.Contains(e.server.elements[id], ed.eid) {
				e.server.elements[id] = append(e.server.elements[id], ed.eid)
			}
		}
		if ed.props, err = neo4jdb.Column[map[string]any](rec, "edge_data"); err != nil {
			return nil, fmt.Errorf("relationship (%s)-[:%s]-(%v): %w", strconv.Quote(parent), graph.Relates, raw, err)
		}
		if ed.rid, err = neo4jdb.Column[string](rec, "edge_eid"); err != nil {
			return nil, err
		}
		n.edges = append(n.edges, ed)
	}
	for _, id := range missing {
		if got[id] == nil {
			return nil, fmt.Errorf("node %q is no longer in Neo4j (its element id did not resolve)", id)
		}
		have[id] = got[id]
	}
	e.snap.mu.Lock()
	defer e.snap.mu.Unlock()
	if e.snap.taken.IsZero() {
		e.snap.taken = time.Now()
	}
	for id, n := range got {
		if _, dup := e.snap.nodes[id]; !dup { // another seed may have read it meanwhile
			e.snap.nodes[id] = n
			e.snap.fetched++
		}
	}
	return have, nil
}

// Held is Stats in plain values, for front ends that cannot name
// SnapshotStats (the explorer): frontier nodes held, nodes read from the
// server so far, and when the oldest was read.
func (s *Snapshot) Held() (nodes, fetched int, since time.Time) {
	st := s.Stats()
	return st.Nodes, st.Fetched, st.Taken
}
