package expansion_test

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/graph/neo4jload"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/expansion"
	"github.com/memoria-graph/memoria/testkit/neo4jfix"
	"github.com/memoria-graph/memoria/testkit/neo4jtest"
)

// Tests on the shared server run one after another: they replace its data.
func TestMain(m *testing.M) { neo4jtest.Main(m) }

var fx = neo4jfix.New(func(ctx context.Context, src *neo4jdb.Source, g *apoc.Graph) (neo4jload.LoadStats, error) {
	return neo4jload.Load(ctx, src, g, neo4jload.LoadOptions{Wipe: true})
})

// neo4jGraph wipes the shared server, loads g as `memoria load` does (with
// its id indexes) and returns the neighbourhood reads over it, every query
// they send passed to trace (when not nil).
func neo4jGraph(t *testing.T, g *apoc.Graph, trace func(string, map[string]any)) (*neo4jdb.Neighbourhood, neo4j.DriverWithContext) {
	t.Helper()
	d := fx.Driver(t)
	fx.Load(t, d, g)
	nb := neo4jdb.NewNeighbourhood(neo4jdb.NewSource(d, "", ""))
	nb.SetTrace(trace)
	return nb, d
}

// aroundOf reads the relationships around ids with nb, with every
// property (Details).
func aroundOf(t *testing.T, nb graph.Neighbourhood, ids []string) []graph.Rel {
	t.Helper()
	var rels []graph.Rel
	err := nb.Read(context.Background(), func(r graph.Reader) error {
		refs, err := r.Nodes(context.Background(), ids)
		if err != nil {
			return err
		}
		if rels, err = r.Around(context.Background(), refs); err != nil {
			return err
		}
		nodes := make([]*graph.NodeRef, len(rels))
		ptrs := make([]*graph.Rel, len(rels))
		for i := range rels {
			nodes[i], ptrs[i] = &rels[i].To, &rels[i]
		}
		return r.Details(context.Background(), nodes, ptrs)
	})
	if err != nil {
		t.Fatal(err)
	}
	return rels
}

// relText is a relationship as both engines must give it: everything but
// the element ids, properties (its own and the other end's) in canonical
// form.
func relText(r graph.Rel) string {
	e := r.Full()
	w := "none"
	if e.Weight != nil {
		w = fmt.Sprint(*e.Weight)
	}
	// Neo4j keeps a node's labels in an order of its own.
	labels := slices.Sorted(slices.Values(r.To.Node.Labels))
	return fmt.Sprintf("%s-[%s w=%s tags=%q %s]->%s %v %s d=%d bad=%v", e.SourceID, e.Type, w, e.Tags, graph.CanonicalProps(e.Properties),
		e.TargetID, labels, graph.CanonicalProps(r.To.Node.Properties), r.Degree, r.BadWeight != nil)
}

// TestEnginesAgreeOnExpansion: on 25 random typed graphs (randgraph:
// hubs, parallel and identical parallel relationships, self-loops, nodes
// without ids, missing and integer weights, MENTIONS and typed
// relationships of ten types, two of them unknown to the table), loaded
// into Neo4j and into the embedded engine from the same apoc.Graph:
//   - Around of a random frontier, its properties filled by Details, gives
//     the same relationships in the same order (graph.SortRels) with the
//     same properties, weights, tags, labels and degrees on both engines
//     (parallel relationships alike up to their tags may come in another
//     order: they are compared as text, sorted, within such a run);
//   - three random expansions each (H 1–3, random f, δ, K and table
//     changes) rank exactly alike on both engines and as the naive
//     implementation does (testkit/naiveexp), scores to the bit.
func TestEnginesAgreeOnExpansion(t *testing.T) {
	for i := range 25 {
		r := rand.New(rand.NewSource(int64(5000 + i)))
		c := newRandomCase(r)
		nb, _ := neo4jGraph(t, c.g, nil)
		mem, err := inmem.New(c.g, "random")
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, n := range c.g.Nodes {
			if id, ok := n.Properties["id"].(string); ok && r.Intn(4) == 0 {
				ids = append(ids, id)
			}
		}
		a, b := aroundOf(t, nb, ids), aroundOf(t, mem, ids)
		if len(a) != len(b) {
			t.Fatalf("graph %d: Around %d rels on Neo4j, %d embedded", i, len(a), len(b))
		}
		ta, tb := relTexts(a), relTexts(b)
		for k := range a {
			if x, y := ta[k], tb[k]; x != y {
				t.Fatalf("graph %d: rel %d: Neo4j %s, embedded %s", i, k, x, y)
			}
			if a[k].Edge.ElementID == "" || a[k].To.Ref == "" {
				t.Fatalf("graph %d: Neo4j gave no element ids: %+v", i, a[k])
			}
		}
		for run := range 3 {
			if run > 0 {
				c = randomRun(r, c)
			}
			label := fmt.Sprintf("graph %d run %d", i, run)
			got1, err := expansion.Retrieve(context.Background(), nb, c.query, c.p)
			if err != nil {
				t.Fatalf("%s: Neo4j: %v", label, err)
			}
			got2, err := expansion.Retrieve(context.Background(), mem, c.query, c.p)
			if err != nil {
				t.Fatalf("%s: embedded: %v", label, err)
			}
			agreeWithNaive(t, label+" (Neo4j)", got1, c.naive())
			agreeWithNaive(t, label+" (embedded)", got2, c.naive())
		}
	}
}

