package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/graph/neo4jload"
	"github.com/memoria-graph/memoria/internal/cypherlit"
	"github.com/memoria-graph/memoria/internal/textsafe"
)

const loadUsage = `Usage: memoria load FILE [neo4j flags] [--batch N] [--writers N] [--progress] [--wipe [--yes]]

Writes an APOC JSON-lines graph (CALL apoc.export.json.all) into Neo4j, in
batches. The whole file is read and checked first, by the same rules as
explore --graph (docs/EXPORTS.md, "The APOC file"): a file with anything
Neo4j would refuse or alter is rejected, with line numbers, before anything
is written. That check keeps only the node ids; the file is then read
again as it is sent, --batch rows per transaction, --writers transactions
at once, so memory holds the ids, not the content. On a terminal a
progress line on stderr counts the nodes and relationships written, with
the rate and the time left; --progress prints it elsewhere too, as a plain
line every 10 seconds. Every node needs a non-empty string id property. RELATES
weights outside [0.25, 1.0] are loaded and reported in a warning. Loading
is idempotent: nodes are merged on their
first label and id (their properties replaced), and a relationship is
created only if no identical one (endpoints, type, properties) is there
yet, so loading the same file twice changes nothing. The id index of each
label (docs/ALGORITHM.md "Indexes") is created if missing. A file whose node id exists in
the database under other labels (say :Event where the file has
:UserRequest) is refused before anything is written, as merging it would
make a second node with that id; the message names those nodes and says
how to fix the file or delete them.

load never deletes anything unless --wipe is given. With --wipe the
database ends up holding exactly the file: the file is loaded first (a
node whose id the database holds under other labels is taken over, never
duplicated), and only once all of it is in does load remove every node,
relationship and label the file does not hold. Before it starts it says
how much the database holds and, on a terminal, asks for confirmation
(--yes skips the question; without a terminal --yes is required).

If the server fails half way, load says what it wrote so far; nothing the
database held is gone (with --wipe, nothing is removed until the whole file
is in), though nodes the file also holds may already carry its properties.
Running the same command again completes the load.

The URI comes from --uri or $NEO4J_URI; the password from $NEO4J_PASSWORD
or, on a terminal, a prompt.

Flags:
`

func runLoad(ctx context.Context, args []string, env Env) error {
	fs := newFlagSet(env, "load", loadUsage)
	var nf neo4jFlags
	nf.register(fs)
	batch := fs.Int("batch", neo4jload.DefaultBatchSize, "nodes or relationships written per transaction")
	writers := fs.Int("writers", neo4jload.DefaultWriters, "write transactions at once")
	progress := fs.Bool("progress", false, "print the progress line on stderr even when it is not a terminal (a plain line every 10 s)")
	wipe := fs.Bool("wipe", false, "once the file is loaded, delete every node, relationship and label it does not hold")
	yes := fs.Bool("yes", false, "with --wipe: do not ask for confirmation")
	files, err := parseInterspersed(fs, env, args)
	if err != nil {
		return err
	}
	if err := checkLoadArgs(files, *batch, *writers); err != nil {
		return err
	}
	st, ok, err := nf.settings(env)
	if err != nil {
		return err
	}
	if !ok {
		return usagef("load: no Neo4j server: give --uri or set $NEO4J_URI")
	}
	if *wipe && !*yes && env.PromptPassword == nil {
		return usagef("load: --wipe deletes the whole database and there is no terminal to confirm on: add --yes")
	}

	// Read and check everything before touching the server, keeping only
	// the ids (neo4jload.Plan); the load reads the file again.
	path := files[0]
	if isDir(path) {
		return fmt.Errorf("%s: nothing loaded: %s", path, errIsDir)
	}
	start := time.Now()
	// The checker of every graph file (docs/EXPORTS.md, "The APOC file"):
	// the file rules include neo4jload.ValidateForLoad's.
	plan, err := neo4jload.PrepareFile(path, *batch)
	if err != nil {
		return fmt.Errorf("%s: nothing loaded:\n%w", path, err)
	}
	printWarnings(env.Stderr, path, plan.Report)

	src, err := connectNeo4j(ctx, st, env)
	if err != nil {
		return err
	}
	defer src.Close(context.WithoutCancel(ctx))
	driver := src.Driver()
	nameCtx, cancel := context.WithTimeout(ctx, src.QueryTimeout()) // a silent server must not hang the name lookup
	where := fmt.Sprintf("database %s at %s", databaseName(nameCtx, driver, st.Database), st.URI)
	cancel()

	if *wipe {
		if err := confirmWipe(ctx, env, src, where, path, *yes); err != nil {
			return err
		}
	}
	opt := neo4jload.LoadOptions{BatchSize: *batch, Writers: *writers, Wipe: *wipe}
	var prog *loadProgress
	if tty := isTerminal(env.Stderr); tty || *progress {
		prog = newLoadProgress(env.Stderr, tty, plan.Nodes+plan.Rels, time.Now)
		opt.Progress = prog.update
	}
	stats, err := plan.Load(ctx, src, opt)
	if prog != nil {
		prog.end()
	}
	var conflict *neo4jload.LabelConflictError
	switch {
	case errors.As(err, &conflict):
		return fmt.Errorf("loading %s into %s: nothing loaded: %w\n%s", path, where, err, conflictHint(conflict))
	case err != nil:
		return fmt.Errorf("loading %s into %s: %w", path, where, err)
	}
	_, err = fmt.Fprintf(env.Stdout, "loaded %s into %s in %s\n%s",
		path, where, time.Since(start).Round(time.Millisecond), loadSummary(stats))
	return err
}

