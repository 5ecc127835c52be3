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
	"github.com/memoria-graph/memoria/tui/common"
	"github.com/memoria-graph/memoria/tui/components/tree"
)

// saveExperiment writes the experiment on screen (seeds, tags, thresholds,
// the pinned and the current results, the graph's fingerprint) to a new
// file in the output directory. The run must have finished: a half run
// saved as "current" would reopen as a result that never was.
func (m *Model) saveExperiment() tea.Cmd {
	cur := tree.NewBaseline(m.actRun().trees, "current")
	if cur == nil {
		return common.NotifyErr(errors.New("nothing to save yet: wait until every seed's run has finished"))
	}
	seeds := make([]retriever.Seed, 0, len(m.actRun().trees.Seeds))
	for _, st := range m.actRun().trees.Seeds {
		seeds = append(seeds, st.Seed)
	}
	e := experiment.Experiment{
		SavedAt: m.Now(), Seeds: seeds, Tags: append([]string(nil), m.actRun().tags...), Params: m.actRun().cfg,
		Pinned: m.runs.pinned.ResultsFor(seeds), Current: cur.ResultsFor(seeds), Marks: m.Marks.Snapshot(),
	}
	if m.runs.pinned != nil {
		cfg := m.runs.pinned.Cfg
		e.PinnedParams, e.PinnedTags = &cfg, append([]string{}, m.runs.pinned.Tags...)
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
