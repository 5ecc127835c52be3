# tmux_lib.sh: what the tmux scripts share (source it; it is not run alone).
# Before sourcing, set NAME (the script's name in messages) and SESSION (its
# tmux session). It gives a tmux server of the script's own (tmux -L
# memoria-NAME-PID, so nothing is shared), a temporary directory $tmp with
# the binary built into $tmp/memoria, cleanup on exit, and:
#
#   screen                      the pane's text
#   fail MESSAGE                print the screen, count the steps, exit 1
#   wait_for ERE [SECONDS]      poll the screen until grep -E matches
#   wait_text STRING [SECONDS]  poll until the screen shows the fixed string
#   wait_gone ERE [SECONDS]     poll until the screen no longer matches
#   wait_gone_text STRING [S]   poll until the screen no longer shows the string
#   paste_buffer                tmux's paste buffer once it is set (5 s at most)
#   keys KEY...  text STRING    type into the session
#   step TITLE                  count and announce a step
#
# Every wait polls every 0.05 s up to its limit (10 s by default): no fixed
# sleeps. Call remember_socket after creating the session.
steps=0

command -v tmux >/dev/null 2>&1 || { echo "$NAME: FAIL: tmux is not installed (apt-get install tmux)" >&2; exit 2; }

tmp=$(mktemp -d)
sock="memoria-${NAME#tmux_}-$$"
T() { tmux -L "$sock" "$@"; }
sockpath=""
cleanup() {
	T kill-server >/dev/null 2>&1 || true
	[ -z "$sockpath" ] || rm -f "$sockpath" # tmux 3.3 leaves the socket file behind
	rm -rf "$tmp"
}
trap cleanup EXIT

# remember_socket notes the server's socket file, which cleanup removes.
remember_socket() { sockpath=$(T display-message -p '#{socket_path}'); }

echo "$NAME: building" >&2
go build -o "$tmp/memoria" .

screen() { T capture-pane -p -t "$SESSION" 2>/dev/null || true; }

fail() {
	echo "$NAME: FAIL: $*" >&2
	echo "----- screen -----" >&2
	screen >&2
	echo "------------------" >&2
	echo "$NAME: $((steps > 0 ? steps - 1 : 0)) passed, 1 failed"
	exit 1
}

# poll GREP-FLAGS PATTERN LIMIT WANT: 0 once grep's verdict is WANT (0 match, 1 none).
poll() {
	local flags=$1 pat=$2 limit=$3 want=$4 i=0 got
	while [ "$i" -lt $((limit * 20)) ]; do
		got=1
		if screen | grep "$flags" -- "$pat" >/dev/null; then got=0; fi
		[ "$got" = "$want" ] && return 0
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}

wait_for() { poll -Eq "$1" "${2:-10}" 0 || fail "timed out after ${2:-10}s waiting for /$1/"; }
wait_text() { poll -Fq "$1" "${2:-10}" 0 || fail "timed out after ${2:-10}s waiting for: $1"; }
wait_gone() { poll -Eq "$1" "${2:-10}" 1 || fail "timed out after ${2:-10}s waiting for /$1/ to go away"; }
wait_gone_text() { poll -Fq "$1" "${2:-10}" 1 || fail "timed out after ${2:-10}s waiting for this to go away: $1"; }

paste_buffer() {
	local buf="" i
	for i in $(seq 1 100); do
		buf=$(T show-buffer 2>/dev/null || true)
		[ -n "$buf" ] && break
		sleep 0.05
	done
	printf '%s' "$buf"
}

keys() { T send-keys -t "$SESSION" "$@"; }
text() { T send-keys -t "$SESSION" -l -- "$1"; }
step() { steps=$((steps + 1)); echo "$NAME: $*" >&2; }
