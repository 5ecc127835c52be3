package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/onneo4j"
	"github.com/memoria-graph/memoria/retriever/gather"
)

// newFlagSet returns a flag set that reports errors instead of exiting and
// prints usage (a summary, then the flags) on --help.
func newFlagSet(env Env, name, summary string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), summary)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args, turning flag errors into usage errors and --help into
// errHelpShown (with usage printed to stdout).
func parse(fs *flag.FlagSet, env Env, args []string) error {
	return parseSeen(fs, env, args, map[string]string{})
}

// parseSeen is parse, with seen holding the first value of each flag
// given, across calls (load parses its arguments in runs).
//
// Bad input is refused with a message naming the flag (docs/CLI.md, "Exit
// codes"), and two ways of it the flag package lets through are refused
// here: a flag that keeps one value given twice with different values,
// which would silently keep the last ("--retriever expansion --retriever
// ppr"), and an empty value for a flag whose default is its absence
// ("--graph """ read the demo graph).
func parseSeen(fs *flag.FlagSet, env Env, args []string, seen map[string]string) error {
	fs.SetOutput(discard{})
	orig := map[string]flag.Value{}
	fs.VisitAll(func(f *flag.Flag) {
		if !slices.Contains(repeatableFlags, f.Name) && !slices.Contains(repeatableIn[fs.Name()], f.Name) {
			orig[f.Name] = f.Value
			f.Value = onceValue{Value: f.Value, name: f.Name, seen: seen}
		}
	})
	err := fs.Parse(args)
	fs.VisitAll(func(f *flag.Flag) {
		if v, ok := orig[f.Name]; ok {
			f.Value = v
		}
	})
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(env.Stdout)
		fs.Usage()
		return errHelpShown
	}
	// The flag package's errors lead with the command, as every other
	// usage error of a command does ("explore: --rrf-k: …"): `--rrf-k
	// 1e309` said "memoria: invalid value …" where `--rrf-k -1` said
	// "memoria: explore: --rrf-k: …".
	cmd := ""
	if fs.Name() != "memoria" { // the explorer: no command
		cmd = fs.Name() + ": "
	}
	if err != nil {
		return usageError{cmd + err.Error() + " (see --help)"}
	}
	fs.Visit(func(f *flag.Flag) {
		if err == nil && slices.Contains(nonEmptyFlags, f.Name) && f.Value.String() == "" {
			err = usagef("%s--%s is empty: give a value, or leave the flag out for its default", cmd, f.Name)
		}
	})
	return err
}

// repeatableFlags are the flags that collect every value given
// (docs/CLI.md: --seed, --rel-where, --rel-types, --exclude-rel-types and
// --type-weight are repeatable, and --timeout collects its two deadlines);
// every other flag keeps one value. Each refuses its own repeats: a seed,
// a type weighed, a deadline given twice.
var repeatableFlags = []string{"seed", "rel-where", "rel-types", "exclude-rel-types", "type-weight", "timeout", "query", "run"}

// repeatableIn are flags repeatable in one command only, by command: tune's
// --param (a parameter each) and --values (the values of the --param
// before it); sweep's --param keeps one value.
var repeatableIn = map[string][]string{"tune": {"param", "values"}}

// nonEmptyFlags are the flags whose empty value would silently mean the
// flag's absence: a file, a server, a time or a format.
var nonEmptyFlags = []string{"graph", "uri", "query-vector", "now", "format", "queries", "qrels", "out", "experiment", "out-dir"}

// onceValue refuses a second value, different from the first, for a flag
// that keeps one.
type onceValue struct {
	flag.Value
	name string
	seen map[string]string
}

func (o onceValue) Set(v string) error {
	if first, ok := o.seen[o.name]; ok && first != v {
		return fmt.Errorf("given twice, %s and then %s: give it once", textsafe.Quote(first), textsafe.Quote(v))
	}
	o.seen[o.name] = v
	return o.Value.Set(v)
}

