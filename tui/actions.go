package tui

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/aymanbagabas/go-osc52/v2"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/tui/common"
	"github.com/memoria-graph/memoria/tui/components/tree"
)

// copyCmd writes text to the terminal's clipboard with an OSC 52 escape
// sequence, from a command (never from Update), and reports what. out is the
// locked program output (lockOutput): the sequence goes out in one Write,
// between two of the renderer's frames, never inside one. Bubble Tea v1 has
// no command to emit a raw sequence (Printf/Println print text above the
// program), hence the shared lock.
func copyCmd(out io.Writer, text, what string) tea.Cmd {
	return common.SafeCmd(func() tea.Msg {
		if _, err := io.WriteString(out, osc52.New(text).String()); err != nil {
			return common.StatusMsg{Text: "copy failed: " + err.Error(), IsErr: true}
		}
		return common.StatusMsg{Text: "copied " + what}
	})
}

// arrowPath writes a path's ids joined with arrows.
func arrowPath(ids []string) string { return strings.Join(ids, "→") }

// selectedPath is the path the selected row stands for: a node's path from
// its seed; for a losing candidate or a near miss, its parent's path plus
// the edge it lost on; for a node that left, its path in the baseline run.
// what names it for the status line. A seed's row has no path of its own
// (ok false, n the seed).
func (m *Model) selectedPath() (p activation.Path, st *tree.SeedTree, what string, ok bool) {
	if g, gst, isGhost := m.tree.SelectedGhost(); isGhost {
		for _, bp := range gst.Base.Result.Paths {
			for i, step := range bp.Steps {
				if step.ToNode.ID == g.Step.ToNode.ID {
					var cut activation.Path
					for _, s := range bp.Steps[:i+1] {
						cut = cut.Extend(s)
					}
					return cut, gst, "the " + gst.Base.From.Label + " run's path " + arrowPath(cut.NodeIDs()), true
				}
			}
		}
		return activation.Path{}, gst, "", false
	}
	n, st := m.tree.SelectedNode()
	if n == nil {
		return activation.Path{}, nil, "", false
	}
	if o, isLoser := m.tree.SelectedLoser(); isLoser {
		p := n.Path()
		p = p.Extend(activation.StepFromCandidate(n.Node, o.Candidate))
		return p, st, fmt.Sprintf("path %s, %s", arrowPath(p.NodeIDs()), tree.FateText(o, m.actRun().cfg.MinActivation)), true
	}
	if n.Step == nil {
		return activation.Path{}, st, "", false
	}
	p = n.Path()
	return p, st, fmt.Sprintf("path %s", arrowPath(p.NodeIDs())), true
}

// copyPath copies the debug Cypher of the path the selected row stands for
// (selectedPath), in the copy form; on a seed, every path of that seed.
func (m *Model) copyPath() tea.Cmd {
	p, st, what, ok := m.selectedPath()
	if !ok {
		if st == nil {
			return common.NotifyErr(fmt.Errorf("nothing selected: pick a node in the results first"))
		}
		var qs []render.DebugQuery
		if st.Result != nil {
			qs = m.Cypher.DebugCypherAll(*st.Result)
		}
		if len(qs) == 0 {
			return common.NotifyErr(fmt.Errorf("seed %s has no completed paths yet", st.Seed.NodeID))
		}
		return copyCmd(m.Out, render.Script(qs, m.Form), fmt.Sprintf("Cypher for %s of seed %s%s", common.Plural(len(qs), "path"), st.Seed.NodeID, m.formNote()))
	}
	return copyCmd(m.Out, m.Cypher.DebugCypher(p).In(m.Form), fmt.Sprintf("Cypher for %s (%d nodes)%s", what, len(p.NodeIDs()), m.formNote()))
}

// formNote names the copy form on the status line when it is not the
// default (Neo4j Browser's).
func (m *Model) formNote() string {
	if m.Form == render.FormBrowser {
		return ""
	}
	return ", " + string(m.Form) + " form"
}

// copyCheck copies the query that recomputes each hop of the selected path
// on Neo4j and compares it with memoria's T (render.CheckCypher), with the
// seed's R, the run's tags and TAG_SIM_FLOOR as parameters.
//
// A node that left is checked with the baseline run's seed score, tags and
// floor, which its numbers came from.
func (m *Model) copyCheck() tea.Cmd {
	p, st, what, ok := m.selectedPath()
	if !ok {
		return common.NotifyErr(fmt.Errorf("select a node below a seed (or a loser): a seed's row has no hop to check"))
	}
	score, tags, floor := st.Seed.Score, m.actRun().tags, m.actRun().cfg.TagSimFloor
	if _, _, ghost := m.tree.SelectedGhost(); ghost {
		from := st.Base.From
		score, tags, floor = st.Base.Result.Seed.Score, from.Tags, from.Cfg.TagSimFloor
	}
	q := m.Cypher.CheckCypher(p, score, tags, floor)
	return copyCmd(m.Out, q.In(m.Form), fmt.Sprintf("check query for %s%s: expect %s, each with same = true (none: the path is no longer in the graph)",
		what, m.formNote(), common.Plural(len(p.Steps), "row")))
}

