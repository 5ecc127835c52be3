package experiment

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
)

func sample() Experiment {
	return Experiment{
		SavedAt: time.Date(2026, 11, 22, 18, 0, 0, 0, time.UTC),
		Graph:   graph.Fingerprint{Source: "demo graph", Nodes: 57, Relationships: 69, ContentSHA256: "ab"},
		Seeds:   []retriever.Seed{{NodeID: "N2006", Score: 0.85}, {NodeID: "T3000", Score: 0.9}},
		Tags:    []string{"stockout", "a,b"},
		Params:  activation.Params{MaxDepth: 5, MinActivation: 0.0034, TagSimFloor: 0.15, MaxBranches: 2},
		Current: []activation.Result{{Seed: retriever.Seed{NodeID: "N2006", Score: 0.85}, TerminatedReason: activation.TerminatedMaxDepth}},
	}
}

// TestRoundTrip: what Write writes, Read gives back (the typed threshold
// 0.0034 and a tag holding a comma included), and the file starts with its
// version key so it is recognised at a glance.
func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, sample()); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "{\n  \"memoria_experiment\": 1,") {
		t.Fatalf("file starts %q", buf.String()[:40])
	}
	got, err := Read(&buf, "x.json")
	if err != nil {
		t.Fatal(err)
	}
	want := sample()
	want.Version = FormatVersion
	if got.Params != want.Params || got.Tags[1] != "a,b" || len(got.Seeds) != 2 || got.Seeds[1] != want.Seeds[1] ||
		got.Graph != want.Graph || !got.SavedAt.Equal(want.SavedAt) || got.Pinned != nil || len(got.Current) != 1 {
		t.Fatalf("read back %+v", got)
	}
}

// TestReadRefuses: each bad file is refused with a message naming the file
// and what was wrong (the line for broken JSON).
func TestReadRefuses(t *testing.T) {
	var good bytes.Buffer
	if err := Write(&good, sample()); err != nil {
		t.Fatal(err)
	}
	g := good.String()
	cases := []struct{ name, text, want string }{
		{"broken JSON", "{\n  \"memoria_experiment\": 1,\n  \"seeds\": [\n}", "x.json line 4: not JSON"},
		{"not an experiment", `{"seed": {"node_id": "N2006"}}`, `not an experiment file: json: unknown field "seed"`},
		{"other version", strings.Replace(g, `"memoria_experiment": 1`, `"memoria_experiment": 2`, 1), "memoria_experiment is 2, this memoria reads version 1"},
		{"empty seed id", strings.Replace(g, `"node_id": "N2006"`, `"node_id": ""`, 1), "x.json: seed 1 has an empty node id"},
		{"no seeds", `{"memoria_experiment": 1, "seeds": [], "params": {"max_depth": 5, "min_activation": 0.005, "tag_sim_floor": 0.15, "max_branches": 3}}`, "x.json: no seeds"},
		{"bad threshold", strings.Replace(g, `"max_depth": 5`, `"max_depth": 13`, 1), "params: max_depth must be between 1 and 12, got 13"},
		{"bad score", strings.Replace(g, `"score": 0.9`, `"score": 1.5`, 1), `seed "T3000": score must be a finite number in (0, 1], got 1.5`},
	}
	for _, c := range cases {
		_, err := Read(strings.NewReader(c.text), "x.json")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "x.json") {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
		}
	}
}

// TestMismatch: the same counts and hash say nothing; other counts, or
// another hash when both sides have one, are named; a graph without a hash
// (Neo4j) is compared by its counts only.
func TestMismatch(t *testing.T) {
	e := sample()
	if m := e.Mismatch(e.Graph); m != "" {
		t.Errorf("same graph: %q", m)
	}
	more := e.Graph
	more.Nodes = 58
	if m := e.Mismatch(more); !strings.Contains(m, "57 nodes and 69 relationships then, 58 and 69 now") || !strings.Contains(m, "saved 2026-11-22 18:00") {
		t.Errorf("counts differ: %q", m)
	}
	other := e.Graph
	other.ContentSHA256 = "cd"
	if m := e.Mismatch(other); !strings.Contains(m, "its content hash differs") {
		t.Errorf("hash differs: %q", m)
	}
	noHash := e.Graph
	noHash.ContentSHA256 = ""
	if m := e.Mismatch(noHash); m != "" {
		t.Errorf("no hash now, same counts: %q", m)
	}
}

