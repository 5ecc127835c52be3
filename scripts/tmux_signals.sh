#!/usr/bin/env bash
# tmux_signals.sh: signals and panics end the real memoria explorer with the
# terminal restored. In a detached tmux server of its own (tmux -L), it
#
#   1. starts the explorer on the embedded demo graph RUNS times (default 20)
#      for each of SIGINT, SIGTERM and SIGHUP, waits until it is drawn (the
#      alternate screen and mouse reporting on, the cursor hidden), sends the
#      signal to the memoria process with kill, and checks that the process
#      is gone within a second, exited 130, 143 or 129 (docs/CLI.md, "Exit
#      codes") having printed "memoria: interrupted" / "terminated (SIGTERM)"
#      / "hung up (SIGHUP)", and left the terminal restored: tmux's
#      #{alternate_on} and #{mouse_any_flag} 0, #{cursor_flag} 1, and the
#      tty back in canonical mode with echo on (stty, run in the pane after
#      memoria exited);
#   2. builds memoria with -tags memoria_testhooks (tui/testhooks.go: F12
#      panics in Update, F11 in View), forces each panic, and checks the same
#      restore, exit code 1 and the panic's message on the screen;
#   3. with that build, blocks the event loop for good (F10) and checks that
#      SIGTERM still ends memoria within a second, exit 143, the terminal
#      restored by main's fallback (main.go, grace).
#
# Each run is a pane running wrap.sh (written below): it starts memoria with
# its pid in a file, then prints EXIT=<code> TTY=<stty flags> on the same
# terminal. Every wait polls with a limit (no fixed sleeps). On failure it
# prints the screen and exits non-zero; the tmux server is always killed.
# Usage: scripts/tmux_signals.sh [RUNS]   (from anywhere; needs go and tmux)
set -euo pipefail
runs=${1:-20}

cd "$(dirname "$0")/.."

if ! command -v tmux >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "tmux_signals: installing tmux" >&2
		apt-get update -qq >/dev/null && apt-get install -y -qq tmux >/dev/null
	fi
fi
command -v tmux >/dev/null 2>&1 || { echo "tmux_signals: FAIL: tmux is not installed (apt-get install tmux)" >&2; exit 2; }

tmp=$(mktemp -d)
sock="memoria-signals-$$"
T() { tmux -L "$sock" "$@"; }
cleanup() {
	T kill-server >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT

echo "tmux_signals: building" >&2
go build -o "$tmp/memoria" .
go build -tags memoria_testhooks -o "$tmp/memoria-hooks" .

# A session that lives as long as the script: the server never runs out of
# sessions between runs (it would exit, racing the next run's start).
T -f /dev/null new-session -d -s keep "exec sleep 3600"

cat >"$tmp/wrap.sh" <<'EOF'
#!/bin/sh
# wrap.sh PIDFILE COMMAND...: run COMMAND (its pid in PIDFILE), then report
# its exit code and the tty's echo and icanon flags on the same terminal.
pidfile=$1
shift
sh -c 'echo $$ >"$0.tmp" && mv "$0.tmp" "$0" && exec "$@"' "$pidfile" "$@"
code=$?
flags=$(stty -a | tr ' ;' '\n\n' | grep -x -e '-\{0,1\}icanon' -e '-\{0,1\}echo' | sort | tr '\n' ' ')
printf 'EXIT=%s TTY=%s\n' "$code" "$flags"
exec sleep 600
EOF
chmod +x "$tmp/wrap.sh"

session=""
passed=0
screen() { T capture-pane -p -t "$session" 2>/dev/null || true; }
flags() { T display-message -p -t "$session" '#{alternate_on} #{mouse_any_flag} #{cursor_flag}' 2>/dev/null || true; }

fail() {
	echo "tmux_signals: FAIL: $*" >&2
	echo "----- screen -----" >&2
	screen >&2
	echo "------------------" >&2
	echo "tmux_signals: $passed passed, 1 failed"
	exit 1
}

now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }

# wait_for REGEX [SECONDS]: poll the screen until grep -E matches.
wait_for() {
	local re=$1 limit=${2:-10} end
	end=$(($(now_ms) + limit * 1000))
	while [ "$(now_ms)" -lt "$end" ]; do
		screen | grep -Eq -- "$re" && return 0
		sleep 0.02
	done
	fail "timed out after ${limit}s waiting for /$re/"
}

