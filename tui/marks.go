package tui

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation/why"
	"github.com/memoria-graph/memoria/retriever/eval"
	"github.com/memoria-graph/memoria/retriever/rankwhy"
	"github.com/memoria-graph/memoria/tui/common"
	"github.com/memoria-graph/memoria/tui/components/cmptable"
	"github.com/memoria-graph/memoria/tui/overlays/whypanel"
)

// Relevance marks (docs/EXPLORER.md, "Relevance marks"): m on a node of
// the results or of the node list marks it relevant (grade 1), again
// highly relevant (grade 2), again unmarked. With marks, the results of the
// retriever shown measure themselves against them: ✓ on every relevant
// hit, the found line (relevant found, recall@common.MarkK and nDCG@common.MarkK of the
// ranking, retriever/eval's trec_eval definitions), and the relevant nodes
// the results lack, each with its why-not, asked in the background one
// node at a time (a question per node, under the judgement's id and a
// cancellable context; answers of an earlier judgement are dropped). The
// marks are saved in the experiment file and reopened with it.

// maxWhyMarks is the most relevant nodes not found whose why-not is asked;
// the others are counted.
const maxWhyMarks = 12

// markTarget is the node the mark key is about: on the results the
// selected row's node (a losing candidate's or a node that left: that
// node; in a ranking or the compare table, the hit), on the node list the
// node under the cursor.
func (m *Model) markTarget() (string, bool) {
	if m.focus == focusTree {
		return m.view.markTarget()
	}
	return m.whyTarget()
}

// toggleMark steps the selected node's mark (relevant, highly relevant,
// unmarked) and says so; the judgement follows at the end of Update.
func (m *Model) toggleMark() tea.Cmd {
	id, ok := m.markTarget()
	if !ok {
		return common.NotifyErr(errors.New("nothing selected: pick a node in the results or the node list to mark it"))
	}
	g := m.Marks.Cycle(id)
	m.marksChanged()
	key := m.KM.Mark.Help().Key
	switch g {
	case 0:
		return common.Notify(fmt.Sprintf("unmarked %s", render.DisplayID(id)))
	case 1:
		return common.Notify(fmt.Sprintf("marked %s relevant (grade 1; %s again: grade 2)", render.DisplayID(id), key))
	}
	return common.Notify(fmt.Sprintf("marked %s highly relevant (grade 2; %s again: unmarked)", render.DisplayID(id), key))
}

// marksChanged re-renders the tree, whose rows are cached; the other
// panes read the marks as they draw.
func (m *Model) marksChanged() { m.tree.MarksChanged() }

// judgement is what the results pane shows of the marks for the results
// on screen: the found line and the relevant nodes not found, each with
// its why-not once answered. key says which results and marks it was
// made for; seq numbers its questions (an answer of another is dropped).
type judgement struct {
	key     judgeKey
	line    string
	missing []missingMark
	// more counts the relevant nodes not found beyond those listed.
	more int
	// seq numbers the judgements; ask answers a node's why-not with
	// copies of what the results were made with, and cancel stops the
	// question in flight.
	seq    int
	ask    whyAsker
	cancel context.CancelFunc
}

// missingMark is a relevant node the results lack: its id, grade, and its
// why-not ("" while asked).
type missingMark struct {
	id    string
	grade int
	why   string
}

// judgeKey identifies the results and the marks a judgement is of: the
// retriever shown, its run, whether that run is in, the marks' version and
// whether the compare view is open.
type judgeKey struct {
	retriever string
	run       int
	state     int
	marks     int
	compare   bool
}

// stop cancels the question in flight, if any.
func (j *judgement) stop() {
	if j.cancel != nil {
		j.cancel()
		j.cancel = nil
	}
}

// marksWhyMsg is the why-not of the judgement seq's i-th relevant node not
// found.
type marksWhyMsg struct {
	seq  int
	i    int
	text string
}

