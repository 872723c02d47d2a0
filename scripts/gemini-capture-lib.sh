#!/usr/bin/env bash
# Helpers to drive the real Gemini CLI in tmux against the fake Gemini API
# (internal/fakegemini) and save pane captures as fixtures. Sourced by
# capture-gemini-fixtures.sh; also handy interactively:
#   source scripts/gemini-capture-lib.sh; gm_build; gm_start demo 24 80
#
# Every scenario gets a fresh HOME with .gemini/settings.json selecting the
# API-key auth (written by the fake runner), GEMINI_API_KEY=fake-key-...,
# and GOOGLE_GEMINI_BASE_URL pointing at its own fake server.
set -euo pipefail

GM_REPO=${GM_REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
GM_FIXTURES=${GM_FIXTURES:-$GM_REPO/testdata/fixtures/gemini_cli}
GM_WORK=${GM_WORK:-/var/tmp/ptywright-gemini-capture}
GM_TUI_DIR=${PTYWRIGHT_TUI_DIR:-$GM_REPO/.cache/tuis}
GM_GEMINI=${GM_GEMINI:-$GM_TUI_DIR/node_modules/.bin/gemini}
GM_FAKE=${GM_FAKE:-$GM_WORK/fakegemini}
GM_KEY=${GM_KEY-fake-gemini-key-0000} # set GM_KEY= to leave it unset
# COLORTERM the CLI sees: unset (the default here) makes it warn that true
# colour is not supported, as in a plain xterm-256color; GM_COLORTERM=truecolor
# draws the composer with half-block bars instead.
GM_COLORTERM=${GM_COLORTERM-}

# gm_build builds the fake runner once.
gm_build() {
	mkdir -p "$GM_WORK"
	(cd "$GM_REPO" && go build -o "$GM_FAKE" ./internal/fakegemini/cmd/fakegemini)
}

# gm_fake NAME HOME [fakegemini flags...]: starts a fake server for NAME,
# writing HOME/.gemini/settings.json; sets GM_URL_<NAME>.
gm_fake() {
	local name=$1 home=$2
	shift 2
	: >"$GM_WORK/$name.url"
	"$GM_FAKE" -addr 127.0.0.1:0 -home "$home" -requests "$GM_WORK/$name.requests.jsonl" "$@" \
		>"$GM_WORK/$name.url" 2>"$GM_WORK/$name.fake.log" &
	echo $! >"$GM_WORK/$name.pid"
	local i
	for i in $(seq 50); do
		[[ -s $GM_WORK/$name.url ]] && break
		sleep 0.1
	done
	printf -v "GM_URL_$name" %s "$(head -n1 "$GM_WORK/$name.url")"
}

# gm_home NAME: a fresh HOME with a work directory; sets GM_HOME_<NAME>.
gm_home() {
	local home
	home=$(mktemp -d "$GM_WORK/home.$1.XXXX")
	mkdir -p "$home/work"
	printf -v "GM_HOME_$1" %s "$home"
}

# gm_start NAME ROWS COLS [trusted|untrusted]: fresh HOME, fake server,
# settings, and a tmux session NAME running gemini in $HOME/work. The work
# directory is trusted unless "untrusted" is given (then the CLI opens at
# its folder-trust dialog).
gm_start() {
	local name=$1 rows=$2 cols=$3 trust=${4:-trusted}
	gm_home "$name"
	local home_var=GM_HOME_$name
	local home=${!home_var}
	if [[ $trust == trusted ]]; then
		gm_fake "$name" "$home" -workdir "$home/work"
	else
		gm_fake "$name" "$home"
	fi
	gm_tmux "$name" "$rows" "$cols" "$home"
}

# gm_tmux NAME ROWS COLS HOME: starts gemini in a detached tmux session,
# against NAME's fake (GM_URL_<NAME>, or GM_BASE_URL when set).
gm_tmux() {
	local name=$1 rows=$2 cols=$3 home=$4
	local url_var=GM_URL_$name
	local url=${GM_BASE_URL:-${!url_var}}
	tmux kill-session -t "$name" 2>/dev/null || true
	local key="" colorterm=""
	[[ -n $GM_KEY ]] && key="GEMINI_API_KEY=$GM_KEY"
	[[ -n $GM_COLORTERM ]] && colorterm="COLORTERM=$GM_COLORTERM"
	tmux new-session -d -s "$name" -x "$cols" -y "$rows" -c "$home/work" \
		"env -i PATH=$(dirname "$GM_GEMINI"):/usr/local/bin:/usr/bin:/bin HOME=$home TERM=xterm-256color $colorterm LANG=C.UTF-8 $key GOOGLE_GEMINI_BASE_URL=$url $GM_GEMINI ${GM_ARGS:-}; echo \$? >$GM_WORK/$name.exit; sleep 3600"
}

# gm_stop NAME: ends the tmux session and the scenario's fake server.
gm_stop() {
	local name=$1
	tmux kill-session -t "$name" 2>/dev/null || true
	gm_kill_fake "$name"
}

# gm_kill_fake NAME: stops only the fake server (for connection-refused).
gm_kill_fake() {
	if [[ -f $GM_WORK/$1.pid ]]; then
		kill "$(cat "$GM_WORK/$1.pid")" 2>/dev/null || true
		rm -f "$GM_WORK/$1.pid"
	fi
}

gm_screen() { tmux capture-pane -p -t "$1"; }

# gm_wait NAME REGEX [TIMEOUT_S]: waits until the pane matches REGEX (grep -E).
gm_wait() {
	local name=$1 re=$2 timeout=${3:-40} i
	for ((i = 0; i < timeout * 10; i++)); do
		if gm_screen "$name" | grep -qE -- "$re"; then
			return 0
		fi
		sleep 0.1
	done
	echo "gm_wait: $name: no match for /$re/ after ${timeout}s; screen:" >&2
	gm_screen "$name" >&2
	return 1
}

# gm_settle NAME [MS]: waits until the pane is unchanged for MS (default 700).
gm_settle() {
	local name=$1 ms=${2:-700} prev cur same=0
	prev=$(gm_screen "$name")
	while ((same < ms / 100)); do
		sleep 0.1
		cur=$(gm_screen "$name")
		if [[ $cur == "$prev" ]]; then
			same=$((same + 1))
		else
			same=0
			prev=$cur
		fi
	done
}

# gm_idle NAME [TIMEOUT_S]: waits until the composer shows its placeholder
# with no spinner row (a turn is over), then lets the screen settle.
gm_idle() {
	local name=$1 timeout=${2:-90} i screen
	for ((i = 0; i < timeout * 10; i++)); do
		screen=$(gm_screen "$name")
		if grep -qE -- '^ > +Type your message' <<<"$screen" && ! grep -q -- 'esc to cancel' <<<"$screen"; then
			gm_settle "$name" 1500
			return 0
		fi
		sleep 0.1
	done
	echo "gm_idle: $name: still busy after ${timeout}s; screen:" >&2
	gm_screen "$name" >&2
	return 1
}

gm_keys() {
	local name=$1
	shift
	tmux send-keys -t "$name" "$@"
}
gm_type() { tmux send-keys -t "$1" -l -- "$2"; }

# gm_paste_submit NAME TEXT: the send_prompt intent: a bracketed paste,
# then Enter. The CLI takes an Enter that comes within 40 ms of a paste
# (as it sees them: a busy CLI reads both at once) as a newline; then a
# second Enter submits, as the plugin's retry does.
gm_paste_submit() {
	local i
	tmux set-buffer -b gmpaste -- "$2"
	tmux paste-buffer -p -d -b gmpaste -t "$1"
	sleep 0.2
	tmux send-keys -t "$1" Enter
	for i in $(seq 20); do
		sleep 0.1
		gm_screen "$1" | grep -qE -- '^ > +Type your message|esc to cancel|Allow once' && return 0
	done
	tmux send-keys -t "$1" Enter
}

# gm_cap NAME FILE: saves FILE.txt (plain, every pane row) and FILE.ansi.
gm_cap() {
	local name=$1 file=$2
	mkdir -p "$GM_FIXTURES"
	tmux capture-pane -p -t "$name" >"$GM_FIXTURES/$file.txt"
	tmux capture-pane -p -e -t "$name" >"$GM_FIXTURES/$file.ansi"
	# One line per capture for CAPTURES.md: file, size, title, cursor.
	tmux display -p -t "$name" "$file	#{window_height}x#{window_width}	#{pane_title}	cursor=#{cursor_y},#{cursor_x} visible=#{cursor_flag}" >>"$GM_WORK/captures.tsv"
	echo "captured $file ($(tmux display -p -t "$name" '#{window_width}x#{window_height}'))" >&2
}
