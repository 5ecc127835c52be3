package retriever

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/memoria-graph/memoria/graph"
)

// Spec is how a ranking retriever describes itself to the registry
// (retriever/registry; docs/ARCHITECTURE.md, "Adding a retriever"): its
// name and purpose, its parameter table, how to run it, and the optional
// hooks the why-not reads. The CLI's flags and usage, compare, eval, the
// metric sweep, why --retriever and the explorer's picker and parameter
// panels are all derived from the registry's Specs, so a retriever is one
// package plus one line in the registry. A Spec is made by Define from the
// retriever's own typed parameters.
type Spec struct {
	// Name is the retriever's name on the command line (--retriever,
	// --retrievers) and in every output.
	Name string
	// Purpose is one line saying what it does (usage, the picker).
	Purpose string
	// Params is the parameter table: one row per number (or word) the
	// retriever takes, in the order panels and help list them.
	Params []Param
	// FlagNames are the names of the retriever's flags that are not rows
	// of Params (repeatable or structured ones that Flags registers), so
	// that a command can refuse them with another retriever.
	FlagNames []string

	defaults func() any
	validate func(any) error
	equal    func(a, b any) bool
	clone    func(any) any
	fields   func(any) Fields
	flags    func(fs *flag.FlagSet, b *box, others []string, list func(v, what string) ([]string, error))
	vector   func(p any, v []float64) any
	run      func(ctx context.Context, env Env, q Query, p any) (Ranking, error)
	topK     func(any) int
	setTopK  func(any, int) any
	bound    func(r Ranking, seeds int) int
	combines func(any) (names []string, depth int)
	combine  func(lists []Ranking, p any, k int) (Ranking, error)
	setComb  func(p any, names []string) any
	table    *tableOf
	keyed    *keyedOf
	context  func(ctx context.Context, nb graph.Neighbourhood, id string, p any) ([]ContextHop, bool, error)
	whyNot   func(ctx context.Context, pr Probe, p any, all Ranking) (Unreached, error)
	reach    func(p any) ReachRule
}

// tableOf is a Table with P erased.
type tableOf struct {
	rng  string
	step func(float64, int) float64
	get  func(any) map[string]float64
	set  func(any, string, float64) any
}

// keyedOf is a Keyed with P erased.
type keyedOf struct {
	name, flag string
	grid       Grid
	keys       func(any) []string
	get        func(any, string) float64
	set        func(any, string, float64) any
}

// Env is what a retriever's run may read besides its query and
// parameters.
type Env struct {
	// Neighbourhood is the graph, as every ranking retriever reads it
	// (graph.Neighbourhood over either engine, under the relationship
	// filter of the run).
	Neighbourhood graph.Neighbourhood
	// Rank returns another retriever's ranking for the same query, by
	// name, with its own parameters and K = depth: what a retriever that
	// combines others' rankings (Spec.Combines) fuses. The caller decides
	// how each runs (and may reuse a run).
	Rank func(ctx context.Context, name string, depth int) (Ranking, error)
}

// Grid is a parameter's default grid in the metric sweep (`sweep
// --queries`): Steps values from From to To, evenly spaced or, with Log,
// evenly in log space. Steps 0: the parameter is not swept.
type Grid struct {
	From, To float64
	Steps    int
	Log      bool
}

// Param is one row of a retriever's parameter table: a number, or one of
// a few words (Choices; its value is then the word's index).
type Param struct {
	// Flag is its command-line flag ("max-hops") and the metric sweep's
	// --param name.
	Flag string
	// Label is its row in the explorer's panel ("MAX_HOPS H").
	Label string
	// Range is its range as the panel shows it ("1–3", "(0,1]").
	Range string
	// Usage is the flag's help text; a word in backquotes names the value
	// (the flag package's rule), e.g. "hops from the seeds `H` (1-3)".
	Usage string
	// Whole says it takes whole numbers.
	Whole bool
	// Choices, when set, are the words it takes.
	Choices []string
	// Grid is its default grid in the metric sweep.
	Grid Grid
	// Step is the value one step from v in direction dir (±1) within the
	// range, as the explorer's panel steps it; nil for a word.
	Step func(v float64, dir int) float64

	get func(any) float64
	set func(any, float64) any
}

