package render

import (
	"fmt"
	"strings"

	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// DiffSummary is the one-line summary of a diff against a baseline named
// base: `vs A: +2 paths −1 · 1 moved · nodes 14 → 15 (Jaccard 0.81)`. The
// Jaccard index is written with 2 significant digits; base is a label the
// caller chose (a file name, "previous", "pinned") and is escaped here.
func DiffSummary(base string, d activation.ResultDiff) string {
	return fmt.Sprintf("vs %s: +%d paths −%d · %d moved · nodes %d → %d (Jaccard %s)",
		textsafe.Escape(base), len(d.Entered), len(d.Left), len(d.Moved), d.NodesA, d.NodesB, numDigits(d.Jaccard, 2))
}

// DiffText writes the diffs of several seeds for people: per seed a header
// with the summary, then one line per path that entered (`+`), per path that
// left (`−`) and per node that moved (`~`, from its old parent and depth to
// its new ones). Every id is written with DisplayID.
//
//	seed N2006 R=0.85 vs a.jsonl: +1 paths −0 · 0 moved · nodes 5 → 6 (Jaccard 0.83)
//	  + N2006 → N2003 → N2007
//	  ~ N2001: under N2003 at depth 2 → under N2004 at depth 2
func DiffText(base string, diffs []activation.ResultDiff) string {
	var b strings.Builder
	for _, d := range diffs {
		fmt.Fprintf(&b, "seed %s R=%s %s\n", DisplayID(d.Seed.NodeID), Num(d.Seed.Score), DiffSummary(base, d))
		for _, p := range d.Entered {
			fmt.Fprintf(&b, "  + %s\n", pathIDs(p))
		}
		for _, p := range d.Left {
			fmt.Fprintf(&b, "  − %s\n", pathIDs(p))
		}
		for _, m := range d.Moved {
			fmt.Fprintf(&b, "  ~ %s: under %s at depth %d → under %s at depth %d\n",
				DisplayID(m.NodeID), DisplayID(m.From.Parent), m.From.Depth, DisplayID(m.To.Parent), m.To.Depth)
		}
	}
	return b.String()
}

// pathIDs writes a path's node ids joined by arrows.
func pathIDs(p activation.Path) string {
	ids := p.NodeIDs()
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = DisplayID(id)
	}
	return strings.Join(out, " → ")
}

// DiffJSON is the wire form of one seed's diff (`memoria diff --format
// json`, one per line): the seed, the paths that entered and left as their
// node ids, the moved nodes, the node counts and the Jaccard index, and the
// summary line.
type DiffJSON struct {
	Seed    retriever.Seed    `json:"seed"`
	Entered [][]string        `json:"entered"`
	Left    [][]string        `json:"left"`
	Moved   []activation.Move `json:"moved"`
	NodesA  int               `json:"nodes_a"`
	NodesB  int               `json:"nodes_b"`
	Jaccard float64           `json:"jaccard"`
	Summary string            `json:"summary"`
}

// ToDiffJSON turns a diff into its wire form; base names the baseline in
// the summary.
func ToDiffJSON(base string, d activation.ResultDiff) DiffJSON {
	ids := func(ps []activation.Path) [][]string {
		out := make([][]string, 0, len(ps))
		for _, p := range ps {
			out = append(out, p.NodeIDs())
		}
		return out
	}
	moved := d.Moved
	if moved == nil {
		moved = []activation.Move{}
	}
	return DiffJSON{Seed: d.Seed, Entered: ids(d.Entered), Left: ids(d.Left), Moved: moved,
		NodesA: d.NodesA, NodesB: d.NodesB, Jaccard: d.Jaccard, Summary: DiffSummary(base, d)}
}