// relTexts is relText of each rel, each run of relationships alike up to
// their tags (graph.CompareRels without the properties) sorted as text.
func relTexts(rels []graph.Rel) []string {
	out := make([]string, len(rels))
	for i := range rels {
		out[i] = relText(rels[i])
	}
	lean := func(r graph.Rel) graph.Rel { r.Edge.Properties, r.Lazy = nil, nil; return r }
	for i := 0; i < len(rels); {
		j := i + 1
		for j < len(rels) && rels[j].Edge.SourceID == rels[i].Edge.SourceID && rels[j].Edge.TargetID == rels[i].Edge.TargetID &&
			graph.CompareRels(lean(rels[i]), lean(rels[j])) == 0 {
			j++
		}
		slices.Sort(out[i:j])
		i = j
	}
	return out
}

// randomRun keeps c's graph and draws another query and parameters.
func randomRun(r *rand.Rand, c randomCase) randomCase {
	d := newRandomCase(rand.New(rand.NewSource(r.Int63())))
	d.g = c.g
	var ids []string
	for _, n := range c.g.Nodes {
		if id, ok := n.Properties["id"].(string); ok {
			ids = append(ids, id)
		}
	}
	d.query.Seeds = nil
	for _, k := range r.Perm(len(ids))[:1+r.Intn(min(5, len(ids)))] {
		d.query.Seeds = append(d.query.Seeds, retriever.Seed{NodeID: ids[k], Score: 0.3 + 0.7*r.Float64()})
	}
	return d
}

// TestNeighbourhoodPlans: the expansion of the demo graph's scenario A seed
// N2006 and four more seeds at H = 3, on a graph loaded by `memoria load`
// (which indexes id on every label), sends one seed lookup, one Around
// query per hop (3) and one Details query each for the shown nodes and
// relationships, and EXPLAIN shows no AllNodesScan or NodeByLabelScan in
// any of them: seeds through the id indexes, frontiers and details by
// element id.
// As a control, the scan fallback's query does plan a scan (the check can
// fail).
func TestNeighbourhoodPlans(t *testing.T) {
	g := neo4jfix.DemoGraph(t)
	var queries []neo4jfix.Sent
	nb, d := neo4jGraph(t, g, func(q string, p map[string]any) { queries = append(queries, neo4jfix.Sent{Query: q, Params: p}) })
	p := expansion.DefaultParams()
	p.MaxHops = 3
	q := retriever.Query{Seeds: []retriever.Seed{{NodeID: "N2006", Score: 0.85}, {NodeID: "T3000", Score: 0.9},
		{NodeID: "T4001", Score: 0.5}, {NodeID: "N2010", Score: 0.4}, {NodeID: "N2001", Score: 0.3}}}
	if _, err := expansion.Retrieve(context.Background(), nb, q, p); err != nil {
		t.Fatal(err)
	}
	n := neo4jfix.NeighbourhoodPlans(t, d, queries)
	if n != (neo4jfix.Plans{Around: 3, Lookups: 1, Details: 2}) {
		t.Errorf("%+v, want 3 Around queries, 1 lookup and 2 details", n)
	}
}

