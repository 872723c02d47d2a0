#!/usr/bin/env bash
# Drives the real Claude Code under tmux against the fake Anthropic API, to
# look at its screens and capture fixtures (testdata/fixtures/claude_code).
#
#   scripts/claude-capture.sh server [RULES.json]   # (re)start the fake API on 127.0.0.1:18080
#   scripts/claude-capture.sh start NAME ROWS COLS [--seed] [--no-key] [-- CLAUDE_ARGS...]
#   scripts/claude-capture.sh keys NAME KEY...      # tmux send-keys, one key per argument
#   scripts/claude-capture.sh type NAME TEXT        # literal text, no Enter
#   scripts/claude-capture.sh show NAME             # print the pane
#   scripts/claude-capture.sh cap NAME FIXTURE      # write FIXTURE.txt and FIXTURE.ansi
#   scripts/claude-capture.sh stop                  # kill the tmux server and the fake API
#
# start gives each session a fresh HOME and a fresh project folder. --seed
# writes a ~/.claude.json with onboarding done, the test API key approved and
# the folder trusted, so the session opens at the prompt. --no-key leaves
# ANTHROPIC_API_KEY out (login screens). Rules default to
# internal/fakeanthropic/testdata/capture_rules.json; SIGHUP reloads them.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TUI_DIR=${PTYWRIGHT_TUI_DIR:-$REPO/.cache/tuis}
WORK=${PTYWRIGHT_CAPTURE_DIR:-${TMPDIR:-/tmp}/ptywright-capture} # outside the repo: claude must not see a git checkout
FIXTURES=$REPO/testdata/fixtures/claude_code
ADDR=${PTYWRIGHT_FAKE_ADDR:-127.0.0.1:18080}
TMUX_CMD=(tmux -L ptywright-capture)

die() {
	echo "claude-capture: $*" >&2
	exit 1
}

cmd_server() {
	local rules=${1:-$REPO/internal/fakeanthropic/testdata/capture_rules.json}
	mkdir -p "$WORK"
	cmd_stop_server
	(cd "$REPO" && go build -o "$WORK/fakeanthropic" ./internal/fakeanthropic/cmd/fakeanthropic)
	"$WORK/fakeanthropic" -addr "$ADDR" -script "$rules" -log "$WORK/requests.log" -bodies \
		>"$WORK/env.sh" 2>"$WORK/server.err" &
	echo $! >"$WORK/server.pid"
	for _ in $(seq 50); do
		[[ -s $WORK/env.sh ]] && break
		sleep 0.1
	done
	[[ -s $WORK/env.sh ]] || die "fake API did not start: $(cat "$WORK/server.err")"
	cat "$WORK/env.sh"
}

cmd_stop_server() {
	if [[ -f $WORK/server.pid ]]; then
		kill "$(cat "$WORK/server.pid")" 2>/dev/null || true
		rm -f "$WORK/server.pid"
	fi
}

seed_home() {
	local home=$1 project=$2 key
	key=$(sed -n 's/^export ANTHROPIC_API_KEY=//p' "$WORK/env.sh")
	cat >"$home/.claude.json" <<JSON
{
  "hasCompletedOnboarding": true,
  "lastOnboardingVersion": "2.1.330",
  "theme": "dark",
  "customApiKeyResponses": {"approved": ["${key: -20}"], "rejected": []},
  "hasSeenAutoDefaultNotice": true,
  "lastReleaseNotesSeen": "2.1.330",
  "projects": {"$project": {"hasTrustDialogAccepted": true, "allowedTools": []}}
}
JSON
}

cmd_start() {
	local name=$1 rows=$2 cols=$3 seed=0 nokey=0
	shift 3
	while (($#)); do
		case $1 in
		--seed) seed=1 ;;
		--no-key) nokey=1 ;;
		--) shift; break ;;
		*) die "start: unknown option $1" ;;
		esac
		shift
	done
	[[ -s $WORK/env.sh ]] || die "run '$0 server' first"
	[[ -x $TUI_DIR/node_modules/.bin/claude ]] || die "run scripts/install-tuis.sh first"
	local home project
	home=$(mktemp -d "$WORK/home.XXXXXX")
	project=$(mktemp -d "$WORK/project.XXXXXX")
	((seed)) && seed_home "$home" "$project"
	local -a env=(PATH=/usr/local/bin:/usr/bin:/bin HOME="$home" TERM=xterm-256color LANG=C.UTF-8
		DISABLE_AUTOUPDATER=1)
	while read -r line; do
		line=${line#export }
		((nokey)) && [[ $line == ANTHROPIC_API_KEY=* ]] && continue
		env+=("$line")
	done <"$WORK/env.sh"
	"${TMUX_CMD[@]}" kill-session -t "$name" 2>/dev/null || true
	"${TMUX_CMD[@]}" -f /dev/null new-session -d -s "$name" -x "$cols" -y "$rows" -c "$project" \
		env -i "${env[@]}" "$TUI_DIR/node_modules/.bin/claude" "$@"
	# Keep the last screen visible after claude exits.
	"${TMUX_CMD[@]}" set-option -t "$name" remain-on-exit on >/dev/null
	echo "session $name: HOME=$home project=$project"
}

cmd_cap() {
	local name=$1 fixture=$2
	mkdir -p "$FIXTURES"
	"${TMUX_CMD[@]}" capture-pane -p -t "$name" >"$FIXTURES/$fixture.txt"
	"${TMUX_CMD[@]}" capture-pane -p -e -t "$name" >"$FIXTURES/$fixture.ansi"
	echo "$FIXTURES/$fixture.txt ($("${TMUX_CMD[@]}" display -p -t "$name" '#{pane_height}x#{pane_width}'))"
}

main() {
	local sub=${1:-}
	shift || true
	case $sub in
	server) cmd_server "$@" ;;
	start) (($# >= 3)) || die "usage: start NAME ROWS COLS [--seed] [--no-key] [-- ARGS]"; cmd_start "$@" ;;
	keys) local n=$1; shift; for k in "$@"; do "${TMUX_CMD[@]}" send-keys -t "$n" "$k"; sleep 0.3; done ;;
	type) "${TMUX_CMD[@]}" send-keys -t "$1" -l "$2" ;;
	show) "${TMUX_CMD[@]}" capture-pane -p -t "$1" ;;
	cap) (($# == 2)) || die "usage: cap NAME FIXTURE"; cmd_cap "$@" ;;
	stop) "${TMUX_CMD[@]}" kill-server 2>/dev/null || true; cmd_stop_server ;;
	*) sed -n '2,20p' "${BASH_SOURCE[0]}"; exit 2 ;;
	esac
}

main "$@"
