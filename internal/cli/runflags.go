package cli

import (
	"flag"

	"github.com/memoria-graph/memoria/retriever"
)

// runFlags is the bundle of flags every command that runs retrievers
// shares: the source, seeds, tags, thresholds and relationship filter
// (queryFlags), the retrievers' parameters (retrieverFlags) and the rerank
// (rerankFlags).
type runFlags struct {
	q  queryFlags
	rf retrieverFlags
	rr rerankFlags
}

// register registers the bundle on fs (the rerank's flags only with
// rerank); seedUsage is --seed's usage line.
func (b *runFlags) register(fs *flag.FlagSet, seedUsage string, rerank bool) {
	b.q.register(fs, seedUsage)
	b.rf.register(fs)
	if rerank {
		b.rr.register(fs)
	}
}

// requireSeeds refuses a positional argument (hint says where it goes)
// and a command line without --seed.
func (b *runFlags) requireSeeds(fs *flag.FlagSet, cmd, hint string) error {
	if fs.NArg() > 0 {
		return usagef("%s: unexpected argument %q (%s)", cmd, fs.Arg(0), hint)
	}
	if len(b.q.seeds) == 0 {
		return usagef("%s: at least one --seed is required", cmd)
	}
	return nil
}

// query is the query the seeds and tags make.
func (b *runFlags) query() retriever.Query {
	return retriever.Query{Seeds: b.q.seeds, Tags: splitTags(b.q.tags)}
}

// commandFlags are a command's flags: registered on its flag set, then,
// once parsed, checked.
type commandFlags interface {
	register(fs *flag.FlagSet)
	check(fs *flag.FlagSet) error
}

// parseCommand registers x's flags on command name's flag set (usage its
// help), parses args and checks them.
func parseCommand(env Env, name, usage string, args []string, x commandFlags) error {
	fs := newFlagSet(env, name, usage)
	x.register(fs)
	if err := parse(fs, env, args); err != nil {
		return err
	}
	return x.check(fs)
}
