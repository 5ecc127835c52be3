package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/render/subgraph"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/overlap"
)

const compareUsage = `Usage: memoria compare [source flags] --seed ID[=SCORE]... [--tags a,b]
       --retrievers A,B,... [every listed retriever's flags] [--top-k K] [--format text|json|html|graphml]

Runs each listed retriever on the same seeds and tags over one source and
compares what they return (docs/RETRIEVERS.md, "Comparing rankings"): each
one's ranking, the union of their top K with each node's rank under each
retriever (a * marks a node only one of them found), and for each pair the
Jaccard overlap of their top K and the rank-biased overlap (RBO, p = 0.9).
Every retriever runs with its own flags (--max-depth for Activation Energy,
--max-hops for the expansion, ...); --top-k is each ranking retriever's K
and the depth of the comparison. --rerank signals reranks each ranking
(fusion's after fusing) by the multi-signal score before they are
compared (--signal-weights, --recency-lambda, --now, --per-label-top,
--query-vector; docs/RETRIEVERS.md, "Reranking by signals").

Formats:
  text  the union table and the pairs
  json  {"rankings": [each one's ranking, as explore --format ranking],
        "nodes": [{"node_id", "ranks": {"activation": 1, "ppr": null}}],
        "overlap": [{"a", "b", "jaccard", "rbo"}], "only": {...}}
  html  one self-contained HTML page that draws the union: each
        retriever's hits in its own colour, shared hits marked, each hit's
        rank, score and formula on hover (D3 inside, no network)
  graphml the union as GraphML, each retriever's rank and score as
        attributes

Flags:
`

// compareFlags are compare's flags: the bundle every running command
// shares and its own.
type compareFlags struct {
	runFlags
	list, format string
	// names are --retrievers as check read them.
	names []string
}

func (c *compareFlags) register(fs *flag.FlagSet) {
	c.runFlags.register(fs, "seed `ID[=SCORE]` (repeatable; SCORE in (0,1], default 1)", true)
	fs.StringVar(&c.list, "retrievers", strings.Join(retrieverNames(), ","), "the `retrievers` to compare, comma-separated: "+strings.Join(retrieverNames(), ", "))
	fs.StringVar(&c.format, "format", "text", "output `format`: text, json, html or graphml")
}

func (c *compareFlags) check(fs *flag.FlagSet) error {
	if err := c.requireSeeds(fs, "compare", "seeds go in --seed"); err != nil {
		return err
	}
	if fs.Lookup("retriever") != nil && isSet(fs, "retriever") {
		return usagef("compare: --retriever picks one retriever; compare takes --retrievers A,B,...")
	}
	var err error
	if c.names, err = listedRetrievers(fs, "compare", c.list, 2, &c.rf, &c.rr); err != nil {
		return err
	}
	if !slices.Contains([]string{"text", "json", "html", "graphml"}, c.format) {
		return usagef("compare: unknown --format %q (want text, json, html or graphml)", c.format)
	}
	return nil
}

func runCompare(ctx context.Context, args []string, env Env) error {
	var c compareFlags
	if err := parseCommand(env, "compare", compareUsage, args, &c); err != nil {
		return err
	}
	q, rf, rr, names, format := &c.q, &c.rf, &c.rr, c.names, &c.format
	g, closeSource, err := openRankings(ctx, env, q, rf)
	if err != nil {
		return err
	}
	defer closeSource()
	var explored []activation.Result // Activation Energy's, when it runs
	g.explored = func(results []activation.Result) { explored = results }
	rq := retriever.Query{Seeds: q.seeds, Tags: splitTags(q.tags)}
	out, err := g.compared(ctx, names, rq, rf.topK)
	if err != nil {
		return err
	}
	for i := range out {
		if out[i], err = rr.apply(out[i]); err != nil {
			return err
		}
		if err := out[i].CheckFinite(); err != nil { // no format can show it
			return fmt.Errorf("compare: %w", err)
		}
	}
	res, err := overlap.Compare(names, out, rf.topK)
	if err != nil {
		return err
	}
	// Every ranking lists the seeds it found: JSON and HTML say which it
	// did not; text says it first, GraphML has no place for it.
	if *format == "text" || *format == "graphml" {
		if err := noteSeedsNotFound(env, "compare", notFoundByAny(out), *format == "text"); err != nil {
			return err
		}
	}
	if err := printCompare(res, out, *format, env.Stdout); err != nil {
		return err
	}
	return failedSeedsError("compare", explored)
}

