// Package registry is the one list of memoria's retrievers
// (docs/ARCHITECTURE.md, "Adding a retriever"). Activation Energy, the
// explorer's streaming tree retriever, comes first by name; every ranking
// retriever follows as the retriever.Spec its package exports. The CLI's
// flags, usage and checks, compare, eval, the metric sweep, why
// --retriever and the explorer's picker and panels read this list and
// nothing else: adding a ranking retriever is its package plus one line in
// specs.
package registry

import (
	"slices"
	"sync"

	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/expansion"
	"github.com/memoria-graph/memoria/retriever/fusion"
	"github.com/memoria-graph/memoria/retriever/ppr"
	"github.com/memoria-graph/memoria/retriever/spreading"
)

// Activation is Activation Energy's name: the default retriever, which is
// not a Spec (it streams a tree of paths per seed, through its own engine
// adapters, and ranks them only on request).
const Activation = activation.Name

var (
	mu sync.RWMutex
	// specs are the ranking retrievers, in the order every list shows
	// them: one line per retriever.
	specs = []*retriever.Spec{
		&expansion.Spec,
		&spreading.Spec,
		&ppr.Spec,
		&fusion.Spec,
	}
)

// Specs are the ranking retrievers, in order.
func Specs() []*retriever.Spec {
	mu.RLock()
	defer mu.RUnlock()
	return slices.Clone(specs)
}

// Lookup is the ranking retriever named name.
func Lookup(name string) (*retriever.Spec, bool) {
	mu.RLock()
	defer mu.RUnlock()
	for _, s := range specs {
		if s.Name == name {
			return s, true
		}
	}
	return nil, false
}

// Names are every retriever's name: Activation Energy, then the ranking
// retrievers in order.
func Names() []string {
	names := []string{Activation}
	for _, s := range Specs() {
		names = append(names, s.Name)
	}
	return names
}

// Single are the retrievers that run on their own (every one but those
// that combine others' rankings): the explorer's results views, and what a
// combining retriever may combine.
func Single() []string {
	names := []string{Activation}
	for _, s := range Specs() {
		if !combines(s) {
			names = append(names, s.Name)
		}
	}
	return names
}

// Others are the names other than name, in order.
func Others(name string) []string {
	var out []string
	for _, n := range Names() {
		if n != name {
			out = append(out, n)
		}
	}
	return out
}

// Defaults are every ranking retriever's default settings, by name.
func Defaults() map[string]retriever.Settings {
	out := map[string]retriever.Settings{}
	for _, s := range Specs() {
		out[s.Name] = s.Defaults()
	}
	return out
}

func combines(s *retriever.Spec) bool {
	_, _, ok := s.Combines(s.Defaults())
	return ok
}

// Register adds spec to the end of the list, for a test that proves a new
// retriever needs nothing but its package and its line; the function it
// returns takes it out again. A name already listed panics.
func Register(spec *retriever.Spec) (unregister func()) {
	mu.Lock()
	defer mu.Unlock()
	for _, s := range specs {
		if s.Name == spec.Name || spec.Name == Activation {
			panic("registry: " + spec.Name + " is registered twice")
		}
	}
	specs = append(specs, spec)
	return func() {
		mu.Lock()
		defer mu.Unlock()
		specs = slices.DeleteFunc(specs, func(s *retriever.Spec) bool { return s == spec })
	}
}
