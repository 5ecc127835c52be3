package cli

import (
	"strings"
	"testing"
)

// TestRelFilterFlagsRefused: a malformed filter is a usage error (exit 2)
// naming the flag and what is wrong, on every command that takes it.
func TestRelFilterFlagsRefused(t *testing.T) {
	for _, k := range []struct {
		args []string
		msg  string
	}{
		{[]string{"explore", "--seed", "N2006", "--rel-where", "attitude"}, `invalid value "attitude" for flag -rel-where: no comparison`},
		{[]string{"explore", "--retriever", "ppr", "--seed", "N2006", "--rel-where", "a>=1e999"}, "-rel-where: value 1e999: not a finite number"},
		{[]string{"compare", "--retrievers", "expansion,ppr", "--seed", "N2006", "--rel-where", ">=4"}, "-rel-where: no property name"},
		{[]string{"why", "--seed", "N2006", "--node", "N2003", "--rel-types", "A,,B"}, "-rel-types: an empty relationship type"},
		{[]string{"sweep", "--seed", "N2006", "--exclude-rel-types", ","}, "-exclude-rel-types: an empty relationship type"},
	} {
		code, _, errs := run(t, k.args...)
		if code != 2 || !strings.Contains(errs, k.msg) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", k.args, code, errs, k.msg)
		}
	}
}

// TestRelFilterShown: a filtered run says so where degrees are shown, and
// the ranking JSON carries the filter: on the demo graph, N2006's RELATES
// to N2003 has weight 0.82, so with weight>=0.8 the expansion reaches it
// alone (0.85 × 0.82 × 0.6 × 0.8 = 0.334560).
func TestRelFilterShown(t *testing.T) {
	code, out, errs := run(t, "explore", "--retriever", "expansion", "--seed", "N2006=0.85", "--rel-where", "weight>=0.8", "--format", "tree")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "relationship filter: weight>=0.8 (filtered relationships are not traversed; degrees d and strengths still count them)") ||
		!strings.Contains(out, "#2   0.3346    N2003") || strings.Contains(out, "#3") {
		t.Errorf("tree:\n%s", out)
	}
	code, out, errs = run(t, "explore", "--retriever", "expansion", "--seed", "N2006=0.85", "--rel-where", "weight>=0.8", "--format", "ranking")
	if code != 0 || !strings.Contains(out, `"filter":"weight>=0.8"`) {
		t.Errorf("ranking: exit %d %s\n%s", code, errs, out)
	}
	code, out, errs = run(t, "explore", "--seed", "N2006=0.85", "--exclude-rel-types", "RELATES", "--format", "tree")
	if code != 0 || !strings.HasPrefix(out, "relationship filter: not RELATES") || !strings.Contains(out, "0 paths") {
		t.Errorf("activation tree: exit %d %s\n%s", code, errs, out)
	}
}

// TestWhyFiltered: why --retriever answers "filtered" for a node the
// retriever could reach only through relationships the filter removed,
// and keeps the retriever's own reason otherwise. On the demo graph
// N2006–N2003 is RELATES with weight 0.82 and N2003 is 1 hop from the seed
// N2006: with --rel-where 'weight<0.8' the expansion (H = 1) can reach it
// no other way within 1 hop, so it is filtered (1 hop without the filter,
// none with it). T4008 is 3 hops away without the filter too, beyond H =
// 1: unreached, no_route, as without a filter. With --exclude-rel-types
// RELATES personalized PageRank reaches nothing, and N2001, 2 RELATES hops
// from N2006, is filtered (no route at all with the filter: the seed has
// no relationship left to walk).
func TestWhyFiltered(t *testing.T) {
	for _, k := range []struct {
		args []string
		want string
	}{
		{[]string{"--retriever", "expansion", "--node", "N2003", "--rel-where", "weight<0.8"},
			`"verdict":"filtered"`},
		{[]string{"--retriever", "expansion", "--node", "N2003", "--rel-where", "weight<0.8"},
			`"facts":{"filter":"weight\u003c0.8","limit":1,"hops_unfiltered":1,"hops":null,"searched":1,"whole":false}`},
		{[]string{"--retriever", "expansion", "--node", "T4008", "--rel-where", "weight<0.8"}, `"verdict":"unreached"`},
		{[]string{"--retriever", "expansion", "--node", "T4008", "--rel-where", "weight<0.8"}, `"reason":"no_route"`},
		{[]string{"--retriever", "ppr", "--node", "N2001", "--exclude-rel-types", "RELATES"},
			`"facts":{"filter":"not RELATES","limit":4,"hops_unfiltered":2,"hops":null,"searched":4,"whole":true}`},
		{[]string{"--retriever", "expansion", "--node", "N2003"}, `"verdict":"kept"`},
	} {
		code, out, errs := run(t, append([]string{"why", "--seed", "N2006=0.85", "--format", "json"}, k.args...)...)
		if code != 0 || !strings.Contains(out, k.want) {
			t.Errorf("%v: exit %d %s\n%s\nwant %s", k.args, code, errs, out, k.want)
		}
	}
	code, out, _ := run(t, "why", "--seed", "N2006=0.85", "--retriever", "spreading", "--node", "N2005", "--rel-where", "weight>0.9")
	if code != 0 || !strings.HasPrefix(out, "N2005: filtered by spreading (by the relationship filter)\n") ||
		!strings.Contains(out, "N2005 is 1 hop from the nearest seed over RELATES, but only through relationships the filter (weight>0.9) removes") {
		t.Errorf("spreading, text:\n%s", out)
	}
}
