package neo4jdb

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/cypherlit"
	"github.com/memoria-graph/memoria/internal/retry"
)

// Neighbourhood is graph.Neighbourhood over a Neo4j database: each Read
// runs in one explicit read transaction, every query of it under the
// source's query deadline; nodes are found through the id indexes (a scan
// only for a node no index covers, as the Activation Energy fast path
// does) and every frontier is addressed by element id, one query per hop
// for all its nodes (docs/RETRIEVERS.md, "Reading a graph"). It is safe for
// concurrent use.
type Neighbourhood struct {
	src *Source

	mu       sync.Mutex
	coverage *IDCoverage // read by the first Read, kept

	// trace, when set (by tests), sees every query a reader runs.
	trace func(query string, params map[string]any)

	// filter, when not nil, is the relationship filter Around and Arcs
	// apply in their queries (Filtered).
	filter *graph.RelFilter
}

// NewNeighbourhood returns the neighbourhood reads over src.
func NewNeighbourhood(src *Source) *Neighbourhood { return &Neighbourhood{src: src} }

// Filtered returns the neighbourhood reads over src with f applied in the
// queries (RelFilterWhere): Around and Arcs leave out the relationships f
// does not keep; Degrees, Strengths and Facts' degrees stay the graph's
// (graph.RelFilter).
func Filtered(src *Source, f graph.RelFilter) *Neighbourhood {
	n := &Neighbourhood{src: src}
	if f.Active() {
		n.filter = &f
	}
	return n
}

var _ graph.Neighbourhood = (*Neighbourhood)(nil)

// SetTrace makes every query a reader runs call fn first (tests use it to
// EXPLAIN what runs); nil stops it. Call it before any Read.
func (n *Neighbourhood) SetTrace(fn func(query string, params map[string]any)) { n.trace = fn }

func (n *Neighbourhood) indexed(ctx context.Context) ([]string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.coverage == nil {
		c, err := n.src.IDCoverage(ctx)
		if err != nil {
			return nil, err
		}
		n.coverage = &c
	}
	return n.coverage.Indexed, nil
}

// Read runs fn in one read transaction, once more after a transient
// failure (fn then starts afresh).
func (n *Neighbourhood) Read(ctx context.Context, fn func(graph.Reader) error) error {
	indexed, err := n.indexed(ctx)
	if err != nil {
		return err
	}
	return retry.Do(ctx, 1, nil, func() error {
		sess := n.src.OpenSession(ctx)
		defer sess.Close(ctx)
		tx, err := sess.Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Close(ctx)
		return fn(&txReader{tx: tx, indexed: indexed, trace: n.trace, filter: n.filter, m: n.src.mapping(), src: n.src})
	})
}

type txReader struct {
	tx      *Tx
	indexed []string
	trace   func(string, map[string]any)
	filter  *graph.RelFilter // applied by Around and Arcs; nil for none
	// m is the source's mapping, nil under memoria's own schema
	// (schema.go).
	m   *mapping
	src *Source

	// checked is set once Strengths or Arcs has asked whether what the
	// source keeps is current (keptReads.current); gen and keep are its
	// answer.
	checked, keep bool
	gen           uint64
}

// where is the reader's filter predicate on r, its parameters added to
// params ("" without a filter).
func (r *txReader) where(params map[string]any) string {
	if r.filter == nil {
		return ""
	}
	return r.src.RelFilterWhereSchema(*r.filter, "r", params)
}

func (r *txReader) collect(ctx context.Context, query string, params map[string]any) ([]map[string]any, error) {
	if r.trace != nil {
		r.trace(query, params)
	}
	recs, err := r.tx.Collect(ctx, query, params)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, len(recs))
	for i, rec := range recs {
		out[i] = rec.AsMap()
	}
	return out, nil
}