// checkLoadArgs refuses a load of no file or several, and a batch size or
// a count of writers below 1.
func checkLoadArgs(files []string, batch, writers int) error {
	switch {
	case len(files) == 0:
		return usagef("load: which file? (memoria load FILE --uri URI)")
	case len(files) > 1:
		return usagef("load: one file at a time, got %q and %q", files[0], files[1])
	case batch < 1:
		return usagef("load: --batch must be at least 1, got %d", batch)
	case writers < 1:
		return usagef("load: --writers must be at least 1, got %d", writers)
	}
	return nil
}

// confirmWipe says what --wipe may delete from the database (where) and,
// without --yes, asks before a load that will delete anything.
func confirmWipe(ctx context.Context, env Env, src *neo4jdb.Source, where, path string, yes bool) error {
	nodes, rels, err := src.Counts(ctx)
	if err != nil {
		return fmt.Errorf("counting what --wipe may delete: %w", err)
	}
	fmt.Fprintf(env.Stderr, "--wipe: %s holds %d nodes and %d relationships; once %s is loaded, every node, relationship and label it does not hold will be deleted\n",
		where, nodes, rels, path)
	if yes || nodes+rels == 0 {
		return nil
	}
	ok, err := confirm(env, "Load "+path+" and then delete what it does not hold? [y/N] ")
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("load: cancelled; nothing deleted or loaded")
	}
	return nil
}

// conflictHint tells how to load a file refused for a label conflict, the
// safe ways first: fix the labels in the file, or delete the conflicting
// nodes (a Cypher statement naming them); --wipe last, as it replaces the
// whole database.
func conflictHint(c *neo4jload.LabelConflictError) string {
	ids := make([]string, len(c.Conflicts))
	for i, x := range c.Conflicts {
		ids[i] = cypherlit.Quote(x.ID)
	}
	that, nodes, their := "that node's", "the node", "its"
	if c.Total > 1 {
		that, nodes, their = "those nodes'", "those nodes", "their"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "To load the file, either change %s labels in the file to match the database (a node is merged on its first label),\n", that)
	fmt.Fprintf(&b, "or delete %s from the database first, with %s relationships:\n", nodes, their)
	fmt.Fprintf(&b, "  MATCH (n) WHERE n.id IN [%s] DETACH DELETE n\n", strings.Join(ids, ", "))
	if more := c.Total - len(c.Conflicts); more > 0 {
		fmt.Fprintf(&b, "  (these are the first %d; load again to see the other %d)\n", len(c.Conflicts), more)
	}
	b.WriteString("--wipe would load the file too, but it replaces the whole database.")
	return b.String()
}

// printWarnings prints the checker's warnings about a graph file, one line
// each, on w (stderr): the file is used as it is.
func printWarnings(w io.Writer, path string, rep apoc.Report) {
	for _, warn := range rep.Warnings {
		fmt.Fprintln(w, textsafe.EscapeLines(fmt.Sprintf("%s: warning: %s", path, warn)))
	}
}

