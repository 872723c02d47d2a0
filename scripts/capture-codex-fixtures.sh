#!/usr/bin/env bash
# Regenerates testdata/fixtures/codex/*.txt|.ansi by driving the real Codex CLI
# in tmux against the fake OpenAI API (internal/fakeopenai), at 24x80 and
# 40x120. Needs tmux, git, go, and codex from scripts/install-codex.sh.
#
#   bash scripts/capture-codex-fixtures.sh            # every scenario, both sizes
#   bash scripts/capture-codex-fixtures.sh tool slow  # some scenarios
#
# Each capture also appends "file, size, terminal title, cursor" to
# $CX_WORK/captures.tsv, from which CAPTURES.md's table was written.
set -euo pipefail
source "$(dirname "$0")/codex-capture-lib.sh"

SIZES=${SIZES:-"24x80 40x120"}

# paste_submit NAME TEXT: the send_prompt intent: a bracketed paste, then Enter.
# (Typed text followed at once by Enter is taken as a paste burst and the
# Enter becomes a newline, so a plain send-keys "text" Enter does not submit.)
paste_submit() {
	tmux set-buffer -b cxpaste -- "$2"
	tmux paste-buffer -p -d -b cxpaste -t "$1"
	tmux send-keys -t "$1" Enter
}

# ready NAME: waits for the idle prompt. The extra second matters after
# start-up: a lone "?" sent within ~1 s of the first paint is swallowed.
ready() {
	cx_wait "$1" 'Ask Codex to do anything' 30
	cx_settle "$1"
	sleep 1
}

# onboarding_enter NAME: Enter on a sign-in screen. Those screens drop an
# Enter that comes within about a second of the screen being drawn.
onboarding_enter() {
	sleep 1.5
	cx_keys "$1" Enter
}

# restart NAME ROWS COLS: a fresh codex in the same HOME (clean screen, same fake).
restart() {
	local home_var=CX_HOME_$1
	cx_tmux "$1" "$2" "$3" "${!home_var}"
}

scn_signin() { # no config at all: the first-run sign-in flow
	local n=si$1 r=$2 c=$3 home
	home=$(mktemp -d "$CX_WORK/home.$n.XXXX")
	mkdir -p "$home/work" "$home/.codex"
	CX_KEY='' cx_tmux "$n" "$r" "$c" "$home"
	cx_wait "$n" 'Press enter to continue'
	cx_settle "$n"
	cx_cap "$n" "signin_$1"
	cx_keys "$n" Enter
	cx_wait "$n" 'Finish signing in via your browser'
	cx_settle "$n"
	cx_cap "$n" "signin_browser_$1"
	cx_keys "$n" Escape
	cx_wait "$n" 'Press enter to continue'
	cx_settle "$n"
	cx_keys "$n" Down
	sleep 0.3
	cx_keys "$n" Enter
	cx_wait "$n" 'failed to request device code'
	cx_settle "$n"
	cx_cap "$n" "signin_device_code_error_$1"
	cx_keys "$n" Down
	cx_wait "$n" '> 3\. Sign in another way'
	cx_settle "$n"
	cx_cap "$n" "signin_option3_selected_$1"
	onboarding_enter "$n"
	cx_wait "$n" 'Use an OpenAI API key'
	cx_settle "$n"
	cx_cap "$n" "signin_other_way_$1"
	onboarding_enter "$n"
	cx_wait "$n" 'Paste or type your API key'
	cx_settle "$n"
	cx_cap "$n" "signin_api_key_entry_$1"
	cx_type "$n" sk-test-0000000000000000
	cx_settle "$n"
	cx_cap "$n" "signin_api_key_typed_$1"
	onboarding_enter "$n"
	cx_wait "$n" 'Ask Codex to do anything' 30
	cx_settle "$n" 1500
	cx_cap "$n" "ready_after_login_$1"
	cx_stop "$n"
}

scn_trust() { # a git repository that is not trusted yet
	local n=tr$1 r=$2 c=$3 home
	home=$(mktemp -d "$CX_WORK/home.$n.XXXX")
	mkdir -p "$home/work"
	git init -q "$home/work"
	"$CX_FAKE" -addr 127.0.0.1:0 -codex-home "$home/.codex" >"$CX_WORK/$n.url" 2>"$CX_WORK/$n.fake.log" &
	echo $! >"$CX_WORK/$n.pid"
	sleep 0.5
	cx_tmux "$n" "$r" "$c" "$home"
	cx_wait "$n" 'Trust this folder'
	cx_settle "$n"
	cx_cap "$n" "trust_$1"
	cx_keys "$n" Escape
	cx_wait "$n" 'Agent command center'
	cx_settle "$n"
	cx_cap "$n" "agent_center_empty_$1"
	cx_keys "$n" n
	cx_wait "$n" 'Trust this folder'
	cx_settle "$n"
	cx_keys "$n" Enter
	ready "$n"
	cx_cap "$n" "ready_after_trust_$1"
	cx_stop "$n"
}