// NodesIndexQuery finds nodes by id through the id indexes of the labels
// given; NodesScanQuery is the fallback for ids it did not find.
func NodesIndexQuery(labels []string) string {
	parts := make([]string, len(labels))
	for i, l := range labels {
		parts[i] = "n:" + cypherlit.QuoteName(l)
	}
	return `UNWIND $ids AS id
MATCH (n) WHERE n.id = id AND (` + strings.Join(parts, " OR ") + `)
RETURN id, properties(n) AS data, labels(n) AS labels, elementId(n) AS element_id
ORDER BY id, element_id`
}

// NodesScanQuery is NodesIndexQuery for nodes no index covers: it reads
// every node.
const NodesScanQuery = `UNWIND $ids AS id
MATCH (n {id: id})
RETURN id, properties(n) AS data, labels(n) AS labels, elementId(n) AS element_id
ORDER BY id, element_id`

// AroundQuery reads every relationship around the frontier, addressed by
// element id, with the frontier node's degree: one query per hop. It is
// lean (graph.Reader): the relationship's weight and tags, not its
// properties, and the other end's id and labels, not its properties.
var AroundQuery = AroundQueryWhere("")

// AroundQueryWhere is AroundQuery keeping only the relationships r for
// which the predicate where holds (RelFilterWhere's; "" for all). The
// degree stays the node's, over every relationship.
func AroundQueryWhere(where string) string {
	return `UNWIND $refs AS ref
MATCH (n) WHERE elementId(n) = ref
WITH n, ref, COUNT { (n)--() } AS degree
MATCH (n)-[r]-(m) WHERE m.id IS :: STRING NOT NULL` + and(where) + `
RETURN ref, degree, type(r) AS type, elementId(r) AS rel_element_id, r.weight AS weight, r.tags AS tags,
       m.id AS other_id, labels(m) AS other_labels, elementId(m) AS other_element_id`
}

// and is " AND (where)", or "" for no predicate.
func and(where string) string {
	if where == "" {
		return ""
	}
	return " AND (" + where + ")"
}

// NodeDetailsQuery and RelDetailsQuery read the properties of nodes and
// relationships by element id (Details).
const (
	NodeDetailsQuery = `UNWIND $refs AS ref
MATCH (n) WHERE elementId(n) = ref
RETURN ref, properties(n) AS props`
	RelDetailsQuery = `UNWIND $refs AS ref
MATCH ()-[r]->() WHERE elementId(r) = ref
RETURN ref, properties(r) AS props`
)

// DegreesQuery counts, by element id, each node's relationships of type
// relType (a self-loop once, as AroundQuery's degree): one query for all.
func DegreesQuery(relType string) string {
	return `UNWIND $refs AS ref
MATCH (n) WHERE elementId(n) = ref
RETURN ref, COUNT { (n)-[:` + cypherlit.QuoteName(relType) + `]-() } AS degree`
}

// Degrees reads the nodes' degrees over relType in one query
// (graph.Reader).
func (r *txReader) Degrees(ctx context.Context, nodes []graph.NodeRef, relType string) ([]int64, error) {
	out := make([]int64, len(nodes))
	query, params := DegreesQuery(relType), map[string]any(nil)
	if r.m != nil {
		params = map[string]any{}
		query = r.m.degreesQuery(relType, params)
	}
	rows, err := r.rowsByRef(ctx, query, nodes, params)
	if err != nil {
		return nil, err
	}
	for i, n := range nodes {
		if row, ok := rows[n.Ref]; ok {
			d, ok := row["degree"].(int64)
			if !ok {
				return nil, errors.New("degrees: column degree is not an integer")
			}
			out[i] = d
		}
	}
	return out, nil
}

