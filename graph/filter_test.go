package graph

import (
	"slices"
	"strings"
	"testing"
)

// TestMatchField works out the rank of one field per case: exact when the
// whole (lower-cased) field is the filter, word-prefix when an occurrence
// starts the field or follows a rune that is neither letter nor digit,
// substring otherwise.
func TestMatchField(t *testing.T) {
	cases := []struct {
		q, field string
		want     Rank
	}{
		{"dog", "dog", RankExact},
		{"dog", "dog sled", RankWordPrefix},                     // starts the field
		{"dog", "hot dog", RankWordPrefix},                      // after a space
		{"stock", "fast-stock", RankWordPrefix},                 // after '-'
		{"stock", "(stock)", RankWordPrefix},                    // after '('
		{"stock", "safetystock", RankSubstring},                 // after a letter
		{"200", "fast200", RankSubstring},                       // after a letter
		{"200", "x1200", RankSubstring},                         // after a digit
		{"og", "dog", RankSubstring},                            // inside a word
		{"cat", "dog", RankNone},                                // absent
		{"aa", "baa aab", RankWordPrefix},                       // the second occurrence starts a word
		{"aa", "baaa", RankSubstring},                           // overlapping occurrences, none at a word
		{"é", "café é", RankWordPrefix},                         // after a space, multi-byte
		{"fé", "café", RankSubstring},                           // after 'a'
		{"straße", "die straße", RankWordPrefix},                // ß is a letter
		{"ö", "xö", RankSubstring},                              // x is a letter
		{"1", "n°1", RankWordPrefix},                            // ° is neither letter nor digit
		{"hund", "der hund", RankWordPrefix},                    // German
		{"собака", "собака", RankExact},                         // Cyrillic
		{"ака", "собака", RankSubstring},                        // inside a Cyrillic word
		{"犬", "柴犬", RankSubstring},                              // CJK ideographs are letters
		{"safety stock", "safety stock policy", RankWordPrefix}, // a filter with a space
	}
	for _, c := range cases {
		if got := MatchField(c.q, c.field); got != c.want {
			t.Errorf("MatchField(%q, %q) = %d, want %d", c.q, c.field, got, c.want)
		}
	}
}

// TestFilterFields checks which properties are searched: id, text (even a
// long one), short strings and the short strings of string lists; not long
// strings other than text, numbers, or mixed lists.
func TestFilterFields(t *testing.T) {
	long := strings.Repeat("x", ShortProp+1)
	exactly := strings.Repeat("é", ShortProp) // 200 runes, 400 bytes: still short
	props := map[string]any{
		"id":       "n1",
		"text":     long,
		"name":     "Dog",
		"synonyms": []any{"hound", "canine", long},
		"tags":     []string{"pet"},
		"mixed":    []any{"a", int64(1)},
		"gloss":    long,
		"count":    int64(3),
		"emb":      []float64{0.1},
		"accent":   exactly,
	}
	got := FilterFields("n1", props)
	want := []string{"n1", long, exactly, "Dog", "hound", "canine", "pet"} // id, text, then by key: accent, name, synonyms, tags
	if !slices.Equal(got, want) {
		t.Errorf("FilterFields = %q, want %q", got, want)
	}
	if ss := ShortStrings(props); len(ss) != 2 || ss["name"] != "Dog" || ss["accent"] != exactly {
		t.Errorf("ShortStrings = %q, want name and accent only", ss)
	}
}

// TestRankNodes ranks a small graph for "dog" by hand:
//
//	d3 {name: "Dog"}                    exact, length 3
//	d1 {name: "dog sled"}               word-prefix, length 8
//	d2 {text: "a hot dog", name: "x"}   word-prefix, length 9
//	d0 {synonyms: ["underdog"]}         substring, length 8
//	d4 {title: "Hotdogs"}               substring, length 7
//	dog-7 (id only)                     word-prefix on the id, length 5
//	n9 {text: "cat"}                    no match
//
// Order: exact (d3); word-prefix by length: dog-7 (5), d1 (8), d2 (9);
// substring by length: d4 (7), d0 (8).
func TestRankNodes(t *testing.T) {
	nodes := []struct {
		id    string
		props map[string]any
	}{
		{"d0", map[string]any{"synonyms": []any{"underdog"}}},
		{"d1", map[string]any{"name": "dog sled"}},
		{"d2", map[string]any{"text": "a hot dog", "name": "x"}},
		{"d3", map[string]any{"name": "Dog"}},
		{"d4", map[string]any{"title": "Hotdogs"}},
		{"dog-7", map[string]any{}},
		{"n9", map[string]any{"text": "cat"}},
	}
	q := NormalizeFilter("  DOG ")
	type hit struct {
		id string
		m  Match
	}
	var hits []hit
	for _, n := range nodes {
		fields := FilterFields(n.id, n.props)
		for i := range fields {
			fields[i] = strings.ToLower(fields[i])
		}
		if m := MatchFields(q, fields); m.Rank != RankNone {
			hits = append(hits, hit{n.id, m})
		}
	}
	slices.SortFunc(hits, func(a, b hit) int { return CompareMatches(a.m, a.id, b.m, b.id) })
	var got []string
	for _, h := range hits {
		got = append(got, h.id)
	}
	want := []string{"d3", "dog-7", "d1", "d2", "d4", "d0"}
	if !slices.Equal(got, want) {
		t.Errorf("ranked %q, want %q", got, want)
	}
	if m := MatchFields("", []string{"x"}); m.Rank != RankNone {
		t.Errorf("an empty filter matched: %+v", m)
	}
}
