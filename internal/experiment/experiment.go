// Package experiment is the explorer's experiment file (docs/EXPORTS.md,
// "Experiment files"): the seeds with their scores R, the query tags, the
// thresholds, the pinned and the current results, and what identifies the
// graph they were made on, in one JSON object. The explorer saves one with
// a key and `memoria --experiment FILE` reopens it.
package experiment

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// FormatVersion is the version this package writes and reads.
const FormatVersion = 1

// Experiment is one saved experiment.
type Experiment struct {
	// Version is FormatVersion: the file's first key, so a file that is
	// not an experiment is told apart at once.
	Version int       `json:"memoria_experiment"`
	SavedAt time.Time `json:"saved_at"`
	// Graph identifies the graph the results were computed on.
	Graph  graph.Fingerprint `json:"graph"`
	Seeds  []retriever.Seed  `json:"seeds"`
	Tags   []string          `json:"tags"`
	Params activation.Params `json:"params"`
	// Pinned is the run pinned as the baseline (null when none was), and
	// Current the run on screen; each a list of results as
	// `memoria explore --format json` prints them, one per seed.
	Pinned  []activation.Result `json:"pinned"`
	Current []activation.Result `json:"current"`
	// PinnedParams and PinnedTags are what the pinned run ran with (null
	// without a pinned run); Current ran with Params and Tags.
	PinnedParams *activation.Params `json:"pinned_params,omitempty"`
	PinnedTags   []string           `json:"pinned_tags,omitempty"`
	// Marks are the analyst's relevance marks (the explorer's m): node id
	// to grade, 1 (relevant) or 2 (highly relevant), as a query set's
	// "relevant" (docs/EVALUATION.md) holds them; absent without marks,
	// and a file written before marks existed reads as having none.
	Marks map[string]int `json:"marks,omitempty"`
}

// MaxGrade is the highest grade a mark may have (trec_eval's range of
// relevance grades; the explorer gives 1 and 2).
const MaxGrade = 127

