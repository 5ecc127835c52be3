package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/internal/experiment"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// writeExperiment saves an experiment on the demo graph with the demo
// graph's own fingerprint, or with fp changed by change.
func writeExperiment(t *testing.T, change func(*experiment.Experiment)) string {
	t.Helper()
	g, err := inmem.LoadFile("../../testdata/demo.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	fp, err := g.Fingerprint(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	e := experiment.Experiment{Graph: fp, Seeds: []retriever.Seed{{NodeID: "N2006", Score: 0.85}},
		Tags: []string{"stockout"}, Params: activation.DefaultParams()}
	if change != nil {
		change(&e)
	}
	var buf bytes.Buffer
	if err := experiment.Write(&buf, e); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "exp.json")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestExperimentFlagRefusals: --experiment sets seeds, tags and thresholds,
// so giving them too is a usage error naming the flags; a broken file is
// refused naming the file and line (exit 1, a bad file, as docs/CLI.md's exit
// codes say); both before any screen.
func TestExperimentFlagRefusals(t *testing.T) {
	p := writeExperiment(t, nil)
	code, _, errs := run(t, "--experiment", p, "--seed", "N2006", "--min-activation", "0.01")
	if code != 2 || !strings.Contains(errs, "--experiment sets the seeds, tags and thresholds: drop --min-activation, --seed") {
		t.Errorf("clash: exit %d, stderr %q", code, errs)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte("{\n\"memoria_experiment\": 1,\n,\n}"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = run(t, "--experiment", bad)
	if code != 1 || !strings.Contains(errs, "bad.json line 3: not JSON") {
		t.Errorf("bad file: exit %d, stderr %q", code, errs)
	}
}

// TestExperimentNotice: reopened on the graph it was saved on, the status
// line says "same graph"; saved on a graph with 58 nodes (one more than the
// demo graph's 57) it names both counts.
func TestExperimentNotice(t *testing.T) {
	g, err := inmem.LoadFile("../../testdata/demo.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	read := func(p string) experiment.Experiment {
		e, err := readExperiment(p)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	same := writeExperiment(t, nil)
	if n := experimentNotice(context.Background(), same, read(same), g); n != "reopened "+same+": same graph" {
		t.Errorf("same graph: %q", n)
	}
	other := writeExperiment(t, func(e *experiment.Experiment) { e.Graph.Nodes = 58 })
	if n := experimentNotice(context.Background(), other, read(other), g); !strings.Contains(n, "made on another graph") ||
		!strings.Contains(n, "58 nodes and 69 relationships then, 57 and 69 now") {
		t.Errorf("other graph: %q", n)
	}
}
