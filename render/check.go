package render

import (
	"strings"

	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// checkBody follows a path query's MATCH (DebugCypher, without its RETURN)
// and recomputes every hop on the server from the raw properties, as
// docs/ALGORITHM.md defines them: w = coalesce(r.weight, 0.01); d = the
// RELATES degree of the hop's first node, both directions; tag_sim over the
// distinct edge tags and $query_tags (1.0 with no query tags, the floor for
// an edge without tags); T = (R × w / √d) × tag_sim left to right, R being
// $R for the first hop and the previous hop's T after. Each row is one hop,
// with memoria's T beside the server's ($memoria_t, in path order) and
// whether they are the same number.
const checkBody = `
UNWIND range(0, length(p) - 1) AS i
WITH p, i, nodes(p)[i] AS a, nodes(p)[i + 1] AS b, relationships(p)[i] AS r
WITH p, i, a, b, r, COUNT { (a)-[:RELATES]-() } AS d,
     reduce(s = [], t IN coalesce(r.tags, []) | CASE WHEN t IN s THEN s ELSE s + t END) AS e
WITH p, i, a, b, r, d, e, size([t IN e WHERE t IN $query_tags]) AS inter
WITH p, i, a.id AS from_id, b.id AS to_id, coalesce(r.weight, 0.01) AS w, d,
     CASE
         WHEN size($query_tags) = 0 THEN 1.0
         WHEN size(e) = 0 THEN $tag_sim_floor
         ELSE $tag_sim_floor + (1.0 - $tag_sim_floor) * toFloat(inter) / (size(e) + size($query_tags) - inter)
     END AS tag_sim
ORDER BY i
WITH p, collect({i: i, from_id: from_id, to_id: to_id, w: w, d: d, tag_sim: tag_sim}) AS hops
WITH reduce(acc = {r: toFloat($R), hops: []}, h IN hops |
       {r: (acc.r * h.w / sqrt(toFloat(h.d))) * h.tag_sim,
        hops: acc.hops + [h {.*, R: acc.r, T: (acc.r * h.w / sqrt(toFloat(h.d))) * h.tag_sim}]}).hops AS checked
UNWIND checked AS h
RETURN h.i + 1 AS hop, h.from_id AS from_id, h.to_id AS to_id, h.R AS R, h.w AS w, h.d AS d,
       h.tag_sim AS tag_sim, h.T AS T, $memoria_t[h.i] AS memoria_T, h.T = $memoria_t[h.i] AS same
ORDER BY hop`

// CheckCypher is a query that recomputes each hop of p on Neo4j from the
// raw properties (w, tags, degree) and compares it with memoria's T: the
// path is matched as DebugCypher matches it, and the seed's score r, the
// query tags (normalised, as the run used them) and the tag_sim floor are
// parameters $R, $query_tags and $tag_sim_floor; $memoria_t lists memoria's T
// per hop. Every row should say same = true. A path without steps gives an
// empty query.
func CheckCypher(p activation.Path, r float64, queryTags []string, floor float64) DebugQuery {
	return ownShape.CheckCypher(p, r, queryTags, floor)
}

// CheckCypher is the package's CheckCypher under the mapping: the
// degree over the traversed types in the mapped graph, the mapped id,
// weight (its default for a missing one) and tags (split on the
// separator).
func (c Cypher) CheckCypher(p activation.Path, r float64, queryTags []string, floor float64) DebugQuery {
	q := c.DebugCypher(p)
	if q.Query == "" {
		return q
	}
	q.Query = strings.TrimSuffix(q.Query, " RETURN p") + c.checkBody(q.Params)
	ts := make([]any, len(p.Steps))
	for i, st := range p.Steps {
		ts[i] = st.TransferEnergy
	}
	tags := make([]any, 0, len(queryTags))
	for _, t := range retriever.NormalizeTags(queryTags) {
		tags = append(tags, t)
	}
	q.Params["R"] = r
	q.Params["query_tags"] = tags
	q.Params["tag_sim_floor"] = floor
	q.Params["memoria_t"] = ts
	return q
}

// CheckCypherAll gives one check query per path with at least one step, in
// the order (and so the numbering) of DebugCypherAll, each with its seed's
// score; tags and floor are the run's.
func CheckCypherAll(tags []string, floor float64, results ...activation.Result) []DebugQuery {
	return ownShape.CheckCypherAll(tags, floor, results...)
}

// CheckCypherAll is the package's CheckCypherAll under the mapping.
func (c Cypher) CheckCypherAll(tags []string, floor float64, results ...activation.Result) []DebugQuery {
	qs := []DebugQuery{}
	for _, r := range results {
		for _, p := range nonEmptyPaths([]activation.Result{r}) {
			qs = append(qs, c.CheckCypher(p, r.Seed.Score, tags, floor))
		}
	}
	return qs
}
