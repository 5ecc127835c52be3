package cli

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// compareOut is what `compare --format json` prints.
type compareOut struct {
	Rankings []json.RawMessage `json:"rankings"`
	Nodes    []struct {
		NodeID string          `json:"node_id"`
		Ranks  json.RawMessage `json:"ranks"`
	} `json:"nodes"`
	Overlap []struct {
		A       string  `json:"a"`
		B       string  `json:"b"`
		Jaccard float64 `json:"jaccard"`
		RBO     float64 `json:"rbo"`
	} `json:"overlap"`
}

// runCompareJSON runs compare with args (--format json among them) and
// decodes what it prints.
func runCompareJSON(t *testing.T, args []string) compareOut {
	t.Helper()
	code, out, errs := run(t, args...)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, errs)
	}
	return decodeJSON[compareOut](t, out)
}

// sameAsExplore runs explore with eargs and fails unless the ranking it
// prints is, as JSON, the one compare embedded for retriever name (its
// statistics left out when deep: a retriever fusion fuses runs once, to
// the fuse depth); it returns explore's output.
func sameAsExplore(t *testing.T, name string, embedded json.RawMessage, eargs []string, deep bool) string {
	t.Helper()
	code, eout, eerrs := run(t, eargs...)
	if code != 0 {
		t.Fatalf("explore %s: exit %d: %s", name, code, eerrs)
	}
	var a, b any
	if err := json.Unmarshal(embedded, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(eout), &b); err != nil {
		t.Fatal(err)
	}
	if deep {
		// Run once, deeper, for fusion: the statistics are that run's.
		delete(a.(map[string]any), "stats")
		delete(b.(map[string]any), "stats")
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Errorf("%s: compare's ranking\n%s\nexplore's\n%s", name, ja, jb)
	}
	return eout
}

// TestCompareEqualsExplore: `memoria compare --format json` of the four
// retrievers on the demo graph (seeds N2006 0.85 and T3000 0.9, tag
// stockout, each retriever's own flags, --top-k 5) embeds, for each, the
// very ranking `explore --retriever NAME --format ranking` prints with the
// same flags; its union is the set of the four top-5 lists, each node's
// rank under a retriever its position in that retriever's list (null when
// not in its top 5), in order of best rank; and the pairs are the six in
// --retrievers order, the Jaccard@5 of each pair counted from the lists.
func TestCompareEqualsExplore(t *testing.T) {
	seeds := []string{"--seed", "N2006=0.85", "--seed", "T3000=0.9", "--tags", "stockout"}
	own := map[string][]string{
		"activation": {"--max-depth", "2"},
		"expansion":  {"--max-hops", "2", "--top-k", "5"},
		"spreading":  {"--pulses", "3", "--top-k", "5"},
		"ppr":        {"--damping", "0.6", "--top-k", "5"},
	}
	names := []string{"activation", "expansion", "spreading", "ppr"}
	args := append([]string{"compare", "--retrievers", strings.Join(names, ","), "--format", "json", "--top-k", "5",
		"--max-depth", "2", "--max-hops", "2", "--pulses", "3", "--damping", "0.6"}, seeds...)
	got := runCompareJSON(t, args)
	if len(got.Rankings) != len(names) {
		t.Fatalf("%d rankings", len(got.Rankings))
	}
	lists := map[string][]string{}
	for i, name := range names {
		eargs := append(append([]string{"explore", "--retriever", name, "--format", "ranking"}, seeds...), own[name]...)
		if name == "activation" {
			eargs = slices.DeleteFunc(eargs, func(s string) bool { return s == "--top-k" || s == "5" })
		}
		eout := sameAsExplore(t, name, got.Rankings[i], eargs, false)
		r := decodeRanking(t, eout)
		for _, h := range r.Hits[:min(5, len(r.Hits))] {
			lists[name] = append(lists[name], h.NodeID)
		}
	}
	var union []string
	for _, n := range got.Nodes {
		union = append(union, n.NodeID)
		var ranks map[string]*int
		if err := json.Unmarshal(n.Ranks, &ranks); err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			want := slices.Index(lists[name], n.NodeID) + 1
			if g := ranks[name]; (want == 0) != (g == nil) || (g != nil && *g != want) {
				t.Errorf("%s under %s: rank %v, want %d", n.NodeID, name, g, want)
			}
		}
	}
	var all []string
	for _, name := range names {
		for _, id := range lists[name] {
			if !slices.Contains(all, id) {
				all = append(all, id)
			}
		}
	}
	if slices.Sort(all); !slices.Equal(slices.Sorted(slices.Values(union)), all) {
		t.Errorf("union %v, want %v", union, all)
	}
	best := func(id string) int {
		b := 99
		for _, name := range names {
			if i := slices.Index(lists[name], id); i >= 0 {
				b = min(b, i+1)
			}
		}
		return b
	}
	for i := 1; i < len(union); i++ {
		if best(union[i-1]) > best(union[i]) {
			t.Errorf("union not by best rank: %s (%d) before %s (%d)", union[i-1], best(union[i-1]), union[i], best(union[i]))
		}
	}
	k := 0
	for i, a := range names {
		for _, b := range names[i+1:] {
			p := got.Overlap[k]
			k++
			inter, uni := 0, len(lists[b])
			for _, id := range lists[a] {
				if slices.Contains(lists[b], id) {
					inter++
				} else {
					uni++
				}
			}
			if p.A != a || p.B != b || p.Jaccard != float64(inter)/float64(uni) || p.RBO <= 0 || p.RBO > 1 {
				t.Errorf("pair %d: %+v, want %s-%s jaccard %d/%d", k, p, a, b, inter, uni)
			}
		}
	}
	if k != len(got.Overlap) {
		t.Errorf("%d pairs, want %d", len(got.Overlap), k)
	}
}