// IsBoolFlag keeps a boolean flag one that takes no value.
func (o onceValue) IsBoolFlag() bool {
	b, ok := o.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// seedList collects repeated --seed ID[=SCORE] flags.
type seedList []retriever.Seed

func (s *seedList) String() string { return "" }

// Set parses ID[=SCORE] (ParseSeed). An id given twice is refused: the
// ranking retrievers refuse it (retriever.Query.Validate), with exit 1,
// and explore's results, one per seed, are keyed by seed (diff refuses a
// seed twice in one file).
func (s *seedList) Set(v string) error {
	seed, err := ParseSeed(v)
	if err != nil {
		return err
	}
	if slices.ContainsFunc(*s, func(o retriever.Seed) bool { return o.NodeID == seed.NodeID }) {
		return fmt.Errorf("seed %s is given twice", textsafe.Quote(seed.NodeID))
	}
	*s = append(*s, seed)
	return nil
}

// scoreSyntax is a decimal number as a person types one: 0.85, 1, .5, 1e-3.
var scoreSyntax = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// ParseSeed parses ID[=SCORE]. The text after the last '=' is the score
// only when it is written as a decimal number; otherwise the whole text is
// the id and the score is 1.0 ("id=with=eq" is the id "id=with=eq"). The id
// is taken as written, spaces included: ids are data. To seed an id that
// itself ends in "=<number>", give the score explicitly ("a=1=0.5").
func ParseSeed(v string) (retriever.Seed, error) {
	id, score := v, 1.0
	if i := strings.LastIndexByte(v, '='); i >= 0 && scoreSyntax.MatchString(v[i+1:]) {
		f, err := strconv.ParseFloat(v[i+1:], 64)
		if err != nil {
			return retriever.Seed{}, fmt.Errorf("seed %q: score %q is not a number: %w", v, v[i+1:], err)
		}
		id, score = v[:i], f
	}
	if id == "" {
		return retriever.Seed{}, fmt.Errorf("seed %q has an empty node id", v)
	}
	if err := retriever.ValidateScore(score); err != nil {
		return retriever.Seed{}, fmt.Errorf("seed %q: %w", v, err)
	}
	return retriever.Seed{NodeID: id, Score: score}, nil
}

// splitTags splits a comma-separated tag list; normalisation happens in the
// retriever.
func splitTags(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return retriever.NormalizeTags(strings.Split(s, ","))
}

// configFlags registers the threshold flags on fs, defaulting to cfg.
func configFlags(fs *flag.FlagSet, cfg *activation.Params) {
	fs.IntVar(&cfg.MaxDepth, "max-depth", cfg.MaxDepth, "MAX_DEPTH: most hops from a seed (1-12)")
	fs.Float64Var(&cfg.MinActivation, "min-activation", cfg.MinActivation, "MIN_ACTIVATION: a hop is kept only if its transfer energy is strictly above this")
	fs.Float64Var(&cfg.TagSimFloor, "tag-sim-floor", cfg.TagSimFloor, "TAG_SIM_FLOOR: tag similarity of an edge with no tag in common (0-1)")
	fs.IntVar(&cfg.MaxBranches, "max-branches", cfg.MaxBranches, "MAX_BRANCHES: most neighbours kept per node and level")
}

// queryFlags are the flags the explorer and explore share: a source, seeds,
// query tags and the thresholds.
type queryFlags struct {
	src   sourceFlags
	seeds seedList
	tags  string
	cfg   activation.Params
	opts  activation.Options
	// cypher is --cypher: "fast" (memoria's queries through the id indexes
	// and element ids) or "seed" (the specification's), docs/ALGORITHM.md
	// "The Cypher".
	cypher string
	// filter is the relationship filters, which every retriever honours.
	filter relFilterFlags
	// gather finds seeds from --query texts (docs/RETRIEVERS.md, "Gather"),
	// added to --seed's when the source opens.
	gather gatherFlags
}

func (q *queryFlags) register(fs *flag.FlagSet, seedHelp string) {
	q.src.register(fs)
	fs.StringVar(&q.cypher, "cypher", "fast", "Neo4j `queries`: fast (through the id indexes, by element id) or seed (the\n"+
		"specification's, which read every node; same results, for comparison)")
	fs.Var(&q.seeds, "seed", seedHelp)
	fs.StringVar(&q.tags, "tags", "", "comma-separated query `tags`")
	q.cfg = activation.DefaultParams()
	configFlags(fs, &q.cfg)
	q.opts = activation.DefaultOptions()
	fs.IntVar(&q.opts.MaxRetries, "max-retries", q.opts.MaxRetries, "retries of a query after a transient Neo4j error")
	q.filter.register(fs)
	q.gather.register(fs)
}

// paramFlags are the flags of the parameters whose range checks (each
// retriever's Params.Validate, Activation Energy's Options.Validate) name
// them in the retriever's own words ("max hops must be 1 to 3"):
// flagNamed leads each such line with its flag, so that the message names
// the flag (docs/CLI.md, "Exit codes").
var paramFlags = []struct{ words, flag string }{
	{"max_depth", "max-depth"}, {"min_activation", "min-activation"}, {"tag_sim_floor", "tag-sim-floor"},
	{"max_branches", "max-branches"}, {"near_misses", "near-misses"}, {"max_retries", "max-retries"},
	{"max hops", "max-hops"}, {"expansion factor", "expansion-factor"}, {"depth decay", "depth-decay"},
	{"top k", "top-k"}, {"type weight", "type-weight"}, {"pulses", "pulses"}, {"decay", "decay"},
	{"threshold", "threshold"}, {"alpha", "alpha"}, {"entity penalty above", "entity-penalty-above"},
	{"initial", "initial"}, {"damping", "damping"}, {"epsilon", "epsilon"}, {"fuse depth", "fuse-depth"}, {"fuse weights", "fuse-weights"},
	{"rrf k", "rrf-k"},
}

// flagNamed is err's message with each line that starts with a
// parameter's words led by its flag: "--max-hops: max hops must be 1 to 3,
// got 4".
func flagNamed(err error) string {
	lines := strings.Split(err.Error(), "\n")
	for i, l := range lines {
		for _, p := range paramFlags {
			if strings.HasPrefix(l, p.words+" ") {
				lines[i] = "--" + p.flag + ": " + l
				break
			}
		}
	}
	return strings.Join(lines, "\n")
}

// open checks the thresholds (a usage error) and opens the chosen source;
// the caller closes it.
func (q *queryFlags) open(ctx context.Context, env Env) (graph.Source, error) {
	if err := q.checkThresholds(); err != nil {
		return nil, err
	}
	if q.cypher != "fast" && q.cypher != "seed" {
		return nil, usagef("--cypher %q: want fast or seed", q.cypher)
	}
	if err := q.filter.check(); err != nil {
		return nil, err
	}
	if q.tags == "auto" && len(q.gather.queries) == 0 {
		return nil, usagef("--tags auto takes the tags a --query names: give --query")
	}
	src, err := q.src.open(ctx, env)
	if err != nil || len(q.gather.queries) == 0 {
		return src, err
	}
	if err := q.gatherSeeds(ctx, env, src); err != nil {
		src.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	return src, nil
}

// gatherSeeds adds the seeds --query finds to --seed's (a hand seed's R
// wins) and says on stderr which it found.
func (q *queryFlags) gatherSeeds(ctx context.Context, env Env, src graph.Source) error {
	vector := q.gather.vector
	if vector == nil && q.gather.vectorFile != "" {
		var err error
		if vector, err = readInput("", "query-vector", q.gather.vectorFile, parseQueryVector); err != nil {
			return err
		}
	}
	res, err := q.gather.run(ctx, src, q.src.schema.preset, vector)
	if err != nil {
		return err
	}
	if q.tags == "auto" {
		if err := q.autoTags(ctx, env, src, res.Queries); err != nil {
			return err
		}
	}
	found := res.Seeds()
	if len(found) == 0 && len(q.seeds) == 0 {
		return usagef("--query: no node matched (try --match with fuzzy, a lower --gather-min, or --seed)")
	}
	parts := make([]string, len(found))
	for i, s := range found {
		parts[i] = fmt.Sprintf("%s (R %s)", render.DisplayID(s.NodeID), render.Num(s.Score))
	}
	fmt.Fprintf(env.Stderr, "memoria: --query gathered %d seeds: %s\n", len(found), strings.Join(parts, ", "))
	for _, n := range res.Notices {
		fmt.Fprintf(env.Stderr, "memoria: --query: %s\n", textsafe.Escape(n))
	}
	q.seeds = seedsWith(q.seeds, found)
	return nil
}

// autoTagsOf are the tags of src's graph --tags auto picks for queries
// (gather.AutoTags).
func autoTagsOf(ctx context.Context, src graph.Source, queries []string) ([]string, error) {
	counts, err := src.Tags(ctx)
	if err != nil {
		return nil, err
	}
	all := make([]string, len(counts))
	for i, c := range counts {
		all[i] = c.Tag
	}
	return gather.AutoTags(all, queries), nil
}

// autoTags sets --tags auto's tags: every tag of the graph whose words
// occur in a query as a run of its words (gather.AutoTags), said on
// stderr.
func (q *queryFlags) autoTags(ctx context.Context, env Env, src graph.Source, queries []string) error {
	chosen, err := autoTagsOf(ctx, src, queries)
	if err != nil {
		return err
	}
	q.tags = strings.Join(chosen, ",")
	shown := make([]string, len(chosen))
	for i, t := range chosen {
		shown[i] = textsafe.Quote(t)
	}
	fmt.Fprintf(env.Stderr, "memoria: --tags auto chose %d tags: %s\n", len(chosen), strings.Join(shown, ", "))
	return nil
}

// hasSeeds says whether seeds were given, by hand or to be gathered.
func (q *queryFlags) hasSeeds() bool { return len(q.seeds) > 0 || len(q.gather.queries) > 0 }

// checkThresholds refuses Activation Energy's thresholds and options out
// of range, every one of them, each naming its flag (a usage error).
func (q *queryFlags) checkThresholds() error {
	if err := errors.Join(q.cfg.Validate(), q.opts.Validate()); err != nil {
		return usageError{flagNamed(err)}
	}
	return nil
}

// cliBackend is backend for the commands that print (explore, sweep, why):
// the index advice, if any, goes to stderr as one line.
func (q *queryFlags) cliBackend(ctx context.Context, env Env, src graph.Source, live bool) (activation.Backend, error) {
	b, notice, err := q.backend(ctx, src, live)
	if err == nil && notice != "" {
		fmt.Fprintln(env.Stderr, "memoria: "+textsafe.EscapeLines(notice))
	}
	return b, err
}

// backend pairs src with its expansion (backendFor), honouring --cypher on
// Neo4j; live (the explorer, a sweep, explore --trace) puts a snapshot
// behind the fast path, so that threshold experiments replay what was read
// and traces see whole neighbourhoods. A fast-path Neo4j backend's
// advice on missing id indexes is returned as notice ("" when none).
func (q *queryFlags) backend(ctx context.Context, src graph.Source, live bool) (b activation.Backend, notice string, err error) {
	ns, isNeo4j := src.(*neo4jdb.Source)
	switch {
	case !isNeo4j && q.cypher != "fast":
		return nil, "", usagef("--cypher %s applies to Neo4j only: give --uri or $NEO4J_URI", q.cypher)
	case !isNeo4j:
		b, err = backendFor(src, q.filter.f)
		return b, "", err
	case !ns.Schema().IsDefault() && q.cypher == "seed":
		return nil, "", usagef("--schema %s: --cypher seed runs the specification's queries, which read memoria's own shape: use the fast path (--cypher fast)",
			textsafe.Quote(ns.Schema().Name))
	case q.cypher == "seed":
		seed := onneo4j.NewSeedCypher(ns)
		seed.SetFilter(q.filter.f)
		return seed, "", nil
	}
	var cov neo4jdb.IDCoverage
	if live {
		snap := onneo4j.NewSnapshot(ns)
		snap.SetFilter(q.filter.f)
		b = snap
		cov, err = snap.Coverage(ctx)
	} else {
		fast := onneo4j.New(ns)
		fast.SetFilter(q.filter.f)
		b = fast
		cov, err = fast.Coverage(ctx)
	}
	if err != nil {
		return nil, "", err
	}
	return b, cov.Notice(), nil
}
