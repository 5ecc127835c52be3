package experiment_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/experiment"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// FuzzRead (make fuzz) holds the experiment file's reader
// (docs/EXPORTS.md, "Experiment files") to its word, on any input:
//
//   - it never panics and answers within a second: an experiment or an
//     error, never both (a refusal is the zero Experiment);
//   - every refusal names the file, as Read promises;
//   - an accepted experiment has this memoria's version, valid seeds and
//     thresholds (pinned ones too when there are some; a pinned run comes
//     with them), marks of grade 1 to MaxGrade, and results for its seeds
//     only, one per seed;
//   - Write writes it, Read reads that back with the same seeds, tags,
//     thresholds, marks and graph, and writing that again gives the same
//     bytes (what a file says survives a save in the explorer).
func FuzzRead(f *testing.F) {
	p := activation.Params{MaxDepth: 5, MinActivation: 0.0034, TagSimFloor: 0.15, MaxBranches: 2}
	w := 0.8
	node := func(id string) graph.Node {
		return graph.Node{ID: id, Labels: []string{"UserRequest"}, Properties: map[string]any{"id": id, "n": 1.5}}
	}
	step := activation.Step{FromNode: node("N2006"), ToNode: node("N2003"), Weight: w, Activation: 0.4, Degree: 3, TagSim: 0.5, TransferEnergy: 0.2,
		Edge: graph.Edge{SourceID: "N2006", TargetID: "N2003", Type: "RELATES", Weight: &w, Tags: []string{"a"}, Properties: map[string]any{"weight": w}}}
	// TestRoundTrip's sample, and one with a pinned run, paths and marks.
	sample := experiment.Experiment{
		SavedAt: time.Date(2026, 11, 22, 18, 0, 0, 0, time.UTC),
		Graph:   graph.Fingerprint{Source: "demo graph", Nodes: 57, Relationships: 69, ContentSHA256: "ab"},
		Seeds:   []retriever.Seed{{NodeID: "N2006", Score: 0.85}, {NodeID: "T3000", Score: 0.9}},
		Tags:    []string{"stockout", "a,b"},
		Params:  p,
		Current: []activation.Result{{Seed: retriever.Seed{NodeID: "N2006", Score: 0.85}, TerminatedReason: activation.TerminatedMaxDepth}},
	}
	full := sample
	n := node("N2006")
	full.Current = []activation.Result{{Seed: sample.Seeds[0], SeedNode: &n, TerminatedReason: activation.TerminatedFrontierExhausted, MaxDepthReached: 1,
		Paths: []activation.Path{{Steps: []activation.Step{step}, MaxTransferEnergy: 0.2, MinTransferEnergy: 0.2, EndReason: activation.EndBelowThreshold, NearMiss: &step}}}}
	full.Pinned, full.PinnedParams, full.PinnedTags = full.Current, &p, []string{"stockout"}
	full.Marks = map[string]int{"N2003": 1, "N2010": 2, "weird\x1bid": 1}
	var good []string
	for _, e := range []experiment.Experiment{sample, full} {
		var b bytes.Buffer
		if err := experiment.Write(&b, e); err != nil {
			f.Fatal(err)
		}
		good = append(good, b.String())
	}
	for _, s := range append(good,
		// TestReadRefuses's files.
		"{\n  \"memoria_experiment\": 1,\n  \"seeds\": [\n}",
		`{"seed": {"node_id": "N2006"}}`,
		strings.Replace(good[0], `"memoria_experiment": 1`, `"memoria_experiment": 2`, 1),
		strings.Replace(good[0], `"node_id": "N2006"`, `"node_id": ""`, 1),
		`{"memoria_experiment": 1, "seeds": [], "params": {"max_depth": 5, "min_activation": 0.005, "tag_sim_floor": 0.15, "max_branches": 3}}`,
		strings.Replace(good[0], `"max_depth": 5`, `"max_depth": 13`, 1),
		strings.Replace(good[0], `"score": 0.9`, `"score": 1.5`, 1),
		strings.Replace(good[1], `"pinned_params"`, `"pinned_paramz"`, 1),
		strings.Replace(good[1], `"N2010": 2`, `"N2010": 0`, 1),
		"", "null", "[]",
	) {
		f.Add([]byte(s))
	}
	const name = "fuzz.json"
	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		e, err := experiment.Read(bytes.NewReader(data), name)
		if d := time.Since(start); d > time.Second {
			t.Fatalf("Read took %v on %d bytes", d, len(data))
		}
		if err != nil {
			if !strings.Contains(err.Error(), name) {
				t.Fatalf("a refusal that does not name the file: %v", err)
			}
			if !reflect.DeepEqual(e, experiment.Experiment{}) {
				t.Fatalf("refused (%v) but answered %+v", err, e)
			}
			return
		}
		if e.Version != experiment.FormatVersion || len(e.Seeds) == 0 || retriever.ValidateSeeds(e.Seeds) != nil || e.Params.Validate() != nil {
			t.Fatalf("accepted version %d, seeds %v, params %+v", e.Version, e.Seeds, e.Params)
		}
		if (e.PinnedParams != nil && e.PinnedParams.Validate() != nil) || (len(e.Pinned) > 0 && e.PinnedParams == nil) {
			t.Fatalf("accepted pinned params %+v with %d pinned results", e.PinnedParams, len(e.Pinned))
		}
		for id, g := range e.Marks {
			if strings.TrimSpace(id) == "" || g < 1 || g > experiment.MaxGrade {
				t.Fatalf("accepted mark %q %d", id, g)
			}
		}
		seeds := map[string]bool{}
		for _, s := range e.Seeds {
			seeds[s.NodeID] = true
		}
		for _, rs := range [][]activation.Result{e.Pinned, e.Current} {
			seen := map[string]bool{}
			for _, r := range rs {
				if !seeds[r.Seed.NodeID] || seen[r.Seed.NodeID] {
					t.Fatalf("accepted a result for %q (a seed: %v, seen: %v)", r.Seed.NodeID, seeds[r.Seed.NodeID], seen[r.Seed.NodeID])
				}
				seen[r.Seed.NodeID] = true
			}
		}
		var once bytes.Buffer
		if err := experiment.Write(&once, e); err != nil {
			t.Fatalf("accepted, then Write: %v", err)
		}
		back, err := experiment.Read(bytes.NewReader(once.Bytes()), name)
		if err != nil {
			t.Fatalf("written, then refused: %v\n%s", err, once.String())
		}
		if !reflect.DeepEqual(back.Seeds, e.Seeds) || !reflect.DeepEqual(back.Tags, e.Tags) || back.Params != e.Params ||
			!reflect.DeepEqual(back.PinnedParams, e.PinnedParams) || !sameMarks(back.Marks, e.Marks) || back.Graph != e.Graph ||
			!back.SavedAt.Equal(e.SavedAt) || len(back.Pinned) != len(e.Pinned) || len(back.Current) != len(e.Current) {
			t.Fatalf("written and read back:\n%+v\nnot\n%+v", back, e)
		}
		var twice bytes.Buffer
		if err := experiment.Write(&twice, back); err != nil {
			t.Fatalf("read back, then Write: %v", err)
		}
		if !bytes.Equal(once.Bytes(), twice.Bytes()) {
			t.Fatalf("written twice, differs:\n%s\n%s", once.String(), twice.String())
		}
	})
}

// sameMarks: the same marks; none and an empty "marks": {} (which Write
// leaves out) are alike.
func sameMarks(a, b map[string]int) bool {
	return len(a) == 0 && len(b) == 0 || reflect.DeepEqual(a, b)
}
