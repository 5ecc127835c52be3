// Package keymap holds memoria's key bindings: one KeyMap of key.Bindings,
// built by Default. There are no globals; every component receives the
// KeyMap it was built with, so bindings can be changed in one place.
package keymap

import (
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
)

// KeyMap lists every binding of the terminal explorer. Arrows and vim keys
// both work; tab and shift+tab move between panes.
type KeyMap struct {
	// Global.
	Quit      key.Binding // q: quits unless a text input has focus
	ForceQuit key.Binding // ctrl+c: always quits
	Help      key.Binding
	NextPane  key.Binding
	PrevPane  key.Binding
	Explain   key.Binding
	// Retriever switches to the next retriever of the registry (Activation
	// Energy, then each ranking retriever): its parameters, results and
	// detail are shown.
	Retriever key.Binding
	// NameBy chooses which property names nodes in every pane.
	NameBy key.Binding
	// Stats opens the graph's metrics (an overlay; the same key or esc
	// closes it).
	Stats     key.Binding
	CopyPath  key.Binding
	CopyAll   key.Binding
	ExportD3  key.Binding
	ExportLLM key.Binding
	// ExportPage writes the self-contained HTML page of what is on
	// screen (render/subgraph): Activation Energy's results, the shown
	// retriever's ranking, or the compare view's rankings.
	ExportPage key.Binding
	// Reread forgets the Neo4j snapshot and runs again on the server.
	Reread key.Binding
	// CopyCheck copies the query that recomputes the selected path on
	// Neo4j; CopyForm cycles the form of copies (Browser, cypher-shell,
	// driver JSON).
	CopyCheck key.Binding
	CopyForm  key.Binding
	// SaveExperiment writes seeds, tags, thresholds and the pinned and
	// current results to an experiment file (memoria --experiment).
	SaveExperiment key.Binding

	// Lists, the result tree and scrollable panes.
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Top      key.Binding
	Bottom   key.Binding

	// Result tree.
	Toggle   key.Binding // fold or unfold the selected node
	Expand   key.Binding
	Collapse key.Binding
	// CollapseAll folds every node below the seeds; ExpandAll unfolds all.
	CollapseAll key.Binding
	ExpandAll   key.Binding
	// Search finds text in the result rows; NextMatch and PrevMatch jump.
	Search    key.Binding
	NextMatch key.Binding
	PrevMatch key.Binding
	// NextEnd and PrevEnd jump to the next (previous) node where a path
	// ends; NextLoser and PrevLoser to a losing candidate (shown by
	// Explain).
	NextEnd   key.Binding
	PrevEnd   key.Binding
	NextLoser key.Binding
	PrevLoser key.Binding
	// Pin keeps the current run as the baseline later runs are compared
	// with (pressed again, it unpins: the baseline is the previous run);
	// NextChange and PrevChange jump to a node that entered, moved or left.
	Pin        key.Binding
	NextChange key.Binding
	PrevChange key.Binding

	// Seed picker.
	Filter     key.Binding
	ToggleSeed key.Binding
	ScoreUp    key.Binding
	ScoreDown  key.Binding
	EditScore  key.Binding
	Reload     key.Binding // fetch the node list again (after a failure)

	// Tag input.
	AddTag         key.Binding
	AcceptTag      key.Binding // complete the input with the suggestion
	NextSuggestion key.Binding
	PrevSuggestion key.Binding
	RemoveLastTag  key.Binding
	ChipLeft       key.Binding
	ChipRight      key.Binding
	RemoveChip     key.Binding

	// WhyNot asks why the node on the selected row (results tree or node
	// list) is or is not in the result (docs/ALGORITHM.md, "Why not X").
	WhyNot key.Binding
	// Mark marks the node on the selected row (results or node list)
	// relevant, grade 1; again grade 2; again unmarked. The results then
	// measure themselves against the marks (docs/EXPLORER.md, "Relevance
	// marks").
	Mark key.Binding

	// Parameter panel.
	Increase key.Binding
	Decrease key.Binding
	// EditParam opens an input to type the selected threshold's value.
	EditParam key.Binding
	// Sweep sweeps the selected threshold for the current seeds and tags
	// (an overlay; the same key or esc closes it).
	Sweep key.Binding

	// PickRetrievers opens the retriever picker, which takes several
	// retrievers at once: two or more open the compare view. PickToggle
	// ticks one in the picker (Submit applies, Cancel leaves).
	PickRetrievers key.Binding
	PickToggle     key.Binding
	// SortColumn sorts the compare view's table by its next column.
	SortColumn key.Binding

	// Ask opens the query line (docs/EXPLORER.md, "Asking a question"):
	// the question typed, its candidates gathered as it is typed; Submit
	// takes the ticked candidates as the seeds (the first --seed-k at
	// first), QueryToggle ticks or unticks the selected one, QueryTags
	// takes or leaves the tags `--tags auto` would pick.
	Ask         key.Binding
	QueryToggle key.Binding
	QueryTags   key.Binding

	// Text inputs.
	Submit key.Binding
	Cancel key.Binding
}