# wait_flags WANT [SECONDS]: poll tmux's "alternate mouse cursor" flags.
wait_flags() {
	local want=$1 limit=${2:-10} end
	end=$(($(now_ms) + limit * 1000))
	while [ "$(now_ms)" -lt "$end" ]; do
		[ "$(flags)" = "$want" ] && return 0
		sleep 0.02
	done
	fail "tmux flags (alternate_on mouse_any_flag cursor_flag) are '$(flags)', want '$want'"
}

# start NAME BINARY: a fresh pane running BINARY on the demo graph, drawn.
start() {
	session=$1
	rm -f "$tmp/pid"
	T new-session -d -s "$session" -x 120 -y 40 \
		"cd '$tmp' && TERM=xterm-256color exec '$tmp/wrap.sh' '$tmp/pid' '$2' --out-dir '$tmp'"
	wait_for 'Thresholds'
	wait_for 'N2006 UserRequest'
	# Drawn in the alternate screen with the mouse grabbed, cursor hidden:
	# what the signal must undo.
	wait_flags "1 1 0"
	[ -s "$tmp/pid" ] || fail "no pid file"
	pid=$(cat "$tmp/pid")
}

# restored CODE MESSAGE: memoria exited CODE having printed MESSAGE, with
# the terminal as it was before.
restored() {
	local code=$1 msg=$2
	wait_for 'EXIT=[0-9]+ TTY=' 5
	screen | grep -q "EXIT=$code TTY=" || fail "exit code is not $code: $(screen | grep -o 'EXIT=[0-9]*')"
	screen | grep -q "EXIT=$code TTY=echo icanon *$" || fail "tty not restored (want echo icanon): $(screen | grep -o 'TTY=.*')"
	screen | grep -Fq -- "$msg" || fail "no '$msg' on the screen"
	wait_flags "0 0 1" 1
}

stop() { T kill-session -t "$session" >/dev/null 2>&1 || true; }

for sig in INT TERM HUP; do
	case $sig in
	INT) code=130 msg="memoria: interrupted" ;;
	TERM) code=143 msg="memoria: terminated (SIGTERM)" ;;
	HUP) code=129 msg="memoria: hung up (SIGHUP)" ;;
	esac
	slowest=0
	for i in $(seq 1 "$runs"); do
		start "$sig-$i" "$tmp/memoria"
		t0=$(now_ms)
		kill -s "$sig" "$pid"
		# Gone within a second (main's grace is 0.75 s: see main.go).
		while kill -0 "$pid" 2>/dev/null; do
			[ $(($(now_ms) - t0)) -le 1000 ] || fail "SIG$sig run $i: memoria (pid $pid) still running after 1 s"
			sleep 0.01
		done
		took=$(($(now_ms) - t0))
		[ "$took" -gt "$slowest" ] && slowest=$took
		restored "$code" "$msg"
		stop
		passed=$((passed + 1))
	done
	echo "tmux_signals: SIG$sig x$runs: exit $code, terminal restored (slowest exit ${slowest} ms)" >&2
done

for hook in F12:Update F11:View; do
	key=${hook%%:*} where=${hook#*:}
	start "panic-$where" "$tmp/memoria-hooks"
	T send-keys -t "$session" "$key"
	restored 1 "memoria: tui: internal error: forced panic in $where"
	stop
	passed=$((passed + 1))
	echo "tmux_signals: a panic in $where: exit 1, message shown, terminal restored" >&2
done

# A hung event loop (F10 blocks Update for good): the signal cannot end
# the program the ordinary way, so main's fallback must restore the
# terminal and exit after its grace (0.75 s), still within a second.
start "hung" "$tmp/memoria-hooks"
T send-keys -t "$session" F10
wait_for 'testhook: Update blocked'
t0=$(now_ms)
kill -s TERM "$pid"
while kill -0 "$pid" 2>/dev/null; do
	[ $(($(now_ms) - t0)) -le 1000 ] || fail "hung explorer (pid $pid) still running 1 s after SIGTERM"
	sleep 0.01
done
restored 143 "memoria: terminated (SIGTERM) (did not stop within 750ms; exiting)"
stop
passed=$((passed + 1))
echo "tmux_signals: a hung explorer: SIGTERM ends it after the grace, exit 143, terminal restored" >&2

echo "tmux_signals: $passed passed, 0 failed"
