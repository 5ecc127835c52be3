// Package tags is the explorer's tag input (docs/EXPLORER.md): the query
// tags chosen from the graph's, completed as typed and shown as chips. The
// root reads it through its methods (Tags, Version); the graph's tags
// arrive in its own message (LoadedMsg).
package tags

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/tui/common"
	"github.com/memoria-graph/memoria/tui/theme"
)

// LoadedMsg carries Catalog.Tags.
type LoadedMsg struct {
	Tags []graph.TagCount
	Err  error
}

func loadTagsCmd(ctx context.Context, cat graph.Catalog) tea.Cmd {
	return common.SafeCmd(func() tea.Msg {
		tags, err := cat.Tags(ctx)
		return LoadedMsg{Tags: tags, Err: err}
	})
}

// Input chooses the query tags: a text input completing from the graph's
// tags, the chosen ones shown as chips.
type Input struct {
	*common.Common
	cat    graph.Catalog
	input  textinput.Model
	known  []graph.TagCount
	counts map[string]int
	// shown maps the escaped form (textsafe.Escape) of each graph tag back
	// to the tag: the input's completions are the escaped forms, so a
	// completed tag is mapped back before it is chosen.
	shown   map[string]string
	chosen  []string
	chip    int // selected chip, -1 for none
	version int // bumped whenever the chosen tags change
	focused bool
	w, h    int
}

func New(c *common.Common, cat graph.Catalog, tags []string) *Input {
	km, st := c.KM, c.St
	in := st.NewInput("+ ", "type a tag")
	in.ShowSuggestions = true
	in.KeyMap.AcceptSuggestion = km.AcceptTag
	in.KeyMap.NextSuggestion = km.NextSuggestion
	in.KeyMap.PrevSuggestion = km.PrevSuggestion
	in.KeyMap.DeleteWordBackward = key.NewBinding(key.WithKeys("alt+backspace", "ctrl+w"))
	return &Input{Common: c, cat: cat, input: in, chip: -1,
		chosen: retriever.NormalizeTags(tags), counts: map[string]int{}, shown: map[string]string{}}
}

// Init loads the graph's tags.
func (t *Input) Init() tea.Cmd { return loadTagsCmd(t.Ctx, t.cat) }

// SetSize sets the inner size.
func (t *Input) SetSize(w, h int) {
	t.w, t.h = w, h
	t.input.Width = max(1, w-4)
}

// Tags returns a copy of the chosen tags.
func (t *Input) Tags() []string { return append([]string(nil), t.chosen...) }

// Version changes whenever the chosen tags change.
func (t *Input) Version() int { return t.version }

// Title is the pane's title: the number of chosen tags.
func (t *Input) Title() string { return fmt.Sprintf("Tags %d", len(t.chosen)) }

// Typing reports whether the input has the keyboard (always, when focused).
func (t *Input) Typing() bool { return t.focused }

// Focus gives the input the keyboard.
func (t *Input) Focus() tea.Cmd {
	t.focused = true
	return t.input.Focus()
}

// Blur takes the keyboard away. A half-typed tag stays in the input, shown,
// and is added only with enter, so nothing is lost or applied silently.
func (t *Input) Blur() tea.Cmd {
	t.focused = false
	t.chip = -1
	t.input.Blur()
	return nil
}

// Update handles the tag list and keys when focused.
func (t *Input) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case LoadedMsg:
		if msg.Err != nil {
			return common.NotifyErr(fmt.Errorf("loading tags: %w", msg.Err))
		}
		t.known = msg.Tags
		names := make([]string, len(msg.Tags))
		for i, tc := range msg.Tags {
			names[i] = textsafe.Escape(tc.Tag) // the input draws completions raw
			t.counts[tc.Tag] = tc.Count
			if _, taken := t.shown[names[i]]; !taken {
				t.shown[names[i]] = tc.Tag
			}
		}
		t.input.SetSuggestions(names)
		return nil
	case tea.KeyMsg:
		if !t.focused {
			return nil
		}
		return t.key(msg)
	}
	return nil
}

func (t *Input) key(msg tea.KeyMsg) tea.Cmd {
	empty := t.input.Value() == ""
	if t.chip >= 0 {
		switch {
		case key.Matches(msg, t.KM.RemoveChip):
			return t.remove(t.chip)
		case key.Matches(msg, t.KM.ChipLeft):
			t.chip = max(0, t.chip-1)
			return nil
		case key.Matches(msg, t.KM.ChipRight):
			t.chip++
			if t.chip >= len(t.chosen) {
				t.chip = -1
			}
			return nil
		case key.Matches(msg, t.KM.Cancel):
			t.chip = -1
			return nil
		}
		t.chip = -1 // typing leaves the chips
	}
	switch {
	case key.Matches(msg, t.KM.AddTag):
		return t.add()
	case empty && key.Matches(msg, t.KM.RemoveLastTag):
		if len(t.chosen) == 0 {
			return nil
		}
		return t.remove(len(t.chosen) - 1)
	case empty && key.Matches(msg, t.KM.ChipLeft):
		if len(t.chosen) > 0 {
			t.chip = len(t.chosen) - 1
		}
		return nil
	case key.Matches(msg, t.KM.Cancel):
		t.input.SetValue("")
		return nil
	}
	var cmd tea.Cmd
	t.input, cmd = t.input.Update(msg)
	return cmd
}

