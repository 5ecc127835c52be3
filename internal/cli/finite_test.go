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
// the ranking as if its order meant something.
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
		{[]string{"explore", "--retriever", "fusion", "--fuse", "expansion,ppr", "--format", "ranking"}, "fusion: " + hit},
		{[]string{"compare", "--retrievers", "expansion,ppr", "--seed", "A"}, "compare: " + hit},
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