// Write writes e as indented JSON.
func Write(w io.Writer, e Experiment) error {
	e.Version = FormatVersion
	b, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// MaxFile is the largest experiment file Read reads (docs/EXPORTS.md,
// "Experiment files"): many times what the explorer writes for a query of
// many seeds with both runs. Read enforces it while reading.
const MaxFile = 128 << 20

// Read reads and checks an experiment; name (the file's name) goes into
// every error, each saying what was wrong. The file is one JSON object,
// read as a stream: broken JSON is refused where it breaks (its line),
// without reading further, and so is a file going on past MaxFile bytes, a
// name given twice in an object (which would silently keep the last),
// anything but white space after the object, and a seed given twice. A
// leading UTF-8 BOM is skipped, as in every file memoria reads.
func Read(r io.Reader, name string) (Experiment, error) {
	name = textsafe.Escape(name)
	var seen bytes.Buffer // what was read, for the line of an error
	limited := &io.LimitedReader{R: r, N: MaxFile + 1}
	br := bufio.NewReader(io.TeeReader(limited, &seen))
	bom := 0
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, []byte{0xEF, 0xBB, 0xBF}) {
		bom, _ = br.Discard(3)
	}
	// lineAt is the line of the decoder's offset off (counted after the
	// BOM).
	lineAt := func(off int64) int {
		b := seen.Bytes()
		return 1 + bytes.Count(b[:min(int(off)+bom, len(b))], []byte("\n"))
	}
	dec := jsontext.NewDecoder(br)
	val, err := dec.ReadValue()
	val = bytes.Clone(val) // the decoder's buffer, until its next read
	if err == nil {
		// Only white space may follow the object.
		end := dec.InputOffset()
		if _, err2 := dec.ReadToken(); err2 != io.EOF {
			if limited.N <= 0 {
				return Experiment{}, fmt.Errorf("experiment %s: the file goes on past %d MiB, the largest experiment file memoria reads", name, MaxFile>>20)
			}
			rest := seen.Bytes()[min(bom+int(end), seen.Len()):]
			end += int64(len(rest) - len(bytes.TrimLeft(rest, " \t\r\n")))
			return Experiment{}, fmt.Errorf("experiment %s line %d: data after the experiment's object: a file holds one object", name, lineAt(end))
		}
	}
	if err != nil {
		if limited.N <= 0 {
			return Experiment{}, fmt.Errorf("experiment %s: the file goes on past %d MiB, the largest experiment file memoria reads", name, MaxFile>>20)
		}
		var syn *jsontext.SyntacticError
		if errors.As(err, &syn) {
			return Experiment{}, fmt.Errorf("experiment %s line %d: not JSON: %v", name, lineAt(syn.ByteOffset), err)
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return Experiment{}, fmt.Errorf("experiment %s line %d: not JSON: unexpected end of the file", name, lineAt(int64(seen.Len())))
		}
		return Experiment{}, fmt.Errorf("experiment %s: %w", name, err)
	}
	var e Experiment
	dec1 := json.NewDecoder(bytes.NewReader(val))
	dec1.DisallowUnknownFields()
	if err := dec1.Decode(&e); err != nil {
		return Experiment{}, fmt.Errorf("experiment %s: not an experiment file: %v", name, err)
	}
	if e.Version != FormatVersion {
		return Experiment{}, fmt.Errorf("experiment %s: memoria_experiment is %d, this memoria reads version %d", name, e.Version, FormatVersion)
	}
	if len(e.Seeds) == 0 {
		return Experiment{}, fmt.Errorf("experiment %s: no seeds", name)
	}
	if err := retriever.ValidateSeeds(e.Seeds); err != nil {
		return Experiment{}, fmt.Errorf("experiment %s: %w", name, err)
	}
	for i, s := range e.Seeds {
		if slices.ContainsFunc(e.Seeds[:i], func(o retriever.Seed) bool { return o.NodeID == s.NodeID }) {
			return Experiment{}, fmt.Errorf("experiment %s: seed %s is given twice", name, textsafe.Quote(s.NodeID))
		}
	}
	if err := e.Params.Validate(); err != nil {
		return Experiment{}, fmt.Errorf("experiment %s: params: %w", name, err)
	}
	if e.PinnedParams != nil {
		if err := e.PinnedParams.Validate(); err != nil {
			return Experiment{}, fmt.Errorf("experiment %s: pinned_params: %w", name, err)
		}
	}
	if len(e.Pinned) > 0 && e.PinnedParams == nil {
		return Experiment{}, fmt.Errorf("experiment %s: a pinned run without pinned_params", name)
	}
	for _, id := range slices.Sorted(maps.Keys(e.Marks)) {
		switch g := e.Marks[id]; {
		case strings.TrimSpace(id) == "":
			return Experiment{}, fmt.Errorf("experiment %s: marks: a mark has an empty node id", name)
		case g < 1 || g > MaxGrade:
			return Experiment{}, fmt.Errorf("experiment %s: marks: %s has grade %d; a mark's grade is 1 to %d (1 relevant, 2 highly relevant)", name, textsafe.Quote(id), g, MaxGrade)
		}
	}
	seeds := make(map[string]bool, len(e.Seeds))
	for _, s := range e.Seeds {
		seeds[s.NodeID] = true
	}
	for _, set := range []struct {
		what string
		rs   []activation.Result
	}{{"pinned", e.Pinned}, {"current", e.Current}} {
		seen := map[string]bool{}
		for i, r := range set.rs {
			id := r.Seed.NodeID
			switch {
			case strings.TrimSpace(id) == "":
				return Experiment{}, fmt.Errorf("experiment %s: %s result %d has no seed.node_id", name, set.what, i+1)
			case !seeds[id]:
				return Experiment{}, fmt.Errorf("experiment %s: %s result %d is for seed %s, which is not among the seeds", name, set.what, i+1, textsafe.Quote(id))
			case seen[id]:
				return Experiment{}, fmt.Errorf("experiment %s: %s result %d is a second result for seed %s", name, set.what, i+1, textsafe.Quote(id))
			}
			seen[id] = true
		}
	}
	return e, nil
}

// Mismatch says how the graph now (now) differs from the one the
// experiment was made on, or "" when nothing tells them apart: different
// node or relationship counts, or different content hashes when both
// graphs have one (an embedded graph does; Neo4j gives counts only).
func (e Experiment) Mismatch(now graph.Fingerprint) string {
	was := e.Graph
	var diffs []string
	if was.Nodes != now.Nodes || was.Relationships != now.Relationships {
		diffs = append(diffs, fmt.Sprintf("%d nodes and %d relationships then, %d and %d now",
			was.Nodes, was.Relationships, now.Nodes, now.Relationships))
	}
	if was.ContentSHA256 != "" && now.ContentSHA256 != "" && was.ContentSHA256 != now.ContentSHA256 {
		diffs = append(diffs, "its content hash differs")
	}
	if len(diffs) == 0 {
		return ""
	}
	return fmt.Sprintf("this experiment was made on another graph (%s, saved %s): %s",
		textsafe.Escape(was.Source), e.SavedAt.Format("2006-01-02 15:04"), strings.Join(diffs, "; "))
}