// add chooses the typed tag: the value itself when the graph has it,
// otherwise the highlighted suggestion, otherwise the text as typed; a
// suggestion, or text equal to a tag's escaped form, stands for that tag.
func (t *Input) add() tea.Cmd {
	v := strings.TrimSpace(t.input.Value())
	if v == "" {
		return nil
	}
	if _, ok := t.counts[v]; !ok {
		if s := t.input.CurrentSuggestion(); s != "" {
			v = s
		}
		if tag, ok := t.shown[v]; ok {
			v = tag
		}
	}
	t.input.SetValue("")
	if slices.Contains(t.chosen, v) {
		return common.Notify(fmt.Sprintf("tag %s is already chosen", v))
	}
	t.chosen = append(t.chosen, v)
	t.version++
	if _, ok := t.counts[v]; !ok && len(t.known) > 0 {
		return common.Notify(fmt.Sprintf("added tag %s (no edge carries it)", v))
	}
	return common.Notify(fmt.Sprintf("added tag %s", v))
}

func (t *Input) remove(i int) tea.Cmd {
	if i < 0 || i >= len(t.chosen) {
		return nil
	}
	gone := t.chosen[i]
	t.chosen = slices.Delete(t.chosen, i, i+1)
	t.version++
	if t.chip >= len(t.chosen) {
		t.chip = len(t.chosen) - 1
	}
	return common.Notify("removed tag " + gone)
}

// maxChipLines is the most lines of chips shown.
const maxChipLines = 4

// ChipLines is how many lines the chips need at inner width w (1 to
// maxChipLines); the layout sizes the pane from it.
func (t *Input) ChipLines(w int) int {
	return min(maxChipLines, len(wrapItems(t.chips(), w, maxChipLines+1)))
}

func (t *Input) chips() []string {
	var chips []string
	for i, c := range t.chosen {
		c = textsafe.Escape(c)
		if i == t.chip {
			chips = append(chips, t.St.ChipSel.Render("["+theme.GlyphSelected+c+"]"))
		} else {
			chips = append(chips, t.St.Chip.Render("["+c+"]"))
		}
	}
	if len(chips) == 0 {
		chips = []string{t.St.Dim.Render("no tags: every edge has tag_sim 1")}
	}
	return chips
}

// View renders the chips, the input and the matching suggestions with counts.
func (t *Input) View() string {
	lines := wrapItems(t.chips(), t.w, max(1, t.h-2))
	lines = append(lines, t.input.View(), t.suggestions())
	return strings.Join(lines, "\n")
}

// suggestions lists tags matching the input (or the most frequent ones),
// escaped, with their edge counts, the highlighted one marked.
func (t *Input) suggestions() string {
	v := strings.ToLower(strings.TrimSpace(t.input.Value()))
	cur := t.input.CurrentSuggestion()
	var parts []string
	for _, tc := range t.known {
		shown := textsafe.Escape(tc.Tag)
		if slices.Contains(t.chosen, tc.Tag) || (v != "" && !strings.HasPrefix(strings.ToLower(shown), v)) {
			continue
		}
		s := fmt.Sprintf("%s (%d)", shown, tc.Count)
		if shown == cur && v != "" {
			parts = append(parts, t.St.Info.Render(theme.GlyphSelected+s))
		} else {
			parts = append(parts, t.St.Dim.Render(s))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return ansi.Truncate(strings.Join(parts, t.St.Dim.Render(" · ")), max(0, t.w), "…")
}

// wrapItems lays styled items, separated by spaces, on up to maxLines lines
// of width w, keeping the last lines when there are more.
func wrapItems(items []string, w, maxLines int) []string {
	var lines []string
	cur := ""
	for _, word := range items {
		switch {
		case cur == "":
			cur = word
		case ansi.StringWidth(cur)+1+ansi.StringWidth(word) <= w:
			cur += " " + word
		default:
			lines = append(lines, cur)
			cur = word
		}
	}
	lines = append(lines, cur)
	if len(lines) > maxLines {
		lines = lines[len(lines)-maxLines:]
	}
	return lines
}

// ShortHelp lists the input's main keys.
func (t *Input) ShortHelp() []key.Binding {
	return []key.Binding{t.KM.AddTag, t.KM.AcceptTag, t.KM.NextSuggestion, t.KM.RemoveLastTag, t.KM.ChipLeft}
}

// Value is the text typed in the input (a tag not added yet).
func (t *Input) Value() string { return t.input.Value() }

// Focused reports whether the input has the keyboard.
func (t *Input) Focused() bool { return t.focused }

// Known is the graph's tags as loaded, in the catalog's order (none until
// they are).
func (t *Input) Known() []string {
	out := make([]string, len(t.known))
	for i, tc := range t.known {
		out[i] = tc.Tag
	}
	return out
}

// Choose adds the tags of tags not chosen yet, in their order, and returns
// those it added (the query line's tags: docs/EXPLORER.md).
func (t *Input) Choose(tags []string) []string {
	var added []string
	for _, v := range tags {
		if v != "" && !slices.Contains(t.chosen, v) {
			t.chosen = append(t.chosen, v)
			added = append(added, v)
		}
	}
	if len(added) > 0 {
		t.version++
	}
	return added
}
