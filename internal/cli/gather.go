package cli

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/gather"
)

// gatherFlags are the gather stage's flags (docs/RETRIEVERS.md, "Gather"):
// the question as query texts, the fields matched and the matchers' rules.
type gatherFlags struct {
	queries                  []string
	names, texts, embedding  string
	match                    string
	opt                      gather.Options
	namesSet, textsSet, eSet bool
	// last is the last gather run: its index, settings and result, for
	// why's first answer (was the node gathered?).
	last *gathered
	// vector is the query's embedding (--query-vector, which the
	// retrievers' flags read): the vector matcher's; vectorFile is that
	// flag's file, read here when no retriever flag read it.
	vector     []float64
	vectorFile string
}

// useVector takes the query vector the retrievers' flags read (or will:
// the file).
func (g *gatherFlags) useVector(rf *retrieverFlags) {
	g.vector, g.vectorFile = rf.vector, rf.queryVector
}

// gathered is one gather's settings, its result and the scores of any node
// (the embedded index's, or the Neo4j searcher's).
type gathered struct {
	opt    gather.Options
	res    gather.Result
	scores func(id string) ([]gather.NodeScore, error)
}

// whyText says whether node id was gathered by the last run (render's
// GatheredText); "" when no --query ran.
func (g *gatherFlags) whyText(id string) string {
	if g.last == nil {
		return ""
	}
	scores, err := g.last.scores(id)
	if err != nil {
		return "the gather's scores of " + render.DisplayID(id) + " could not be read: " + textsafe.EscapeLines(err.Error()) + "\n"
	}
	return render.GatheredText(id, g.last.res, scores, g.last.opt.SeedK, g.last.opt.Min)
}

func (g *gatherFlags) register(fs *flag.FlagSet) {
	g.opt = gather.DefaultOptions()
	fs.Func("query", "the agent's question: `TEXT` to find the seeds by (repeatable: several queries, fused); --seed\n"+
		"beside it adds seeds by hand (a hand seed's R wins)", func(v string) error {
		g.queries = append(g.queries, v)
		return nil
	})
	fs.Func("name-properties", "gather: the node properties holding short names, `P,...` (every matcher; default by --schema)", func(v string) error {
		g.names, g.namesSet = v, true
		return nil
	})
	fs.Func("text-properties", "gather: the node properties holding long text, `P,...` (bm25 only; default by --schema)", func(v string) error {
		g.texts, g.textsSet = v, true
		return nil
	})
	fs.Func("embedding-property", "gather: the node property holding its embedding, `P` (the vector matcher; default by --schema)", func(v string) error {
		g.embedding, g.eSet = v, true
		return nil
	})
	fs.StringVar(&g.match, "match", "", "gather: the `matchers`, of exact, token, fuzzy, bm25, vector (default exact,token,bm25, and vector\n"+
		"with --query-vector)")
	fs.Float64Var(&g.opt.Min, "gather-min", g.opt.Min, "gather: the least score `S` that puts a node in a query's and matcher's list, in (0, 1]")
	fs.Float64Var(&g.opt.RRFK, "gather-rrf-k", g.opt.RRFK, "gather: RRF's `k` fusing the lists into candidates")
	fs.IntVar(&g.opt.SeedK, "seed-k", g.opt.SeedK, "gather: how many candidates become seeds, `K`")
}

// fields are the properties matched: --schema's preset, each flag given
// replacing its part.
func (g *gatherFlags) fields(schema string) (gather.Fields, error) {
	f, _ := gather.Preset(schema)
	split := func(flagName, v string) ([]string, error) {
		items, err := listItems(v, "property")
		if err != nil {
			return nil, usagef("--%s: %v", flagName, err)
		}
		return items, nil
	}
	var err error
	if g.namesSet {
		if f.Names, err = split("name-properties", g.names); err != nil {
			return f, err
		}
	}
	if g.textsSet {
		if f.Texts, err = split("text-properties", g.texts); err != nil {
			return f, err
		}
	}
	if g.eSet {
		f.Embedding = strings.TrimSpace(g.embedding)
	}
	return f, nil
}

// matchers are --match's, or the default (vector added with a vector).
func (g *gatherFlags) matchers(vector []float64) ([]string, error) {
	if g.match == "" {
		m := slices.Clone(gather.DefaultMatchers)
		if vector != nil {
			m = append(m, gather.Vector)
		}
		return m, nil
	}
	items, err := listItems(g.match, "matcher")
	if err != nil {
		return nil, usagef("--match: %v", err)
	}
	return items, nil
}

