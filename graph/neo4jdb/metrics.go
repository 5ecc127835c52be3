package neo4jdb

import (
	"context"
	"fmt"
	"maps"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/retry"
)

var _ graph.MetricsReader = (*Source)(nil)

// Metrics queries. Each returns aggregates only, never the graph: the
// relationship counts by type, the self-loops, the degree histogram (a row
// per distinct degree), the hubs (one row, its list bounded by $limit) and
// the clustering figures of the sampled nodes (a row per distinct (k,
// links) pair). The degree is rule 1's: COUNT { (n)-[:RELATES]-() } counts
// a self-loop once.
const (
	relsByTypeQuery = `MATCH ()-[r]->() RETURN type(r) AS type, count(*) AS count ORDER BY type`
	selfLoopsQuery  = `MATCH (n)-[r:RELATES]->(n) RETURN count(r) AS count`
	degreeHistQuery = `MATCH (n)
WITH COUNT { (n)-[:RELATES]-() } AS degree
RETURN degree, count(*) AS nodes ORDER BY degree`
	hubsQuery = `MATCH (n) WHERE n.id IS :: STRING NOT NULL
WITH n.id AS id, COUNT { (n)-[:RELATES]-() } AS degree
WHERE degree >= $min
WITH id, degree ORDER BY degree DESC, id
WITH collect([id, degree]) AS hubs
RETURN size(hubs) AS count, hubs[..$limit] AS hubs`
	// clusteringQuery numbers the nodes of degree ≥ 2 by element id
	// (0, 1, ...), keeps those at $positions (graph.SamplePositions), and
	// for each counts its distinct other neighbours (k) and the distinct
	// linked pairs among them (links): the simple graph, self-loops out.
	clusteringQuery = `MATCH (n) WHERE COUNT { (n)-[:RELATES]-() } >= 2
WITH n ORDER BY elementId(n)
WITH collect(n) AS ns
UNWIND $positions AS p
WITH ns[p] AS n
CALL (n) {
  MATCH (n)-[:RELATES]-(m) WHERE m <> n
  RETURN collect(DISTINCT m) AS nb
}
CALL (nb) {
  UNWIND nb AS a
  MATCH (a)-[:RELATES]-(b)
  WHERE elementId(a) < elementId(b) AND b IN nb
  RETURN count(DISTINCT [elementId(a), elementId(b)]) AS links
}
RETURN size(nb) AS k, links, count(*) AS nodes`
)

// Metrics computes the database's metrics (under a mapping, of the graph
// it keeps: schemacatalog.go): counts, the degree histogram
// (hence the average and the percentiles) and the hubs exactly, by
// aggregations; the clustering coefficient over a sample of opt.Sample
// nodes of degree ≥ 2 drawn with opt.Seed (graph.SamplePositions over the
// nodes in element-id order: the same database and seed give the same
// sample), exact when there are no more such nodes than that. Each step is
// a read transaction under the query deadline, tried once more after a
// transient failure.
func (s *Source) Metrics(ctx context.Context, opt graph.MetricsOptions) (graph.Metrics, error) {
	opt = opt.Normalized()
	qs, params := s.metricsQueries()
	traversed := s.Schema().Traverses
	var m graph.Metrics
	hist, err := readOnce(ctx, s, func(ctx context.Context, tx neo4j.ManagedTransaction) ([]graph.DegreeCount, error) {
		recs, err := collect(ctx, tx, qs.relsByType, params)
		if err != nil {
			return nil, err
		}
		m.ByType, m.Relationships, m.Relates = nil, 0, 0
		for _, rec := range recs {
			typ, c, err := stringCount(rec, "type", "count")
			if err != nil {
				return nil, err
			}
			m.ByType = append(m.ByType, graph.TypeCount{Type: typ, Count: c})
			m.Relationships += c
			if traversed(typ) {
				m.Relates += c
			}
		}
		if m.SelfLoops, err = count(ctx, tx, qs.selfLoops, params); err != nil {
			return nil, err
		}
		if recs, err = collect(ctx, tx, qs.degreeHist, params); err != nil {
			return nil, err
		}
		hist := make([]graph.DegreeCount, 0, len(recs))
		for _, rec := range recs {
			v, err := int64Columns(rec, "degree", "nodes")
			if err != nil {
				return nil, err
			}
			hist = append(hist, graph.DegreeCount{Degree: v[0], Nodes: v[1]})
		}
		return hist, nil
	})
	if err != nil {
		return graph.Metrics{}, fmt.Errorf("counting relationships and degrees: %w", err)
	}
	m.FillDegrees(hist)
	tags, err := s.Tags(ctx)
	if err != nil {
		return graph.Metrics{}, fmt.Errorf("counting tags: %w", err)
	}
	m.Tags = len(tags)
	if m.HubDegree > 0 {
		if err := s.hubs(ctx, qs.hubs, params, &m, opt.MaxHubs); err != nil {
			return graph.Metrics{}, fmt.Errorf("listing hubs: %w", err)
		}
	}
	if err := s.clustering(ctx, qs.clustering, params, &m, opt); err != nil {
		return graph.Metrics{}, fmt.Errorf("clustering: %w", err)
	}
	return m, nil
}

