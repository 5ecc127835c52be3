package neo4jgraph

import (
	"context"
	"fmt"
	"strconv"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/memoria-graph/memoria/retriever"
)

// connector serves one seed exploration over one read session. It is not
// safe for concurrent use (neither is the session).
type connector struct {
	s    *Source
	sess neo4j.SessionWithContext
	// ec names the session's database in error messages.
	ec errCtx
}

// collect runs query in a read transaction of the session and returns all
// its records (the result is consumed before anything else runs).
func (c *connector) collect(ctx context.Context, query string, params map[string]any) ([]*neo4j.Record, error) {
	out, err := c.sess.ExecuteRead(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		res, err := tx.Run(ctx, query, params)
		if err != nil {
			return nil, err
		}
		return res.Collect(ctx)
	})
	if err != nil {
		return nil, c.ec.classify(ctx, err, phaseQuery)
	}
	return out.([]*neo4j.Record), nil
}

// FetchSeed runs SeedQuery.
func (c *connector) FetchSeed(ctx context.Context, nodeID string) (retriever.SeedFetchResult, error) {
	recs, err := c.collect(ctx, SeedQuery, map[string]any{"node_id": nodeID})
	if err != nil {
		return retriever.SeedFetchResult{}, err
	}
	return parseSeed(recs, nodeID)
}

func parseSeed(recs []*neo4j.Record, nodeID string) (retriever.SeedFetchResult, error) {
	switch len(recs) {
	case 0:
		return retriever.SeedFetchResult{}, nil
	case 1:
	default:
		return retriever.SeedFetchResult{}, fmt.Errorf("Neo4j has %d nodes with id %q; node ids must be unique", len(recs), nodeID)
	}
	n, err := parseNode(recs[0], "data", "labels", nodeID)
	if err != nil {
		return retriever.SeedFetchResult{}, err
	}
	return retriever.SeedFetchResult{Node: &n, Labels: n.Labels, Found: true}, nil
}

// parseNode reads a node's properties and labels; its id property must be
// the string id. Temporal and point values become strings (plainProps).
func parseNode(rec *neo4j.Record, propsKey, labelsKey, id string) (retriever.GraphNode, error) {
	props, err := colMap(rec, propsKey)
	if err != nil {
		return retriever.GraphNode{}, fmt.Errorf("node %q: %w", id, err)
	}
	labels, err := colStrings(rec, labelsKey)
	if err != nil {
		return retriever.GraphNode{}, fmt.Errorf("node %q: %w", id, err)
	}
	if got, ok := props["id"].(string); !ok || got != id {
		return retriever.GraphNode{}, fmt.Errorf("node %q: property id is %s", id, describe(props["id"]))
	}
	return retriever.GraphNode{ID: id, Labels: labels, Properties: plainProps(props)}, nil
}

// ExpandFrontier runs ExpandQuery: one round trip for the whole frontier.
func (c *connector) ExpandFrontier(ctx context.Context, req retriever.ExpandRequest) ([]retriever.ExpansionCandidate, error) {
	return c.expand(ctx, ExpandQuery, req, true)
}

// expandParams are ExpandQuery's parameters, named as in seed 000 §6.2.
func expandParams(req retriever.ExpandRequest) map[string]any {
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

// expand runs an expansion query (ExpandQuery, or in tests the seed's
// original text, which returns no degree and tag_sim: extras false) and
// parses its records.
func (c *connector) expand(ctx context.Context, query string, req retriever.ExpandRequest, extras bool) ([]retriever.ExpansionCandidate, error) {
	if len(req.Frontier) == 0 {
		return []retriever.ExpansionCandidate{}, nil
	}
	recs, err := c.collect(ctx, query, expandParams(req))
	if err != nil {
		return nil, err
	}
	activation := make(map[string]float64, len(req.Frontier))
	for _, f := range req.Frontier {
		if _, dup := activation[f.NodeID]; !dup {
			activation[f.NodeID] = f.Activation
		}
	}
	out := make([]retriever.ExpansionCandidate, 0, len(recs))
	for _, rec := range recs {
		cand, err := parseCandidate(rec, activation, extras)
		if err != nil {
			return nil, err
		}
		out = append(out, cand)
	}
	retriever.SortTiedEdges(out)
	return out, nil
}

func parseCandidate(rec *neo4j.Record, activation map[string]float64, extras bool) (retriever.ExpansionCandidate, error) {
	var zero retriever.ExpansionCandidate
	parent, err := colString(rec, "parent_id")
	if err != nil {
		return zero, err
	}
	act, ok := activation[parent]
	if !ok {
		return zero, fmt.Errorf("Neo4j returned a candidate of %q, which is not on the frontier", parent)
	}
	rawID, err := column(rec, "neighbor_id")
	if err != nil {
		return zero, err
	}
	nid, ok := rawID.(string)
	if !ok {
		return zero, fmt.Errorf("a RELATES neighbour of node %q has property id %s; node ids must be strings", parent, describe(rawID))
	}
	nb, err := parseNode(rec, "neighbor_data", "neighbor_labels", nid)
	if err != nil {
		return zero, err
	}
	props, err := colMap(rec, "edge_data")
	if err != nil {
		return zero, err
	}
	rel := func(e error) error {
		return fmt.Errorf("relationship (%s)-[:%s]-(%s): %w", strconv.Quote(parent), retriever.RelType, strconv.Quote(nid), e)
	}
	weight, err := edgeWeight(props)
	if err != nil {
		return zero, rel(err)
	}
	tags, err := edgeTags(props)
	if err != nil {
		return zero, rel(err)
	}
	te, err := colFloat(rec, "transfer_energy")
	if err != nil {
		return zero, rel(err)
	}
	// After the checks above, which name a value's driver type: temporal
	// and point values become strings, as the memory engine holds them, so
	// that JSON output and retriever.EdgeKey see them.
	props = plainProps(props)
	cand := retriever.ExpansionCandidate{
		ParentID:     parent,
		NeighborNode: nb,
		Edge: retriever.GraphEdge{
			SourceID: parent, TargetID: nid, Type: retriever.RelType,
			Properties: props, Weight: weight, Tags: tags,
		},
		Activation:     act,
		TransferEnergy: te,
	}
	if extras {
		if cand.Degree, err = colInt(rec, "degree"); err != nil {
			return zero, rel(err)
		}
		if cand.TagSim, err = colFloat(rec, "tag_sim"); err != nil {
			return zero, rel(err)
		}
	}
	return cand, nil
}