// TestReadRefusesResults: a result whose seed is not among the seeds, a
// second result for one seed, and a pinned run saved without the
// thresholds it ran with are refused, each named.
func TestReadRefusesResults(t *testing.T) {
	write := func(change func(*Experiment)) string {
		e := sample()
		change(&e)
		var b bytes.Buffer
		if err := Write(&b, e); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	other := activation.Result{Seed: retriever.Seed{NodeID: "X1", Score: 0.5}}
	cases := []struct {
		name   string
		change func(*Experiment)
		want   string
	}{
		{"another seed's result", func(e *Experiment) { e.Current = append(e.Current, other) }, `current result 2 is for seed "X1", which is not among the seeds`},
		{"two results for a seed", func(e *Experiment) { e.Current = append(e.Current, e.Current[0]) }, `current result 2 is a second result for seed "N2006"`},
		{"pinned without params", func(e *Experiment) { e.Pinned = e.Current }, "a pinned run without pinned_params"},
		{"bad pinned params", func(e *Experiment) {
			p := e.Params
			p.MaxBranches = 0
			e.Pinned, e.PinnedParams = e.Current, &p
		}, "pinned_params: max_branches must be at least 1, got 0"},
	}
	for _, c := range cases {
		_, err := Read(strings.NewReader(write(c.change)), "x.json")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	ok := write(func(e *Experiment) {
		p := e.Params
		e.Pinned, e.PinnedParams, e.PinnedTags = e.Current, &p, []string{"stockout"}
	})
	if e, err := Read(strings.NewReader(ok), "x.json"); err != nil || e.PinnedParams == nil || *e.PinnedParams != sample().Params || e.PinnedTags[0] != "stockout" {
		t.Errorf("a pinned run with its params: %+v, %v", e.PinnedParams, err)
	}
}

// TestMarks: marks are written under "marks" and read back; a file
// without the key (every file written before marks existed) reads as
// having none, and writes none back; a mark with an empty id or a grade
// outside 1..127 is refused, named.
func TestMarks(t *testing.T) {
	e := sample()
	e.Marks = map[string]int{"N2003": 1, "N2010": 2, "weird\x1bid": 1}
	var buf bytes.Buffer
	if err := Write(&buf, e); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"marks": {`) || !strings.Contains(buf.String(), `"N2010": 2`) {
		t.Fatalf("marks not written:\n%s", buf.String())
	}
	got, err := Read(&buf, "x.json")
	if err != nil || len(got.Marks) != 3 || got.Marks["N2003"] != 1 || got.Marks["N2010"] != 2 || got.Marks["weird\x1bid"] != 1 {
		t.Fatalf("read back %v, %v", got.Marks, err)
	}

	buf.Reset()
	if err := Write(&buf, sample()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "marks") {
		t.Fatalf("no marks, yet the file has the key:\n%s", buf.String())
	}
	old, err := Read(&buf, "old.json") // what a file of the version before marks holds
	if err != nil || old.Marks != nil {
		t.Fatalf("a file without marks: %v, %v", old.Marks, err)
	}

	for _, c := range []struct {
		marks map[string]int
		want  string
	}{
		{map[string]int{" ": 1}, "marks: a mark has an empty node id"},
		{map[string]int{"N2003": 0}, `marks: "N2003" has grade 0; a mark's grade is 1 to 127`},
		{map[string]int{"N\x1b": 128}, `marks: "N\x1b" has grade 128`},
	} {
		e := sample()
		e.Marks = c.marks
		buf.Reset()
		if err := Write(&buf, e); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(&buf, "x.json"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("marks %v: error %v, want %q", c.marks, err, c.want)
		}
	}
}
