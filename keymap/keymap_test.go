package keymap

import (
	"reflect"
	"testing"

	"github.com/charmbracelet/bubbles/key"
)

// TestEveryBindingHasKeysAndHelp: each field of KeyMap is bound and
// documented, and All (the full help) lists every field.
func TestEveryBindingHasKeysAndHelp(t *testing.T) {
	k := Default()
	v := reflect.ValueOf(k)
	listed := map[string]bool{}
	for _, g := range k.All() {
		for _, b := range g {
			listed[b.Help().Key+"|"+b.Help().Desc] = true
		}
	}
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		b := v.Field(i).Interface().(key.Binding)
		if len(b.Keys()) == 0 || b.Help().Key == "" || b.Help().Desc == "" {
			t.Errorf("%s: keys %v, help %+v", name, b.Keys(), b.Help())
		}
		if !listed[b.Help().Key+"|"+b.Help().Desc] {
			t.Errorf("%s missing from All()", name)
		}
	}
}

// TestTreeKeysDoNotClash: the result tree's keys are distinct from each
// other (one key, one meaning in the pane).
func TestTreeKeysDoNotClash(t *testing.T) {
	k := Default()
	tree := []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Toggle, k.Expand, k.Collapse,
		k.CollapseAll, k.ExpandAll, k.Search, k.NextMatch, k.PrevMatch, k.NextEnd, k.PrevEnd, k.NextLoser, k.PrevLoser, k.WhyNot,
		k.NextChange, k.PrevChange, k.Mark}
	owner := map[string]string{}
	for _, b := range tree {
		for _, s := range b.Keys() {
			if o, ok := owner[s]; ok {
				t.Errorf("tree key %q is both %q and %q", s, o, b.Help().Desc)
			}
			owner[s] = b.Help().Desc
		}
	}
}

// TestGroupsHaveTitles: every group of the full help has a heading and
// keys.
func TestGroupsHaveTitles(t *testing.T) {
	for i, g := range Default().Groups() {
		if g.Title == "" || len(g.Keys) == 0 {
			t.Errorf("group %d: title %q, %d keys", i, g.Title, len(g.Keys))
		}
	}
}

// TestGlobalKeysDoNotClash: the keys that work in every pane (outside text
// inputs) must not also mean something in a pane, or one would shadow the
// other.
func TestGlobalKeysDoNotClash(t *testing.T) {
	k := Default()
	pane := []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Toggle, k.Expand,
		k.Collapse, k.CollapseAll, k.ExpandAll, k.Search, k.NextMatch, k.PrevMatch, k.NextEnd, k.PrevEnd,
		k.NextLoser, k.PrevLoser, k.Filter, k.ToggleSeed, k.ScoreUp, k.ScoreDown, k.EditScore, k.Reload, k.Increase, k.Decrease, k.WhyNot,
		k.EditParam, k.NextChange, k.PrevChange, k.Mark}
	owner := map[string]string{}
	for _, b := range pane {
		for _, s := range b.Keys() {
			owner[s] = b.Help().Desc
		}
	}
	for _, g := range k.Global() {
		for _, s := range g.Keys() {
			if o, ok := owner[s]; ok {
				t.Errorf("global key %q (%s) is also %q", s, g.Help().Desc, o)
			}
		}
	}
}

// TestArrowsAndVim: movement works with both arrows and vim keys.
func TestArrowsAndVim(t *testing.T) {
	k := Default()
	for _, c := range []struct {
		b    key.Binding
		keys []string
	}{{k.Up, []string{"up", "k"}}, {k.Down, []string{"down", "j"}}, {k.Expand, []string{"right", "l"}}, {k.Collapse, []string{"left", "h"}}} {
		if !reflect.DeepEqual(c.b.Keys(), c.keys) {
			t.Errorf("%s: %v, want %v", c.b.Help().Desc, c.b.Keys(), c.keys)
		}
	}
}