// Get is the parameter's value in p (a word's index for Choices).
func (pm Param) Get(p Settings) float64 { return pm.get(p.v) }

// Definition is a retriever's typed description, from which Define makes
// its Spec. P is the retriever's parameters, a value type (Clone copies
// what a plain copy would share).
type Definition[P any] struct {
	Name, Purpose string
	Defaults      func() P
	Rows          []Row[P]
	Validate      func(P) error
	Equal         func(a, b P) bool
	// Clone copies p deeply; nil when a plain copy does.
	Clone func(P) P
	// Fields are the parameters as a ranking reports them.
	Fields func(P) Fields
	// TopK reads and sets the K of the hits kept (every ranking retriever
	// has one: --top-k).
	TopK    func(P) int
	SetTopK func(*P, int)
	// Flags registers the retriever's flags that are not rows, each
	// changing the parameters through f.Edit, and FlagNames names them.
	Flags func(fs *flag.FlagSet, f FlagEnv[P])
	// WithVector sets the query's embedding, for a retriever that reads
	// one (nil: it reads none).
	WithVector func(p *P, v []float64)
	FlagNames  []string
	// Run runs the retriever. A retriever that combines others' rankings
	// sets Combines and Combine instead.
	Run func(ctx context.Context, env Env, q Query, p P) (Ranking, error)
	// Bound is a K at which the retriever ranks every node it reaches,
	// read from a ranking's statistics (the why-not reads the whole
	// ranking at it); nil: the ranking's length is its bound.
	Bound func(r Ranking, seeds int) int
	// Combines names the retrievers whose rankings the retriever combines
	// and the K each runs with; Combine combines them, keeping k hits.
	Combines func(P) (names []string, depth int)
	Combine  func(lists []Ranking, p P, k int) (Ranking, error)
	// SetCombines sets which retrievers it combines (the explorer's
	// compare view: the other retrievers compared).
	SetCombines func(p *P, names []string)
	// Table, when set, is a parameter that is a table of numbers by key
	// (the expansion's weight per relationship type): one panel row per
	// key, after Rows.
	Table *Table[P]
	// Keyed, when set, is a parameter that is a number per key, which
	// `memoria tune` and `sweep --queries` vary one key at a time as the
	// parameter "NAME:KEY" (the fusion's weight of each fused ranking,
	// "weight:ppr").
	Keyed *Keyed[P]
	// WhyNot is the retriever's own account of a node its whole ranking
	// (all) lacks (docs/RETRIEVERS.md, "Why a ranking retriever missed a
	// node"); nil: it gives none.
	WhyNot func(ctx context.Context, pr Probe, p P, all Ranking) (Unreached, error)
	// Reach is how far it reaches with p (the why-not's "filtered"
	// verdict); nil: no such bound.
	Reach func(p P) ReachRule
	// Context reads what the detail of a hit shows around it with p (the
	// expansion's "expand with context"); nil: nothing.
	Context func(ctx context.Context, nb graph.Neighbourhood, id string, p P) (hops []ContextHop, found bool, err error)
}

// Table is a parameter of a Definition that is a table of numbers by key.
type Table[P any] struct {
	// Range is every entry's range as the panel shows it.
	Range string
	// Step is an entry's step in the panel.
	Step func(v float64, dir int) float64
	Get  func(P) map[string]float64
	Set  func(p *P, key string, v float64)
}

// Keyed is a parameter of a Definition that is a number per key, tuned one
// key at a time as "Name:KEY": Keys are the keys it takes with p (each set
// or not), Get a key's value (its default when not set) and Set sets one.
// Flag is the flag that sets them all, "KEY=V,..." (what tune prints to
// paste), and Grid each key's default grid.
type Keyed[P any] struct {
	Name, Flag string
	Grid       Grid
	Keys       func(P) []string
	Get        func(P, string) float64
	Set        func(p *P, key string, v float64)
}