scn_migration() { # gpt-5.5 without the notice: the "Meet GPT-6 Sol" prompt
	local n=mg$1 r=$2 c=$3 home_var
	cx_start "$n" "$r" "$c"
	home_var=CX_HOME_$n
	sed -i '/^\[notice.model_migrations\]/,$d' "${!home_var}/.codex/config.toml"
	restart "$n" "$r" "$c"
	cx_wait "$n" 'Try new model'
	cx_settle "$n"
	cx_cap "$n" "model_migration_$1"
	cx_stop "$n"
}

scn_main() { # the prompt and its local UI: shortcuts, warnings, slash, /model, /status
	local n=mn$1 r=$2 c=$3
	cx_start "$n" "$r" "$c"
	ready "$n"
	cx_cap "$n" "ready_$1"
	cx_keys "$n" '?'
	cx_wait "$n" 'Keyboard shortcuts'
	cx_settle "$n"
	cx_cap "$n" "shortcuts_$1"
	cx_keys "$n" Escape
	ready "$n"
	cx_keys "$n" F2
	cx_wait "$n" 'Warnings · 1 of'
	cx_settle "$n"
	cx_cap "$n" "warnings_overlay_$1"
	cx_keys "$n" Escape
	ready "$n"
	cx_type "$n" 'Tell me the ANSWER'
	cx_settle "$n"
	cx_cap "$n" "typing_$1"
	cx_keys "$n" C-j
	cx_type "$n" 'second line'
	cx_settle "$n"
	cx_cap "$n" "typing_multiline_$1"
	cx_keys "$n" C-c # clears a non-empty composer
	ready "$n"
	cx_keys "$n" /
	cx_wait "$n" '/model +choose what model'
	cx_settle "$n"
	cx_cap "$n" "slash_popup_$1"
	cx_type "$n" mo
	cx_settle "$n"
	cx_cap "$n" "slash_popup_filtered_$1"
	cx_keys "$n" Enter
	cx_wait "$n" 'Select Model and Effort'
	cx_settle "$n"
	cx_cap "$n" "model_picker_$1"
	cx_keys "$n" Enter # the current model is highlighted
	cx_wait "$n" 'Select Reasoning Level'
	cx_settle "$n"
	cx_cap "$n" "model_effort_picker_$1"
	cx_keys "$n" Escape
	cx_wait "$n" 'Select Model and Effort'
	cx_settle "$n"
	cx_keys "$n" Escape
	ready "$n"
	paste_submit "$n" /status
	cx_wait "$n" 'Token usage'
	cx_settle "$n"
	cx_cap "$n" "status_$1"
	restart "$n" "$r" "$c"
	ready "$n"
	paste_submit "$n" 'What is the ANSWER?'
	cx_wait "$n" 'Worked for'
	cx_settle "$n" 1500
	cx_cap "$n" "completed_turn_$1"
	paste_submit "$n" 'Give me a LONG answer'
	cx_wait "$n" 'long-ok'
	cx_settle "$n" 1500
	cx_cap "$n" "completed_long_$1"
	cx_keys "$n" Escape # idle Esc: a hint, then the transcript "backtrack" browser
	cx_wait "$n" 'esc again to edit previous message'
	cx_settle "$n"
	cx_cap "$n" "esc_hint_idle_$1"
	cx_keys "$n" Escape
	cx_wait "$n" 'Browsing( transcript)? · '
	cx_settle "$n"
	cx_cap "$n" "backtrack_browsing_$1"
	cx_keys "$n" Escape
	ready "$n"
	cx_keys "$n" C-c # exits on an empty composer
	sleep 2
	cx_cap "$n" "exited_$1"
	cx_stop "$n"
}