// rowsByRef runs query, one of the reads by element id, for the nodes
// (each once, as $refs, beside params) and returns its rows by their ref
// column; none for no nodes.
func (r *txReader) rowsByRef(ctx context.Context, query string, nodes []graph.NodeRef, params map[string]any) (map[string]map[string]any, error) {
	if len(nodes) == 0 {
		return nil, nil
	}
	refs := make([]string, len(nodes))
	for i, n := range nodes {
		refs[i] = n.Ref
	}
	args := map[string]any{"refs": uniq(refs)}
	for k, v := range params {
		args[k] = v
	}
	rows, err := r.collect(ctx, query, args)
	if err != nil {
		return nil, err
	}
	out := make(map[string]map[string]any, len(rows))
	for _, row := range rows {
		ref, _ := row["ref"].(string)
		out[ref] = row
	}
	return out, nil
}

// StrengthsQuery reads, by element id, each node's strength over relType
// (graph.Reader.Strengths): the weights of its relationships of that type
// to nodes with an id ($missing for one without a weight), sorted
// ascending and added from the smallest, server-side, as
// graph.SumWeights does (IEEE double addition in the same order gives the
// same bits). A weight that is not a number gives no total; the least
// weight comes back so that the client can tell a negative one.
func StrengthsQuery(relType string) string {
	return `UNWIND $refs AS ref
MATCH (n) WHERE elementId(n) = ref
WITH ref, COLLECT { MATCH (n)-[r:` + cypherlit.QuoteName(relType) + `]-(m) WHERE m.id IS :: STRING NOT NULL
                    WITH coalesce(r.weight, $missing) AS w RETURN w ORDER BY w } AS ws
RETURN ref, size(ws) AS count, ws[0] AS least,
       CASE WHEN all(w IN ws WHERE w IS :: INTEGER NOT NULL OR w IS :: FLOAT NOT NULL)
            THEN reduce(s = 0.0, w IN ws | s + w) END AS total`
}

// Strengths reads the nodes' strengths over relType in one query
// (graph.Reader), for the nodes whose strengths the source does not keep
// from an earlier read of the same database (keptReads; the values as
// read).
func (r *txReader) Strengths(ctx context.Context, nodes []graph.NodeRef, relType string, missing float64) ([]graph.Strength, error) {
	out := make([]graph.Strength, len(nodes))
	query, params := StrengthsQuery(relType), map[string]any{"missing": missing}
	if r.m != nil {
		params["missing"] = r.m.missing(relType, missing)
		query = r.m.strengthsQuery(relType, params)
	}
	if len(nodes) == 0 {
		return out, nil
	}
	if err := r.check(ctx); err != nil {
		return nil, err
	}
	c := r.src.kept
	fparams := map[string]any{}
	key := keptKey(r.src.database, query, params, r.where(fparams), fparams)
	var miss []int // the positions of the nodes not kept
	if r.keep {
		miss = lookupInto(c, &c.strengths, key, nodes, out)
	} else {
		miss = make([]int, len(nodes))
		for i := range miss {
			miss[i] = i
		}
	}
	if len(miss) == 0 {
		return out, nil
	}
	ask := make([]string, len(miss))
	for j, i := range miss {
		ask[j] = nodes[i].Ref
	}
	params["refs"] = uniq(ask)
	rows, err := r.collect(ctx, query, params)
	if err != nil {
		return nil, err
	}
	c.strengthsRead.Add(int64(len(rows)))
	read := make(map[string]graph.Strength, len(rows))
	for _, row := range rows {
		ref, _ := row["ref"].(string)
		read[ref] = strengthOf(row)
	}
	if r.keep {
		put(c, &c.strengths, key, r.gen, read)
	}
	for _, i := range miss {
		out[i] = graph.Strength{Clean: true}
		if w, ok := read[nodes[i].Ref]; ok {
			out[i] = w
		}
	}
	return out, nil
}

// check asks, on the reader's first Strengths or Arcs call, whether what
// the source keeps is current (keptReads.current), keeping the answer.
func (r *txReader) check(ctx context.Context) error {
	if r.checked {
		return nil
	}
	gen, keep, err := r.src.kept.current(ctx, r.src)
	if err != nil {
		return err
	}
	r.checked, r.gen, r.keep = true, gen, keep
	return nil
}

