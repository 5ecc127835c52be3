#!/usr/bin/env bash
# tmux_compare.sh drives the real memoria binary through the compare story in
# a detached tmux session at 120x40: open the compare view of Activation
# Energy and the typed expansion from the command line (--retrievers) on the
# demo graph with seed N2006 (R 0.85) and scenario A's tags, read the union
# table (N2007 only the expansion's, N2001 only Activation Energy's, both
# marked ◇), ask why (w) the expansion lacks N2001 (two RELATES hops out,
# beyond its MAX_HOPS 1: unreached, no_route), step the expansion's MAX_HOPS
# to 2 and see only its column change (N2001 enters the expansion's column,
# Activation Energy keeps it at #5 with the same score), add ppr with the
# picker (X), and quit with q. The table's ranks are worked out in
# tui/compare_test.go.
#
# Every check polls capture-pane with a timeout (no fixed sleeps). On failure
# it prints the screen and exits non-zero; the tmux server is always killed.
# Usage: scripts/tmux_compare.sh   (from anywhere; needs go and tmux)
set -euo pipefail

cd "$(dirname "$0")/.."

NAME=tmux_compare SESSION=compare
# shellcheck source=scripts/tmux_lib.sh
. scripts/tmux_lib.sh

T -f /dev/null new-session -d -s compare -x 120 -y 40 \
	"cd '$tmp' && TERM=xterm-256color exec '$tmp/memoria' --seed N2006=0.85 --tags demand_forecasting,stockout,safety_stock,inventory_policy --retrievers activation,expansion --retriever expansion"
remember_socket
T set-option -g remain-on-exit off

step "the compare view opens with both columns"
wait_for 'Results · compare · top 10'
wait_for 'node +activation expansion'
wait_for '✓ activation .*✓ expansion'
wait_for '8 nodes · 4 found by one only'

step "the union: shared nodes first, then what one retriever found, marked ◇"
wait_for 'N2006 UserRequest +#1 0.85 +#1 0.85'
wait_for '◇ N2007 DataSource +· +#4'
wait_for '◇ N2001 AgentAction +#5 +·'

step "w on N2001: the expansion lacks it (no route within MAX_HOPS 1)"
keys Tab Tab Tab
text "jjjjj"
wait_for '▸◇ N2001 AgentAction +#5 0.02588'
text "w"
wait_for 'N2001: unreached by expansion \(no_route\)'
keys Escape
wait_gone 'unreached by expansion'

step "MAX_HOPS 2 re-runs the expansion only: N2001 enters its column"
keys BTab
wait_for 'MAX_HOPS H +‹ 1 ›'
text "+"
wait_for 'MAX_HOPS H +‹ 2 ›'
wait_for 'N2001 AgentAction +#5 [0-9.]+ +#[0-9]+ [0-9.]+'

step "X: the picker adds ppr as a third column"
text "X"
wait_for 'Retrievers · space ticks'
keys Down Down Down Space Enter
wait_for 'node +activation expansion +ppr'
wait_for '✓ ppr'

step "quit"
text "q"
for _ in $(seq 1 100); do
	T has-session -t compare 2>/dev/null || { echo "tmux_compare: $steps passed, 0 failed"; exit 0; }
	sleep 0.05
done
fail "q did not quit"
