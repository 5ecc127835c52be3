package tui

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/aymanbagabas/go-osc52/v2"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/render"
)

// copyCmd writes text to the terminal's clipboard with an OSC 52 escape
// sequence, from a command (never from Update), and reports what.
func copyCmd(out io.Writer, text, what string) tea.Cmd {
	return safeCmd(func() tea.Msg {
		if _, err := io.WriteString(out, osc52.New(text).String()); err != nil {
			return statusMsg{text: "copy failed: " + err.Error(), isErr: true}
		}
		return statusMsg{text: "copied " + what}
	})
}

// arrowPath writes a path's ids joined with arrows.
func arrowPath(ids []string) string { return strings.Join(ids, "→") }

// copyPath copies the debug Cypher of the path through the selected node:
// from the seed to it (a leaf's path is its whole path). On a seed it copies
// every path of that seed.
func (m *Model) copyPath() tea.Cmd {
	n, st := m.tree.selectedNode()
	if n == nil {
		return notifyErr(fmt.Errorf("nothing selected: pick a node in the results first"))
	}
	if n.step == nil {
		var qs []render.DebugQuery
		if st.result != nil {
			qs = render.DebugCypherAll(*st.result)
		}
		if len(qs) == 0 {
			return notifyErr(fmt.Errorf("seed %s has no completed paths yet", n.node.ID))
		}
		return copyCmd(m.out, render.BrowserScript(qs), fmt.Sprintf("Cypher for %s of seed %s", plural(len(qs), "path"), n.node.ID))
	}
	p := n.path()
	q := render.DebugCypher(p)
	ids := p.NodeIDs()
	return copyCmd(m.out, q.Browser(), fmt.Sprintf("Cypher for path %s (%d nodes)", arrowPath(ids), len(ids)))
}

// copyAll copies every completed path's Cypher as one Browser script.
func (m *Model) copyAll() tea.Cmd {
	res := m.trees.results()
	qs := render.DebugCypherAll(res...)
	if len(qs) == 0 {
		return notifyErr(fmt.Errorf("no completed paths to copy yet"))
	}
	what := fmt.Sprintf("Cypher for all %s", plural(len(qs), "path"))
	if m.running() {
		what += " finished so far"
	}
	return copyCmd(m.out, render.BrowserScript(qs), what)
}

// export writes the D3 JSON or the LLM context of the current results.
func (m *Model) export(kind string) tea.Cmd {
	res := m.trees.results()
	if len(res) == 0 {
		return notifyErr(fmt.Errorf("no results to export yet: pick a seed"))
	}
	dir, now := m.outDir, m.now()
	return safeCmd(func() tea.Msg {
		var data []byte
		var name string
		stamp := now.Format("20060102-150405")
		switch kind {
		case "d3":
			b, err := json.MarshalIndent(render.ToD3(res...), "", "  ")
			if err != nil {
				return errMsg{err}
			}
			data, name = append(b, '\n'), "memoria-d3-"+stamp+".json"
		default:
			data, name = []byte(render.ToLLMContext(res...).Text()), "memoria-llm-"+stamp+".txt"
		}
		path := filepath.Join(dir, name)
		if err := writeAtomic(path, data); err != nil {
			return errMsg{fmt.Errorf("writing %s: %w", path, err)}
		}
		return statusMsg{text: fmt.Sprintf("wrote %s (%d bytes, %s)", path, len(data), plural(len(res), "seed"))}
	})
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
	if m.trees == nil {
		return false
	}
	for _, st := range m.trees.seeds {
		if st.state == seedRunning {
			return true
		}
	}
	return false
}

// subject builds the detail pane's subject from the tree's selection.
func (m *Model) subject() *detailSubject {
	n, st := m.tree.selectedNode()
	if n == nil {
		return nil
	}
	s := &detailSubject{node: n.node, step: n.step, end: n.end, depth: n.depth,
		tags: m.runTags, floor: m.runCfg.TagSimFloor}
	if n.step == nil {
		seed := st.seed
		s.seed = &seed
	}
	if o, ok := m.tree.selectedLoser(); ok {
		s = &detailSubject{node: o.Candidate.NeighborNode, loser: &o, depth: n.depth + 1,
			tags: m.runTags, floor: m.runCfg.TagSimFloor}
	}
	return s
}