// strengthOf reads a StrengthsQuery row: clean when the total is a finite
// number and the least weight is at least 0.
func strengthOf(row map[string]any) graph.Strength {
	if c, _ := row["count"].(int64); c == 0 {
		return graph.Strength{Clean: true}
	}
	total, ok := row["total"].(float64)
	if !ok || math.IsNaN(total) || math.IsInf(total, 0) {
		return graph.Strength{}
	}
	switch least := row["least"].(type) {
	case int64:
		if least < 0 {
			return graph.Strength{}
		}
	case float64:
		if !(least >= 0) {
			return graph.Strength{}
		}
	default:
		return graph.Strength{}
	}
	return graph.Strength{Total: total, Clean: true}
}

// ArcsQuery reads, by element id, the relationships of type relType
// around each node, leanly (graph.Reader.Arcs): one row per node, holding
// the other ends' ids and element ids and the weights ($missing for one
// without) as three lists in step (a row per relationship would cost the
// driver three times as much).
func ArcsQuery(relType string) string { return ArcsQueryWhere(relType, "") }

// ArcsQueryWhere is ArcsQuery keeping only the relationships r for which
// the predicate where holds (RelFilterWhere's; "" for all).
func ArcsQueryWhere(relType, where string) string {
	return `UNWIND $refs AS ref
MATCH (n) WHERE elementId(n) = ref
CALL (n) {
  MATCH (n)-[r:` + cypherlit.QuoteName(relType) + `]-(m) WHERE m.id IS :: STRING NOT NULL` + and(where) + `
  RETURN collect(m.id) AS other_ids, collect(elementId(m)) AS other_element_ids,
         collect(coalesce(r.weight, $missing)) AS weights
}
RETURN ref, other_ids, other_element_ids, weights`
}

// Arcs reads the relationships of type relType around from in one query
// (graph.Reader): each node's arcs by the other end's element id, then
// weight. The arcs of a node the source keeps from an earlier read of the
// same database (keptReads) are not asked for again.
func (r *txReader) Arcs(ctx context.Context, from []graph.NodeRef, relType string, missing float64) ([]graph.Arc, error) {
	pos := make(map[string]int32, len(from))
	refs := make([]string, 0, len(from))
	for i, f := range from {
		if _, ok := pos[f.Ref]; !ok {
			pos[f.Ref] = int32(i)
			refs = append(refs, f.Ref)
		}
	}
	if len(refs) == 0 {
		return nil, nil
	}
	params := map[string]any{"missing": missing}
	query := ArcsQueryWhere(relType, r.where(params))
	if r.m != nil {
		missing = r.m.missing(relType, missing)
		params["missing"] = missing
		query = r.m.arcsQuery(relType, r.where(params), params)
	}
	if err := r.check(ctx); err != nil {
		return nil, err
	}
	c := r.src.kept
	key := keptKey(r.src.database, query, params, "", nil)
	var got map[string][]keptArc
	ask := refs
	if r.keep {
		got, ask = lookup(c, &c.arcs, key, refs)
	}
	if len(ask) > 0 {
		params["refs"] = ask
		rows, err := r.collect(ctx, query, params)
		if err != nil {
			return nil, err
		}
		c.arcsRead.Add(int64(len(rows)))
		read := make(map[string][]keptArc, len(rows))
		for _, row := range rows {
			ref, _ := row["ref"].(string)
			at, ok := pos[ref]
			if !ok {
				return nil, fmt.Errorf("arcs: a row for an element id not asked for (%s)", strconv.Quote(ref))
			}
			ids, _ := row["other_ids"].([]any)
			eids, _ := row["other_element_ids"].([]any)
			ws, _ := row["weights"].([]any)
			if len(eids) != len(ids) || len(ws) != len(ids) {
				return nil, errors.New("arcs: the lists of a row are not in step")
			}
			arcs := make([]keptArc, 0, len(ids))
			for i := range ids {
				id, ok := ids[i].(string)
				eid, ok2 := eids[i].(string)
				if !ok || !ok2 {
					return nil, fmt.Errorf("arcs: node %s: an other end's id or element id is not a string", strconv.Quote(from[at].Node.ID))
				}
				w, err := graph.WeightOf(map[string]any{"weight": ws[i]})
				if err != nil {
					return nil, fmt.Errorf("relationship (%s)-[:%s]-(%s): %w", strconv.Quote(from[at].Node.ID), relType, strconv.Quote(id), err)
				}
				x := missing
				if w != nil {
					x = *w
				}
				arcs = append(arcs, keptArc{id: id, ref: eid, weight: x})
			}
			slices.SortStableFunc(arcs, func(a, b keptArc) int {
				if c := strings.Compare(a.ref, b.ref); c != 0 {
					return c
				}
				return cmp.Compare(a.weight, b.weight)
			})
			read[ref] = arcs
		}
		if r.keep {
			put(c, &c.arcs, key, r.gen, read)
		}
		if got == nil {
			got = read
		} else {
			maps.Copy(got, read)
		}
	}
	// refs are in from's order (each node's first place), so the arcs
	// come out in order of From.
	n := 0
	for _, arcs := range got {
		n += len(arcs)
	}
	out := make([]graph.Arc, 0, n)
	for _, ref := range refs {
		at := pos[ref]
		for _, a := range got[ref] {
			out = append(out, graph.Arc{From: at, To: graph.NodeRef{Node: graph.Node{ID: a.id}, Ref: a.ref}, Weight: a.weight})
		}
	}
	return out, nil
}

