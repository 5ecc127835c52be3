package onneo4j

import (
	"context"
	"fmt"
	"math/rand"
	"strconv"
	"testing"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/testkit/neo4jfix"
)

// seedExpandQuery is docs/ALGORITHM.md "The Cypher" verbatim. Each test below runs its check
// on this text and on ExpandQuery: the check must fail on the seed's text
// (so it really detects the change) and pass on ours.
const seedExpandQuery = `UNWIND $frontier AS f
MATCH (current {id: f.node_id})
WITH current, f.node_id AS parent_id, f.activation AS activation,
     COUNT { (current)-[:RELATES]-() } AS degree

MATCH (current)-[r:RELATES]-(neighbor)
WHERE NOT neighbor.id IN $visited_ids

WITH parent_id, r, neighbor, activation, degree,
     coalesce(r.tags, []) AS eTags
WITH parent_id, r, neighbor, activation, degree, eTags,
     size([t IN eTags WHERE t IN $query_tags]) AS inter_count
WITH parent_id, r, neighbor, activation, degree, eTags, inter_count,
     CASE
         WHEN $query_tags_count = 0 THEN 1.0
         WHEN size(eTags) = 0       THEN $tag_sim_floor
         ELSE $tag_sim_floor
              + (1.0 - $tag_sim_floor)
              * toFloat(inter_count)
              / (size(eTags) + $query_tags_count - inter_count)
     END AS tag_sim

WITH parent_id, r, neighbor,
     (activation * coalesce(r.weight, 0.01) / sqrt(toFloat(degree))) * tag_sim
         AS transfer_energy

WHERE transfer_energy > $min_threshold

RETURN parent_id,
       properties(neighbor)  AS neighbor_data,
       labels(neighbor)       AS neighbor_labels,
       neighbor.id            AS neighbor_id,
       properties(r)          AS edge_data,
       transfer_energy
ORDER BY parent_id, transfer_energy DESC`

// runBoth runs check on the candidates of req from the seed's text and from
// ExpandQuery: the seed's must fail, ours must pass.
func runBoth(t *testing.T, c *neo4jExpander, req activation.ExpandRequest, check func([]activation.Candidate) error) {
	t.Helper()
	verbatim := &neo4jExpander{sess: c.sess, expandQuery: seedExpandQuery, extras: false}
	seed, err := verbatim.ExpandFrontier(context.Background(), req)
	if err != nil {
		t.Fatalf("seed query: %v", err)
	}
	if err := check(seed); err == nil {
		t.Error("the check passes on the seed's original query: it does not detect the change")
	} else {
		t.Logf(`docs/ALGORITHM.md "The Cypher" as written: %v`, err)
	}
	memoria := &neo4jExpander{sess: c.sess, expandQuery: ExpandQuery, extras: true}
	ours, err := memoria.ExpandFrontier(context.Background(), req)
	if err != nil {
		t.Fatalf("ExpandQuery: %v", err)
	}
	if err := check(ours); err != nil {
		t.Errorf("ExpandQuery: %v", err)
	}
}

// TestChangeDistinctEdgeTags (deliberate change 1): T3000 → T3002 carries
// ["campaign","campaign","launch"] (w 0.90, d(T3000) = 4, R 0.9, Q =
// {campaign}). Over distinct tags E = {campaign, launch}: |E∩Q| = 1,
// |E∪Q| = 2, tag_sim = 0.575, T = 0.9 × 0.9 / 2 × 0.575 = 0.232875
// (docs/ALGORITHM.md rule 2). The seed's text counts the duplicate:
// inter 2, union 3 + 1 − 2 = 2, tag_sim 1.0, T = 0.405.
func TestChangeDistinctEdgeTags(t *testing.T) {
	c := openConn(t, fx.Demo(t))
	req := neo4jfix.ExpandReq(map[string]float64{"T3000": 0.9}, nil, []string{"campaign"}, 0.005, 0.15)
	runBoth(t, c, req, func(cands []activation.Candidate) error {
		got := find(cands, "T3000", "T3002")
		if len(got) != 1 {
			return fmt.Errorf("%d candidates T3000 -> T3002", len(got))
		}
		if got[0].TransferEnergy != 0.232875 {
			return fmt.Errorf("T3000 -> T3002: T = %v, want 0.232875 (tag_sim 0.575 over distinct tags)", got[0].TransferEnergy)
		}
		return nil
	})
}

// TestChangeTieOrder (deliberate change 2): a hub H has 16 neighbours over
// identical edges (w 0.5, tags ["x"]), created in a shuffled order of their
// ids, so every candidate has the same T = 1 × 0.5 / √16 × 1.0 = 0.125. The
// Expander contract orders by parent, T descending, then neighbour id:
// ExpandQuery's ORDER BY parent_id, transfer_energy DESC, neighbor_id. The
// seed's ORDER BY parent_id, transfer_energy DESC leaves the tie in storage
// order, which is not the id order.
func TestChangeTieOrder(t *testing.T) {
	g := &apoc.Graph{Nodes: []apoc.Node{{InternalID: "0", Labels: []string{"Event"}, Properties: map[string]any{"id": "H"}}}}
	for i, k := range rand.New(rand.NewSource(3)).Perm(16) {
		g.Nodes = append(g.Nodes, apoc.Node{InternalID: strconv.Itoa(i + 1), Labels: []string{"Event"}, Properties: map[string]any{"id": fmt.Sprintf("N%02d", k)}})
		g.Rels = append(g.Rels, apoc.Relationship{InternalID: strconv.Itoa(i), Type: "RELATES", Start: "0", End: strconv.Itoa(i + 1),
			Properties: map[string]any{"weight": 0.5, "tags": []any{"x"}}})
	}
	c := openConn(t, fx.Graph(t, g))
	req := neo4jfix.ExpandReq(map[string]float64{"H": 1}, nil, []string{"x"}, 0.005, 0.15)
	runBoth(t, c, req, func(cands []activation.Candidate) error {
		if len(cands) != 16 {
			return fmt.Errorf("%d candidates, want 16", len(cands))
		}
		var ids []string
		for i, cd := range cands {
			ids = append(ids, cd.NeighborNode.ID)
			if cd.TransferEnergy != 0.125 {
				return fmt.Errorf("T %v, want 0.125", cd.TransferEnergy)
			}
			if i > 0 && ids[i-1] > ids[i] {
				return fmt.Errorf("tied candidates not ordered by neighbour id: %v", ids)
			}
		}
		return nil
	})
}
