package onneo4j

import (
	"fmt"
	"strings"

	"github.com/memoria-graph/memoria/internal/cypherlit"
)

// SeedQuery is the seed lookup of docs/ALGORITHM.md ("The Cypher"),
// unchanged from the specification: the seed node by its application id.
// Without a label it reads every node (an AllNodesScan).
const SeedQuery = `MATCH (n {id: $node_id})
RETURN properties(n) AS data, labels(n) AS labels`

// seedScanQuery is SeedQuery returning the node's element id too: the fast
// path's fallback for a node no id index covers.
const seedScanQuery = SeedQuery + `, elementId(n) AS element_id`

// resolveIndexQuery and resolveScanQuery find the element ids of frontier
// nodes the expander has not seen (a caller that builds its own frontier).
func resolveIndexQuery(labels []string) string {
	return `UNWIND $ids AS id
MATCH (n) WHERE n.id = id AND (` + labelDisjunction("n", labels) + `)
RETURN id, elementId(n) AS element_id`
}

const resolveScanQuery = `UNWIND $ids AS id
MATCH (n {id: id})
RETURN id, elementId(n) AS element_id`

// labelDisjunction is `v:L1 OR v:L2 ...` with each label quoted.
func labelDisjunction(v string, labels []string) string {
	parts := make([]string, len(labels))
	for i, l := range labels {
		parts[i] = v + ":" + cypherlit.QuoteName(l)
	}
	return strings.Join(parts, " OR ")
}

// ExpandQuery is docs/ALGORITHM.md "The Cypher", the batched frontier expansion, with two
// deliberate changes and two guards:
//
//   - Change 1 (docs/ALGORITHM.md rule 2): the tag similarity is computed
//     over the DISTINCT edge tags (eTags is built with reduce), so a tag
//     repeated on one edge counts once. The seed's text counts it twice.
//   - Change 2 (determinism, the Expander contract): ORDER BY parent_id,
//     transfer_energy DESC, neighbor_id. The seed's text leaves ties in
//     storage order.
//   - Guard: a neighbour without an id is never a candidate (the seed's text
//     already drops it whenever $visited_ids is not empty, which the
//     retriever guarantees; the guard makes it hold for any caller).
//   - Guard: a relationship whose weight is not a number, whose tags are not
//     a list of strings, or whose neighbour's id is not a string is returned
//     whatever its energy (with a null transfer_energy) instead of failing
//     the whole query with a Cypher type error, so the connector can name
//     the relationship and the property in its error.
//
// Everything else is the seed's text: the RELATES-only pattern in both
// directions, the degree as COUNT { (current)-[:RELATES]-() } (a self-loop
// once, parallel edges each), coalesce(r.weight, 0.01), the CASE of
// tag_sim and the operation order of tag_sim and transfer_energy (the
// in-memory engine mirrors it bit for bit). RETURN adds degree, tag_sim and
// elementId(r), which relationship it was (graph.Edge.ElementID), so the
// debug Cypher can pin it among parallel edges.
const ExpandQuery = `UNWIND $frontier AS f
MATCH (current {id: f.node_id})
WITH current, f.node_id AS parent_id, f.activation AS activation,
     COUNT { (current)-[:RELATES]-() } AS degree

MATCH (current)-[r:RELATES]-(neighbor)
WHERE neighbor.id IS NOT NULL AND NOT neighbor.id IN $visited_ids

WITH parent_id, r, neighbor, activation, degree,
     r.weight IS :: INTEGER | FLOAT AND r.tags IS :: LIST<STRING NOT NULL>
         AND neighbor.id IS :: STRING AS well_typed
WITH parent_id, r, neighbor, activation, degree, well_typed,
     CASE WHEN well_typed
          THEN reduce(s = [], t IN coalesce(r.tags, []) | CASE WHEN t IN s THEN s ELSE s + t END)
          ELSE []
     END AS eTags
WITH parent_id, r, neighbor, activation, degree, well_typed, eTags,
     size([t IN eTags WHERE t IN $query_tags]) AS inter_count
WITH parent_id, r, neighbor, activation, degree, well_typed, eTags, inter_count,
     CASE
         WHEN $query_tags_count = 0 THEN 1.0
         WHEN size(eTags) = 0       THEN $tag_sim_floor
         ELSE $tag_sim_floor
              + (1.0 - $tag_sim_floor)
              * toFloat(inter_count)
              / (size(eTags) + $query_tags_count - inter_count)
     END AS tag_sim

WITH parent_id, r, neighbor, degree, tag_sim, well_typed,
     CASE WHEN well_typed
          THEN (activation * coalesce(r.weight, 0.01) / sqrt(toFloat(degree))) * tag_sim
     END AS transfer_energy

WHERE transfer_energy > $min_threshold OR NOT well_typed

RETURN parent_id,
       properties(neighbor)  AS neighbor_data,
       labels(neighbor)      AS neighbor_labels,
       neighbor.id           AS neighbor_id,
       properties(r)         AS edge_data,
       elementId(r)          AS edge_eid,
       degree,
       tag_sim,
       transfer_energy
ORDER BY parent_id, transfer_energy DESC, neighbor_id`

