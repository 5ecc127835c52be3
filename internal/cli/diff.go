package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/render"
	"github.com/memoria-graph/memoria/retriever/activation"
)

const diffUsage = `Usage: memoria diff [--format text|json] A.jsonl B.jsonl

Compares two saved outputs of 'memoria explore --format json' (one result
per line), seed by seed: the paths that entered B, the paths that left, the
nodes whose parent or depth changed ("moved"), and a summary line per seed
(vs A: +2 paths −1 · 1 moved · nodes 14 → 15 (Jaccard 0.81)). Both files
must hold results for the same seeds, in any order.

Exit codes: 0 compared; 1 a file could not be read or is not JSON lines of
results; 2 a mistake in the command line.

Flags:
`

func runDiff(ctx context.Context, args []string, env Env) error {
	fs := newFlagSet(env, "diff", diffUsage)
	format := fs.String("format", "text", "output `format`: text or json (one diff per line)")
	rest, err := parseInterspersed(fs, env, args)
	if err != nil {
		return err
	}
	if len(rest) != 2 {
		return usagef("diff: want two files, A.jsonl and B.jsonl, got %d argument(s)", len(rest))
	}
	if *format != "text" && *format != "json" {
		return usagef("diff: unknown --format %q (want text or json)", *format)
	}
	a, err := readResultsFile(rest[0])
	if err != nil {
		return err
	}
	b, err := readResultsFile(rest[1])
	if err != nil {
		return err
	}
	diffs, err := pairDiffs(rest[0], a, rest[1], b)
	if err != nil {
		return err
	}
	if *format == "text" {
		_, err = io.WriteString(env.Stdout, render.DiffText(rest[0], diffs))
		return err
	}
	enc := json.NewEncoder(textsafe.JSONWriter{W: env.Stdout})
	enc.SetEscapeHTML(false)
	for _, d := range diffs {
		if err := enc.Encode(render.ToDiffJSON(rest[0], d)); err != nil {
			return err
		}
	}
	return nil
}

// lineResult is a result read from a file with the line it was on.
type lineResult struct {
	line int
	res  activation.Result
}

// readResultsFile reads one result per line (blank lines skipped); an error
// names the file and the line.
func readResultsFile(path string) ([]lineResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("diff: %w", err)
	}
	defer f.Close()
	return readResults(f, path)
}

func readResults(r io.Reader, name string) ([]lineResult, error) {
	name = textsafe.Escape(name)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 256<<20)
	var out []lineResult
	seen := map[string]int{}
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var res activation.Result
		if line[0] != '{' {
			return nil, fmt.Errorf("diff: %s line %d: not a JSON object (want one result of 'memoria explore --format json' per line)", name, n)
		}
		if err := json.Unmarshal(line, &res); err != nil {
			return nil, fmt.Errorf("diff: %s line %d: not a result of 'memoria explore --format json': %v", name, n, err)
		}
		if strings.TrimSpace(res.Seed.NodeID) == "" {
			return nil, fmt.Errorf("diff: %s line %d: the result has no seed.node_id", name, n)
		}
		if first, dup := seen[res.Seed.NodeID]; dup {
			return nil, fmt.Errorf("diff: %s line %d: seed %s again (first on line %d); one result per seed",
				name, n, render.DisplayID(res.Seed.NodeID), first)
		}
		seen[res.Seed.NodeID] = n
		out = append(out, lineResult{line: n, res: res})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("diff: %s: %w", name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("diff: %s holds no result", name)
	}
	return out, nil
}

// pairDiffs pairs the results of a and b by seed id, in a's order, and
// diffs each pair; a seed present in one file only is an error naming the
// file and line.
func pairDiffs(nameA string, a []lineResult, nameB string, b []lineResult) ([]activation.ResultDiff, error) {
	byID := make(map[string]lineResult, len(b))
	for _, r := range b {
		byID[r.res.Seed.NodeID] = r
	}
	inA := make(map[string]bool, len(a))
	diffs := make([]activation.ResultDiff, 0, len(a))
	for _, r := range a {
		inA[r.res.Seed.NodeID] = true
		other, ok := byID[r.res.Seed.NodeID]
		if !ok {
			return nil, fmt.Errorf("diff: %s line %d: seed %s has no result in %s (both files must hold the same seeds)",
				textsafe.Escape(nameA), r.line, render.DisplayID(r.res.Seed.NodeID), textsafe.Escape(nameB))
		}
		diffs = append(diffs, activation.Diff(r.res, other.res))
	}
	for _, r := range b {
		if !inA[r.res.Seed.NodeID] {
			return nil, fmt.Errorf("diff: %s line %d: seed %s has no result in %s (both files must hold the same seeds)",
				textsafe.Escape(nameB), r.line, render.DisplayID(r.res.Seed.NodeID), textsafe.Escape(nameA))
		}
	}
	return diffs, nil
}