// run gathers on src, the candidates and seeds of the queries: on the
// embedded engine through the index built from every node, on Neo4j
// through its fulltext index (docs/RETRIEVERS.md, "Gather").
func (g *gatherFlags) run(ctx context.Context, src graph.Source, schema string, vector []float64) (gather.Result, error) {
	f, err := g.fields(schema)
	if err != nil {
		return gather.Result{}, err
	}
	opt := g.opt
	if opt.Matchers, err = g.matchers(vector); err != nil {
		return gather.Result{}, err
	}
	// The settings and the queries first: a refusal needs no graph read.
	if err := gather.Check(g.queries, vector, opt); err != nil {
		return gather.Result{}, usagef("--query: %v", err)
	}
	queries := g.queries
	var res gather.Result
	var scores func(string) ([]gather.NodeScore, error)
	switch s := src.(type) {
	case *neo4jdb.Source:
		ns, err := newNeo4jSearcher(ctx, s, f, opt.Matchers)
		if err != nil {
			return gather.Result{}, err
		}
		if res, err = gather.GatherFrom(ctx, ns, queries, vector, opt); err != nil {
			return gather.Result{}, err
		}
		scores = func(id string) ([]gather.NodeScore, error) {
			return gather.ScoresFrom(ctx, ns, id, queries, vector, opt)
		}
	case graph.NodeScanner:
		ix, err := gather.Build(ctx, s, f)
		if err != nil {
			return gather.Result{}, err
		}
		if res, err = ix.Gather(ctx, queries, vector, opt); err != nil {
			return gather.Result{}, err
		}
		scores = func(id string) ([]gather.NodeScore, error) {
			out, _ := ix.Scores(id, queries, vector, opt)
			return out, nil
		}
	default:
		return gather.Result{}, fmt.Errorf("--query: the gather stage cannot read %s", src.Describe())
	}
	g.last = &gathered{opt: opt, res: res, scores: scores}
	return res, nil
}

// seedsWith are the gathered seeds and the hand ones: a hand seed's R
// wins, its place kept first.
func seedsWith(hand []retriever.Seed, gathered []retriever.Seed) []retriever.Seed {
	out := slices.Clone(hand)
	for _, s := range gathered {
		if !slices.ContainsFunc(hand, func(h retriever.Seed) bool { return h.NodeID == s.NodeID }) {
			out = append(out, s)
		}
	}
	return out
}

const gatherUsage = `Usage: memoria gather [source flags] --query TEXT... [--query-vector FILE] [options] [--format text|json]

Finds the seeds of the agent's question, as a memory system's first stage
does (docs/RETRIEVERS.md, "Gather"): each matcher (exact, token, fuzzy,
bm25, vector) scores nodes against each query in [0, 1], the nodes
scoring at least --gather-min in each (query, matcher) list are fused by
Reciprocal Rank Fusion into the candidates, a candidate's R is the best
score any matcher gave it, and the first --seed-k are the seeds.

Formats:
  text  the candidates, each with its matches, the seeds marked, and the
        tags --tags auto would pick
  json  {"queries": [...], "candidates": [{"node_id", "rank", "R", "rrf",
        "seed", "matches": [{"query", "matcher", "score", "raw"}]}],
        "tags": [...], "no_vector": N, "notices": [...] (when any: how Neo4j's lists
        were read)}

On Neo4j the gather reads its fulltext index (and a vector index), which
memoria load creates; without it the refusal gives the statement.

Flags:
`

// gatherCmd are gather's flags.
type gatherCmd struct {
	src        sourceFlags
	g          gatherFlags
	format     string
	vectorFile string
}

func (c *gatherCmd) register(fs *flag.FlagSet) {
	c.src.register(fs)
	c.g.register(fs)
	fs.StringVar(&c.vectorFile, "query-vector", "", "the query's embedding, a JSON array of numbers in `FILE` (adds the vector matcher)")
	fs.StringVar(&c.format, "format", "text", "output `format`: text or json")
}

func (c *gatherCmd) check(fs *flag.FlagSet) error {
	switch {
	case fs.NArg() > 0:
		return usagef("gather: unexpected argument %q (queries go in --query)", fs.Arg(0))
	case len(c.g.queries) == 0:
		return usagef("gather: at least one --query is required")
	case c.format != "text" && c.format != "json":
		return usagef("gather: unknown --format %q (want text or json)", c.format)
	}
	return nil
}

func runGather(ctx context.Context, args []string, env Env) error {
	var c gatherCmd
	if err := parseCommand(env, "gather", gatherUsage, args, &c); err != nil {
		return err
	}
	var vector []float64
	if c.vectorFile != "" {
		var err error
		if vector, err = readInput("gather: ", "query-vector", c.vectorFile, parseQueryVector); err != nil {
			return err
		}
	}
	src, err := c.src.open(ctx, env)
	if err != nil {
		return err
	}
	defer src.Close(context.WithoutCancel(ctx))
	res, err := c.g.run(ctx, src, c.src.schema.preset, vector)
	if err != nil {
		return err
	}
	if res.Tags, err = autoTagsOf(ctx, src, res.Queries); err != nil {
		return err
	}
	var b []byte
	if c.format == "json" {
		if b, err = render.GatherJSON(res); err != nil {
			return err
		}
	} else {
		b = []byte(render.GatherText(res))
	}
	_, err = env.Stdout.Write(b)
	return err
}