// byIDMatch is the line of ExpandQuery that finds each frontier node by its
// id property: without a label, a scan of every node per frontier node.
const byIDMatch = "MATCH (current {id: f.node_id})\n"

// FastExpandQuery is ExpandQuery with each frontier node addressed by its
// element id (a NodeByElementIdSeek, one database hit, whatever the size of
// the graph) and the element id of each neighbour returned, to address it at
// the next level. Everything between is ExpandQuery's text, so the two
// return the same rows for the same frontier.
var FastExpandQuery = mustReplace(mustReplace(ExpandQuery,
	byIDMatch, "MATCH (current) WHERE elementId(current) = f.element_id\n"),
	"       transfer_energy\nORDER BY", "       transfer_energy,\n       elementId(neighbor)   AS neighbor_element_id\nORDER BY")

// BatchExpandQuery is FastExpandQuery for several explorations at once
// (docs/ALGORITHM.md, "One query for all seeds"): $requests holds one
// element per exploration, {i, frontier, visited_ids}, and each row says
// whose it is (`request`, its i). Each exploration's visited ids are its
// own; the thresholds and query tags are shared, so only explorations with
// equal ones are sent together. A row depends only on its frontier entry,
// its request's visited ids and the shared parameters, so each request gets
// exactly the rows FastExpandQuery gives it alone, in the same order.
var BatchExpandQuery = mustReplaceN(mustReplace(mustReplace(mustReplace(mustReplace(mustReplace(FastExpandQuery,
	"UNWIND $frontier AS f\n", "UNWIND $requests AS q\nUNWIND q.frontier AS f\n"),
	"WITH current, f.node_id AS parent_id,", "WITH q.i AS request, q.visited_ids AS visited_ids, current, f.node_id AS parent_id,"),
	"NOT neighbor.id IN $visited_ids", "NOT neighbor.id IN visited_ids"),
	"RETURN parent_id,", "RETURN request, parent_id,"),
	"ORDER BY parent_id,", "ORDER BY request, parent_id,"),
	"WITH parent_id, ", "WITH request, parent_id, ", 5)

// BatchNearQuery is BatchExpandQuery with a Near (activation.Near) applied
// on the server, for ExpandNear: each request carries `near`, a map from
// node id to its two hop counts, and each frontier entry its `limit`, two
// numbers or null. A frontier node with a limit keeps only the
// relationships to neighbours near holds with a hop count within the
// limit (a neighbour whose id is not a string is kept, so that the
// connector names it in its error as it does for BatchExpandQuery). The
// test comes before the tag and energy arithmetic, so a row left out costs
// neither that nor its transfer; the rows kept are BatchExpandQuery's, in
// its order.
var BatchNearQuery = mustReplace(mustReplace(BatchExpandQuery,
	"WITH q.i AS request, q.visited_ids AS visited_ids, current,", "WITH q.i AS request, q.visited_ids AS visited_ids, q.near AS near, f.limit AS limit, current,"),
	"WHERE neighbor.id IS NOT NULL AND NOT neighbor.id IN visited_ids\n",
	`WHERE neighbor.id IS NOT NULL AND NOT neighbor.id IN visited_ids
  AND (limit IS NULL OR NOT (neighbor.id IS :: STRING)
       OR any(d IN [CASE WHEN neighbor.id IS :: STRING THEN near[neighbor.id] END]
              WHERE d[0] <= limit[0] OR d[1] <= limit[1]))
`)

// BatchNearDegreesQuery is BatchNearQuery that also returns each
// neighbour's degree, counted as the parent's is (`neighbor_degree`), for a
// Near that asks for it (activation.Near.Degrees: why's search bounds the
// hops out of a node it has not read by it).
var BatchNearDegreesQuery = mustReplace(BatchNearQuery,
	"       elementId(neighbor)   AS neighbor_element_id\nORDER BY",
	"       elementId(neighbor)   AS neighbor_element_id,\n       COUNT { (neighbor)-[:RELATES]-() } AS neighbor_degree\nORDER BY")

// batchSeedQuery is the fast path's seed lookup (docs/ALGORITHM.md,
// "Indexes"), for several seeds at once: each node by id among the labels
// that have an id index, which Neo4j plans as a union of index seeks.
// $requests holds {i, node_id} per seed; each row says whose it is
// (`request`) and returns what SeedQuery returns for such a node, plus its
// element id.
func batchSeedQuery(labels []string) string {
	return `UNWIND $requests AS q
MATCH (n) WHERE n.id = q.node_id AND (` + labelDisjunction("n", labels) + `)
RETURN q.i AS request, properties(n) AS data, labels(n) AS labels, elementId(n) AS element_id`
}

func mustReplace(s, old, new string) string { return mustReplaceN(s, old, new, 1) }

// mustReplaceN replaces old, which must occur exactly n times, by new.
func mustReplaceN(s, old, new string, n int) string {
	if strings.Count(s, old) != n {
		panic(fmt.Sprintf("onneo4j: the query text to replace is not there %d times: %s", n, old))
	}
	return strings.ReplaceAll(s, old, new)
}
