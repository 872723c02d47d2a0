#!/usr/bin/env bash
# Helpers to drive the real Codex CLI in tmux against the fake OpenAI API and
# save pane captures as fixtures. Sourced by capture-codex-fixtures.sh; also
# handy interactively:  source scripts/codex-capture-lib.sh; cx_start demo 24 80
#
# Every scenario gets a fresh HOME (outside /tmp: Codex refuses to create its
# helper binaries under the temp dir), CODEX_HOME=$HOME/.codex with the config
# the fake runner writes, and OPENAI_API_KEY=sk-test-....
set -euo pipefail

CX_REPO=${CX_REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
CX_FIXTURES=${CX_FIXTURES:-$CX_REPO/testdata/fixtures/codex}
CX_WORK=${CX_WORK:-/var/tmp/ptywright-codex-capture}
CX_TUI_DIR=${PTYWRIGHT_TUI_DIR:-$CX_REPO/.cache/tuis}
CX_CODEX=${CX_CODEX:-$CX_TUI_DIR/node_modules/.bin/codex}
CX_FAKE=${CX_FAKE:-$CX_WORK/fakeopenai}
CX_KEY=${CX_KEY-sk-test-0000000000000000} # set CX_KEY= to leave it unset

# cx_build builds the fake runner once.
cx_build() {
	mkdir -p "$CX_WORK"
	(cd "$CX_REPO" && go build -o "$CX_FAKE" ./internal/fakeopenai/cmd/fakeopenai)
}

# cx_start NAME ROWS COLS [fakeopenai flags...]: fresh HOME, fake server,
# config, and a tmux session NAME running codex in $HOME/work.
# Sets CX_HOME_<NAME>, CX_URL_<NAME>; the fake's pid is in $CX_WORK/NAME.pid.
# Extra codex args go in CX_ARGS (default --no-daemon).
cx_start() {
	local name=$1 rows=$2 cols=$3
	shift 3
	local home
	home=$(mktemp -d "$CX_WORK/home.$name.XXXX")
	mkdir -p "$home/work"
	"$CX_FAKE" -addr 127.0.0.1:0 -codex-home "$home/.codex" -workdir "$home/work" \
		-requests "$CX_WORK/$name.requests.jsonl" "$@" >"$CX_WORK/$name.url" 2>"$CX_WORK/$name.fake.log" &
	echo $! >"$CX_WORK/$name.pid"
	local i
	for i in $(seq 50); do
		[[ -s $CX_WORK/$name.url ]] && break
		sleep 0.1
	done
	printf -v "CX_HOME_$name" %s "$home"
	printf -v "CX_URL_$name" %s "$(head -n1 "$CX_WORK/$name.url")"
	cx_tmux "$name" "$rows" "$cols" "$home"
}

# cx_tmux NAME ROWS COLS HOME: starts codex in a detached tmux session.
cx_tmux() {
	local name=$1 rows=$2 cols=$3 home=$4
	tmux kill-session -t "$name" 2>/dev/null || true
	local key=""
	[[ -n $CX_KEY ]] && key="OPENAI_API_KEY=$CX_KEY"
	tmux new-session -d -s "$name" -x "$cols" -y "$rows" -c "$home/work" \
		"env -i PATH=$(dirname "$CX_CODEX"):/usr/local/bin:/usr/bin:/bin HOME=$home CODEX_HOME=$home/.codex TERM=xterm-256color LANG=C.UTF-8 $key $CX_CODEX ${CX_ARGS:---no-daemon}; echo \$? >$CX_WORK/$name.exit; sleep 3600"
}

# cx_stop NAME: ends the tmux session and the scenario's fake server.
cx_stop() {
	local name=$1
	tmux kill-session -t "$name" 2>/dev/null || true
	if [[ -f $CX_WORK/$name.pid ]]; then
		kill "$(cat "$CX_WORK/$name.pid")" 2>/dev/null || true
		rm -f "$CX_WORK/$name.pid"
	fi
}

# cx_kill_fake NAME: stops only the fake server (for connection-refused).
cx_kill_fake() {
	kill "$(cat "$CX_WORK/$1.pid")" 2>/dev/null || true
	rm -f "$CX_WORK/$1.pid"
}

cx_screen() { tmux capture-pane -p -t "$1"; }

# cx_wait NAME REGEX [TIMEOUT_S]: waits until the pane matches REGEX (grep -E).
cx_wait() {
	local name=$1 re=$2 timeout=${3:-20} i
	for ((i = 0; i < timeout * 10; i++)); do
		if cx_screen "$name" | grep -qE -- "$re"; then
			return 0
		fi
		sleep 0.1
	done
	echo "cx_wait: $name: no match for /$re/ after ${timeout}s; screen:" >&2
	cx_screen "$name" >&2
	return 1
}

# cx_settle NAME [MS]: waits until the pane is unchanged for MS (default 700).
cx_settle() {
	local name=$1 ms=${2:-700} prev cur same=0
	prev=$(cx_screen "$name")
	while ((same < ms / 100)); do
		sleep 0.1
		cur=$(cx_screen "$name")
		if [[ $cur == "$prev" ]]; then
			same=$((same + 1))
		else
			same=0
			prev=$cur
		fi
	done
}

cx_keys() {
	local name=$1
	shift
	tmux send-keys -t "$name" "$@"
}
cx_type() { tmux send-keys -t "$1" -l -- "$2"; }

# cx_cap NAME FILE: saves FILE.txt (plain, every pane row) and FILE.ansi.
cx_cap() {
	local name=$1 file=$2
	mkdir -p "$CX_FIXTURES"
	tmux capture-pane -p -t "$name" >"$CX_FIXTURES/$file.txt"
	tmux capture-pane -p -e -t "$name" >"$CX_FIXTURES/$file.ansi"
	# One line per capture for CAPTURES.md: file, size, title, cursor.
	tmux display -p -t "$name" "$file	#{window_height}x#{window_width}	#{pane_title}	cursor=#{cursor_y},#{cursor_x} visible=#{cursor_flag}" >>"$CX_WORK/captures.tsv"
	echo "captured $file ($(tmux display -p -t "$name" '#{window_width}x#{window_height}'))" >&2
}