// ContextHop is one relationship around a hit as the detail of a ranking
// shows it (Definition.Context; it never changes the ranking): its type,
// the node at its other end, the weight the retriever counts, the weight
// of its type, and whether the retriever follows it.
type ContextHop struct {
	Type       string
	Other      graph.Node
	Weight     float64
	TypeWeight float64
	Followed   bool
	Edge       graph.Edge
}

// Row is one parameter of a Definition: Param's public fields, and how to
// read and write it in P.
type Row[P any] struct {
	Param
	Get func(P) float64
	Set func(*P, float64)
}

// Define makes the Spec of a retriever from its typed description.
func Define[P any](d Definition[P]) Spec {
	clone := func(p P) P { return p }
	if d.Clone != nil {
		clone = d.Clone
	}
	s := Spec{Name: d.Name, Purpose: d.Purpose, FlagNames: d.FlagNames,
		defaults: func() any { return d.Defaults() },
		validate: func(p any) error { return d.Validate(p.(P)) },
		equal:    func(a, b any) bool { return d.Equal(a.(P), b.(P)) },
		clone:    func(p any) any { return clone(p.(P)) },
		fields:   func(p any) Fields { return d.Fields(p.(P)) },
		topK:     func(p any) int { return d.TopK(p.(P)) },
		setTopK: func(p any, k int) any {
			x := clone(p.(P))
			d.SetTopK(&x, k)
			return x
		},
		bound: d.Bound,
	}
	for _, r := range d.Rows {
		pm := r.Param
		get, set := r.Get, r.Set
		pm.get = func(p any) float64 { return get(p.(P)) }
		pm.set = func(p any, v float64) any {
			x := clone(p.(P))
			set(&x, v)
			return x
		}
		s.Params = append(s.Params, pm)
	}
	if d.Flags != nil {
		s.flags = func(fs *flag.FlagSet, b *box, others []string, list func(v, what string) ([]string, error)) {
			d.Flags(fs, FlagEnv[P]{Others: others, List: list, Edit: func(f func(*P)) {
				x := clone(b.v.(P))
				f(&x)
				b.v = x
			}})
		}
	}
	if d.SetCombines != nil {
		s.setComb = func(p any, names []string) any {
			x := clone(p.(P))
			d.SetCombines(&x, slices.Clone(names))
			return x
		}
	}
	if t := d.Table; t != nil {
		s.table = &tableOf{rng: t.Range, step: t.Step, get: func(p any) map[string]float64 { return t.Get(p.(P)) },
			set: func(p any, k string, v float64) any {
				x := clone(p.(P))
				t.Set(&x, k, v)
				return x
			}}
	}
	if k := d.Keyed; k != nil {
		s.keyed = &keyedOf{name: k.Name, flag: k.Flag, grid: k.Grid,
			keys: func(p any) []string { return k.Keys(p.(P)) },
			get:  func(p any, key string) float64 { return k.Get(p.(P), key) },
			set: func(p any, key string, v float64) any {
				x := clone(p.(P))
				k.Set(&x, key, v)
				return x
			}}
	}
	if d.Context != nil {
		s.context = func(ctx context.Context, nb graph.Neighbourhood, id string, p any) ([]ContextHop, bool, error) {
			return d.Context(ctx, nb, id, p.(P))
		}
	}
	if d.WhyNot != nil {
		s.whyNot = func(ctx context.Context, pr Probe, p any, all Ranking) (Unreached, error) {
			return d.WhyNot(ctx, pr, p.(P), all)
		}
	}
	if d.Reach != nil {
		s.reach = func(p any) ReachRule { return d.Reach(p.(P)) }
	}
	if d.WithVector != nil {
		s.vector = func(p any, v []float64) any {
			x := clone(p.(P))
			d.WithVector(&x, v)
			return x
		}
	}
	if d.Run != nil {
		s.run = func(ctx context.Context, env Env, q Query, p any) (Ranking, error) { return d.Run(ctx, env, q, p.(P)) }
	}
	if d.Combines != nil {
		s.combines = func(p any) ([]string, int) { return d.Combines(p.(P)) }
		s.combine = func(lists []Ranking, p any, k int) (Ranking, error) { return d.Combine(lists, p.(P), k) }
		s.run = func(ctx context.Context, env Env, q Query, p any) (Ranking, error) {
			names, depth := d.Combines(p.(P))
			lists := make([]Ranking, len(names))
			for i, n := range names {
				var err error
				if lists[i], err = env.Rank(ctx, n, depth); err != nil {
					return Ranking{}, err
				}
			}
			return d.Combine(lists, p.(P), d.TopK(p.(P)))
		}
	}
	return s
}