// whyAsker answers one node's why-not in a command, with copies of the
// query, parameters and graph it reads.
type whyAsker func(ctx context.Context, id string) string

// judge brings the judgement up to date with the results shown and the
// marks, once per change of either (Update calls it last): the found line
// from the ranking shown (Activation Energy's run projected as a ranking),
// and the why-not of the relevant nodes it lacks, asked one at a time.
func (m *Model) judge() tea.Cmd {
	j := m.judgement()
	slot := m.slot()
	ranking, state := m.columnRanking(m.retriever)
	k := judgeKey{retriever: m.retriever, run: slot.id, state: state, marks: m.Marks.Version(), compare: m.comparing()}
	if k == j.key {
		return nil
	}
	j.stop()
	j.seq++
	shown := j.line != ""
	j.key, j.line, j.missing, j.more, j.ask = k, "", nil, 0, nil
	defer func() {
		if shown || j.line != "" {
			m.tree.MarksChanged() // the tree's height for its rows changed
		}
	}()
	relevant := 0
	for _, g := range m.Marks.Snapshot() {
		if g >= 1 {
			relevant++
		}
	}
	if relevant == 0 || k.compare {
		return nil // the compare table marks its rows itself
	}
	switch state {
	case cmptable.ColNone:
		j.line = fmt.Sprintf("%s marked · pick a seed to measure the results", common.Plural(relevant, "relevant node"))
		return nil
	case cmptable.ColRunning:
		j.line = fmt.Sprintf("%s marked · measured when the %s run is in", common.Plural(relevant, "relevant node"), m.retriever)
		return nil
	case cmptable.ColFailed:
		j.line = fmt.Sprintf("%s marked · the %s run failed", common.Plural(relevant, "relevant node"), m.retriever)
		return nil
	}
	ids := make([]string, len(ranking.Hits))
	in := make(map[string]bool, len(ranking.Hits))
	for i, h := range ranking.Hits {
		ids[i], in[h.NodeID] = h.NodeID, true
	}
	judged := m.Marks.Snapshot()
	found := 0
	for _, id := range slices.Sorted(maps.Keys(judged)) {
		if judged[id] < 1 {
			continue
		}
		if in[id] {
			found++
			continue
		}
		if len(j.missing) == maxWhyMarks {
			j.more++
			continue
		}
		j.missing = append(j.missing, missingMark{id: id, grade: judged[id]})
	}
	j.line = fmt.Sprintf("relevant found %d of %d · recall@%d %.2f · nDCG@%d %.2f", found, relevant,
		common.MarkK, eval.Recall(ids, judged, common.MarkK), common.MarkK, eval.NDCG(ids, judged, common.MarkK))
	if len(j.missing) == 0 {
		return nil
	}
	if j.ask = m.whyAsker(ranking); j.ask == nil {
		for i := range j.missing {
			j.missing[i].why = "why-not needs the graph reads this source does not offer"
		}
		return nil
	}
	return j.next(m.Ctx, 0)
}

// next asks the i-th relevant node not found, under a new context.
func (j *judgement) next(parent context.Context, i int) tea.Cmd {
	j.stop()
	ctx, cancel := context.WithCancel(parent)
	j.cancel = cancel
	return marksWhyCmd(ctx, j.seq, i, j.missing[i].id, j.ask)
}

