package picker

import (
	"errors"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/memoria-graph/memoria/keymap"
	"github.com/memoria-graph/memoria/tui/theme"
)

func press(p *Model, keys ...string) (done bool, msg tea.Msg) {
	for _, k := range keys {
		var km tea.KeyMsg
		switch k {
		case "down", "up", "enter", "esc":
			km = tea.KeyMsg{Type: map[string]tea.KeyType{"down": tea.KeyDown, "up": tea.KeyUp, "enter": tea.KeyEnter, "esc": tea.KeyEsc}[k]}
		case " ":
			km = tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
		default:
			km = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
		}
		var cmd tea.Cmd
		done, cmd = p.Update(km)
		msg = nil
		if cmd != nil {
			msg = cmd()
		}
	}
	return done, msg
}

// TestPicker: over activation, expansion and fusion (which combines the
// others), opened with activation ticked: ticking expansion and applying
// sends PickedMsg [activation expansion] and closes; ticking fusion
// beside activation alone is refused (fusion needs two others besides it)
// and stays open; nothing ticked is refused; on a source that serves only
// activation, a tick of expansion is refused with the reason Open was
// given, and the tick does not happen.
func TestPicker(t *testing.T) {
	st := theme.NewStyles(nil, true)
	rows := []Retriever{{Name: "activation"}, {Name: "expansion"}, {Name: "fusion", Combining: true, Purpose: "Reciprocal Rank Fusion"}}
	p := New(keymap.Default(), &st, rows)
	p.SetSize(100, 10)
	p.Open([]string{"activation"}, nil)
	if v := p.View(); !strings.Contains(v, "[x] activation") || !strings.Contains(v, "[ ] fusion  (Reciprocal Rank Fusion of the others ticked; compare view only)") {
		t.Fatalf("view:\n%s", v)
	}
	done, msg := press(p, "down", " ", "enter")
	if got, ok := msg.(PickedMsg); !done || !ok || strings.Join(got.Names, ",") != "activation,expansion" {
		t.Fatalf("tick expansion, enter: done %v, %#v", done, msg)
	}

	p.Open([]string{"activation", "fusion"}, nil)
	done, msg = press(p, "enter")
	if r, ok := msg.(RefusedMsg); done || !ok || r.Err.Error() != "fusion fuses the other retrievers ticked: tick two or more besides it" {
		t.Fatalf("activation and fusion: done %v, %#v", done, msg)
	}
	p.Open(nil, nil)
	done, msg = press(p, "enter")
	if r, ok := msg.(RefusedMsg); done || !ok || r.Err.Error() != "tick at least one retriever (space), then enter" {
		t.Fatalf("nothing ticked: done %v, %#v", done, msg)
	}

	off := errors.New("only activation here")
	p.Open([]string{"activation"}, off)
	press(p, "up", "up", "up", "down") // the cursor on expansion
	done, msg = press(p, " ")
	if r, ok := msg.(RefusedMsg); done || !ok || !errors.Is(r.Err, off) {
		t.Fatalf("tick expansion where only activation runs: done %v, %#v", done, msg)
	}
	if strings.Contains(p.View(), "[x] expansion") {
		t.Fatal("the refused tick happened")
	}
	if done, _ := press(p, "esc"); !done {
		t.Fatal("esc did not close the picker")
	}
}