// TestEnginesAgreeOnLeanReads: the reads that score many nodes without
// their relationships' details (Strengths, Arcs, Facts), on 10 random
// typed graphs (hubs, parallel relationships, self-loops, nodes without
// ids, missing and integer weights, typed relationships), for a random
// third of the nodes with an id and for RELATES and CITES:
//   - Strengths gives, to the bit on both engines, graph.SumWeights of the
//     weights gathered naively from the file (each relationship of the
//     type with the node at one end and a node with an id at the other, a
//     self-loop once, a missing weight counting 0.01);
//   - Arcs gives the same arcs on both engines (as sorted text: the order
//     of other ends is the engine's), parallel arcs in ascending weight,
//     and as many as the naive gathering;
//   - Facts gives entity_count and the degree as Degrees does.
func TestEnginesAgreeOnLeanReads(t *testing.T) {
	for i := range 10 {
		r := rand.New(rand.NewSource(int64(5500 + i)))
		c := newRandomCase(r)
		idOf := map[string]string{} // internal id → id
		ec := map[string]int64{}
		for _, n := range c.g.Nodes {
			if id, ok := n.Properties["id"].(string); ok {
				idOf[n.InternalID] = id
				if r.Intn(5) == 0 {
					ec[id] = int64(r.Intn(30))
					n.Properties["entity_count"] = ec[id]
				}
			}
		}
		nb, _ := neo4jGraph(t, c.g, nil)
		mem, err := inmem.New(c.g, "random")
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, n := range c.g.Nodes {
			if id, ok := idOf[n.InternalID]; ok && r.Intn(3) == 0 {
				ids = append(ids, id)
			}
		}
		for _, relType := range []string{graph.Relates, "CITES"} {
			naive := map[string][]float64{}
			count := map[string]int{}
			for _, rel := range c.g.Rels {
				a, aok := idOf[rel.Start]
				b, bok := idOf[rel.End]
				if rel.Type != relType || !aok || !bok {
					continue
				}
				w := graph.MissingRelatesWeight
				if x, err := graph.WeightOf(rel.Properties); err != nil {
					t.Fatal(err)
				} else if x != nil {
					w = *x
				}
				naive[a] = append(naive[a], w)
				count[a]++
				if a != b {
					naive[b] = append(naive[b], w)
					count[b]++
				}
			}
			type read struct {
				strengths []graph.Strength
				arcs      []string
				facts     []graph.Facts
				degrees   []int64
			}
			readOf := func(nb graph.Neighbourhood) read {
				var out read
				err := nb.Read(context.Background(), func(rd graph.Reader) error {
					ctx := context.Background()
					refs, err := rd.Nodes(ctx, ids)
					if err != nil {
						return err
					}
					if out.strengths, err = rd.Strengths(ctx, refs, relType, graph.MissingRelatesWeight); err != nil {
						return err
					}
					arcs, err := rd.Arcs(ctx, refs, relType, graph.MissingRelatesWeight)
					if err != nil {
						return err
					}
					for k, a := range arcs {
						if k > 0 && arcs[k-1].From == a.From && arcs[k-1].To.Node.ID == a.To.Node.ID && arcs[k-1].Weight > a.Weight {
							t.Errorf("parallel arcs out of weight order: %+v then %+v", arcs[k-1], a)
						}
						if k > 0 && arcs[k-1].From > a.From {
							t.Errorf("arcs of node %d after node %d's", a.From, arcs[k-1].From)
						}
						out.arcs = append(out.arcs, fmt.Sprintf("%s-%s %v", refs[a.From].Node.ID, a.To.Node.ID, a.Weight))
					}
					slices.Sort(out.arcs)
					if out.facts, err = rd.Facts(ctx, refs, []string{"entity_count"}, relType); err != nil {
						return err
					}
					out.degrees, err = rd.Degrees(ctx, refs, relType)
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				return out
			}
			a, b := readOf(nb), readOf(mem)
			label := fmt.Sprintf("graph %d %s", i, relType)
			total := 0
			for k, id := range ids {
				want := graph.SumWeights(slices.Clone(naive[id]))
				if a.strengths[k] != want || b.strengths[k] != want {
					t.Errorf("%s: node %s: strength %+v on Neo4j, %+v embedded, want %+v", label, id, a.strengths[k], b.strengths[k], want)
				}
				total += count[id]
				wantEC, has := ec[id]
				for _, f := range []read{a, b} {
					got := f.facts[k].Values[0]
					ok := got != nil
					if f.facts[k].Degree != f.degrees[k] || ok != has || (has && got != any(wantEC)) {
						t.Errorf("%s: node %s: facts %+v, degree %d, want entity_count %v (%v)", label, id, f.facts[k], f.degrees[k], wantEC, has)
					}
				}
				if a.degrees[k] != b.degrees[k] {
					t.Errorf("%s: node %s: degree %d on Neo4j, %d embedded", label, id, a.degrees[k], b.degrees[k])
				}
			}
			if !slices.Equal(a.arcs, b.arcs) || len(a.arcs) != total {
				t.Errorf("%s: %d arcs on Neo4j, %d embedded, %d naive; first difference in\n%v\n%v", label, len(a.arcs), len(b.arcs), total, a.arcs, b.arcs)
			}
		}
	}
}
