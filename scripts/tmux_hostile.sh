#!/usr/bin/env bash
# tmux_hostile.sh drives the real memoria binary over testdata/hostile.jsonl,
# a graph whose ids, labels, texts, property keys and values and tags hold
# terminal attacks: OSC 52 (sets the clipboard to "HACKED"), OSC 0 (sets the
# window title to PWNED), CSI 2J (clears the screen), CR and LF, bidi
# overrides and isolates, zero-width characters. It shows every one of them
# in every pane (seed list, tag suggestions and chips, tree, explain, detail
# of each node and of a losing candidate, help, status line) and checks,
# after each step, that
#
#   - tmux holds no paste buffer (an OSC 52 reaching the terminal makes one:
#     set-clipboard is on, as in the story),
#   - the pane title is the one it had before memoria started,
#   - the layout is intact: 40 lines, the first one the Seeds and Results
#     borders, each of the 37 body lines ending with a box border, and
#   - the attack is on screen as a visible escape (\x1b]52;c;SEFDS0VE\a).
#
# Last, y copies the path's debug Cypher on purpose: the one buffer it makes
# holds the query with the attacks as \u001B escapes and no raw ESC.
#
# A tmux server of its own (tmux -L memoria-hostile-PID) shares nothing.
# Every check polls capture-pane with a timeout (no fixed sleeps). On
# failure it prints the screen and exits non-zero; the server is always
# killed. Usage: scripts/tmux_hostile.sh   (from anywhere; needs go and tmux)
set -euo pipefail

cd "$(dirname "$0")/.."

NAME=tmux_hostile SESSION=hostile
# shellcheck source=scripts/tmux_lib.sh
. scripts/tmux_lib.sh
cp testdata/hostile.jsonl "$tmp/hostile.jsonl"

# settled: the screen once two captures 50 ms apart agree (a frame may be
# half written when captured; damage done by a raw sequence stays).
settled() {
	local a b i=0
	a=$(screen)
	while [ "$i" -lt 100 ]; do
		sleep 0.05
		b=$(screen)
		if [ "$a" = "$b" ]; then
			printf '%s\n' "$a"
			return 0
		fi
		a=$b
		i=$((i + 1))
	done
	fail "the screen did not settle in 5s"
}

# intact: no buffer, the title unchanged, the layout whole.
intact() {
	local where=$1 bufs title lines n
	bufs=$(T list-buffers 2>/dev/null || true)
	[ -z "$bufs" ] || fail "$where: tmux got a paste buffer (an OSC 52 reached the terminal): $bufs"
	title=$(T display-message -p -t hostile '#{pane_title}')
	[ "$title" = "$title0" ] || fail "$where: the pane title changed from '$title0' to '$title'"
	lines=$(settled)
	# (Here-strings, not pipes into head or grep -q: under pipefail, a
	# writer killed by SIGPIPE would fail a check that held.)
	n=$(wc -l <<<"$lines")
	[ "$n" -eq 40 ] || fail "$where: the screen has $n lines, not 40"
	local first body bad
	first=$(sed -n 1p <<<"$lines")
	grep -Eq '^╭(─|━) (Seeds [0-9]/5 (─)+╮╭(─|━) Results|Keys \()' <<<"$first" ||
		fail "$where: the first line is not the Seeds and Results borders (or the help's): $first"
	body=$(sed -n 1,37p <<<"$lines")
	bad=$(grep -Ev '(│|╮|╯)$' <<<"$body" || true)
	[ -z "$bad" ] || fail "$where: a body line does not end with a border: $(sed -n 1p <<<"$bad")"
}

T -f /dev/null new-session -d -s hostile -x 120 -y 40 "sleep 30"
remember_socket
T set-option -g set-clipboard on
T set-option -g remain-on-exit off
title0=$(T display-message -p -t hostile '#{pane_title}')
T respawn-pane -k -t hostile "cd '$tmp' && TERM=xterm-256color exec '$tmp/memoria' --graph '$tmp/hostile.jsonl' --out-dir '$tmp'"

esc52='\x1b]52;c;SEFDS0VE\a'

step "the seed list"
wait_text "Thresholds"
wait_text '[ ] H1\r\x1b[2J Ev\u202eent'
wait_text '[ ] H2\u202ecod.exe Data\x1'
wait_text "H0$esc52"
intact "seed list"

step "a tag suggestion, completed and chosen"
keys Tab
text "t"
wait_text "t$esc52 (1)"
intact "tag suggestions"
keys Right Enter
wait_text "[t$esc52]"
wait_text "added tag t$esc52"
intact "tag chips"

step "seed H0: the tree"
keys BTab Space
wait_text "added seed H0$esc52 with R 1 "
wait_text '└─ · H2\u202ecod.exe Data\x1b[2J'
wait_text "done in"
wait_text "tags t$esc52"
intact "tree"

step "explain: the losing parallel edge"
keys Tab Tab Tab
text "e"
wait_text "claimed by H0$esc52"
intact "explain"

step "detail of H0: property keys and values"
wait_text 'k\x1b[2J: v\r\u202ex'
wait_text 'note: zw\u200bx\ufeff\nline2'
intact "detail of H0"

step "detail of H1: its edge's tags"
text "j"
wait_text "edge tags: t$esc52, plain"
intact "detail of H1"

step "detail of H2 and of the loser"
text "j"
wait_text 'H2\u202ecod.exe Data\x1b[2J · depth 2'
intact "detail of H2"
text "j"
wait_text "✗ claimed by H0$esc52"
intact "detail of the loser"

step "help"
text "?"
wait_text "Keys (? or esc to close"
intact "help"
keys Escape
wait_gone_text "Keys (? or esc to close" # a key sent at once after ESC would read as alt+key

step "copy the Cypher of H0 -> H1 -> H2 on purpose: escaped, no raw ESC"
text "k"
wait_text 'H2\u202ecod.exe Data\x1b[2J · depth 2'
text "y"
wait_text "copied Cypher for path"
buf=$(paste_buffer)
grep -Fq ':params {id0: "H0\u001B]52;c;SEFDS0VE\u0007", id1: "H1\r\u001B[2J", id2: "H2\u202Ecod.exe"' <<<"$buf" ||
	fail "the copied Cypher lacks the escaped :params line (got: $buf)"
if LC_ALL=C grep -q "$(printf '\033')" <<<"$buf"; then
	fail "the copied Cypher holds a raw ESC"
fi
bufs=$(T list-buffers)
[ "$(wc -l <<<"$bufs")" -eq 1 ] || fail "more than the one copied buffer: $bufs"
[ "$(T display-message -p -t hostile '#{pane_title}')" = "$title0" ] || fail "the pane title changed"

step "quit"
text "q"
for _ in $(seq 1 100); do
	T has-session -t hostile 2>/dev/null || { echo "tmux_hostile: $steps passed, 0 failed"; exit 0; }
	sleep 0.05
done
fail "q did not quit"
