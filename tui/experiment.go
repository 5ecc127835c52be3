package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/experiment"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/tui/common"
)

// baselineOf makes a baseline of saved results (an experiment file's), run
// with cfg and tags.
func baselineOf(results []activation.Result, label string, cfg activation.Params, tags []string) *baseline {
	if len(results) == 0 {
		return nil
	}
	b := &baseline{label: label, results: make(map[string]activation.Result, len(results)), cfg: cfg, tags: retriever.NormalizeTags(tags)}
	for _, r := range results {
		b.results[r.Seed.NodeID] = r
	}
	return b
}

// resultsOf lists a baseline's results in the order of seeds (nil for no
// baseline).
func resultsOf(b *baseline, seeds []retriever.Seed) []activation.Result {
	if b == nil {
		return nil
	}
	out := make([]activation.Result, 0, len(b.results))
	for _, s := range seeds {
		if r, ok := b.results[s.NodeID]; ok {
			out = append(out, r)
		}
	}
	return out
}

// saveExperiment writes the experiment on screen (seeds, tags, thresholds,
// the pinned and the current results, the graph's fingerprint) to a new
// file in the output directory. The run must have finished: a half run
// saved as "current" would reopen as a result that never was.
func (m *Model) saveExperiment() tea.Cmd {
	cur := newBaseline(m.actRun().trees, "current")
	if cur == nil {
		return common.NotifyErr(errors.New("nothing to save yet: wait until every seed's run has finished"))
	}
	seeds := make([]retriever.Seed, 0, len(m.actRun().trees.seeds))
	for _, st := range m.actRun().trees.seeds {
		seeds = append(seeds, st.seed)
	}
	e := experiment.Experiment{
		SavedAt: m.Now(), Seeds: seeds, Tags: append([]string(nil), m.actRun().tags...), Params: m.actRun().cfg,
		Pinned: resultsOf(m.runs.pinned, seeds), Current: resultsOf(cur, seeds), Marks: m.Marks.Snapshot(),
	}
	if m.runs.pinned != nil {
		cfg := m.runs.pinned.cfg
		e.PinnedParams, e.PinnedTags = &cfg, append([]string{}, m.runs.pinned.tags...)
	}
	src, ctx, dir := m.Source, m.Ctx, m.OutDir
	name := "memoria-experiment-" + e.SavedAt.Format("20060102-150405") + ".json"
	return common.SafeCmd(func() tea.Msg {
		fp, err := fingerprint(ctx, src)
		if err != nil {
			return common.ErrMsg{Err: fmt.Errorf("experiment not saved: %w", err)}
		}
		e.Graph = fp
		var buf bytes.Buffer
		if err := experiment.Write(&buf, e); err != nil {
			return common.ErrMsg{Err: err}
		}
		path, err := writeNew(dir, name, buf.Bytes())
		if err != nil {
			return common.ErrMsg{Err: fmt.Errorf("writing %s: %w", name, err)}
		}
		return common.StatusMsg{Text: fmt.Sprintf("saved the experiment to %s (memoria --experiment %s reopens it)", path, path)}
	})
}

// fingerprint identifies src's graph: a Fingerprinter by its counts (and
// hash); any other source only by its description.
func fingerprint(ctx context.Context, src graph.Source) (graph.Fingerprint, error) {
	if f, ok := src.(graph.Fingerprinter); ok {
		fp, err := f.Fingerprint(ctx)
		if err != nil {
			return fp, fmt.Errorf("reading the graph's counts: %w", err)
		}
		return fp, nil
	}
	return graph.Fingerprint{Source: src.Describe()}, nil
}