// FactsQuery reads, by element id, the properties named in $keys that
// each node has (as a list of [key, value] pairs) and its degree over
// relType (graph.Reader.Facts).
func FactsQuery(relType string) string {
	return `UNWIND $refs AS ref
MATCH (n) WHERE elementId(n) = ref
RETURN ref, [k IN $keys WHERE n[k] IS NOT NULL | [k, n[k]]] AS props,
       COUNT { (n)-[:` + cypherlit.QuoteName(relType) + `]-() } AS degree`
}

// Facts reads the named properties and degrees of nodes in one query
// (graph.Reader).
func (r *txReader) Facts(ctx context.Context, nodes []graph.NodeRef, keys []string, relType string) ([]graph.Facts, error) {
	out := make([]graph.Facts, len(nodes))
	if keys == nil {
		keys = []string{}
	}
	query, params := FactsQuery(relType), map[string]any{"keys": keys}
	if r.m != nil {
		query = r.m.factsQuery(relType, params)
	}
	rows, err := r.rowsByRef(ctx, query, nodes, params)
	if err != nil {
		return nil, err
	}
	got := make(map[string]graph.Facts, len(rows))
	for ref, row := range rows {
		d, ok := row["degree"].(int64)
		if !ok {
			return nil, errors.New("facts: column degree is not an integer")
		}
		pairs, _ := row["props"].([]any)
		props := make(map[string]any, len(pairs))
		for _, p := range pairs {
			kv, ok := p.([]any)
			if !ok || len(kv) != 2 {
				return nil, errors.New("facts: column props is not a list of pairs")
			}
			k, _ := kv[0].(string)
			props[k] = kv[1]
		}
		props = plainProps(props)
		f := graph.Facts{Values: make([]any, len(keys)), Degree: d}
		for k, key := range keys {
			f.Values[k] = props[key]
		}
		got[ref] = f
	}
	for i, n := range nodes {
		out[i] = got[n.Ref]
	}
	return out, nil
}

// NodeNums is 0: Neo4j's refs carry no Num (graph.Reader).
func (r *txReader) NodeNums() int32 { return 0 }

