package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/render/subgraph"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/registry"
)

const exploreUsage = `Usage: memoria explore [source flags] --seed ID[=SCORE]... [options]

Runs a retriever from the seeds and prints the result: Activation Energy
(--retriever activation, the default), the typed expansion (--retriever
expansion) or spreading activation (--retriever spreading;
docs/RETRIEVERS.md).
A missing SCORE means 1.0. An unknown seed is a result (seed_not_found),
not an error. A seed whose exploration fails (the server died, a number
overflowed) is marked as failed in every format, the other results are
still printed, and the exit code is 1.

Exit codes: 0 every seed explored; 1 a seed failed, or the graph could not
be opened or read (a timeout included); 2 a mistake in the command line;
130, 143, 129 on SIGINT, SIGTERM, SIGHUP.

Formats:
  json    one RetrievalResult per line, printed as each seed finishes
  tree    a text tree per seed, printed as each seed finishes
  d3      one D3 graph {"nodes":[...],"links":[...]} of every result
  llm     numbered path strings plus the D3 block, for an LLM's context
  cypher  a debug Cypher query per path, paste-ready (--cypher-form: Neo4j
          Browser, cypher-shell, or a driver's query and parameters JSON)
  check   per path, a query that recomputes every hop on Neo4j from the raw
          properties and compares it with memoria's T (same form choice)
  ranking one JSON object every retriever shares: the ranked hits with
          their routes, the seeds, the parameters and the statistics
  html    one self-contained HTML page that draws the retrieved subgraph
          (D3 inside, no network): hover and click for T, w, tag_sim, d
          and formulas, the losing candidates and near misses dashed
  graphml the retrieved subgraph as GraphML (Gephi, yEd, Cytoscape), T
          and scores as attributes
With any other retriever: ranking (the default), tree (the
ranked list, each hit's feeders and the tree of best routes), d3, llm,
cypher (a query per hit: its feeders' when it has some, else its route's),
html (the hits beyond --top-k, from a run twice as deep, dashed; without
--rerank) and graphml.

--rerank signals reranks the ranking by the multi-signal score
(--signal-weights, --recency-lambda, --now, --per-label-top, and
--query-vector for sem; docs/RETRIEVERS.md, "Reranking by signals"); with
Activation Energy it prints --format ranking only (the default then).

Flags:
`

// formats are explore's formats; rankingFormats (retrievers.go) and
// drawnFormats those of a ranking retriever.
var formats = []string{"json", "tree", "d3", "llm", "cypher", "check", "ranking", "html", "graphml"}

// drawnFormats are the formats that draw the retrieved subgraph.
var drawnFormats = []string{"html", "graphml"}

// orList writes words as "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// exploreFlags are explore's flags: the bundle every running command
// shares and its own output flags.
type exploreFlags struct {
	runFlags
	format, form string
	trace        bool
}

func (x *exploreFlags) register(fs *flag.FlagSet) {
	x.runFlags.register(fs, "seed `ID[=SCORE]` (repeatable; SCORE in (0,1], default 1)", true)
	fs.StringVar(&x.format, "format", "", "output `format`: "+orList(formats)+" (default json; ranking\n"+
		"with any other --retriever)")
	fs.StringVar(&x.form, "cypher-form", "browser", "with --format cypher or check, the paste-ready `form`: browser (Neo4j Browser),\n"+
		"shell (cypher-shell) or driver (one JSON object per query: query and parameters)")
	fs.BoolVar(&x.trace, "trace", false, "with --format json, add each result's levels: every candidate with its fate, the near\n"+
		"misses below the threshold and what each node's other neighbours were (docs/EXPORTS.md)")
	fs.IntVar(&x.q.opts.NearMisses, "near-misses", activation.DefaultNearMisses, "near misses kept per node and level with --trace (`K`, 0-100)")
}

