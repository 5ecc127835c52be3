package inmem

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/apoc"
)

// reference is the seed's Cypher (§6.2 with rules 1–4) transcribed
// naively over an apoc.Graph: for each frontier entry, find the node by
// scanning, count its RELATES relationships (a self-loop once), and score
// every incident RELATES relationship with retriever.TagSim (the
// map-based version) and retriever.TransferEnergy.
func reference(ag *apoc.Graph, req retriever.ExpandRequest) []retriever.ExpansionCandidate {
	byInternal := map[string]apoc.Node{}
	for _, n := range ag.Nodes {
		byInternal[n.InternalID] = n
	}
	type keyed struct {
		c   retriever.ExpansionCandidate
		rel string
	}
	var out []keyed
	for _, f := range req.Frontier {
		var cur *apoc.Node
		for i := range ag.Nodes {
			if id, ok := ag.Nodes[i].Properties["id"].(string); ok && id == f.NodeID {
				cur = &ag.Nodes[i]
			}
		}
		if cur == nil {
			continue
		}
		var incident []apoc.Relationship
		for _, r := range ag.Rels {
			if r.Type == "RELATES" && (r.Start == cur.InternalID || r.End == cur.InternalID) {
				incident = append(incident, r)
			}
		}
		degree := int64(len(incident))
		for _, r := range incident {
			other := r.End
			if other == cur.InternalID {
				other = r.Start
			}
			nb := byInternal[other]
			nid, ok := nb.Properties["id"].(string)
			if !ok {
				continue
			}
			if _, seen := req.Visited[nid]; seen {
				continue
			}
			var tags []string
			if v, ok := r.Properties["tags"]; ok {
				tags, _ = apoc.StringList(v)
			}
			var weight *float64
			w := retriever.MissingWeight
			if v, ok := r.Properties["weight"]; ok {
				w, _ = apoc.Number(v)
				weight = &w
			}
			ts := retriever.TagSim(tags, req.QueryTags, req.TagSimFloor)
			te := retriever.TransferEnergy(f.Activation, w, degree, ts)
			if te <= req.MinActivation {
				continue
			}
			out = append(out, keyed{rel: r.InternalID, c: retriever.ExpansionCandidate{
				ParentID:     f.NodeID,
				NeighborNode: retriever.GraphNode{ID: nid, Labels: nb.Labels, Properties: nb.Properties},
				Edge: retriever.GraphEdge{SourceID: f.NodeID, TargetID: nid, Type: "RELATES",
					Properties: r.Properties, Weight: weight, Tags: tags},
				Activation: f.Activation, Degree: degree, TagSim: ts, TransferEnergy: te,
			}})
		}
	}
	slices.SortStableFunc(out, func(a, b keyed) int {
		return cmp.Or(
			strings.Compare(a.c.ParentID, b.c.ParentID),
			cmp.Compare(b.c.TransferEnergy, a.c.TransferEnergy),
			strings.Compare(a.c.NeighborNode.ID, b.c.NeighborNode.ID),
			strings.Compare(retriever.EdgeKey(a.c.Edge), retriever.EdgeKey(b.c.Edge)),
			strings.Compare(a.rel, b.rel))
	})
	cs := make([]retriever.ExpansionCandidate, len(out))
	for i, k := range out {
		cs[i] = k.c
	}
	return cs
}