// Default returns memoria's default bindings.
func Default() KeyMap {
	b := func(keys []string, k, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(k, desc))
	}
	return KeyMap{
		Quit:           b([]string{"q"}, "q", "quit"),
		ForceQuit:      b([]string{"ctrl+c"}, "ctrl+c", "quit (anywhere)"),
		Help:           b([]string{"?"}, "?", "toggle help"),
		NextPane:       b([]string{"tab"}, "tab", "next pane"),
		PrevPane:       b([]string{"shift+tab"}, "shift+tab", "previous pane"),
		Explain:        b([]string{"e"}, "e", "explain: show losing candidates"),
		CopyPath:       b([]string{"y"}, "y", "copy path Cypher"),
		CopyAll:        b([]string{"Y"}, "Y", "copy all paths' Cypher"),
		ExportD3:       b([]string{"d"}, "d", "write D3 JSON"),
		ExportLLM:      b([]string{"L"}, "L", "write LLM context"),
		ExportPage:     b([]string{"o"}, "o", "write the HTML page of what is shown"),
		Reread:         b([]string{"R"}, "R", "re-run on the server (forget the snapshot)"),
		SaveExperiment: b([]string{"S"}, "S", "save the experiment to a file"),
		CopyCheck:      b([]string{"K"}, "K", "copy a query that checks the path's numbers on Neo4j"),
		CopyForm:       b([]string{"F"}, "F", "copy form: Browser / cypher-shell / driver JSON"),
		NameBy:         b([]string{"P"}, "P", "name nodes by the next property"),
		Retriever:      b([]string{"x"}, "x", "switch retriever"),
		Stats:          b([]string{"M"}, "M", "graph metrics (hubs marked ◆)"),

		Up:       b([]string{"up", "k"}, "↑/k", "up"),
		Down:     b([]string{"down", "j"}, "↓/j", "down"),
		PageUp:   b([]string{"pgup", "ctrl+u"}, "pgup/ctrl+u", "page up"),
		PageDown: b([]string{"pgdown", "ctrl+d"}, "pgdn/ctrl+d", "page down"),
		Top:      b([]string{"home", "g"}, "g/home", "top"),
		Bottom:   b([]string{"end", "G"}, "G/end", "bottom"),

		Toggle:   b([]string{"enter", " "}, "enter/space", "fold/unfold"),
		Expand:   b([]string{"right", "l"}, "→/l", "unfold"),
		Collapse: b([]string{"left", "h"}, "←/h", "fold / go to parent"),

		CollapseAll: b([]string{"C"}, "C", "fold all"),
		ExpandAll:   b([]string{"E"}, "E", "unfold all"),
		Search:      b([]string{"/"}, "/", "search results"),
		NextMatch:   b([]string{"n"}, "n", "next match"),
		PrevMatch:   b([]string{"N"}, "N", "previous match"),
		NextEnd:     b([]string{"]"}, "]", "next path end"),
		PrevEnd:     b([]string{"["}, "[", "previous path end"),
		NextLoser:   b([]string{"}"}, "}", "next loser (with e)"),
		PrevLoser:   b([]string{"{"}, "{", "previous loser"),
		Pin:         b([]string{"p"}, "p", "pin this run as the baseline / unpin"),
		NextChange:  b([]string{">"}, ">", "next change since the baseline"),
		PrevChange:  b([]string{"<"}, "<", "previous change"),

		Filter:     b([]string{"/"}, "/", "filter nodes"),
		ToggleSeed: b([]string{" ", "enter"}, "space/enter", "toggle seed"),
		ScoreUp:    b([]string{"+", "="}, "+", "score R +0.05"),
		ScoreDown:  b([]string{"-", "_"}, "-", "score R −0.05"),
		EditScore:  b([]string{"r"}, "r", "type score R"),
		Reload:     b([]string{"ctrl+r"}, "ctrl+r", "reload node list"),

		AddTag:         b([]string{"enter"}, "enter", "add tag"),
		AcceptTag:      b([]string{"right"}, "→", "complete tag"),
		NextSuggestion: b([]string{"down", "ctrl+n"}, "↓/ctrl+n", "next suggestion"),
		PrevSuggestion: b([]string{"up", "ctrl+p"}, "↑/ctrl+p", "previous suggestion"),
		RemoveLastTag:  b([]string{"backspace", "ctrl+w"}, "bksp/ctrl+w", "remove last tag (empty input)"),
		ChipLeft:       b([]string{"left"}, "←", "select tag chip (empty input)"),
		ChipRight:      b([]string{"right"}, "→", "next tag chip"),
		RemoveChip:     b([]string{"delete", "backspace"}, "del", "remove selected chip"),

		WhyNot: b([]string{"w"}, "w", "why (not): explain the selected node"),
		Mark:   b([]string{"m"}, "m", "mark relevant (again: grade 2; again: unmarked)"),

		Increase:  b([]string{"+", "=", "right", "l"}, "+/→/l", "increase"),
		Decrease:  b([]string{"-", "_", "left", "h"}, "-/←/h", "decrease"),
		EditParam: b([]string{"enter", "r"}, "enter/r", "type a value"),
		Sweep:     b([]string{"s"}, "s", "sweep the selected threshold"),

		PickRetrievers: b([]string{"X"}, "X", "pick retrievers (two or more: compare view)"),
		PickToggle:     b([]string{" "}, "space", "tick a retriever (in the picker)"),
		SortColumn:     b([]string{"O"}, "O", "sort the compare table by the next column"),

		Ask:         b([]string{"a"}, "a", "ask a question: its text finds the seeds"),
		QueryToggle: b([]string{" "}, "space", "tick a candidate seed (on the query line's list)"),
		QueryTags:   b([]string{"ctrl+t"}, "ctrl+t", "take the tags the question names, or leave them"),

		Submit: b([]string{"enter"}, "enter", "confirm"),
		Cancel: b([]string{"esc"}, "esc", "cancel / leave input"),
	}
}

