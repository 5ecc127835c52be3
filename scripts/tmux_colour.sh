#!/usr/bin/env bash
# tmux_colour.sh runs the real memoria binary in a tmux server of its own
# (tmux -L memoria-colour-PID) with TERM=xterm-256color and reads the screen
# with its styles (capture-pane -e). It checks that
#
#   - the explorer draws colour: foreground colour escapes (ESC[38;5;Nm or
#     ESC[3Nm) on the screen, the focused pane's border in the accent colour
#     and the losing candidates of `e` faint (ESC[2m), besides the glyphs
#     (━ for focus, ▸ for the selection, ✗ for a loser) that carry the
#     same meaning without colour;
#   - with NO_COLOR=1, and with --no-color, the same screens hold no colour
#     escape at all;
#   - below the smallest size that works (80×24) one screen names the size
#     needed and the size there is, and the explorer comes back when the
#     window grows;
#   - started without a terminal (stdin and stdout not a TTY) memoria exits 2
#     with one sentence on stderr and writes no escape code.
#
# CI is unset for the binary: termenv (the colour library) turns colour off
# whenever $CI is set, and `make test` may run under CI=true. Every check
# polls capture-pane with a timeout (no fixed sleeps). On failure it prints
# the screen and exits non-zero; the server is always killed.
# Usage: scripts/tmux_colour.sh   (from anywhere; needs go and tmux)
set -euo pipefail

cd "$(dirname "$0")/.."

NAME=tmux_colour SESSION=colour
# shellcheck source=scripts/tmux_lib.sh
. scripts/tmux_lib.sh

styled() { T capture-pane -e -p -t colour 2>/dev/null || true; }

# wait_styled ERE [SECONDS]: poll the styled screen until it matches.
wait_styled() {
	local re=$1 limit=${2:-10} i=0 s
	while [ "$i" -lt $((limit * 20)) ]; do
		s=$(styled)
		if grep -Eq -- "$re" <<<"$s"; then
			return 0
		fi
		sleep 0.05
		i=$((i + 1))
	done
	fail "timed out after ${limit}s waiting for the styled screen to match: $re"
}


esc=$'\e'
colour_re="${esc}\\[(38;5;[0-9]+|38;2;[0-9;]+|3[0-7]|9[0-7])m"

# start CMD...: (re)start the explorer in the pane with a clean environment.
start() {
	T respawn-pane -k -t colour "cd '$tmp' && exec env -u CI -u NO_COLOR TERM=xterm-256color $*"
}

# story: the explorer opened on scenario A (seed N2006, its tags) with the
# tree focused and explain on: every kind of styled text (focus, selection,
# metrics, losers) is on the screen.
scenario="--seed N2006=0.85 --tags demand_forecasting,stockout,safety_stock,inventory_policy"
story() {
	wait_text "Thresholds"
	wait_text "done in"
	keys Tab Tab Tab
	wait_text "━ Results"
	text "e"
	wait_text "✗ N2011" # N2010's near miss: the first loser row
}

T -f /dev/null new-session -d -s colour -x 120 -y 40 "sleep 60"
remember_socket
T set-option -g remain-on-exit off

step "colour in a real terminal: TERM=xterm-256color"
start "'$tmp/memoria' $scenario"
story
wait_styled "$colour_re"
n=$(styled | grep -Eo -- "$colour_re" | wc -l)
[ "$n" -ge 20 ] || fail "only $n colour escapes on the screen"
wait_styled "${esc}\\[[0-9;]*2[;m][^${esc}]*✗ N2011" # the loser is faint
wait_styled "${esc}\\[38;5;[0-9]+m╭━"                # the focused border in colour

step "search in the results: / data, n, the position in the title"
text "e" # explain off: the seven node rows of scenario A
wait_text "row 1 of 7"
text "/"
text "data"
wait_text "/data 1 of 2"
keys Enter
text "n"
wait_text "row 6 of 7 · /data 2 of 2"
wait_text "» │     └─ · N2010 DataSource"
keys Escape

step "NO_COLOR=1: the same screen without a colour escape"
T respawn-pane -k -t colour "cd '$tmp' && exec env -u CI NO_COLOR=1 TERM=xterm-256color '$tmp/memoria' $scenario"
story
s=$(styled)
if grep -Eq -- "$colour_re" <<<"$s"; then
	fail "NO_COLOR=1 still shows colour: $(grep -Eo -- "$colour_re" <<<"$s" | sort | uniq -c | head -3)"
fi

step "--no-color: the same"
start "'$tmp/memoria' --no-color $scenario"
story
s=$(styled)
if grep -Eq -- "$colour_re" <<<"$s"; then
	fail "--no-color still shows colour"
fi

step "a window below 80x24 says the size needed and the size there is"
T resize-window -t colour -x 50 -y 15
wait_text "memoria needs 80×24;"
wait_text "this one is 50×15."
T resize-window -t colour -x 120 -y 40
wait_text "━ Results"
wait_text "MAX_BRANCHES"

step "no terminal: exit 2, one sentence, no escape code"
set +e
env -u CI TERM=xterm-256color "$tmp/memoria" </dev/null >"$tmp/out" 2>"$tmp/err"
code=$?
set -e
[ "$code" -eq 2 ] || fail "without a terminal memoria exited $code, not 2"
[ ! -s "$tmp/out" ] || fail "without a terminal memoria wrote to stdout: $(head -c 80 "$tmp/out" | od -c | head -2)"
grep -q "the explorer needs a terminal" "$tmp/err" || fail "stderr does not say a terminal is needed: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "stderr is not one line: $(cat "$tmp/err")"
if grep -q "cancel reader" "$tmp/err"; then fail "stderr still talks of the cancel reader"; fi

T kill-server
echo "tmux_colour: $steps passed, 0 failed"
