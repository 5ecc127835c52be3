#!/usr/bin/env bash
# tmux_story.sh drives the real memoria binary through the analyst's story in
# a detached tmux session at 120x40, the way a person would: choose the query
# tags and seed N2006 on the demo graph, watch depth 1 (MAX_DEPTH 1) and then
# the full tree (MAX_DEPTH 5), step MIN_ACTIVATION to 0.01 and see the tree
# shrink (what left stays as a ghost row, the summary line counts it), copy a
# path's Cypher (OSC 52, caught by tmux's clipboard), export the D3 JSON, pin
# the run and step back (the node that came back is marked), open the sweep
# of MIN_ACTIVATION, ask why a losing candidate is not in the result, find
# P5001 by its aliases (not its text) with the node filter, switch (x) to the
# typed expansion and read its ranking and stats, step its MAX_HOPS, switch
# to spreading activation, step its ALPHA and read the selected hit's score
# worked out in the detail pane, switch to personalized PageRank, switch
# back to the tree, mark N2003 (in the tree) and N2007 (in the node list)
# relevant and read the found line and N2007's why-not, save the experiment
# with its marks, and quit with q.
#
# Every check polls capture-pane with a timeout (no fixed sleeps). On failure
# it prints the screen and exits non-zero; the tmux server is always killed.
# Usage: scripts/tmux_story.sh   (from anywhere; needs go and tmux)
set -euo pipefail

cd "$(dirname "$0")/.."

if ! command -v tmux >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "tmux_story: installing tmux" >&2
		apt-get update -qq >/dev/null && apt-get install -y -qq tmux >/dev/null
	fi
fi
NAME=tmux_story SESSION=story
# shellcheck source=scripts/tmux_lib.sh
. scripts/tmux_lib.sh

T -f /dev/null new-session -d -s story -x 120 -y 40 \
	"cd '$tmp' && TERM=xterm-256color exec '$tmp/memoria' --out-dir '$tmp'"
remember_socket
T set-option -g set-clipboard on
T set-option -g remain-on-exit off

step "the node list"
wait_for 'N2006 UserRequest'
wait_for 'Thresholds'

step "query tags"
keys Tab
for tag in demand_forecasting stockout safety_stock inventory_policy; do
	text "$tag"
	keys Enter
done
wait_for '\[inventory_policy\]'
wait_for 'Tags 4'

step "MAX_DEPTH 1, to see depth 1 on its own"
keys Tab
text "----"
wait_for 'MAX_DEPTH +‹ 1 ›'

step "seed N2006"
keys BTab BTab
text "/N2006"
keys Enter Space
wait_for '├─ · N2003 AgentAnswer'
wait_for '└─ · N2005 Event'
wait_for '■ max depth'
screen | grep -q 'N2001 AgentAction.*T=' && fail "depth 2 shown at MAX_DEPTH 1"

step "MAX_DEPTH 5: the full tree"
keys Tab Tab
text "++++"
wait_for 'MAX_DEPTH +‹ 5 ›'
wait_for '└─ · (\+ )?N2010 DataSource' # marked + if the run it is compared with stopped short of it
wait_for 'done in [0-9]+ (ms|µs), 3 paths'

step "MIN_ACTIVATION 0.01: N2010 drops out, and stays as a ghost row"
text "j+"
wait_for 'MIN_ACTIVATION +‹ 0.01 ›'
wait_for '└─ ▼ N2001 AgentAction'
wait_for '└╌ − N2010 DataSource  left · was T=0.008086 at depth 3' # R = 1 here
wait_for 'vs previous: \+1 paths −1 · 0 moved · nodes 6 → 5 \(Jaccard 0.83\)'
wait_gone 'N2010 DataSource  Weekly'

step "copy the Cypher of N2006→N2003→N2001"
keys Tab
text "jjy"
wait_for 'copied Cypher for path N2006→N2003→N2001 \(3 nodes\)'
buf=$(paste_buffer)
printf '%s\n' "$buf" | grep -q 'MATCH p = (n0 {id: $id0})-\[r0:RELATES\]-(n1 {id: $id1})-\[r1:RELATES\]-(n2 {id: $id2}) WHERE properties(r0) = $r0 AND properties(r1) = $r1 RETURN p;' ||
	fail "tmux clipboard does not hold the Cypher (got: $buf)"
printf '%s\n' "$buf" | grep -q ':params {id0: "N2006", id1: "N2003", id2: "N2001", r0: {tags: \["inventory_policy", "recommendation", "analysis_dependency"\], weight: 0.82}, r1: {' ||
	fail "tmux clipboard lacks the :params line (got: $buf)"

step "export the D3 JSON"
text "d"
wait_for 'wrote .*memoria-d3-[0-9-]+\.json'
ls "$tmp"/memoria-d3-*.json >/dev/null 2>&1 || fail "no D3 file in $tmp"
grep -q '"N2001"' "$tmp"/memoria-d3-*.json || fail "D3 file lacks N2001"