// FlagEnv is what a retriever's own flags (Definition.Flags) are given:
// Edit changes the parameters the flag set writes into, Others are the
// other retrievers of the registry, in its order (a retriever that
// combines others' rankings checks the names it is given against them),
// and List splits a list flag's value.
type FlagEnv[P any] struct {
	Edit   func(func(*P))
	Others []string
	// List is the command line's one rule for a comma-separated list
	// (what names an item in its refusals).
	List func(v, what string) ([]string, error)
}

// box holds the value a flag set writes into (Spec.RegisterFlags): every
// flag of the retriever writes through it, so the settings see each.
type box struct{ v any }

// Settings are one retriever's parameters, with its Spec: a value that
// methods never change in place (With returns a changed copy).
type Settings struct {
	spec *Spec
	v    any
}

// Defaults are the retriever's default parameters.
func (s *Spec) Defaults() Settings { return Settings{spec: s, v: s.defaults()} }

// Param is the row of the table whose flag is flag.
func (s *Spec) Param(flag string) (Param, bool) {
	for _, p := range s.Params {
		if p.Flag == flag {
			return p, true
		}
	}
	return Param{}, false
}

// Combines reports whether the retriever combines other retrievers'
// rankings, and which (in order) with p, at what K each runs.
func (s *Spec) Combines(p Settings) (names []string, depth int, ok bool) {
	if s.combines == nil {
		return nil, 0, false
	}
	names, depth = s.combines(p.value())
	return names, depth, true
}

// Combine combines lists (the rankings of Combines' retrievers, in its
// order) into one, keeping k hits.
func (s *Spec) Combine(lists []Ranking, p Settings, k int) (Ranking, error) {
	return s.combine(lists, p.value(), k)
}

// Bound is a K at which the retriever ranks every node it reaches, read
// from r (its whole ranking at some K); 0 when it has no such rule.
func (s *Spec) Bound(r Ranking, seeds int) int {
	if s.bound == nil {
		return 0
	}
	return s.bound(r, seeds)
}

// WholeRankingK is the K at which a retriever that declares no Bound
// (Definition.Bound) is run to see its whole ranking.
const WholeRankingK = 100_000

// WholeK is the K at which the retriever, whose ranking at K = k is r (for
// a query of seeds seeds), ranks every node it reaches: its Bound, or
// WholeRankingK when it declares none, and never below k. The why-not and
// eval's "where the relevant nodes went" read the whole ranking at it.
func (s *Spec) WholeK(r Ranking, seeds, k int) int {
	b := s.Bound(r, seeds)
	if b == 0 {
		b = WholeRankingK
	}
	return max(b, k)
}