// cycleForm switches the copy form: Neo4j Browser, cypher-shell, driver.
func (m *Model) cycleForm() tea.Cmd {
	i := slices.Index(render.CypherForms, m.Form)
	m.Form = render.CypherForms[(i+1)%len(render.CypherForms)]
	return common.Notify("copies are now in the " + string(m.Form) + " form")
}

// copyAll copies every completed path's Cypher as one script in the copy
// form.
func (m *Model) copyAll() tea.Cmd {
	res := m.actRun().trees.Results()
	qs := m.Cypher.DebugCypherAll(res...)
	if len(qs) == 0 {
		return common.NotifyErr(fmt.Errorf("no completed paths to copy yet"))
	}
	what := fmt.Sprintf("Cypher for all %s%s", common.Plural(len(qs), "path"), m.formNote())
	if m.running() {
		what += " finished so far"
	}
	return copyCmd(m.Out, render.Script(qs, m.Form), what)
}

// export writes the D3 JSON or the LLM context of the current results.
func (m *Model) export(kind string) tea.Cmd {
	res := m.actRun().trees.Results()
	if len(res) == 0 {
		return common.NotifyErr(fmt.Errorf("no results to export yet: pick a seed"))
	}
	dir, now := m.OutDir, m.Now()
	return common.SafeCmd(func() tea.Msg {
		var data []byte
		var name string
		stamp := now.Format("20060102-150405")
		switch kind {
		case "d3":
			b, err := json.MarshalIndent(render.ToD3(res...), "", "  ")
			if err != nil {
				return common.ErrMsg{Err: err}
			}
			data, name = append(b, '\n'), "memoria-d3-"+stamp+".json"
		default:
			data, name = []byte(render.ToLLMContext(res...).Text()), "memoria-llm-"+stamp+".txt"
		}
		path, err := writeNew(dir, name, data)
		if err != nil {
			return common.ErrMsg{Err: fmt.Errorf("writing %s: %w", filepath.Join(dir, name), err)}
		}
		return common.StatusMsg{Text: fmt.Sprintf("wrote %s (%d bytes, %s)", path, len(data), common.Plural(len(res), "seed"))}
	})
}

// maxExportSuffix bounds the "-2", "-3"... suffixes tried for one name.
const maxExportSuffix = 1000

// writeNew writes data to a new file in dir named name, or name with a
// suffix before its extension ("memoria-d3-20260302-093100-2.json") when
// that file exists: two exports in the same second both survive, and an
// existing file is never overwritten. It returns the path written.
//
// The name is claimed with O_CREATE|O_EXCL, then the data is written to a
// temporary file and renamed over the claimed (empty, ours) file, so readers
// never see a half-written export.
func writeNew(dir, name string, data []byte) (string, error) {
	ext := filepath.Ext(name)
	base := strings.TrimSuffix(name, ext)
	for i := 1; i <= maxExportSuffix; i++ {
		path := filepath.Join(dir, name)
		if i > 1 {
			path = filepath.Join(dir, fmt.Sprintf("%s-%d%s", base, i, ext))
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		if err := f.Close(); err != nil {
			os.Remove(path)
			return "", err
		}
		if err := writeAtomic(path, data); err != nil {
			os.Remove(path)
			return "", err
		}
		return path, nil
	}
	return "", fmt.Errorf("%s and %d numbered variants already exist", name, maxExportSuffix-1)
}

// writeAtomic writes data to a temporary file in path's directory and
// renames it into place, so readers never see a half-written file.
func writeAtomic(path string, data []byte) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// running reports whether the current run still has seeds exploring.
func (m *Model) running() bool {
	if m.actRun().trees == nil {
		return false
	}
	for _, st := range m.actRun().trees.Seeds {
		if st.State == tree.SeedRunning {
			return true
		}
	}
	return false
}

// subject builds the detail pane's subject from the tree's selection.
func (m *Model) subject() *detailSubject {
	if g, st, ok := m.tree.SelectedGhost(); ok {
		// Its numbers are the baseline run's: so are the tags and floor
		// its tag_sim is worked out with.
		step, from := g.Step, st.Base.From
		return &detailSubject{node: step.ToNode, step: &step, depth: g.Depth, route: g.Route,
			change: fmt.Sprintf("%s left: the %s run reached it here; this run did not", glyphLeft, st.Base.From.Label),
			tags:   from.Tags, floor: from.Cfg.TagSimFloor, minActivation: from.Cfg.MinActivation}
	}
	n, st := m.tree.SelectedNode()
	if n == nil {
		return nil
	}
	s := &detailSubject{node: n.Node, step: n.Step, end: n.End, nearMiss: n.NearMiss, depth: n.Depth, change: tree.ChangeText(st, n),
		tags: m.actRun().tags, floor: m.actRun().cfg.TagSimFloor, minActivation: m.actRun().cfg.MinActivation, route: n.Path().Steps}
	if n.Step == nil {
		seed := st.Seed
		s.seed = &seed
	}
	if o, ok := m.tree.SelectedLoser(); ok {
		ls := activation.StepFromCandidate(n.Node, o.Candidate)
		s = &detailSubject{node: o.Candidate.NeighborNode, loser: &o, depth: n.Depth + 1,
			tags: m.actRun().tags, floor: m.actRun().cfg.TagSimFloor, minActivation: m.actRun().cfg.MinActivation,
			route: append(n.Path().Steps, ls)}
	}
	return s
}
