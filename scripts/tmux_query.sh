#!/usr/bin/env bash
# tmux_query.sh drives the real memoria binary through the question story in
# a detached tmux session at 120x40: open the explorer on the demo graph with
# no seed, press a and type the agent's question "safety stock" instead of
# picking seeds, read the candidates as the gather finds them (the five of
# `memoria gather --query "safety stock"`, N2002 first, each ticked: the
# first --seed-k) and the tag the question names (safety_stock), untick the
# second (N2001) with space, take the rest with enter, and read the seeds
# (four, each with its R) and Activation Energy's tree that result, run with
# the tag. The candidates' order is the gather's (docs/RETRIEVERS.md,
# "Gather"; tui/ask_test.go checks it against retriever/gather's API).
# The explorer is opened with the demo query set (--queries): s on
# MAX_BRANCHES then heads the sweep overlay with the held-out curve (what
# `memoria tune --retriever activation --param max-branches` prints: 4 chosen
# by every fold), and enter sets MAX_BRANCHES to 4.
#
# Every check polls capture-pane with a timeout (no fixed sleeps). On failure
# it prints the screen and exits non-zero; the tmux server is always killed.
# Usage: scripts/tmux_query.sh   (from anywhere; needs go and tmux)
set -euo pipefail

cd "$(dirname "$0")/.."

NAME=tmux_query SESSION=query
# shellcheck source=scripts/tmux_lib.sh
. scripts/tmux_lib.sh

T -f /dev/null new-session -d -s query -x 120 -y 40 \
	"cd '$tmp' && TERM=xterm-256color exec '$tmp/memoria' --out-dir '$tmp' --queries '$PWD/testdata/demo-queries.jsonl'"
remember_socket
T set-option -g remain-on-exit off

step "the explorer opens with no seed"
wait_for 'Seeds 0/5'

step "a opens the query line; the question is typed"
text "a"
wait_text 'Ask a question (esc to close)'
text "safety stock"
wait_text '? safety stock'

step "the candidates fill in: the gather's five, each ticked, and the tag the question names"
wait_text '5 candidates, 5 ticked'
wait_for '\[x\] +1  N2002 +1 '
wait_for '\[x\] +2  N2001 +0\.9052 '
wait_for '\[x\] +5  N2003 +0\.8451 '
wait_text 'tags the question names: safety_stock'

step "space unticks the second candidate"
keys Down Down Space
wait_text '5 candidates, 4 ticked'
wait_for '\[ \] +2  N2001 '

step "enter takes the four as the seeds, with the tag, and the tree runs from them"
keys Enter
wait_gone_text 'Ask a question'
wait_text 'Seeds 4/5'
wait_text 'seeds from the question: N2002 R=1, N2013 R=0.9052, N2006 R=0.8842, N2003 R=0.8451; tags added: safety_stock'
wait_text 'tags safety_stock'
for id in N2002 N2013 N2006 N2003; do
	wait_for "\[x\] $id .*R=" # ticked in the node list with its R
done
wait_for '▸ ▼ N2002 UserPreference'                    # the tree's first seed row, selected
wait_for 'R=1 · done in [0-9.]+ .s, 3 paths'           # N2002's run, R from the question
wait_for 'R=0\.9052 · done in [0-9.]+ .s, 3 paths'     # N2013's
wait_for '✓ N2002 done in .*✓ N2013 done in .*✓ N2006 done in' # the status line, seed by seed

step "s on MAX_BRANCHES: the held-out curve over the query set heads the overlay; enter takes the value chosen"
for _ in 1 2 3 4 5 6; do
	screen | grep -Eq '▸ MAX_DEPTH +‹ 5 ›' && break
	keys Tab
	sleep 0.2
done
wait_for '▸ MAX_DEPTH +‹ 5 ›'
keys Down Down Down
wait_for '▸ MAX_BRANCHES +‹ 3 ›'
text "s"
wait_text 'Sweep max-branches · held out over 8 queries'
wait_text 'tune activation over 8 queries on nDCG@10, 5 folds (split seed 34)'
wait_text 'held out, nDCG@10: tuned 0.5857, defaults 0.5710'
wait_text 'held-out curve of max-branches, nDCG@10 over 5 folds'
wait_for '^│ 4 +█+ 0\.5857 .*chosen by folds 1, 2, 3, 4, 5 \*'
wait_text 'enter uses the chosen value'
keys Enter
wait_gone_text 'Sweep max-branches'
wait_for '▸ MAX_BRANCHES +‹ 4 ›'
wait_text 'set max-branches 4, chosen on 8 queries by nDCG@10'

step "quit"
text "q"
for _ in $(seq 1 100); do
	T has-session -t query 2>/dev/null || { echo "tmux_query: $steps passed, 0 failed"; exit 0; }
	sleep 0.05
done
fail "q did not quit"
