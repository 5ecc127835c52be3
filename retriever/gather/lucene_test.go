package gather

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestLuceneWordsByHand: the words of Lucene's StandardTokenizer (UAX #29)
// and lower-casing, worked by hand from the rules' names:
//   - "Team's" (WB6–7: ' between letters) and "e.g" (. between letters;
//     the final "." is followed by no letter, so it ends the word) stay
//     whole; "5.2" and "1,000" (WB11–12: . and , between digits) too;
//   - "FAST-300": "-" joins nothing, so "fast" and "300"; "Q2": letters
//     and digits join (WB9–10), "q2";
//   - "win_install.bat": "_" joins (WB13a–b) and "." between letters, one
//     word; "a:b" one word (":" is a letter middle); "1:2" two (not a
//     number middle); "3,b" two (a number middle before a letter);
//   - "東京" two words (each ideograph alone), "カタカナ" one (a Katakana
//     run), "ひら" two (each Hiragana alone);
//   - "e\u0301cole" keeps its combining accent (WB4), "ÉCOLE" lower-cased
//     to "école"; "___" and "..." are no word.
func TestLuceneWordsByHand(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"Team's e.g. 5.2 1,000", []string{"team's", "e.g", "5.2", "1,000"}},
		{"FAST-300 SKUs, Q2!", []string{"fast", "300", "skus", "q2"}},
		{"win_install.bat a:b 1:2 3,b", []string{"win_install.bat", "a:b", "1", "2", "3", "b"}},
		{"東京カタカナひら", []string{"東", "京", "カタカナ", "ひ", "ら"}},
		{"e\u0301cole ÉCOLE ___ ...", []string{"e\u0301cole", "école"}},
		{"", nil},
	} {
		if got := LuceneWords(c.in); !slices.Equal(got, c.want) {
			t.Errorf("LuceneWords(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestLuceneLengthByHand: lengths below 24 are stored exactly; above, 24
// plus the rest kept to its four leading binary digits: 40 = 24 + 16
// (10000b) exact, 41 = 24 + 17 (10001b → 10000b) reads 40, 100 = 24 + 76
// (1001100b → 1001000b = 72) reads 96, 39 = 24 + 15 (1111b, four digits)
// exact.
func TestLuceneLengthByHand(t *testing.T) {
	for in, want := range map[int]int{0: 0, 1: 1, 23: 23, 24: 24, 31: 31, 39: 39, 40: 40, 41: 40, 100: 96} {
		if got := LuceneLength(in); got != want {
			t.Errorf("LuceneLength(%d) = %d, want %d", in, got, want)
		}
	}
}

// TestPrefixRule: the name matchers score the nodes with a name word
// (Lucene's) beginning with a query word's first three runes: for the
// query "Safty stok, AI" the prefixes are "ai", "saf", "sto"; "Safety
// stock" (N1) and "AIR" (N3: "air" begins with "ai") are scored,
// "win_safety" (N2: its one word "win_safety" begins with none) and
// "stereo" (N4) are not, so a fuzzy list at Min 0.05 holds N1 and N3 only
// (N3 scores 1 − Levenshtein("safty stok ai", "air") / 13 = 1 − 12/13 =
// 0.077: eleven deletions and one insertion; N2, were it scored, would
// score more: "win safety" is 11 edits from the query, 1 − 11/13 = 0.154).
func TestPrefixRule(t *testing.T) {
	if got := Prefixes("Safty stok, AI"); !slices.Equal(got, []string{"ai", "saf", "sto"}) {
		t.Errorf("Prefixes = %q", got)
	}
	ix, err := Build(context.Background(), nodes{
		node("N1", map[string]any{"name": "Safety stock"}),
		node("N2", map[string]any{"name": "win_safety"}),
		node("N3", map[string]any{"name": "AIR"}),
		node("N4", map[string]any{"name": "stereo"}),
	}, Fields{Names: []string{"name"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := ix.Gather(context.Background(), []string{"Safty stok, AI"}, nil, Options{Matchers: []string{Fuzzy}, Min: 0.05, RRFK: 60, SeedK: 5})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range res.Candidates {
		got = append(got, c.NodeID)
	}
	if slices.Sort(got); !slices.Equal(got, []string{"N1", "N3"}) {
		t.Errorf("fuzzy candidates %q, want N1 and N3", got)
	}
}

// TestMaxQueryWords: a query of 64 distinct words gathers; one of 65 is
// refused, naming the constant; a query of 10,000 characters of one word
// repeated is one distinct word and gathers.
func TestMaxQueryWords(t *testing.T) {
	ix, _ := Build(context.Background(), nodes{node("N1", map[string]any{"name": "w1"})}, Fields{Names: []string{"name"}})
	words := func(n int) string {
		var w []string
		for i := range n {
			w = append(w, fmt.Sprintf("w%d", i))
		}
		return strings.Join(w, " ")
	}
	opt := DefaultOptions()
	if _, err := ix.Gather(context.Background(), []string{words(64)}, nil, opt); err != nil {
		t.Errorf("64 words: %v", err)
	}
	_, err := ix.Gather(context.Background(), []string{words(65)}, nil, opt)
	if err == nil || !strings.Contains(err.Error(), "65 distinct words; a query may have at most 64 (gather.MaxQueryWords") {
		t.Errorf("65 words: %v", err)
	}
	if _, err := ix.Gather(context.Background(), []string{strings.Repeat("w1 ", 3334)}, nil, opt); err != nil {
		t.Errorf("one word 3,334 times: %v", err)
	}
}

// TestListCut: 2,001 nodes whose text is "x" all score 1 for the query
// "x" (the same words, the same length): the bm25 list keeps the first
// gather.MaxCandidates (2,000) by id, N0000 to N1999, and says so; N2000
// is no candidate, yet its why-not (Scores) still finds it listed, rank
// 2,001, since a node's place is read in the whole list.
func TestListCut(t *testing.T) {
	var ns nodes
	for i := range MaxCandidates + 1 {
		ns = append(ns, node(fmt.Sprintf("N%04d", i), map[string]any{"text": "x"}))
	}
	ix, err := Build(context.Background(), ns, Fields{Texts: []string{"text"}})
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Matchers: []string{BM25}, Min: 0.5, RRFK: 60, SeedK: 5}
	res, err := ix.Gather(context.Background(), []string{"x"}, nil, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Candidates) != MaxCandidates || res.Candidates[MaxCandidates-1].NodeID != "N1999" ||
		len(res.Notices) != 1 || !strings.Contains(res.Notices[0], "bm25: 2001 nodes made the list; it keeps the first 2000 (gather.MaxCandidates") {
		t.Fatalf("%d candidates, last %s, notices %q", len(res.Candidates), res.Candidates[len(res.Candidates)-1].NodeID, res.Notices)
	}
	s, _ := ix.Scores("N2000", []string{"x"}, nil, opt)
	if len(s) != 1 || !s[0].Listed || s[0].Rank != MaxCandidates+1 {
		t.Errorf("N2000's scores %+v", s)
	}
}