// TestCompareRefuses: bad command lines, each with exit 2 and a message
// naming what was wrong.
func TestCompareRefuses(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", "--retrievers", "ppr,nope", "--seed", "N2006"}, `unknown retriever "nope" in --retrievers`},
		{[]string{"compare", "--retrievers", "ppr", "--seed", "N2006"}, "--retrievers needs at least two retrievers"},
		{[]string{"compare", "--retrievers", "ppr,ppr", "--seed", "N2006"}, "--retrievers names ppr twice"},
		{[]string{"compare", "--retrievers", "ppr,,expansion", "--seed", "N2006"}, "has an empty name"},
		{[]string{"compare", "--retrievers", "ppr,expansion", "--seed", "N2006", "--pulses", "3"}, "--pulses applies to spreading; --retrievers does not list it"},
		{[]string{"compare", "--retrievers", "ppr,expansion", "--seed", "N2006", "--retriever", "ppr"}, "compare takes --retrievers"},
		{[]string{"compare", "--retrievers", "ppr,expansion"}, "at least one --seed is required"},
		{[]string{"compare", "--retrievers", "ppr,expansion", "--seed", "N2006", "--format", "tree"}, `unknown --format "tree"`},
		{[]string{"compare", "--retrievers", "ppr,expansion", "--seed", "N2006", "--epsilon", "2"}, "compare: "},
	} {
		code, _, errs := run(t, c.args...)
		if code != ExitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", c.args, code, errs, c.want)
		}
	}
}