// whyAsker is how the retriever shown answers why a node is not in its
// results: Activation Energy's why-not (retriever/activation/why) at its
// run's seeds, tags and thresholds; a ranking retriever's verdict at its K
// (internal/rankwhy). Everything it reads is copied now.
func (m *Model) whyAsker(ranking *retriever.Ranking) whyAsker {
	seeds := make([]retriever.Seed, len(ranking.Seeds))
	for i, s := range ranking.Seeds {
		seeds[i] = retriever.Seed{NodeID: s.NodeID, Score: s.Score}
	}
	if !m.ranks() {
		s := m.actRun()
		cfg := why.Config{Backend: safeBackend{m.runs.backend}, Params: s.cfg, Options: m.runs.opts,
			Seeds: seeds, Tags: slices.Clone(s.tags)}
		return func(ctx context.Context, id string) string {
			c := cfg
			c.NodeID = id
			a, err := why.Explain(ctx, c)
			if err != nil {
				return whyErrText(id, err)
			}
			return string(a.Verdict) + ": " + render.WhyDetail(a)
		}
	}
	if m.runs.nb == nil {
		return nil
	}
	name := m.retriever
	j := m.newWhyJob(seeds, "")
	k := 0
	if p, ok := j.params[name]; ok {
		k = p.TopK()
	}
	return func(ctx context.Context, id string) string {
		e, err := rankwhy.New(ctx, j.config(), id)
		if err != nil {
			return whyErrText(id, err)
		}
		a, err := e.Explain(ctx, name, k)
		if err != nil {
			return whyErrText(id, err)
		}
		verdict := a.Verdict
		if a.Reason != "" {
			verdict += " (" + textsafe.Escape(a.Reason) + ")"
		}
		return verdict + ": " + render.RankingWhyDetail(a)
	}
}

// whyErrText is a failed why-not as the list shows it.
func whyErrText(id string, err error) string {
	if t, ok := whypanel.NoNodeText(err); ok {
		return t
	}
	return "why " + render.DisplayID(id) + " failed: " + textsafe.Escape(err.Error())
}

// marksWhyCmd asks the i-th node's why-not inside the command.
func marksWhyCmd(ctx context.Context, seq, i int, id string, ask whyAsker) tea.Cmd {
	return common.SafeCmd(func() tea.Msg {
		if ctx.Err() != nil {
			return nil // the judgement was replaced: nobody waits
		}
		return marksWhyMsg{seq: seq, i: i, text: ask(ctx, id)}
	})
}

// applyMarksWhy shows an answer of the current judgement and asks the next
// node's; an answer of an earlier judgement is dropped.
func (m *Model) applyMarksWhy(msg marksWhyMsg) tea.Cmd {
	j := m.judgement()
	if msg.seq != j.seq || j.cancel == nil || msg.i >= len(j.missing) {
		return nil
	}
	j.missing[msg.i].why = msg.text
	m.tree.MarksChanged()
	if msg.i+1 == len(j.missing) {
		j.stop()
		return nil
	}
	return j.next(m.Ctx, msg.i+1)
}

// View is the judgement as the results pane draws it in w cells and at
// most h lines: the found line on top, and under the results the relevant
// nodes not found with their why-not, one a line (at most a third of h;
// the rest counted on the last).
func (j *judgement) View(st *Styles, w, h int) (head, foot []string) {
	if j == nil || j.line == "" || h < 3 {
		return nil, nil
	}
	head = []string{st.Info.Render(fit(j.line, w))}
	n := len(j.missing)
	if n == 0 {
		return head, nil
	}
	room := max(1, (h-1)/3)
	shown := n
	if n+boolInt(j.more > 0) > room {
		shown = room - 1
	}
	for _, mm := range j.missing[:shown] {
		why := mm.why
		if why == "" {
			why = "⟳ asking why…"
		}
		line := glyphLost + " " + common.MarkGlyph(mm.grade) + " " + render.DisplayID(mm.id) + " not found · " + why
		foot = append(foot, st.Dim.Render(fit(line, w)))
	}
	if rest := n - shown + j.more; rest > 0 {
		foot = append(foot, st.Dim.Render(fit(fmt.Sprintf("… and %s not found", common.Plural(rest, "more relevant node")), w)))
	}
	return head, foot
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// judgedLines is the judgement's plain text (tests, the tmux story): the
// found line and one line per relevant node not found.
func (j *judgement) judgedLines() []string {
	if j.line == "" {
		return nil
	}
	out := []string{j.line}
	for _, mm := range j.missing {
		out = append(out, mm.id+" · "+mm.why)
	}
	return out
}