// RegisterFlags registers the retriever's flags on fs, writing into *p:
// each row of the table (numbers as numbers, words as words, the current
// value as the default; a word's usage says its default itself) and the
// retriever's own other flags; others are the other retrievers' names and
// list the command line's rule for a list flag. A
// flag already registered (--top-k, which the command line registers once
// for every ranking retriever) is left as it is.
func (s *Spec) RegisterFlags(fs *flag.FlagSet, p *Settings, others []string, list func(v, what string) ([]string, error)) {
	b := &box{v: p.value()}
	p.v = b
	for _, pm := range s.Params {
		if fs.Lookup(pm.Flag) != nil {
			continue
		}
		fs.Var(paramValue{b: b, pm: pm}, pm.Flag, s.Name+": "+pm.Usage)
		if pm.Choices != nil {
			fs.Lookup(pm.Flag).DefValue = ""
		}
	}
	if s.flags != nil {
		s.flags(fs, b, others, list)
	}
}

func (p Settings) value() any {
	if b, ok := p.v.(*box); ok {
		return b.v
	}
	return p.v
}

// paramValue is a row of the table as a flag.Value.
type paramValue struct {
	b  *box
	pm Param
}

func (v paramValue) String() string {
	if v.b == nil {
		return ""
	}
	return v.pm.Format(v.pm.get(v.b.v))
}

func (v paramValue) Set(raw string) error {
	x, err := v.pm.Parse(raw)
	if err != nil {
		return err
	}
	v.b.v = v.pm.set(v.b.v, x)
	return nil
}

// Spec is the retriever the settings belong to.
func (p Settings) Spec() *Spec { return p.spec }

// Raw is the retriever's own parameters value (expansion.Params, ...): a
// copy, which the settings never see changed.
func (p Settings) Raw() any { return p.spec.clone(p.value()) }

// Get is the value of the row flag (a word's index for a word).
func (p Settings) Get(flag string) float64 {
	pm, ok := p.spec.Param(flag)
	if !ok {
		panic(fmt.Sprintf("retriever %s has no parameter %s", p.spec.Name, flag))
	}
	return pm.get(p.value())
}

// With returns the settings with row flag set to v (unchecked: Validate).
func (p Settings) With(flag string, v float64) Settings {
	pm, ok := p.spec.Param(flag)
	if !ok {
		panic(fmt.Sprintf("retriever %s has no parameter %s", p.spec.Name, flag))
	}
	return Settings{spec: p.spec, v: pm.set(p.value(), v)}
}

// Validate names every parameter out of its range.
func (p Settings) Validate() error { return p.spec.validate(p.value()) }

// Equal reports whether o holds the same parameters of the same
// retriever.
func (p Settings) Equal(o Settings) bool {
	return p.spec != nil && o.spec != nil && p.spec.Name == o.spec.Name && p.spec.equal(p.value(), o.value())
}

// Fields are the parameters as a ranking reports them.
func (p Settings) Fields() Fields { return p.spec.fields(p.value()) }

// TopK is the K of the hits kept.
func (p Settings) TopK() int { return p.spec.topK(p.value()) }

// WithTopK returns the settings with K = k.
func (p Settings) WithTopK(k int) Settings {
	return Settings{spec: p.spec, v: p.spec.setTopK(p.value(), k)}
}

// WithVector returns the settings with the query's embedding v, for a
// retriever that reads one (the settings as they are for the others).
func (p Settings) WithVector(v []float64) Settings {
	if p.spec.vector == nil {
		return p
	}
	return Settings{spec: p.spec, v: p.spec.vector(p.value(), v)}
}

// WithCombined returns the settings combining names, for a retriever that
// combines others' rankings (the settings as they are for the others).
func (p Settings) WithCombined(names []string) Settings {
	if p.spec.setComb == nil {
		return p
	}
	return Settings{spec: p.spec, v: p.spec.setComb(p.value(), names)}
}

// TableKeys are the keys of the retriever's table parameter, sorted (none
// without one); TableRange and TableStep are an entry's range and step.
func (p Settings) TableKeys() []string {
	if p.spec.table == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(p.spec.table.get(p.value())))
}

// TableRange is an entry's range as the panel shows it.
func (p Settings) TableRange() string { return p.spec.table.rng }