// hubs fills m.HubCount and m.Hubs (at most limit) by query, with params.
func (s *Source) hubs(ctx context.Context, query string, params map[string]any, m *graph.Metrics, limit int) error {
	recs, err := s.Query(ctx, query, with(params, map[string]any{"min": m.HubDegree, "limit": int64(limit)}))
	if err != nil {
		return err
	}
	if len(recs) != 1 {
		return fmt.Errorf("the hubs query returned %d rows, want 1", len(recs))
	}
	if m.HubCount, err = Column[int64](recs[0], "count"); err != nil {
		return err
	}
	list, err := Column[[]any](recs[0], "hubs")
	if err != nil {
		return err
	}
	m.Hubs = nil
	for _, h := range list {
		pair, ok := h.([]any)
		if !ok || len(pair) != 2 {
			return fmt.Errorf("the hubs query returned %s, want [id, degree]", Describe(h))
		}
		id, ok1 := pair[0].(string)
		d, ok2 := pair[1].(int64)
		if !ok1 || !ok2 {
			return fmt.Errorf("the hubs query returned %s, want [id, degree]", Describe(h))
		}
		m.Hubs = append(m.Hubs, graph.NodeDegree{ID: id, Degree: d})
	}
	return nil
}

// clustering fills m.Clustering from a sample of the nodes of degree ≥ 2
// (their number is the histogram's) by query, with params.
func (s *Source) clustering(ctx context.Context, query string, params map[string]any, m *graph.Metrics, opt graph.MetricsOptions) error {
	var population int64
	for _, h := range m.Histogram {
		if h.Degree >= 2 {
			population += h.Nodes
		}
	}
	positions := graph.SamplePositions(population, opt.Sample, opt.Seed)
	m.Clustering = graph.Clustering{}
	if population > int64(opt.Sample) {
		m.Clustering = graph.Clustering{Sampled: true, Sample: int64(len(positions)), Population: population, Seed: opt.Seed}
	}
	if len(positions) == 0 {
		return nil
	}
	recs, err := s.Query(ctx, query, with(params, map[string]any{"positions": positions}))
	if err != nil {
		return err
	}
	var locals []graph.LocalClustering
	for _, rec := range recs {
		v, err := int64Columns(rec, "k", "links", "nodes")
		if err != nil {
			return err
		}
		for range v[2] {
			locals = append(locals, graph.LocalClustering{K: v[0], Links: v[1]})
		}
	}
	m.Clustering.Coefficient, m.Clustering.Nodes = graph.AverageClustering(locals)
	return nil
}

// Degrees returns the RELATES degree of each node of ids that exists: the
// retrievers' reads (Neighbourhood: the nodes through the id indexes, then
// one degree query by element id), in one read transaction.
func (s *Source) Degrees(ctx context.Context, ids []string) (map[string]int64, error) {
	var out map[string]int64
	err := s.neighbourhood().Read(ctx, func(r graph.Reader) error {
		out = make(map[string]int64, len(ids))
		refs, err := r.Nodes(ctx, ids)
		if err != nil || len(refs) == 0 {
			return err
		}
		d, err := r.Degrees(ctx, refs, graph.Relates)
		if err != nil {
			return err
		}
		for i, ref := range refs {
			out[ref.Node.ID] = d[i]
		}
		return nil
	})
	return out, err
}

// neighbourhood is the source's Neighbourhood, made once.
func (s *Source) neighbourhood() *Neighbourhood {
	s.nbOnce.Do(func() { s.nb = NewNeighbourhood(s) })
	return s.nb
}

// readOnce is Read tried once more after a transient failure.
func readOnce[T any](ctx context.Context, s *Source, work func(context.Context, neo4j.ManagedTransaction) (T, error)) (T, error) {
	var out T
	err := retry.Do(ctx, 1, nil, func() (err error) {
		out, err = Read(ctx, s, work)
		return err
	})
	return out, err
}

// int64Columns reads the integer columns keys of rec.
func int64Columns(rec *neo4j.Record, keys ...string) ([]int64, error) {
	out := make([]int64, len(keys))
	for i, k := range keys {
		var err error
		if out[i], err = Column[int64](rec, k); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// stringCount reads a string column and an integer column of rec.
func stringCount(rec *neo4j.Record, key, countKey string) (string, int64, error) {
	s, err := Column[string](rec, key)
	if err != nil {
		return "", 0, err
	}
	n, err := Column[int64](rec, countKey)
	return s, n, err
}

// count runs a query whose one row has a column count.
func count(ctx context.Context, tx neo4j.ManagedTransaction, query string, params map[string]any) (int64, error) {
	res, err := tx.Run(ctx, query, params)
	if err != nil {
		return 0, err
	}
	rec, err := res.Single(ctx)
	if err != nil {
		return 0, err
	}
	return Column[int64](rec, "count")
}

// metricsQueries are the metrics queries of the source's mapping (the
// unmapped ones under memoria's own schema) and their parameters.
func (s *Source) metricsQueries() (metricsQueries, map[string]any) {
	params := map[string]any{}
	if m := s.mapping(); m != nil {
		return m.metrics(params), params
	}
	return metricsQueries{relsByType: relsByTypeQuery, selfLoops: selfLoopsQuery, degreeHist: degreeHistQuery,
		hubs: hubsQuery, clustering: clusteringQuery}, params
}

// with is params and more in a new map.
func with(params, more map[string]any) map[string]any {
	out := make(map[string]any, len(params)+len(more))
	maps.Copy(out, params)
	maps.Copy(out, more)
	return out
}
