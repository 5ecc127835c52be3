package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/why"
)

const whyUsage = `Usage: memoria why [source flags] --seed ID[=SCORE]... --node ID
       [--retriever NAME] [its flags] [options]

With --retriever activation (the default), says why the node --node is or is not in the result for these seeds, tags
and thresholds (docs/ALGORITHM.md, "Why not X"): kept (with its path),
unreachable (no RELATES route of at most MAX_DEPTH hops from a seed), or the
route of highest final transfer energy within MAX_DEPTH hops with T per hop
and the first hop where the run parted from it: below_threshold, claimed,
branch_limit or visited_earlier. The run is the one 'explore' makes.

With a ranking retriever (expansion, spreading, ppr, fusion; its own flags
apply, another's are refused), says where the node stands in the
retriever's ranking: kept (its rank, score, terms and route), cut (its rank
and score against the K-th hit's) or unreached, with the retriever's own
reason: no route within H hops through followed types (expansion), an
activation below θ or none within P pulses (spreading), an estimate of 0
(ppr), in none of the fused lists' top N (fusion, each list's verdict).

Formats:
  text  the verdict, the route hop by hop and one sentence of detail
  json  {"node_id","verdict","route":[{"from","to","transfer_energy",...}],
        "blocking_hop","detail",...} (docs/EXPORTS.md, "Why not X")
        with a ranking retriever {"retriever","node_id","verdict","rank",
        "score","kth_score","k","detail",...} (docs/CLI.md, "Why not X")

Exit codes: 0 answered; 1 the graph could not be opened or read; 2 a mistake
in the command line, an unknown --node id included.

Flags:
`

// whyFlags are why's flags: the bundle every running command shares (no
// rerank: why explains a retriever's own ranking) and its own.
type whyFlags struct {
	runFlags
	node, format string
}

func (w *whyFlags) register(fs *flag.FlagSet) {
	w.runFlags.register(fs, "seed `ID[=SCORE]` (repeatable; SCORE in (0,1], default 1)", false)
	fs.StringVar(&w.node, "node", "", "the `ID` of the node to explain")
	fs.StringVar(&w.format, "format", "text", "output `format`: text or json")
}

func (w *whyFlags) check(fs *flag.FlagSet) error {
	if err := w.requireSeeds(fs, "why", "the node goes in --node"); err != nil {
		return err
	}
	if w.node == "" {
		return usagef("why: --node is required (the id of the node to explain)")
	}
	if w.format != "text" && w.format != "json" {
		return usagef("why: unknown --format %q (want text or json)", w.format)
	}
	return w.rf.check(fs, "why")
}

func runWhy(ctx context.Context, args []string, env Env) error {
	var w whyFlags
	if err := parseCommand(env, "why", whyUsage, args, &w); err != nil {
		return err
	}
	q, rf, node, format := &w.q, &w.rf, &w.node, &w.format
	if rf.name != activation.Name {
		return runWhyRanking(ctx, env, q, rf, *node, *format)
	}
	q.gather.useVector(rf)
	source, err := q.open(ctx, env)
	if err != nil {
		return err
	}
	defer source.Close(context.WithoutCancel(ctx))
	backend, err := q.cliBackend(ctx, env, source, false)
	if err != nil {
		return err
	}
	if ns, ok := source.(*neo4jdb.Source); ok {
		notice, err := ns.WeightIndexNotice(ctx)
		if err != nil {
			return err
		}
		if notice != "" {
			fmt.Fprintln(env.Stderr, "memoria: "+textsafe.EscapeLines(notice))
		}
	}
	a, err := why.Explain(ctx, why.Config{Backend: backend, Params: q.cfg, Options: q.opts, Seeds: q.seeds,
		Tags: splitTags(q.tags), NodeID: *node})
	var unknown why.UnknownNodeError
	switch {
	case errors.As(err, &unknown):
		return usagef("why: --node %s: no node has this id", render.DisplayID(unknown.ID))
	case err != nil:
		return fmt.Errorf("why: %w", err)
	}
	if err := noteSeedsNotFound(env, "why", a.SeedsNotFound, *format == "text"); err != nil {
		return err
	}
	if *format == "text" {
		if _, err := io.WriteString(env.Stdout, q.gather.whyText(*node)); err != nil {
			return err
		}
	}
	return writeWhy(env.Stdout, a, *format)
}

// noteSeedsNotFound says, for why and compare, that each seed of missing
// is in no node, in the words a ranking's tree uses ("seed S not found";
// explore's seed_not_found): on stdout, before the answer, when the
// format has a place for it (inText), else on stderr. An unknown seed is
// a result, not an error (docs/CLI.md, "Why not X" and "Retrievers side
// by side").
func noteSeedsNotFound(env Env, cmd string, missing []string, inText bool) error {
	for _, id := range missing {
		line := "seed " + render.DisplayID(id) + " not found"
		if !inText {
			fmt.Fprintln(env.Stderr, textsafe.EscapeLines("memoria: "+cmd+": "+line))
			continue
		}
		if _, err := fmt.Fprintln(env.Stdout, line); err != nil {
			return err
		}
	}
	return nil
}

func writeWhy(out io.Writer, a why.Answer, format string) error {
	if format == "json" {
		enc := json.NewEncoder(textsafe.JSONWriter{W: out})
		enc.SetEscapeHTML(false)
		return enc.Encode(render.ToWhyJSON(a))
	}
	_, err := io.WriteString(out, render.WhyText(a))
	return err
}