// check refuses what explore cannot do with the flags given, and settles
// the format (json for Activation Energy, else ranking).
func (x *exploreFlags) check(fs *flag.FlagSet) error {
	if err := x.requireSeeds(fs, "explore", "seeds go in --seed"); err != nil {
		return err
	}
	if err := x.rf.check(fs, "explore"); err != nil {
		return err
	}
	if err := x.rr.check(fs, "explore", x.rf.vector); err != nil {
		return err
	}
	ranking := x.rf.name != registry.Activation
	if x.format == "" {
		x.format = "json"
		if ranking || x.rr.on() {
			x.format = "ranking"
		}
	}
	switch {
	case x.rr.on() && !ranking && x.format != "ranking":
		return usagef("explore: --rerank signals reranks Activation Energy's ranking: --format ranking only (--format %s prints its own results)", x.format)
	case !slices.Contains(formats, x.format):
		return usagef("explore: unknown --format %q (want one of %s)", x.format, strings.Join(formats, ", "))
	case ranking && !slices.Contains(rankingFormats, x.format) && !slices.Contains(drawnFormats, x.format):
		return usagef("explore: --format %s is Activation Energy's; --retriever %s prints %s", x.format, x.rf.name, orList(append(slices.Clone(rankingFormats), drawnFormats...)))
	case !slices.Contains(render.CypherForms, render.CypherForm(x.form)):
		return usagef("explore: unknown --cypher-form %q (want browser, shell or driver)", x.form)
	// A flag that changes nothing is refused rather than ignored
	// (docs/CLI.md, "Exploring").
	case isSet(fs, "cypher-form") && x.format != "cypher" && x.format != "check":
		return usagef("explore: --cypher-form applies to --format cypher or check")
	case isSet(fs, "near-misses") && !x.trace:
		return usagef("explore: --near-misses applies to --trace")
	}
	return nil
}

func runExplore(ctx context.Context, args []string, env Env) error {
	var x exploreFlags
	if err := parseCommand(env, "explore", exploreUsage, args, &x); err != nil {
		return err
	}
	x.q.gather.useVector(&x.rf)
	source, err := x.q.open(ctx, env)
	if err != nil {
		return err
	}
	defer source.Close(context.WithoutCancel(ctx))
	if x.rf.name != registry.Activation {
		return x.rank(ctx, env, source)
	}
	return x.exploreActivation(ctx, env, source)
}

// rank runs a ranking retriever for explore and prints its ranking; html
// and graphml draw it, html from a run to 2K whose hits beyond K are the
// losers.
func (x *exploreFlags) rank(ctx context.Context, env Env, source graph.Source) error {
	deep := 0
	if x.format == "html" && !x.rr.on() {
		deep = x.rf.topK
		x.rf.topK = twice(deep)
	}
	g, err := newRankings(env, &x.q, &x.rf, source)
	if err != nil {
		return err
	}
	r, err := g.of(ctx, x.rf.name, x.query(), 0)
	if err == nil {
		r, err = x.rr.apply(r)
	}
	if err != nil {
		return err
	}
	if slices.Contains(drawnFormats, x.format) {
		return writeRankingSubgraph(r, deep, x.format, env.Stdout)
	}
	return printRanking(r, x.format, render.CypherFor(schemaOf(source)), render.CypherForm(x.form), env.Stdout)
}

// exploreActivation explores with Activation Energy and prints its
// results as they come.
func (x *exploreFlags) exploreActivation(ctx context.Context, env Env, source graph.Source) error {
	if x.trace && x.format != "json" {
		return usagef("explore: --trace needs --format json")
	}
	// A trace needs an engine that reads whole neighbourhoods: on Neo4j,
	// the snapshot (its one round trip per level brings the near misses).
	backend, err := x.q.cliBackend(ctx, env, source, x.trace || x.format == "html")
	if err != nil {
		return err
	}
	r, err := activation.New(backend, x.q.cfg, x.q.opts)
	if err != nil {
		return usageError{err.Error()}
	}
	q := x.q
	return explore(ctx, r, q.seeds, splitTags(q.tags), exploreOutput{format: x.format, trace: x.trace, minActivation: q.cfg.MinActivation,
		form: render.CypherForm(x.form), cypher: render.CypherFor(schemaOf(source)), floor: q.cfg.TagSimFloor, cfg: q.cfg, rerank: &x.rr, filter: q.filter.f.String()}, env.Stdout)
}