step "pin this run, step back to 0.005: N2010 is back, marked"
text "p"
wait_for 'pinned run [0-9]+: later runs are compared with it'
wait_for 'vs pinned: \+0 paths −0'
keys BTab
text "-"
wait_for 'MIN_ACTIVATION +‹ 0.005 ›'
wait_for 'vs pinned: \+1 paths −1 · 0 moved · nodes 5 → 6 \(Jaccard 0.83\)'
wait_for '└─ · \+ N2010 DataSource'

step "sweep MIN_ACTIVATION"
text "s"
wait_for 'Sweep min-activation'
wait_for 'sweep min-activation: [0-9]+ values'
wait_for '\^ min-activation 0.005'
wait_for 'swept [0-9]+ points · [0-9]+ explorations · .* · exact over the whole range'
keys Escape
wait_gone 'Sweep min-activation'

step "why not: w on a losing candidate"
keys Tab
text "e}"
wait_for '▸ ╌* ?.*✗ N20[0-9]+'
text "w"
wait_for 'Why \(not\) N20[0-9]+'
wait_for 'N20[0-9]+: not in the result \((below_threshold|branch_limit|claimed|visited_earlier)\)'
keys Escape
wait_gone 'Why \(not\)'

step "filter the nodes by a property that is not the text (P5001's aliases)"
keys BTab BTab BTab Escape # Escape clears the filter N2006 left
text "/digest"
wait_for '▸ \[ \] P5001 UserPreference'
wait_for ' 1/1'
keys Escape
wait_gone ' 1/1'

step "x: the typed expansion ranks N2006's neighbours (R 1: N2003 = 1 × 0.82 × 0.6 × 0.8)"
text "x"
wait_for 'Parameters · expansion'
wait_for '#2   0.3936   N2003 AgentAnswer  seed N2006  from N2006 -\[RELATES w=0.82 ×0.82\]'
wait_for 'initial_count=1 expanded_count=5 new_results=4 kept_results=1 dropped_results=0 expansion_rate=4'

step "MAX_HOPS 2 re-runs the expansion: N2001 comes in two hops out"
keys Tab Tab
text "+"
wait_for 'MAX_HOPS H +‹ 2 › 1–3'
wait_for '0.2834   N2001 AgentAction  seed N2006  from N2006 -\[RELATES' # 1 × 0.82 × 0.9 × 0.6 × 0.8²
wait_gone 'expanded_count=5 '

step "x: spreading activation ranks N2006 first (0.7 × R 1 + 0.3 × 1) and N2003 at 0.3 × 0.77294 / 1.716037"
text "x"
wait_for 'Parameters · spreading'
wait_for '#2   0.1351   N2003 AgentAnswer'

step "ALPHA α 0.7 → 0.75 re-runs spreading: N2003 at 0.25 × 0.77294 / 1.716037 = 0.1126, its detail multiplying out"
text "jjj+"
wait_for 'ALPHA α +‹ 0.75 ›'
wait_for '#2   0.1126   N2003 AgentAnswer'
keys Tab
text "gj"
wait_for 'score = 0.1126 = 0.1126' # the blend alone (degree 3: no penalty)
wait_for 'activation 0.7729'      # 0.75 × sem 0 + 0.25 × 0.7729 / 1.716 (N2006's A, the max) = 0.1126
keys BTab

step "x: personalized PageRank keeps most mass on the seed, its neighbours by weight"
text "x"
wait_for 'Parameters · ppr'
wait_for '#2 .* N2003 AgentAnswer'

step "x again: activation's tree is back as it was"
text "x"
wait_for 'Thresholds'
wait_for 'MIN_ACTIVATION +‹ 0.005 ›'
wait_for 'vs pinned: \+1 paths −1 · 0 moved · nodes 5 → 6'

step "m marks N2003 relevant: the found line measures the tree (R 1: nDCG@10 = (1/log2 3) / 1)"
keys Tab
text "gjm"
wait_for 'marked N2003 relevant \(grade 1; m again: grade 2\)'
wait_for 'relevant found 1 of 1 · recall@10 1.00 · nDCG@10 0.63'
wait_for '├─ ▼ ✓ N2003 AgentAnswer'

step "m on N2007 in the node list: not found, with its why-not (nDCG@10 = 0.63093 / (1 + 0.63093))"
keys BTab BTab BTab
text "/N2007"
keys Enter
text "m"
wait_for 'marked N2007 relevant'
wait_for 'relevant found 1 of 2 · recall@10 0.50 · nDCG@10 0.39'
wait_for '✗ ✓ N2007 not found · branch_limit: N2006 → N2007 at level 1'
keys Escape

step "S saves the marks with the experiment"
text "S"
wait_for 'saved the experiment to .*memoria-experiment-[0-9-]+\.json'
grep -q '"N2007": 1' "$tmp"/memoria-experiment-*.json || fail "the experiment file lacks the marks"

step "help and quit"
text "?"
wait_for 'Keys \(\? or esc to close'
keys Escape
wait_gone 'Keys \(\? or esc to close'
text "q"
for _ in $(seq 1 100); do
	T has-session -t story 2>/dev/null || { echo "tmux_story: $steps passed, 0 failed"; exit 0; }
	sleep 0.05
done
fail "q did not quit"