// notFoundByAny are the ids of the seeds none of rankings found, in seed
// order.
func notFoundByAny(rankings []retriever.Ranking) []string {
	found := map[string]bool{}
	for _, r := range rankings {
		for _, s := range r.Seeds {
			found[s.NodeID] = found[s.NodeID] || s.Found
		}
	}
	var missing []string
	for _, s := range rankings[0].Seeds {
		if !found[s.NodeID] {
			missing = append(missing, s.NodeID)
		}
	}
	return missing
}

// printCompare writes a comparison in format.
func printCompare(res overlap.Result, rankings []retriever.Ranking, format string, out io.Writer) error {
	if format == "html" || format == "graphml" {
		return writeSubgraph(subgraph.FromCompare(rankings, res), format, out)
	}
	if format == "json" {
		b, err := render.CompareJSON(rankings, res)
		if err == nil {
			_, err = out.Write(b)
		}
		return err
	}
	_, err := io.WriteString(out, render.CompareText(res, rankings))
	return err
}

// listedRetrievers reads cmd's --retrievers (parseRetrievers, at least
// least), refuses the flags of the retrievers it does not list (nor
// fusion fuses), and checks the listed retrievers' parameters (rf.finish)
// and the rerank's (rr.check).
func listedRetrievers(fs *flag.FlagSet, cmd, list string, least int, rf *retrieverFlags, rr *rerankFlags) ([]string, error) {
	names, err := parseRetrievers(cmd, list, least)
	if err != nil {
		return nil, err
	}
	listed := slices.Clone(names)
	for _, n := range names {
		listed = append(listed, rf.combined(n)...)
	}
	if err := refuseUnlisted(fs, cmd, "--retrievers does not list it", listed); err != nil {
		return nil, err
	}
	if err := rf.finish(cmd, names); err != nil {
		return nil, err
	}
	if err := rr.check(fs, cmd, rf.vector); err != nil {
		return nil, err
	}
	return names, nil
}

// parseRetrievers reads cmd's --retrievers: known names, at least least
// (1 or 2), each once.
func parseRetrievers(cmd, v string, least int) ([]string, error) {
	return parseRetrieverList(cmd+": ", v, retrieverNames(), least)
}

// parseRetrieverList reads a --retrievers list (compare's, eval's, the
// explorer's): names from known, at least least (1 or 2), each once; its
// usage errors start with prefix.
func parseRetrieverList(prefix, v string, known []string, least int) ([]string, error) {
	items, err := listItems(v, "retriever")
	if err != nil {
		return nil, usagef("%s--retrievers %q has an empty name", prefix, v)
	}
	var names []string
	for _, n := range items {
		switch {
		case !slices.Contains(known, n):
			return nil, usagef("%sunknown retriever %q in --retrievers (want %s)", prefix, n, strings.Join(known, ", "))
		case slices.Contains(names, n):
			return nil, usagef("%s--retrievers names %s twice", prefix, n)
		}
		names = append(names, n)
	}
	if len(names) < least {
		return nil, usagef("%s--retrievers needs at least %s, got %q", prefix, []string{"", "one retriever", "two retrievers"}[least], v)
	}
	return names, nil
}

// refuseUnlisted refuses every flag set on fs that belongs only to
// retrievers not in names, saying why.
func refuseUnlisted(fs *flag.FlagSet, cmd, why string, names []string) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if err != nil || slices.Contains(sharedWith(fs), f.Name) {
			return
		}
		var owners []string
		for _, r := range retrieverNames() {
			if slices.Contains(ownFlags(r), f.Name) {
				if slices.Contains(names, r) {
					return
				}
				owners = append(owners, r)
			}
		}
		if len(owners) > 0 {
			err = usagef("%s: --%s applies to %s; %s", cmd, f.Name, strings.Join(owners, ", "), why)
		}
	})
	return err
}

// isSet says whether flag name was given on the command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