// randomGraph is a small graph with every awkward case: nodes without id,
// self-loops, parallel edges, other relationship types, missing, integer
// and float weights, missing, empty and duplicated tags, extra properties.
func randomGraph(r *rand.Rand, n, m int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		if r.IntN(10) == 0 {
			fmt.Fprintf(&b, `{"type":"node","id":"%d","labels":["NoID"],"properties":{"text":"orphan"}}`+"\n", i)
		} else {
			fmt.Fprintf(&b, `{"type":"node","id":"%d","labels":["L%d"],"properties":{"id":"n%02d","text":"node %d"}}`+"\n", i, r.IntN(3), i, i)
		}
	}
	for j := 0; j < m; j++ {
		s := r.IntN(n)
		e := r.IntN(n)
		if r.IntN(20) == 0 {
			e = s
		}
		typ := "RELATES"
		if r.IntN(8) == 0 {
			typ = "MENTIONS"
		}
		var props []string
		switch r.IntN(6) {
		case 0: // missing weight
		case 1:
			props = append(props, `"weight":1`)
		default:
			props = append(props, fmt.Sprintf(`"weight":%v`, 0.25+0.75*r.Float64()))
		}
		switch r.IntN(5) {
		case 0: // no tags
		case 1:
			props = append(props, `"tags":[]`)
		default:
			var ts []string
			for k := r.IntN(5); k > 0; k-- {
				ts = append(ts, fmt.Sprintf(`"t%d"`, r.IntN(6)))
			}
			props = append(props, `"tags":[`+strings.Join(ts, ",")+`]`)
		}
		if r.IntN(4) == 0 {
			props = append(props, `"note":"x"`)
		}
		fmt.Fprintf(&b, `{"type":"relationship","id":"%d","label":"%s","properties":{%s},"start":{"id":"%d"},"end":{"id":"%d"}}`+"\n",
			j, typ, strings.Join(props, ","), s, e)
	}
	return b.Bytes()
}

func randomRequests(r *rand.Rand, n, count int) []retriever.ExpandRequest {
	floors := []float64{0, 0.15, 0.5, 1}
	mins := []float64{0, 0.005, 0.05, 0.2}
	var reqs []retriever.ExpandRequest
	for i := 0; i < count; i++ {
		req := retriever.ExpandRequest{Visited: map[string]struct{}{}, TagSimFloor: floors[r.IntN(4)], MinActivation: mins[r.IntN(4)]}
		for k := r.IntN(6); k >= 0; k-- {
			req.Frontier = append(req.Frontier, retriever.FrontierInput{NodeID: fmt.Sprintf("n%02d", r.IntN(n+5)), Activation: r.Float64()})
		}
		for k := r.IntN(n); k > 0; k-- {
			req.Visited[fmt.Sprintf("n%02d", r.IntN(n))] = struct{}{}
		}
		var q []string
		for k := r.IntN(4); k > 0; k-- {
			q = append(q, fmt.Sprintf("t%d", r.IntN(8)))
		}
		req.QueryTags = retriever.NormalizeTags(q)
		reqs = append(reqs, req)
	}
	return reqs
}

// TestAgainstReference compares ExpandFrontier, field by field and bit for
// bit, with the naive transcription on random graphs and requests, through
// both Load and New.
func TestAgainstReference(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		r := rand.New(rand.NewPCG(seed, 99))
		text := randomGraph(r, 40, 200)
		ag, err := apoc.Parse(bytes.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		g1, err := Load(bytes.NewReader(text), "ref")
		if err != nil {
			t.Fatal(err)
		}
		g2, err := New(ag, "ref")
		if err != nil {
			t.Fatal(err)
		}
		for i, req := range randomRequests(r, 40, 50) {
			want := reference(ag, req)
			for _, g := range []*Graph{g1, g2} {
				got, err := g.ExpandFrontier(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) == 0 && len(want) == 0 {
					continue
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("seed %d request %d %+v:\n got %+v\nwant %+v", seed, i, req, summarize(got), summarize(want))
				}
			}
		}
	}
}

// TestConcurrentUse runs the random requests from 8 goroutines at once on
// one graph (run with -race) and checks every answer against a sequential
// run.
func TestConcurrentUse(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	g, err := Load(bytes.NewReader(randomGraph(r, 40, 300)), "conc")
	if err != nil {
		t.Fatal(err)
	}
	reqs := randomRequests(r, 40, 100)
	want := make([][]retriever.ExpansionCandidate, len(reqs))
	for i, req := range reqs {
		want[i], _ = g.ExpandFrontier(context.Background(), req)
	}
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range reqs {
				i := (k + w*13) % len(reqs)
				got, err := g.ExpandFrontier(context.Background(), reqs[i])
				if err != nil || !reflect.DeepEqual(got, want[i]) {
					t.Errorf("worker %d request %d differs", w, i)
					return
				}
				if _, _, err := g.ListNodes(context.Background(), "n1", 0, 5); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
}