scn_tool() { # shell approval: approve (y), deny (esc), approve always (p)
	local n=tl$1 r=$2 c=$3
	cx_start "$n" "$r" "$c"
	ready "$n"
	paste_submit "$n" 'Use the TOOL now'
	cx_wait "$n" 'Would you like to run the following command'
	cx_settle "$n"
	cx_cap "$n" "approval_exec_$1"
	cx_keys "$n" Down
	cx_settle "$n"
	cx_cap "$n" "approval_exec_option2_$1"
	cx_keys "$n" Up
	cx_settle "$n"
	cx_keys "$n" y
	cx_wait "$n" 'Worked for'
	cx_settle "$n" 1500
	cx_cap "$n" "approved_completed_$1"
	restart "$n" "$r" "$c"
	ready "$n"
	paste_submit "$n" 'Use the TOOL again'
	cx_wait "$n" 'Would you like to run the following command'
	cx_settle "$n"
	cx_keys "$n" Escape
	cx_wait "$n" 'Conversation interrupted'
	cx_settle "$n" 1500
	cx_cap "$n" "denied_$1"
	restart "$n" "$r" "$c"
	ready "$n"
	paste_submit "$n" 'Use the TOOL always'
	cx_wait "$n" 'Would you like to run the following command'
	cx_settle "$n"
	cx_keys "$n" p
	cx_wait "$n" 'Worked for'
	cx_settle "$n" 1500
	cx_cap "$n" "approved_always_completed_$1"
	cx_stop "$n"
}

scn_slow() { # working indicator, streaming, queue, interrupt
	local n=sl$1 r=$2 c=$3
	cx_start "$n" "$r" "$c"
	ready "$n"
	paste_submit "$n" 'Please be SLOW'
	cx_wait "$n" 'Working \([0-9]+s • esc to interrupt\)'
	sleep 1.2
	cx_cap "$n" "working_$1"
	tmux set-buffer -b cxpaste -- 'then the ANSWER'
	tmux paste-buffer -p -d -b cxpaste -t "$n"
	sleep 0.5
	cx_cap "$n" "working_typing_$1"
	cx_keys "$n" Tab
	cx_wait "$n" 'Queued follow-up'
	sleep 0.5
	cx_cap "$n" "working_queued_$1"
	cx_wait "$n" 'slow stream chunk\. slow' 20
	sleep 1
	cx_cap "$n" "streaming_$1"
	cx_keys "$n" Escape
	cx_wait "$n" 'Conversation interrupted'
	cx_settle "$n" 1500
	cx_cap "$n" "interrupted_$1"
	cx_stop "$n"
}

scn_errors() { # error banners, one fresh screen each
	local n=er$1 r=$2 c=$3 e
	cx_start "$n" "$r" "$c"
	for e in ERR429:error_429 ERR401:error_401 ERR500:error_500 FAILED:error_stream_failed; do
		restart "$n" "$r" "$c"
		ready "$n"
		paste_submit "$n" "Trigger ${e%%:*} please"
		cx_wait "$n" '^■ ' 30
		cx_settle "$n" 1500
		cx_cap "$n" "${e#*:}_$1"
	done
	cx_stop "$n"
}

scn_retry() { # request retries on: the reconnecting status during back-off
	local n=rt$1 r=$2 c=$3
	cx_start "$n" "$r" "$c" -retries 3
	ready "$n"
	paste_submit "$n" 'Trigger ERR500 please'
	cx_wait "$n" 'Reconnecting\.\.\. [0-9]/3' 30
	sleep 0.5
	cx_cap "$n" "reconnecting_retry_$1"
	cx_keys "$n" Escape
	cx_stop "$n"
}

scn_refused() { # the provider's port is dead: Codex waits for the network
	local n=rf$1 r=$2 c=$3
	cx_start "$n" "$r" "$c"
	ready "$n"
	cx_kill_fake "$n"
	paste_submit "$n" 'What is the ANSWER?'
	cx_wait "$n" 'Reconnecting\.\.\. waiting for network' 30
	sleep 2.5
	cx_cap "$n" "reconnecting_refused_$1"
	cx_stop "$n"
}

main() {
	command -v tmux >/dev/null || {
		echo "tmux is required" >&2
		exit 1
	}
	[[ -x $CX_CODEX ]] || {
		echo "codex not found at $CX_CODEX; run scripts/install-codex.sh" >&2
		exit 1
	}
	cx_build
	local scenarios=("$@") size
	if ((${#scenarios[@]} == 0)); then
		scenarios=(signin trust migration main tool slow errors retry refused)
	fi
	for size in $SIZES; do
		local rows=${size%x*} cols=${size#*x}
		for s in "${scenarios[@]}"; do
			echo "== $s $size" >&2
			"scn_$s" "$size" "$rows" "$cols"
		done
	done
}

main "$@"
