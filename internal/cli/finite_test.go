package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// overflowChain is A–B–C with weights of 1e308: finite input on which the
// typed expansion's scores overflow (R × w × … = +Inf).
const overflowChain = `{"type":"node","id":"0","labels":["Event"],"properties":{"id":"A"}}
{"type":"node","id":"1","labels":["Event"],"properties":{"id":"B"}}
{"type":"node","id":"2","labels":["Event"],"properties":{"id":"C"}}
{"type":"relationship","id":"0","label":"RELATES","properties":{"weight":1e308},"start":{"id":"0"},"end":{"id":"1"}}
{"type":"relationship","id":"1","label":"RELATES","properties":{"weight":1e308},"start":{"id":"1"},"end":{"id":"2"}}
`

// TestNonFiniteRankingRefused: on overflowChain the expansion (H = 3)
// scores its hits +Inf. Every format of explore, compare and eval refuses
// that ranking with exit 1, nothing on stdout, and an error naming the
// retriever, the hit and the value; tree and llm printed "+Inf" with exit
// 0, ranking and html died in encoding/json naming nothing, eval measured
// the ranking as if its order meant something. (ppr and spreading refuse
// this graph themselves, naming the relationship: their own tests; so
// fusion fuses the expansion alone here, and compare sets it beside
// Activation Energy, whose seed fails without a ranking of infinities.)
func TestNonFiniteRankingRefused(t *testing.T) {
	g := writeGraph(t, overflowChain)
	queries := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(queries, []byte(`{"id":"q1","seeds":[{"node_id":"A","score":1}],"relevant":{"C":1}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const hit = `expansion's ranking: hit "A" (rank 1): score +Inf is not a finite number`
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"explore", "--format", "ranking"}, hit},
		{[]string{"explore", "--format", "tree"}, hit},
		{[]string{"explore", "--format", "llm"}, hit},
		{[]string{"explore", "--format", "d3"}, hit},
		{[]string{"explore", "--format", "cypher"}, hit},
		{[]string{"explore", "--format", "html"}, `html page: node "A": score +Inf is not a finite number`},
		{[]string{"explore", "--retriever", "fusion", "--fuse", "expansion", "--format", "ranking"}, "fusion: " + hit},
		{[]string{"compare", "--retrievers", "activation,expansion", "--seed", "A"}, "compare: " + hit},
		{[]string{"eval", "--queries", queries, "--retrievers", "expansion"}, `eval: query "q1": ` + hit},
	} {
		args := append(append([]string{}, c.args...), "--graph", g, "--max-hops", "3")
		if c.args[0] == "explore" {
			args = append(args, "--seed", "A")
			if !strings.Contains(strings.Join(c.args, " "), "--retriever") {
				args = append(args, "--retriever", "expansion")
			}
		}
		code, out, errs := run(t, args...)
		if code != 1 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, stdout %.80q, stderr %q; want exit 1, nothing, and %q", strings.Join(c.args, " "), code, out, errs, c.want)
		}
	}
}

// TestFailedSeedMarked: on overflowChain Activation Energy's seed A fails
// (T = 1 × 1e308 / √1 × 1 at the first hop, then 1e308 × 1e308 / √2 × 1 =
// +Inf at the second), and so does C's (its first hop, C → B, gives 1e308,
// its second +Inf); B's gets no further than its two neighbours and ends
// well. compare, eval (the retriever listed, or only fused) and the metric
// sweep (at its first value, the current 0.005) print what they measured,
// then say which seed failed and why and
// exit 1, as explore does; they exited 0, the failure only in the
// ranking's seeds_failed.
func TestFailedSeedMarked(t *testing.T) {
	g := writeGraph(t, overflowChain)
	queries := filepath.Join(t.TempDir(), "q.jsonl")
	lines := `{"id":"q1","seeds":[{"node_id":"A","score":1}],"relevant":{"C":1}}` + "\n" +
		`{"id":"q2","seeds":[{"node_id":"B","score":1}],"relevant":{"C":1}}` + "\n" +
		`{"id":"q3","seeds":[{"node_id":"C","score":1}],"relevant":{"A":1}}` + "\n"
	if err := os.WriteFile(queries, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	const why = `1 of 1 seeds ended in error (results printed above are partial); first, seed A: edge "B" → "C" (RELATES): transfer energy T = R × w / √d × tag_sim = 1e+308 × 1e+308 / √2 × 1 is not a finite number`
	for _, c := range []struct {
		args       []string
		stdout     string
		want, more string
	}{
		{[]string{"compare", "--seed", "A", "--retrievers", "activation,expansion"}, "activation  expansion", "memoria: compare: " + why, ""},
		{[]string{"eval", "--queries", queries, "--retrievers", "activation"}, "per query: activation", `memoria: eval: query "q1": ` + why, "; and in 1 more query\n"},
		{[]string{"eval", "--queries", queries, "--retrievers", "expansion,fusion", "--fuse", "activation,expansion"}, "per query: expansion", `memoria: eval: query "q1": ` + why, "; and in 1 more query\n"},
		{[]string{"sweep", "--queries", queries, "--retriever", "activation", "--param", "min-activation", "--values", "0.05"}, "min-activation", `memoria: sweep: query "q1": ` + why, "; and in 1 more query (at --min-activation 0.005)\n"},
	} {
		code, out, errs := run(t, append(c.args, "--graph", g)...)
		if code != 1 || !strings.Contains(out, c.stdout) || !strings.Contains(errs, c.want+c.more) {
			t.Errorf("%s: exit %d, stdout %.120q, stderr %q; want exit 1, %q, and %q", strings.Join(c.args, " "), code, out, errs, c.stdout, c.want+c.more)
		}
	}
}