// exploreOutput is how explore prints.
type exploreOutput struct {
	format        string
	filter        string  // the relationship filter's description ("" for none)
	trace         bool    // add levels to the JSON
	minActivation float64 // the run's threshold, for the tree's near misses
	form          render.CypherForm
	cypher        render.Cypher // the debug and check queries' writer (the source's mapping)
	floor         float64       // the run's TAG_SIM_FLOOR, for the check queries
	cfg           activation.Params
	rerank        *rerankFlags // applied to --format ranking (nil: none)
}

// explore streams results in json and tree formats and collects them, in
// seed order, for the others.
func explore(ctx context.Context, r *activation.Retriever, seeds []retriever.Seed, tags []string, o exploreOutput, out io.Writer) error {
	format := o.format
	ch, err := r.Explore(ctx, seeds, tags)
	if err != nil {
		return usageError{err.Error()}
	}
	if format == "json" || format == "d3" {
		out = textsafe.JSONWriter{W: out} // graph text can act on a terminal: \u-escape it
	}
	results := make([]activation.Result, len(seeds))
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	var werr error
	levels := make([][]activation.LevelEvent, len(seeds))
	if format == "tree" {
		_, werr = io.WriteString(out, render.FilterLine(o.filter))
	}
	for ev := range ch {
		if ev.Kind == activation.EventLevel && (o.trace || format == "html") {
			levels[ev.SeedIndex] = append(levels[ev.SeedIndex], *ev.Level)
		}
		if ev.Kind != activation.EventResult || werr != nil {
			continue
		}
		results[ev.SeedIndex] = *ev.Result
		switch {
		case format == "json" && o.trace:
			var b []byte
			if b, werr = render.TracedJSON(*ev.Result, levels[ev.SeedIndex]); werr == nil {
				_, werr = fmt.Fprintf(out, "%s\n", b)
			}
		case format == "json":
			werr = enc.Encode(render.Untraced(*ev.Result))
		case format == "tree":
			_, werr = fmt.Fprintln(out, render.Tree(*ev.Result, render.TreeOptions{MinActivation: o.minActivation}))
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if werr != nil {
		return werr
	}
	switch format {
	case "d3":
		enc.SetIndent("", "  ")
		werr = enc.Encode(render.ToD3(results...))
	case "llm":
		_, werr = fmt.Fprintln(out, render.ToLLMContext(results...).Text())
	case "ranking":
		var b []byte
		rk := activation.Ranking(results, o.cfg, tags)
		rk.Filter = o.filter
		if rk, werr = o.rerank.apply(rk); werr == nil {
			if b, werr = render.RankingJSON(rk); werr == nil {
				_, werr = out.Write(b)
			}
		}
	case "html", "graphml":
		werr = writeSubgraph(subgraph.FromActivation(subgraph.ActivationRun{Results: results, Levels: levels, Params: o.cfg,
			Tags: tags, Filter: o.filter}), format, out)
	case "cypher", "check":
		qs := o.cypher.DebugCypherAll(results...)
		if format == "check" {
			qs = o.cypher.CheckCypherAll(tags, o.floor, results...)
		}
		failed := ""
		if o.form != render.FormDriver { // JSON lines have no comments; the exit code says it
			failed = render.FailedSeedText("// ", render.FailedSeeds(results...))
		}
		_, werr = fmt.Fprint(out, failed+render.Script(qs, o.form))
	}
	if werr != nil {
		return werr
	}
	return failedSeedsError("explore", results)
}

// failedSeedsError is nil when no seed ended in error, else an error (exit
// code 1) naming how many did and the first one's error, led by what (the
// command, and for eval the query). The results were printed before it,
// each failed one marked in its format. explore, compare and eval end
// with it when Activation Energy ran.
func failedSeedsError(what string, results []activation.Result) error {
	failed := render.FailedSeeds(results...)
	if len(failed) == 0 {
		return nil
	}
	return fmt.Errorf("%s: %d of %d seeds ended in error (results printed above are partial); first, seed %s: %s",
		what, len(failed), len(results), render.DisplayID(failed[0].ID), failed[0].Error)
}
