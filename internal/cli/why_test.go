package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

var whyScenarioA = []string{"--seed", "N2006=0.85", "--tags", "demand_forecasting,stockout,safety_stock,inventory_policy"}

// TestWhyText: N2007 in scenario A loses to the branch limit at level 1
// (docs/ALGORITHM.md, "Why not X"): T = 0.85 × 0.5 / √4 × 0.15 = 0.03188,
// after N2003 (0.1016), N2004 (0.08936) and N2005 (0.06933).
func TestWhyText(t *testing.T) {
	code, out, errs := run(t, append([]string{"why", "--node", "N2007"}, whyScenarioA...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := `N2007: not in the result (branch_limit)
best route from seed N2006 R=0.85, at most 5 hops:
  ✗ N2006 → N2007 T=0.03188 w=0.5 tag_sim=0.15 d=4
  (✓ kept by the run, ✗ where the run parted from the route, · not reached)
N2006 → N2007 at level 1: N2006 had already kept MAX_BRANCHES 3: N2003 T=0.1016, N2004 T=0.08936, N2005 T=0.06933
`
	if out != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
}

// TestWhyJSON: the keys docs/EXPORTS.md ("Why not X") puts first, in its
// order, for N2012 in scenario A: route N2006 → N2005 (0.85 × 0.45 / √4 ×
// 0.3625 = 0.069328125) → N2012 (0.069328125 × 0.01 / √3 × 0.32 =
// 0.000128085), blocked at the second hop, below 0.005: 0.000128085 / 0.005
// = 2.6%, "3% of 0.005".
func TestWhyJSON(t *testing.T) {
	code, out, errs := run(t, append([]string{"why", "--node", "N2012", "--format", "json"}, whyScenarioA...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.HasPrefix(out, `{"node_id":"N2012","verdict":"below_threshold","route":[{"from":"N2006","to":"N2005","transfer_energy":0.069328125,`) {
		t.Errorf("not in docs/EXPORTS.md's order: %s", out)
	}
	var a struct {
		Route []struct {
			From, To       string
			TransferEnergy float64 `json:"transfer_energy"`
		}
		BlockingHop struct {
			From, To       string
			TransferEnergy float64 `json:"transfer_energy"`
		} `json:"blocking_hop"`
		Detail string
	}
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatal(err)
	}
	if len(a.Route) != 2 || a.BlockingHop.From != "N2005" || a.BlockingHop.To != "N2012" || a.BlockingHop.TransferEnergy != 0.00012808515721971848 ||
		a.Detail != "N2005 → N2012 at level 2: T=0.0001281 is not above MIN_ACTIVATION 0.005 (3% of 0.005)" {
		t.Errorf("%+v", a)
	}
}

// TestWhyUsage: an unknown node, a missing --node or a bad format is a
// mistake in the command line (exit 2) that names what was wrong.
func TestWhyUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"why", "--seed", "N2006", "--node", "N9999"}, "why: --node N9999: no node has this id"},
		{[]string{"why", "--seed", "N2006", "--node", "bad\x1bid"}, `why: --node "bad\x1bid": no node has this id`},
		{[]string{"why", "--seed", "N2006"}, "why: --node is required"},
		{[]string{"why", "--node", "N2006"}, "why: at least one --seed is required"},
		{[]string{"why", "--seed", "N2006", "--node", "N2007", "--format", "csv"}, `why: unknown --format "csv"`},
	} {
		code, _, errs := run(t, c.args...)
		if code != ExitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
}

// TestWhySeedNotFound: a seed no node has is a result, as explore's
// seed_not_found is, and why says so: first in the text, on stderr with
// --format json (which has no place for it), the id escaped. It said
// only "no RELATES route ... from a seed", as if the seeds were there.
func TestWhySeedNotFound(t *testing.T) {
	for _, c := range []struct {
		args      []string
		out, errs string
	}{
		{[]string{"why", "--seed", "NOPE", "--seed", "a\x1bb", "--node", "N2006"},
			"seed NOPE not found\nseed \"a\\x1bb\" not found\nN2006: unreachable\nno RELATES route of at most 5 hops from a seed\n", ""},
		{[]string{"why", "--seed", "a\x1bb", "--node", "N2006", "--format", "json"},
			`{"node_id":"N2006","verdict":"unreachable","route":[],"blocking_hop":null,"detail":"no RELATES route of at most 5 hops from a seed",` +
				`"seed":null,"level":0,"min_activation":0.005,"max_depth":5,"max_branches":3,"exact":true}` + "\n",
			"memoria: why: seed \"a\\x1bb\" not found\n"},
		{[]string{"why", "--seed", "NOPE", "--node", "N2006", "--retriever", "expansion"},
			"seed NOPE not found\nN2006: unreached by expansion (no_route)\nno route from a seed at all (over any type); H = 1\n", ""},
		{[]string{"why", "--seed", "NOPE", "--node", "N2006", "--retriever", "expansion", "--format", "json"},
			`{"retriever":"expansion","node_id":"N2006","verdict":"unreached","rank":null,"score":null,"kth_score":null,"k":10,` +
				`"detail":"no route from a seed at all (over any type); H = 1","kth_node_id":null,"ranked":0,"reason":"no_route",` +
				`"facts":{"limit":1,"hops":null,"followed_hops":null,"unfollowed_types":[],"searched":3,"whole":true},"hit":null}` + "\n",
			"memoria: why: seed NOPE not found\n"},
	} {
		code, out, errs := run(t, c.args...)
		if code != 0 || out != c.out || errs != c.errs {
			t.Errorf("%q: exit %d, stdout\n%q\nstderr %q\nwant exit 0, stdout\n%q\nstderr %q", c.args, code, out, errs, c.out, c.errs)
		}
	}
}
