package cli

import (
	"flag"
	"slices"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/textsafe"
)

// relFilterFlags are the relationship hard filters every retriever honours
// (graph.RelFilter, docs/RETRIEVERS.md "Relationship filters"): --rel-where
// (repeatable), --rel-types and --exclude-rel-types.
type relFilterFlags struct {
	f graph.RelFilter
}

func (r *relFilterFlags) register(fs *flag.FlagSet) {
	fs.Func("rel-where", "a relationship hard filter `KEY OP VALUE` (OP one of >= <= != > < =), e.g. 'attitude>=4' or\n"+
		"kind=\"best friend\"; repeatable, all must hold; a relationship without the property, or with a value of\n"+
		"another kind, fails. A filtered relationship is not traversed; degrees stay the graph's", func(v string) error {
		c, err := graph.ParseRelCond(v)
		if err != nil {
			return err // the flag package names the flag and quotes the value
		}
		r.f.Where = append(r.f.Where, c)
		return nil
	})
	fs.Func("rel-types", "traverse only relationships of these comma-separated `types` (every retriever)", func(v string) error {
		types, err := splitTypes(v)
		r.f.Types = append(r.f.Types, types...)
		return err
	})
	fs.Func("exclude-rel-types", "never traverse relationships of these comma-separated `types` (every retriever)", func(v string) error {
		types, err := splitTypes(v)
		r.f.Exclude = append(r.f.Exclude, types...)
		return err
	})
}

// check refuses a type both kept and excluded: nothing of it would be
// traversed, the listing of it in --rel-types said otherwise, and no
// message told.
func (r *relFilterFlags) check() error {
	for _, t := range r.f.Types {
		if slices.Contains(r.f.Exclude, t) {
			return usagef("--rel-types and --exclude-rel-types both name %s: list it in one", textsafe.Quote(t))
		}
	}
	return nil
}

// splitTypes splits a comma-separated list of relationship types by the
// rule of every list flag (listItems): each trimmed, an empty one refused;
// types are then matched as written, case and inner spaces included.
func splitTypes(v string) ([]string, error) {
	return listItems(v, "relationship type")
}