// TableGet is the table's entry key.
func (p Settings) TableGet(key string) float64 { return p.spec.table.get(p.value())[key] }

// TableStep is the value one step from the entry key's in direction dir.
func (p Settings) TableStep(key string, dir int) float64 {
	return p.spec.table.step(p.TableGet(key), dir)
}

// WithTable returns the settings with the table's entry key set to v
// (unchecked: Validate).
func (p Settings) WithTable(key string, v float64) Settings {
	return Settings{spec: p.spec, v: p.spec.table.set(p.value(), key, v)}
}

// Keyed is the retriever's keyed parameter (Definition.Keyed): its name,
// the flag that sets every key ("KEY=V,..."), each key's default grid and
// the keys it takes with these settings; ok false when it has none.
func (p Settings) Keyed() (name, flag string, grid Grid, keys []string, ok bool) {
	k := p.spec.keyed
	if k == nil {
		return "", "", Grid{}, nil, false
	}
	return k.name, k.flag, k.grid, k.keys(p.value()), true
}

// KeyedGet is the keyed parameter's value at key.
func (p Settings) KeyedGet(key string) float64 { return p.spec.keyed.get(p.value(), key) }

// WithKeyed returns the settings with the keyed parameter's key set to v
// (unchecked: Validate).
func (p Settings) WithKeyed(key string, v float64) Settings {
	return Settings{spec: p.spec, v: p.spec.keyed.set(p.value(), key, v)}
}

// HasContext says whether the retriever reads a hit's context (Context).
func (p Settings) HasContext() bool { return p.spec.context != nil }

// Context reads what the detail of hit id shows around it.
func (p Settings) Context(ctx context.Context, nb graph.Neighbourhood, id string) ([]ContextHop, bool, error) {
	return p.spec.context(ctx, nb, id, p.value())
}

// Run runs the retriever with these parameters.
func (p Settings) Run(ctx context.Context, env Env, q Query) (Ranking, error) {
	return p.spec.run(ctx, env, q, p.value())
}

// maxWhole is the largest whole number a row takes (2^53: every whole
// number up to it is exact as a float64, the table's one type).
const maxWhole = 1 << 53

// Format writes v as the row's flag prints it: a whole number in full, a
// word as the word, any other number in the shortest form that reads back
// the same.
func (pm Param) Format(v float64) string {
	switch {
	case pm.Choices != nil:
		if i := int(v); i >= 0 && i < len(pm.Choices) {
			return pm.Choices[i]
		}
		return ""
	case pm.Whole:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// Parse reads a value of the row as its flag takes it: one of the words,
// a whole number (Go's literal forms, at most 2^53 in size) or a number.
// The errors are the flag package's own for numbers ("parse error",
// "value out of range"), so a refusal reads the same for every flag.
func (pm Param) Parse(raw string) (float64, error) {
	switch {
	case pm.Choices != nil:
		if i := slices.Index(pm.Choices, raw); i >= 0 {
			return float64(i), nil
		}
		return 0, fmt.Errorf("want %s, got %q", strings.Join(pm.Choices, " or "), raw)
	case pm.Whole:
		n, err := strconv.ParseInt(raw, 0, 64)
		if err != nil {
			return 0, numError(err)
		}
		if n > maxWhole || n < -maxWhole {
			return 0, errRange
		}
		return float64(n), nil
	}
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil {
		return 0, numError(err)
	}
	return f, nil
}

var (
	errParse = errors.New("parse error")
	errRange = errors.New("value out of range")
)

func numError(err error) error {
	if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		return errRange
	}
	return errParse
}

// StatInt is r's whole-number statistic name (0 when it has none).
func StatInt(r Ranking, name string) int {
	v, _ := r.Stats.Get(name)
	n, _ := v.(int)
	return n
}

// StatFloat is r's statistic name as a number (0 when it has none).
func StatFloat(r Ranking, name string) float64 {
	v, _ := r.Stats.Get(name)
	x, _ := v.(float64)
	return x
}