// CloseHelp is the help line's entry for the key that closes an overlay:
// esc, shown as keys (the overlay's own key too: "esc/X").
func CloseHelp(keys string) key.Binding {
	return key.NewBinding(key.WithKeys("esc"), key.WithHelp(keys, "close"))
}

// ScrollHelp is the help line's entry for an overlay's arrows.
var ScrollHelp = key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑/↓", "scroll"))

// ViewportKeys are the keys that scroll an overlay's content (a bubbles
// viewport): up, down and the page keys.
func (k KeyMap) ViewportKeys() viewport.KeyMap {
	return viewport.KeyMap{Up: k.Up, Down: k.Down, PageUp: k.PageUp, PageDown: k.PageDown}
}

// Global returns the bindings that work in every pane.
func (k KeyMap) Global() []key.Binding {
	return []key.Binding{k.NextPane, k.PrevPane, k.Ask, k.Retriever, k.PickRetrievers, k.Explain, k.NameBy, k.Stats, k.Pin, k.Sweep, k.CopyPath, k.CopyAll, k.CopyCheck, k.CopyForm, k.ExportD3, k.ExportLLM, k.ExportPage, k.SaveExperiment, k.Reread, k.Help, k.Quit, k.ForceQuit}
}

// Group is a heading of the full help and the keys under it.
type Group struct {
	Title string
	Keys  []key.Binding
}

// Groups returns every binding once, under the pane (or use) it belongs to:
// the full help (?) shows them with these headings.
func (k KeyMap) Groups() []Group {
	return []Group{
		{"Everywhere", []key.Binding{k.NextPane, k.PrevPane, k.Retriever, k.Explain, k.NameBy, k.Stats, k.Help, k.Quit, k.ForceQuit}},
		{"Lists and scrolling", []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}},
		{"Seeds", []key.Binding{k.Filter, k.ToggleSeed, k.ScoreUp, k.ScoreDown, k.EditScore, k.Reload}},
		{"Tags", []key.Binding{k.AddTag, k.AcceptTag, k.NextSuggestion, k.PrevSuggestion, k.RemoveLastTag, k.ChipLeft, k.ChipRight, k.RemoveChip}},
		{"Thresholds", []key.Binding{k.Increase, k.Decrease, k.EditParam, k.Sweep}},
		{"Results", []key.Binding{k.Toggle, k.Expand, k.Collapse, k.CollapseAll, k.ExpandAll, k.Search, k.NextMatch, k.PrevMatch, k.NextEnd, k.PrevEnd, k.NextLoser, k.PrevLoser, k.Pin, k.NextChange, k.PrevChange}},
		{"Query line", []key.Binding{k.Ask, k.QueryToggle, k.QueryTags}},
		{"Compare view", []key.Binding{k.PickRetrievers, k.PickToggle, k.SortColumn}},
		{"Why (not)", []key.Binding{k.WhyNot}},
		{"Relevance", []key.Binding{k.Mark}},
		{"Copy and export", []key.Binding{k.CopyPath, k.CopyAll, k.CopyCheck, k.CopyForm, k.ExportD3, k.ExportLLM, k.ExportPage, k.SaveExperiment, k.Reread}},
		{"Text inputs", []key.Binding{k.Submit, k.Cancel}},
	}
}

// All returns every binding once, grouped as Groups (without the titles).
func (k KeyMap) All() [][]key.Binding {
	var out [][]key.Binding
	for _, g := range k.Groups() {
		out = append(out, g.Keys)
	}
	return out
}