// Nodes finds the nodes whose id is in ids (graph.Reader). Ids must be
// unique: two nodes with one id are an error naming it.
func (r *txReader) Nodes(ctx context.Context, ids []string) ([]graph.NodeRef, error) {
	want := uniq(ids)
	found := map[string]graph.NodeRef{}
	queries := []string{NodesScanQuery}
	if len(r.indexed) > 0 {
		queries = []string{NodesIndexQuery(r.indexed), NodesScanQuery}
	}
	shared := map[string]any{}
	if r.m != nil {
		want = slices.DeleteFunc(want, func(id string) bool { return id == "" })
		queries = r.m.nodesQueries(r.indexed, shared)
	}
	for _, q := range queries {
		var missing []string
		for _, id := range want {
			if _, ok := found[id]; !ok {
				missing = append(missing, id)
			}
		}
		if len(missing) == 0 {
			break
		}
		rows, err := r.collect(ctx, q, with(shared, map[string]any{"ids": missing}))
		if err != nil {
			return nil, err
		}
		for _, row := range rows {
			ref, err := nodeRefOf(row, "id", "data", "labels", "element_id")
			if err != nil {
				return nil, err
			}
			if _, dup := found[ref.Node.ID]; dup {
				return nil, fmt.Errorf("Neo4j has several nodes with id %s; node ids must be unique", strconv.Quote(ref.Node.ID))
			}
			found[ref.Node.ID] = ref
		}
	}
	out := make([]graph.NodeRef, 0, len(found))
	for _, id := range want {
		if ref, ok := found[id]; ok {
			out = append(out, ref)
		}
	}
	return out, nil
}

// Around reads the relationships around from in one query (graph.Reader).
func (r *txReader) Around(ctx context.Context, from []graph.NodeRef) ([]graph.Rel, error) {
	byRef := make(map[string]string, len(from))
	refs := make([]string, 0, len(from))
	for _, f := range from {
		if _, ok := byRef[f.Ref]; !ok {
			byRef[f.Ref] = f.Node.ID
			refs = append(refs, f.Ref)
		}
	}
	if len(refs) == 0 {
		return nil, nil
	}
	params := map[string]any{"refs": refs}
	query := AroundQueryWhere(r.where(params))
	if r.m != nil {
		query = r.m.aroundQuery(r.where(params), params)
	}
	rows, err := r.collect(ctx, query, params)
	if err != nil {
		return nil, err
	}
	out := make([]graph.Rel, 0, len(rows))
	for _, row := range rows {
		ref, _ := row["ref"].(string)
		fromID, ok := byRef[ref]
		if !ok {
			return nil, fmt.Errorf("around: a row for an element id not asked for (%s)", strconv.Quote(ref))
		}
		deg, ok := row["degree"].(int64)
		if !ok {
			return nil, errors.New("around: column degree is not an integer")
		}
		to, err := leanNodeRef(row)
		if err != nil {
			return nil, err
		}
		typ, _ := row["type"].(string)
		eid, _ := row["rel_element_id"].(string)
		if r.m != nil {
			trav := r.m.s.Traverses(typ)
			if trav {
				typ = graph.Relates
			}
			rel := graph.Rel{To: to, Degree: deg}
			edge := graph.Edge{SourceID: fromID, TargetID: to.Node.ID, Type: typ, ElementID: eid}
			edge.Weight, edge.Tags, rel.BadWeight = r.m.relWeightTags(trav, row["weight"], row["tags"])
			rel.Edge = edge
			out = append(out, rel)
			continue
		}
		lean := map[string]any{}
		for _, k := range []string{"weight", "tags"} {
			if v, ok := row[k]; ok && v != nil {
				lean[k] = v
			}
		}
		lean = plainProps(lean)
		rel := graph.Rel{To: to, Degree: deg}
		edge := graph.Edge{SourceID: fromID, TargetID: to.Node.ID, Type: typ, ElementID: eid}
		edge.Weight, rel.BadWeight = graph.WeightOf(lean)
		edge.Tags, _ = graph.TagsOf(lean)
		rel.Edge = edge
		out = append(out, rel)
	}
	graph.SortRels(out, from)
	return out, nil
}

