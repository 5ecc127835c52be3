package cli

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// rankingIDs runs args (a command printing one --format ranking JSON
// object) and returns its hits' ids and the object.
func rankingIDs(t *testing.T, args ...string) ([]string, map[string]any) {
	t.Helper()
	code, out, errs := run(t, args...)
	if code != 0 {
		t.Fatalf("%q: exit %d: %s", args, code, errs)
	}
	var r struct {
		Hits []struct {
			NodeID string `json:"node_id"`
		} `json:"hits"`
	}
	var whole map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%q: %v\n%s", args, err, out)
	}
	_ = json.Unmarshal([]byte(out), &whole)
	var ids []string
	for _, h := range r.Hits {
		ids = append(ids, h.NodeID)
	}
	return ids, whole
}

// TestListFlagsTrimmed: every comma-separated list flag reads its items by
// one rule (listItems): each trimmed of white space at both ends.
// `--rel-types 'MENTIONS, RELATES'` kept " RELATES", which no relationship
// has, and the expansion from N2006 stopped at the seed with exit 0; the
// same for --exclude-rel-types (" RELATES" excluded nothing) and
// --per-label-top (the label " DataSource" capped nothing).
//
// Expected by hand from the demo graph (docs/DEMO_GRAPH.md): N2006 has
// four RELATES neighbours, N2003, N2004, N2007 and N2005 (weights 0.82,
// 0.58, 0.5, 0.45; with max hops 1 the expansion ranks them in that order
// after the seed), and no MENTIONS relationship. So traversing RELATES
// gives those five nodes; excluding it leaves the seed alone.
func TestListFlagsTrimmed(t *testing.T) {
	exp := []string{"explore", "--seed", "N2006", "--retriever", "expansion", "--format", "ranking"}
	all := []string{"N2006", "N2003", "N2004", "N2007", "N2005"}
	if ids, _ := rankingIDs(t, append(exp, "--rel-types", "MENTIONS, RELATES")...); !slices.Equal(ids, all) {
		t.Errorf("--rel-types 'MENTIONS, RELATES': hits %v, want %v", ids, all)
	}
	if ids, _ := rankingIDs(t, append(exp, "--rel-types", "MENTIONS", "--rel-types", "\tRELATES ")...); !slices.Equal(ids, all) {
		t.Errorf("--rel-types '\\tRELATES ': hits %v, want %v", ids, all)
	}
	if ids, _ := rankingIDs(t, append(exp, "--exclude-rel-types", "MENTIONS, RELATES")...); !slices.Equal(ids, []string{"N2006"}) {
		t.Errorf("--exclude-rel-types 'MENTIONS, RELATES': hits %v, want the seed alone", ids)
	}
	_, r := rankingIDs(t, append(exp, "--rerank", "signals", "--now", "2026-01-01T00:00:00Z", "--per-label-top", "Event=1, DataSource = 2",
		"--signal-weights", " 0.3, 0.3 ,0.4")...)
	params, _ := r["params"].(map[string]any)
	caps, _ := json.Marshal(params["rerank_per_label_top"])
	if string(caps) != `{"DataSource":2,"Event":1}` {
		t.Errorf("--per-label-top 'Event=1, DataSource = 2': caps %s, want Event 1 and DataSource 2", caps)
	}
	if params["rerank_w_sem"] != 0.3 || params["rerank_w_time"] != 0.3 || params["rerank_w_sal"] != 0.4 {
		t.Errorf("--signal-weights ' 0.3, 0.3 ,0.4': %v %v %v", params["rerank_w_sem"], params["rerank_w_time"], params["rerank_w_sal"])
	}
	// The flags that trimmed before keep doing so, by the same rule.
	_, r = rankingIDs(t, "explore", "--seed", "N2006", "--retriever", "fusion", "--fuse", " expansion , ppr", "--format", "ranking")
	params, _ = r["params"].(map[string]any)
	if fuse, _ := json.Marshal(params["fuse"]); string(fuse) != `["expansion","ppr"]` {
		t.Errorf("--fuse ' expansion , ppr': fuse %s", fuse)
	}
	if code, out, errs := run(t, "compare", "--seed", "N2006", "--retrievers", "expansion, ppr", "--format", "json"); code != 0 || !strings.Contains(out, `"ppr"`) {
		t.Errorf("compare --retrievers 'expansion, ppr': exit %d: %s", code, errs)
	}
	if code, _, errs := run(t, "sweep", "--seed", "N2006", "--param", "min-activation", "--values", "0.1, 0.2", "--format", "json"); code != 0 {
		t.Errorf("sweep --values '0.1, 0.2': exit %d: %s", code, errs)
	}
}

// TestListFlagsEmptyItem: an item left empty once trimmed is refused by
// every list flag, naming the flag and the item's place (exit 2).
func TestListFlagsEmptyItem(t *testing.T) {
	refuses(t, []badInput{
		{[]string{"explore", "--seed", "N2006", "--rel-types", "RELATES, ,MENTIONS"}, ExitUsage,
			"memoria: explore: invalid value \"RELATES, ,MENTIONS\" for flag -rel-types: an empty relationship type (item 2 of \"RELATES, ,MENTIONS\") (see --help)\n"},
		{[]string{"explore", "--seed", "N2006", "--exclude-rel-types", "RELATES, "}, ExitUsage,
			"memoria: explore: invalid value \"RELATES, \" for flag -exclude-rel-types: an empty relationship type (item 2 of \"RELATES, \") (see --help)\n"},
		{[]string{"explore", "--seed", "N2006", "--traverse-types", " "}, ExitUsage,
			"memoria: --traverse-types \" \": an empty relationship type (item 1 of \" \")\n"},
		{[]string{"explore", "--seed", "N2006", "--rerank", "signals", "--per-label-top", "Event=1,\t"}, ExitUsage,
			"memoria: explore: invalid value \"Event=1,\\t\" for flag -per-label-top: an empty Label=N (item 2 of \"Event=1,\\t\") (see --help)\n"},
		{[]string{"explore", "--seed", "N2006", "--rerank", "signals", "--signal-weights", "0.5,,0.5"}, ExitUsage,
			"memoria: explore: invalid value \"0.5,,0.5\" for flag -signal-weights: an empty weight (item 2 of \"0.5,,0.5\") (see --help)\n"},
		{[]string{"explore", "--seed", "N2006", "--retriever", "fusion", "--fuse", "ppr, "}, ExitUsage,
			"memoria: explore: invalid value \"ppr, \" for flag -fuse: an empty retriever (item 2 of \"ppr, \") (see --help)\n"},
		{[]string{"compare", "--seed", "N2006", "--retrievers", "ppr, ,expansion"}, ExitUsage,
			"memoria: compare: --retrievers \"ppr, ,expansion\" has an empty name\n"},
		{[]string{"sweep", "--seed", "N2006", "--param", "min-activation", "--values", "0.1, "}, ExitUsage,
			"memoria: sweep: --values: an empty value (item 2 of \"0.1, \")\n"},
		{[]string{"export", "--uri", "bolt://127.0.0.1:1", "--timeout", "connect=1s,"}, ExitUsage,
			"memoria: export: invalid value \"connect=1s,\" for flag -timeout: an empty deadline (item 2 of \"connect=1s,\") (see --help)\n"},
	})
}
