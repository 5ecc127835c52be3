// Package onneo4j is the Activation Energy retriever's expansion over Neo4j:
// the seed lookup and the batched frontier expansion of docs/ALGORITHM.md
// ("The Cypher"), run through graph/neo4jdb's read sessions.
package onneo4j

import (
	"context"
	"fmt"
	"strconv"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// Neo4j is the Activation Energy expansion over a Neo4j database: it runs
// SeedQuery and ExpandQuery (cypher_neo4j.go), one round trip per level,
// each in a read transaction of the exploration's own session. It is safe
// for concurrent use; each Open gets its own session.
type Neo4j struct{ src *neo4jdb.Source }

// NewNeo4j returns the expansion over src.
func New(src *neo4jdb.Source) *Neo4j { return &Neo4j{src: src} }

var _ activation.Backend = (*Neo4j)(nil)

// Open returns an activation.Expander holding one read session, for one seed
// exploration; release closes the session.
func (n *Neo4j) Open(ctx context.Context) (activation.Expander, func(context.Context) error, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	s := n.src.OpenSession(ctx)
	return &neo4jExpander{sess: s, expandQuery: ExpandQuery, extras: true}, s.Close, nil
}

// neo4jExpander serves one exploration over one session. Tests build one
// with the specification's verbatim expansion (expandQuery, extras false:
// it returns no degree and tag_sim) to show where memoria departs from it.
type neo4jExpander struct {
	sess        *neo4jdb.Session
	expandQuery string
	extras      bool
}

// FetchSeed runs SeedQuery.
func (c *neo4jExpander) FetchSeed(ctx context.Context, nodeID string) (graph.Node, bool, error) {
	recs, err := c.sess.Collect(ctx, SeedQuery, map[string]any{"node_id": nodeID})
	if err != nil {
		return graph.Node{}, false, err
	}
	return neo4jdb.OneNode(recs, nodeID)
}

// expandParams are ExpandQuery's parameters, named as in the specification.
func expandParams(req activation.ExpandRequest) map[string]any {
	frontier := make([]any, len(req.Frontier))
	for i, f := range req.Frontier {
		frontier[i] = map[string]any{"node_id": f.NodeID, "activation": f.Activation}
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
	if len(req.Frontier) == 0 {
		return []activation.Candidate{}, nil
	}
	recs, err := c.sess.Collect(ctx, c.expandQuery, expandParams(req))
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
		cand, err := parseCandidate(rec, acts, c.extras)
		if err != nil {
			return nil, err
		}
		out = append(out, cand)
	}
	activation.SortTiedEdges(out)
	return out, nil
}

func parseCandidate(rec *neo4j.Record, acts map[string]float64, extras bool) (activation.Candidate, error) {
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
	nb, err := neo4jdb.NodeFromRecord(rec, "neighbor_data", "neighbor_labels", nid)
	if err != nil {
		return zero, err
	}
	props, err := neo4jdb.Column[map[string]any](rec, "edge_data")
	if err != nil {
		return zero, err
	}
	edge, err := neo4jdb.RelatesEdge(props, parent, nid)
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