// TestExploreFusion: `explore --retriever fusion --fuse expansion,ppr
// --fuse-depth 5 --rrf-k 1 --top-k 3` on the demo graph fuses the very
// rankings `explore --retriever expansion --top-k 5` and `--retriever ppr
// --top-k 5` print: each hit's score is Σ 1/(1 + rank) over the two lists
// that hold it (ranks from 1, the expansion's terms first), the hits in
// order of that sum then id, three kept; --max-hops 2 reaches the
// expansion through fusion. Compare lists fusion beside the others with
// the same ranking, ppr's top 3 beside it being the first 3 of the very
// list fused.
func TestExploreFusion(t *testing.T) {
	seeds := []string{"--seed", "N2006=0.85", "--seed", "T3000=0.9"}
	lists := map[string][]string{}
	for name, own := range map[string][]string{"expansion": {"--max-hops", "2"}, "ppr": nil} {
		code, out, errs := run(t, append(append([]string{"explore", "--retriever", name, "--top-k", "5"}, seeds...), own...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errs)
		}
		for _, h := range decodeRanking(t, out).Hits {
			lists[name] = append(lists[name], h.NodeID)
		}
	}
	score := map[string]float64{}
	for _, name := range []string{"expansion", "ppr"} {
		for i, id := range lists[name] {
			score[id] += 1 / (1 + float64(i+1))
		}
	}
	var want []string
	for id := range score {
		want = append(want, id)
	}
	slices.SortFunc(want, func(a, b string) int {
		if score[a] != score[b] {
			if score[a] > score[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	want = want[:3]
	args := append([]string{"explore", "--retriever", "fusion", "--fuse", "expansion,ppr", "--fuse-depth", "5", "--rrf-k", "1", "--top-k", "3", "--max-hops", "2"}, seeds...)
	code, out, errs := run(t, args...)
	if code != 0 {
		t.Fatalf("fusion: exit %d: %s", code, errs)
	}
	r := decodeRanking(t, out)
	var got []string
	for _, h := range r.Hits {
		got = append(got, h.NodeID)
		if h.Score != score[h.NodeID] {
			t.Errorf("%s: score %v, want %v", h.NodeID, h.Score, score[h.NodeID])
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("fusion ranks %v, want %v (lists %v)", got, want, lists)
	}
	code, cout, errs := run(t, append([]string{"compare", "--retrievers", "ppr,fusion", "--format", "json", "--fuse", "expansion,ppr", "--fuse-depth", "5",
		"--rrf-k", "1", "--top-k", "3", "--max-hops", "2"}, seeds...)...)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, errs)
	}
	var c compareOut
	if err := json.Unmarshal([]byte(cout), &c); err != nil || len(c.Rankings) != 2 {
		t.Fatalf("%v\n%s", err, cout)
	}
	var a, b any
	json.Unmarshal(c.Rankings[1], &a)
	json.Unmarshal([]byte(out), &b)
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Errorf("compare's fusion ranking\n%s\nexplore's\n%s", ja, jb)
	}
	// ppr ran once, to the fuse depth 5, for both: its top 3 in the
	// comparison are the first 3 of its depth-5 list.
	var cp rankingOut
	if err := json.Unmarshal(c.Rankings[0], &cp); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range cp.Hits {
		ids = append(ids, h.NodeID)
	}
	if !slices.Equal(ids, lists["ppr"][:3]) {
		t.Errorf("compare's ppr top 3 %v, want %v", ids, lists["ppr"][:3])
	}
}

// TestFusionRefuses: bad fusion command lines, exit 2 and a message
// naming what was wrong; the explorer does not take fusion.
func TestFusionRefuses(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"explore", "--retriever", "fusion", "--fuse", "ppr,nope", "--seed", "N2006"}, `"nope" is not a retriever fusion can fuse`},
		{[]string{"explore", "--retriever", "fusion", "--fuse", "ppr,fusion", "--seed", "N2006"}, `"fusion" is not a retriever fusion can fuse`},
		{[]string{"explore", "--retriever", "fusion", "--fuse", "ppr,ppr", "--seed", "N2006"}, "listed twice"},
		{[]string{"explore", "--retriever", "fusion", "--fuse", "ppr,expansion", "--pulses", "3", "--seed", "N2006"}, "--pulses applies to spreading; --retriever fusion does not fuse it"},
		{[]string{"explore", "--retriever", "fusion", "--rrf-k", "-1", "--seed", "N2006"}, "rrf k must be a finite number of at least 0"},
		{[]string{"explore", "--retriever", "fusion", "--fuse-depth", "0", "--seed", "N2006"}, "fuse depth must be at least 1"},
		{[]string{"explore", "--retriever", "ppr", "--rrf-k", "2", "--seed", "N2006"}, "--rrf-k does not apply to --retriever ppr"},
		{[]string{"--retriever", "fusion"}, "unknown --retriever \"fusion\" for the explorer"},
	} {
		code, _, errs := run(t, c.args...)
		if code != ExitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", c.args, code, errs, c.want)
		}
	}
}

// TestCompareSeedNotFound: a seed no node has is a result, as explore's
// seed_not_found is, and compare says so: first in the text, on stderr
// with --format graphml (which has no place for it), the id escaped; the
// JSON lists it with "found": false and the HTML page in its notes. The
// text showed an empty table and pairs that agree perfectly.
func TestCompareSeedNotFound(t *testing.T) {
	args := []string{"compare", "--seed", "NOPE", "--seed", "a\x1bb", "--retrievers", "expansion,ppr"}
	code, out, errs := run(t, args...)
	want := "seed NOPE not found\nseed \"a\\x1bb\" not found\n" +
		"top 10 of 2 rankings: 0 nodes, 0 found by one retriever only (*)\n" +
		"  expansion  ppr  node\n" +
		"a          b    jaccard@10  rbo (p=0.9)\n" +
		"expansion  ppr  1           1\n"
	if code != 0 || out != want || errs != "" {
		t.Errorf("exit %d, stdout\n%s\nstderr %q\nwant exit 0 and\n%s", code, out, errs, want)
	}
	code, _, errs = run(t, append(args, "--format", "graphml")...)
	if want := "memoria: compare: seed NOPE not found\nmemoria: compare: seed \"a\\x1bb\" not found\n"; code != 0 || errs != want {
		t.Errorf("graphml: exit %d, stderr %q; want 0 and %q", code, errs, want)
	}
	// The one seed found: nothing to say.
	if code, out, errs := run(t, "compare", "--seed", "N2006", "--retrievers", "expansion,ppr"); code != 0 || errs != "" || !strings.HasPrefix(out, "top 10 of 2 rankings") {
		t.Errorf("exit %d, stderr %q, stdout\n%s", code, errs, out)
	}
}