// loadSummary tells what Load did, one line per kind of element.
func loadSummary(s neo4jload.LoadStats) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  nodes:         %d created, %d matched\n", s.NodesCreated, s.NodesMatched)
	fmt.Fprintf(&b, "  relationships: %d created, %d matched\n", s.RelsCreated, s.RelsMatched)
	if s.NodesDeleted+s.RelsDeleted+s.LabelsRemoved > 0 {
		fmt.Fprintf(&b, "  deleted:       %d nodes, %d relationships, %d labels (not in the file)\n", s.NodesDeleted, s.RelsDeleted, s.LabelsRemoved)
	}
	return b.String()
}

// databaseName is the name of db, or of the server's default database when
// db is empty (falling back to "the default database").
func databaseName(ctx context.Context, d neo4j.DriverWithContext, db string) string {
	if db != "" {
		return db
	}
	res, err := neo4j.ExecuteQuery(ctx, d, "CALL db.info() YIELD name RETURN name", nil, neo4j.EagerResultTransformer,
		neo4j.ExecuteQueryWithReadersRouting())
	if err == nil && len(res.Records) == 1 {
		if name, ok := res.Records[0].Values[0].(string); ok && name != "" {
			return name
		}
	}
	return "(default)"
}

// confirm asks a yes/no question on the terminal (prompt on stderr, answer
// from stdin); only y or yes agrees.
func confirm(env Env, prompt string) (bool, error) {
	fmt.Fprint(env.Stderr, prompt)
	line, err := bufio.NewReader(env.Stdin).ReadString('\n')
	if err != nil && line == "" {
		return false, fmt.Errorf("load: no answer to the confirmation: %w", err)
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}

// parseInterspersed parses flags that may come before, between and after
// the positional arguments (memoria load FILE --uri ...), which returns.
// A "--" ends the flags.
func parseInterspersed(fs *flag.FlagSet, env Env, args []string) ([]string, error) {
	var pos []string
	seen := map[string]string{}
	for {
		if err := parseSeen(fs, env, args, seen); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		// flag stops at "--" (consumed) or at the first non-flag.
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// loadProgress prints load's progress line on stderr: the nodes and
// relationships written of all, the rate since the writing began, and the
// time left at that rate. On a terminal the line is rewritten in place at
// most every half second and cleared at the end; elsewhere (--progress into
// a log or a pipe) a plain line, with no control characters, is printed at
// most every 10 seconds, and once at the end. The clock is a parameter, so
// tests need no waiting.
type loadProgress struct {
	w           io.Writer
	tty         bool
	now         func() time.Time
	total       int
	nodes       int // the nodes written, once the relationships began
	start, last time.Time
	began       bool
	shown       bool
}

func newLoadProgress(w io.Writer, tty bool, total int, now func() time.Time) *loadProgress {
	return &loadProgress{w: w, tty: tty, now: now, total: total, start: now()}
}

// update is neo4jload.LoadOptions.Progress.
func (p *loadProgress) update(lp neo4jload.LoadProgress) {
	var done int
	switch lp.Phase {
	case "nodes":
		done = lp.Done
		p.nodes = lp.Total
	case "relationships":
		done = p.nodes + lp.Done
	default:
		// The rate counts from the end of the phases before the writing
		// (the label check, the indexes).
		if !p.began {
			p.start = p.now()
		}
		return
	}
	t := p.now()
	if !p.began {
		p.began, p.last = true, p.start
	}
	every := 10 * time.Second
	if p.tty {
		every = 500 * time.Millisecond
	}
	if t.Sub(p.last) < every && done < p.total {
		return
	}
	p.last = t
	line := progressText(done, p.total, t.Sub(p.start))
	if p.tty {
		fmt.Fprintf(p.w, "\r%s\x1b[K", line)
		p.shown = true
	} else {
		fmt.Fprintln(p.w, line)
	}
}

// end clears the line on a terminal.
func (p *loadProgress) end() {
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}

// progressText is the progress line: "loading: 420,000 of 1,100,000
// nodes and relationships (38%), 42,000/s, about 16s left".
func progressText(done, total int, elapsed time.Duration) string {
	pct := 100
	if total > 0 {
		pct = done * 100 / total
	}
	s := fmt.Sprintf("loading: %s of %s nodes and relationships (%d%%)", thousands(done), thousands(total), pct)
	if secs := elapsed.Seconds(); secs > 0 && done > 0 {
		rate := float64(done) / secs
		left := time.Duration(float64(total-done) / rate * float64(time.Second)).Round(time.Second)
		s += fmt.Sprintf(", %s/s, about %s left", thousands(int(rate)), left)
	}
	return s
}

// thousands writes n with a comma every three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
