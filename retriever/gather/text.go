package gather

import (
	"strings"
	"unicode"
)

// Normalize is the one normal form of a name or a query
// (docs/RETRIEVERS.md, "Gather"): Unicode simple case folding (each rune to
// one member of its case orbit, the least lower-case one: "ÉCOLE" and
// "école" alike, the Kelvin sign and "k" alike), every run of runes that
// are neither letters nor digits one space, trimmed.
func Normalize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(fold(r))
	}
	return b.String()
}

// fold is r's simple case fold: the least lower-case rune of its case
// orbit (unicode.SimpleFold), else the least rune of it.
func fold(r rune) rune {
	least, lower := r, rune(-1)
	if unicode.IsLower(r) {
		lower = r
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		least = min(least, f)
		if unicode.IsLower(f) && (lower < 0 || f < lower) {
			lower = f
		}
	}
	if lower >= 0 {
		return lower
	}
	return least
}

// Tokens are the words of s's normal form: the runs of letters and digits,
// folded (Normalize), in order, repeats kept (BM25 counts them).
func Tokens(s string) []string {
	n := Normalize(s)
	if n == "" {
		return nil
	}
	return strings.Split(n, " ")
}

// Levenshtein is the edit distance of a and b in code points: the fewest
// insertions, deletions and substitutions of one rune that turn a into b
// (two rows of the table, O(len a × len b) time).
func Levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			sub := prev[j-1]
			if ra[i-1] != rb[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// FuzzyScore is 1 − Levenshtein(q, name) / max(len q, len name), in code points,
// of two normal forms; 0 when both are empty.
func FuzzyScore(q, name string) float64 {
	n := max(len([]rune(q)), len([]rune(name)))
	if n == 0 {
		return 0
	}
	return 1 - float64(Levenshtein(q, name))/float64(n)
}

// Jaccard is |A ∩ B| / |A ∪ B| of two token sets (duplicates counted
// once); 0 when both are empty.
func Jaccard(a, b []string) float64 {
	sa, sb := map[string]bool{}, map[string]bool{}
	for _, t := range a {
		sa[t] = true
	}
	for _, t := range b {
		sb[t] = true
	}
	inter := 0
	for t := range sa {
		if sb[t] {
			inter++
		}
	}
	union := len(sa) + len(sb) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}
