package keymap

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
)

// Command is a key of a component with the rule that refuses it, the way
// lazygit's bindings carry GetDisabledReason: a component lists its keys
// as Commands over its own state S, and one Dispatch finds the key pressed,
// refuses it with its reason or runs it. The reason is written once, in
// the function that decides it, however many keys share it.
type Command[S, R any] struct {
	Binding key.Binding
	// When narrows where the key means this command at all (the focused
	// pane, say); nil: everywhere. A key that does not apply is left to
	// the next command, then to whoever the caller hands it.
	When func(S) bool
	// Disabled is "" when the command works in state s, else the reason
	// it does not, which the user is told. nil: never refused.
	Disabled func(s S, b key.Binding) string
	// Run does it.
	Run func(S) R
}

// DisabledReason is c's reason for refusing in state s, "" when it works.
func (c Command[S, R]) DisabledReason(s S) string {
	if c.Disabled == nil {
		return ""
	}
	return c.Disabled(s, c.Binding)
}

// Dispatch takes msg (a key) to the first of cmds whose binding matches it
// and which applies in s: it returns what that command's Run returns, or,
// when the command is disabled there, what refuse makes of its reason.
// ok is false when no command took the key.
func Dispatch[S, R any](s S, msg fmt.Stringer, cmds []Command[S, R], refuse func(reason string) R) (r R, ok bool) {
	for _, c := range cmds {
		if !key.Matches(msg, c.Binding) || (c.When != nil && !c.When(s)) {
			continue
		}
		if why := c.DisabledReason(s); why != "" {
			return refuse(why), true
		}
		return c.Run(s), true
	}
	return r, false
}

// Usable is the bindings of bs that work in state s, in their order: those
// whose command in cmds (the first with the same keys) is not disabled
// there, and those no command has. A help line lists them, so it offers
// only what would not be refused.
func Usable[S, R any](s S, cmds []Command[S, R], bs ...key.Binding) []key.Binding {
	var out []key.Binding
	for _, b := range bs {
		ok := true
		for _, c := range cmds {
			if sameKeys(c.Binding, b) {
				ok = c.DisabledReason(s) == ""
				break
			}
		}
		if ok {
			out = append(out, b)
		}
	}
	return out
}

func sameKeys(a, b key.Binding) bool {
	ka, kb := a.Keys(), b.Keys()
	if len(ka) != len(kb) {
		return false
	}
	for i := range ka {
		if ka[i] != kb[i] {
			return false
		}
	}
	return true
}