// leanNodeRef reads the other end of an Around row: id, labels, element
// id.
func leanNodeRef(row map[string]any) (graph.NodeRef, error) {
	id, ok := row["other_id"].(string)
	if !ok {
		return graph.NodeRef{}, fmt.Errorf("column other_id: expected a string, got %s", Describe(row["other_id"]))
	}
	labels, err := labelsOf(id, row["other_labels"])
	if err != nil {
		return graph.NodeRef{}, err
	}
	eid, ok := row["other_element_id"].(string)
	if !ok {
		return graph.NodeRef{}, fmt.Errorf("node %s: column other_element_id is not a string", strconv.Quote(id))
	}
	return graph.NodeRef{Node: graph.Node{ID: id, Labels: labels}, Ref: eid}, nil
}

func labelsOf(id string, v any) ([]string, error) {
	raw, _ := v.([]any)
	labels := make([]string, 0, len(raw))
	for _, l := range raw {
		s, ok := l.(string)
		if !ok {
			return nil, fmt.Errorf("node %s: a label is not a string", strconv.Quote(id))
		}
		labels = append(labels, s)
	}
	return labels, nil
}

// Details reads the properties of nodes and relationships by element id:
// one query for the nodes, one for the relationships (none for an empty
// list).
func (r *txReader) Details(ctx context.Context, nodes []*graph.NodeRef, rels []*graph.Rel) error {
	props := func(query string, refs []string) (map[string]map[string]any, error) {
		out := map[string]map[string]any{}
		if len(refs) == 0 {
			return out, nil
		}
		rows, err := r.collect(ctx, query, map[string]any{"refs": uniq(refs)})
		if err != nil {
			return nil, err
		}
		for _, row := range rows {
			ref, _ := row["ref"].(string)
			p, ok := row["props"].(map[string]any)
			if !ok {
				return nil, errors.New("details: column props is not a map")
			}
			out[ref] = plainProps(p)
		}
		return out, nil
	}
	var refs []string
	for _, n := range nodes {
		refs = append(refs, n.Ref)
	}
	np, err := props(NodeDetailsQuery, refs)
	if err != nil {
		return err
	}
	for _, n := range nodes {
		if p, ok := np[n.Ref]; ok {
			n.Node.Properties = p
		}
	}
	refs = refs[:0]
	for _, rel := range rels {
		refs = append(refs, rel.Edge.ElementID)
	}
	rp, err := props(RelDetailsQuery, refs)
	if err != nil {
		return err
	}
	for _, rel := range rels {
		if p, ok := rp[rel.Edge.ElementID]; ok {
			rel.Edge.Properties = p
		}
	}
	return nil
}

// nodeRefOf reads a node from a row's columns: its id, properties, labels
// and element id.
func nodeRefOf(row map[string]any, idKey, propsKey, labelsKey, eidKey string) (graph.NodeRef, error) {
	id, ok := row[idKey].(string)
	if !ok {
		return graph.NodeRef{}, fmt.Errorf("column %s: expected a string, got %s", idKey, Describe(row[idKey]))
	}
	props, ok := row[propsKey].(map[string]any)
	if !ok {
		return graph.NodeRef{}, fmt.Errorf("node %s: column %s is not a map", strconv.Quote(id), propsKey)
	}
	labels, err := labelsOf(id, row[labelsKey])
	if err != nil {
		return graph.NodeRef{}, err
	}
	eid, ok := row[eidKey].(string)
	if !ok {
		return graph.NodeRef{}, fmt.Errorf("node %s: column %s is not a string", strconv.Quote(id), eidKey)
	}
	return graph.NodeRef{Node: graph.Node{ID: id, Labels: labels, Properties: plainProps(props)}, Ref: eid}, nil
}

func uniq(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
