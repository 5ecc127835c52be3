package keymap

import (
	"testing"

	"github.com/charmbracelet/bubbles/key"
)

// keyPress is a key as Bubble Tea's KeyMsg shows itself (its String).
type keyPress string

func (k keyPress) String() string { return string(k) }

// TestDispatch: of three commands on "a" (the first applying only when the
// state is 1, the second refused when the state is 2, the third never
// reached) and one on "b", a press of "a" in state 0 skips the first (it
// does not apply) and runs the second ("second"); in state 1 the first
// runs ("first"); in state 2 the second is refused with its reason, and
// Run is not called (the reason comes back through refuse, "no: a is
// off"); "b" runs its own; "c" is nobody's (ok false).
func TestDispatch(t *testing.T) {
	a := key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "do a"))
	b := key.NewBinding(key.WithKeys("b"))
	ran := 0
	cmds := []Command[int, string]{
		{Binding: a, When: func(s int) bool { return s == 1 }, Run: func(int) string { return "first" }},
		{Binding: a, Disabled: func(s int, b key.Binding) string {
			if s == 2 {
				return b.Help().Key + " is off"
			}
			return ""
		}, Run: func(int) string { ran++; return "second" }},
		{Binding: a, Run: func(int) string { return "third" }},
		{Binding: b, Run: func(int) string { return "b" }},
	}
	refuse := func(why string) string { return "no: " + why }
	for _, c := range []struct {
		state  int
		press  string
		want   string
		wantOK bool
	}{
		{0, "a", "second", true},
		{1, "a", "first", true},
		{2, "a", "no: a is off", true},
		{0, "b", "b", true},
		{0, "c", "", false},
	} {
		got, ok := Dispatch(c.state, keyPress(c.press), cmds, refuse)
		if got != c.want || ok != c.wantOK {
			t.Errorf("state %d, %q: %q %v, want %q %v", c.state, c.press, got, ok, c.want, c.wantOK)
		}
	}
	if ran != 1 {
		t.Errorf("the second command ran %d times, want 1 (never when refused)", ran)
	}
	if why := cmds[1].DisabledReason(2); why != "a is off" {
		t.Errorf("DisabledReason(2) = %q", why)
	}
	if why := cmds[0].DisabledReason(2); why != "" {
		t.Errorf("a command without Disabled is never refused: %q", why)
	}
}

// TestUsable: with "a" refused in state 2 and "b" never, Usable(2, a, b, c)
// keeps b and c (c has no command: nothing refuses it) and drops a; in
// state 0 it keeps all three, in their order.
func TestUsable(t *testing.T) {
	a := key.NewBinding(key.WithKeys("a"))
	b := key.NewBinding(key.WithKeys("b"))
	c := key.NewBinding(key.WithKeys("c"))
	cmds := []Command[int, string]{
		{Binding: a, Disabled: func(s int, _ key.Binding) string {
			if s == 2 {
				return "off"
			}
			return ""
		}},
		{Binding: b},
	}
	keys := func(bs []key.Binding) (out []string) {
		for _, b := range bs {
			out = append(out, b.Keys()...)
		}
		return out
	}
	if got := keys(Usable(2, cmds, a, b, c)); len(got) != 2 || got[0] != "b" || got[1] != "c" {
		t.Errorf("state 2: %v, want [b c]", got)
	}
	if got := keys(Usable(0, cmds, a, b, c)); len(got) != 3 || got[0] != "a" {
		t.Errorf("state 0: %v, want [a b c]", got)
	}
}
