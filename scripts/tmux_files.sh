#!/usr/bin/env bash
# tmux_files.sh drives the real memoria binary in a detached tmux session at
# 120x40 on the graphs people keep in files (docs/RETRIEVERS.md, "GraphML
# files" and "GraphRAG's output folder"), as published by the tools:
#
#   1. Microsoft GraphRAG's example output folder (testdata/graphrag/dulce:
#      entities, relationships, communities and text units as parquet),
#      opened with --graph DIR: the status line says the graphrag preset
#      (nodes keyed by title), Activation Energy's tree runs from the seed
#      ALEX MERCER with --weight-scale max, and the question "Jordan Hayes"
#      on the query line (a) finds the entity JORDAN HAYES by its title
#      (exact and token 1).
#   2. LightRAG's GraphML file (testdata/graphml/lightrag-lollms.graphml),
#      opened with --graph FILE: the lightrag preset chosen by its keys, the
#      ids with their literal quotes ("LOLLMS") shown as written, the tree
#      from "LOLLMS", and the question "lollms elf server" finding both of
#      the file's "LOLLMS ELF SERVER" entities (one closes its quote with a
#      backquote, as LightRAG wrote it).
#
# Every check polls capture-pane with a timeout (no fixed sleeps). On failure
# it prints the screen and exits non-zero; the tmux server is always killed.
# Usage: scripts/tmux_files.sh   (from anywhere; needs go and tmux)
set -euo pipefail

cd "$(dirname "$0")/.."
root=$(pwd)

NAME=tmux_files SESSION=files
# shellcheck source=scripts/tmux_lib.sh
. scripts/tmux_lib.sh

quit() {
	text "q"
	for _ in $(seq 1 100); do
		T has-session -t files 2>/dev/null || return 0
		sleep 0.05
	done
	fail "q did not quit"
}

step "GraphRAG's output folder opens under the graphrag preset"
T -f /dev/null new-session -d -s files -x 120 -y 40 \
	"cd '$tmp' && TERM=xterm-256color exec '$tmp/memoria' --graph '$root/testdata/graphrag/dulce' --seed 'ALEX MERCER' --weight-scale max --out-dir '$tmp'"
remember_socket
T set-option -g remain-on-exit off
wait_text 'schema graphrag: id title'

step "Activation Energy's tree runs from ALEX MERCER"
wait_for '▸ ▼ ALEX MERCER .*PERSON'
wait_for 'R=1 · done in [0-9.]+ .s, [0-9]+ paths'
wait_for '├─ . JORDAN HAYES PERSON'

step "the question \"Jordan Hayes\" finds the entity by its title"
text "a"
wait_text 'Ask a question (esc to close)'
text "Jordan Hayes"
wait_for '\[x\] +1  JORDAN HAYES +1 +[0-9.]+ +1 +1 '
keys Escape
wait_gone_text 'Ask a question'
quit

step "LightRAG's GraphML opens under the lightrag preset, ids with their quotes"
T -f /dev/null new-session -d -s files -x 120 -y 40 \
	"cd '$tmp' && TERM=xterm-256color exec '$tmp/memoria' --graph '$root/testdata/graphml/lightrag-lollms.graphml' --seed '\"LOLLMS\"' --weight-scale max --out-dir '$tmp'"
wait_text 'schema lightrag: id entity_id'
wait_for '▸ ▼ "LOLLMS"'
wait_for 'R=1 · done in [0-9.]+ .s, [0-9]+ paths'
wait_for '├─ . "PARISNEO"'

step "the question \"lollms elf server\" finds both of the file's LOLLMS ELF SERVER entities"
text "a"
wait_text 'Ask a question (esc to close)'
text "lollms elf server"
wait_text '2 candidates, 2 ticked'
wait_for '\[x\] +1  "LOLLMS ELF SERVER" '
wait_for '\[x\] +2  "LOLLMS ELF SERVER` '
keys Escape
wait_gone_text 'Ask a question'
quit
echo "tmux_files: $steps passed, 0 failed"
