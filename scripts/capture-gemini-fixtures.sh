#!/usr/bin/env bash
# Regenerates testdata/fixtures/gemini_cli/*.txt|.ansi by driving the real
# Gemini CLI in tmux against the fake Gemini API (internal/fakegemini), at
# 24x80 and 40x120. Needs tmux, go, and gemini from scripts/install-tuis.sh.
#
#   bash scripts/capture-gemini-fixtures.sh             # every scenario, both sizes
#   bash scripts/capture-gemini-fixtures.sh tool slow   # some scenarios
#
# Each capture also appends "file, size, terminal title, cursor" to
# $GM_WORK/captures.tsv, from which CAPTURES.md's table was written.
set -euo pipefail
source "$(dirname "$0")/gemini-capture-lib.sh"

SIZES=${SIZES:-"24x80 40x120"}

# ready NAME: waits for the idle composer and lets it settle.
ready() {
	gm_wait "$1" 'Type your message or @path/to/file' 60
	gm_settle "$1"
	sleep 1
}

# turn_done NAME TEXT: waits until TEXT shows and the CLI is idle again.
turn_done() {
	gm_wait "$1" "$2" 60
	gm_idle "$1"
}

scn_trust() { # an untrusted folder: the trust dialog, the restart, the prompt
	local n=tr$1 r=$2 c=$3
	gm_start "$n" "$r" "$c" untrusted
	gm_wait "$n" 'Do you trust the files in this folder' 60
	gm_settle "$n"
	gm_cap "$n" "trust_$1"
	gm_keys "$n" Down
	gm_wait "$n" '● 2\. Trust parent folder'
	gm_settle "$n"
	gm_cap "$n" "trust_option2_$1"
	gm_keys "$n" Up
	gm_wait "$n" '● 1\. Trust folder'
	gm_settle "$n"
	gm_keys "$n" Enter
	gm_wait "$n" 'Gemini CLI is restarting'
	gm_cap "$n" "trust_restarting_$1"
	ready "$n"
	gm_cap "$n" "ready_after_trust_$1"
	gm_stop "$n"
}

scn_untrusted() { # "Don't trust": the CLI goes on in an untrusted folder
	local n=ut$1 r=$2 c=$3
	gm_start "$n" "$r" "$c" untrusted
	gm_wait "$n" 'Do you trust the files in this folder' 60
	gm_settle "$n"
	gm_keys "$n" 3
	sleep 1
	gm_settle "$n"
	gm_cap "$n" "trust_denied_$1"
	gm_stop "$n"
}

scn_main() { # the composer and its local UI, a turn, the exit
	local n=mn$1 r=$2 c=$3
	gm_start "$n" "$r" "$c"
	gm_wait "$n" '▝▜▄|Gemini CLI v|Type your message'
	gm_cap "$n" "first_frame_$1"
	ready "$n"
	gm_cap "$n" "ready_$1"
	gm_type "$n" 'Tell me the ANSWER'
	gm_settle "$n"
	gm_cap "$n" "typing_$1"
	gm_keys "$n" C-u
	gm_settle "$n"
	tmux set-buffer -b gmpaste -- $'first line of a draft\nsecond line of a draft'
	tmux paste-buffer -p -d -b gmpaste -t "$n"
	gm_settle "$n"
	gm_cap "$n" "typing_multiline_$1"
	gm_keys "$n" Escape
	sleep 0.3
	gm_keys "$n" Escape
	ready "$n"
	gm_keys "$n" C-u
	gm_keys "$n" '?'
	gm_settle "$n"
	gm_cap "$n" "shortcuts_$1"
	gm_keys "$n" BSpace
	ready "$n"
	gm_keys "$n" /
	gm_settle "$n"
	gm_cap "$n" "slash_popup_$1"
	gm_type "$n" he
	gm_settle "$n"
	gm_cap "$n" "slash_filtered_$1"
	gm_keys "$n" C-u
	ready "$n"
	gm_paste_submit "$n" /help
	gm_settle "$n" 1500
	gm_cap "$n" "help_$1"
	gm_paste_submit "$n" /model
	gm_settle "$n" 1500
	gm_cap "$n" "model_dialog_$1"
	gm_keys "$n" Escape
	ready "$n"
	gm_paste_submit "$n" 'What is the ANSWER?'
	turn_done "$n" 'tool-ok|42<<<END'
	gm_cap "$n" "completed_turn_$1"
	gm_paste_submit "$n" 'Show me MARKDOWN'
	turn_done "$n" 'md-ok'
	gm_cap "$n" "completed_markdown_$1"
	gm_paste_submit "$n" 'Show me FAKEDIALOG'
	turn_done "$n" 'quoted<<<END'
	gm_cap "$n" "quoted_dialog_$1"
	gm_paste_submit "$n" 'Give me a LONG answer'
	turn_done "$n" 'long-ok'
	gm_cap "$n" "completed_long_$1"
	gm_paste_submit "$n" /stats
	gm_settle "$n" 1500
	gm_cap "$n" "stats_$1"
	gm_keys "$n" C-c
	sleep 0.5
	gm_cap "$n" "ctrl_c_once_$1"
	gm_keys "$n" C-c
	sleep 3
	gm_settle "$n"
	gm_cap "$n" "exited_$1"
	gm_stop "$n"
}

scn_tool() { # confirmations: shell (approved, denied, failing), write_file
	local n=tl$1 r=$2 c=$3
	gm_start "$n" "$r" "$c"
	ready "$n"
	gm_paste_submit "$n" 'Use the TOOL now'
	gm_wait "$n" 'Allow once'
	gm_settle "$n"
	gm_cap "$n" "approval_shell_$1"
	gm_keys "$n" Down
	gm_wait "$n" '● 2\. Allow for this session'
	gm_settle "$n"
	gm_cap "$n" "approval_shell_option2_$1"
	gm_keys "$n" Up
	gm_wait "$n" '● 1\. Allow once'
	gm_settle "$n"
	gm_keys "$n" Enter
	turn_done "$n" 'tool-ok'
	gm_cap "$n" "completed_tool_$1"
	gm_paste_submit "$n" 'DENYME please'
	gm_wait "$n" 'Allow once'
	gm_settle "$n"
	gm_keys "$n" Escape
	gm_wait "$n" 'Request cancelled'
	gm_settle "$n"
	gm_cap "$n" "denied_tool_$1"
	gm_paste_submit "$n" 'Run FAILCMD'
	gm_wait "$n" 'Allow once'
	gm_settle "$n"
	gm_keys "$n" Enter
	turn_done "$n" 'fail-ok'
	gm_cap "$n" "completed_failing_cmd_$1"
	gm_paste_submit "$n" 'Please WRITEFILE'
	gm_wait "$n" 'Allow once|Apply this change'
	gm_settle "$n"
	gm_cap "$n" "approval_write_$1"
	gm_keys "$n" Escape
	gm_wait "$n" 'Request cancelled'
	gm_settle "$n"
	gm_stop "$n"
}

scn_slow() { # a slow stream: thinking, streaming, cancelled
	local n=sl$1 r=$2 c=$3
	gm_start "$n" "$r" "$c"
	ready "$n"
	gm_paste_submit "$n" 'Please be SLOW'
	gm_wait "$n" 'esc to cancel'
	sleep 1.5
	gm_cap "$n" "thinking_$1"
	gm_wait "$n" 'slow stream chunk' 30
	sleep 1
	gm_cap "$n" "streaming_$1"
	gm_keys "$n" Escape
	gm_wait "$n" 'Request cancelled'
	gm_settle "$n"
	gm_cap "$n" "cancelled_$1"
	gm_stop "$n"
}

scn_errors() { # API errors: 401 ends the turn; 5xx, 503, a cut stream, a refused connection are retried
	local n=er$1 r=$2 c=$3
	gm_start "$n" "$r" "$c"
	ready "$n"
	gm_paste_submit "$n" "Now ERR401 please"
	sleep 1
	gm_idle "$n"
	gm_cap "$n" "error_err401_$1"
	gm_paste_submit "$n" "Now CUTOFF please"
	sleep 1
	gm_idle "$n"
	gm_cap "$n" "error_cut_stream_$1"
	# The CLI retries the others silently, backing off, for minutes (its
	# model policy: 3 attempts, then 10 on the fallback model): the screen
	# is a turn still thinking. Each is captured after 8 s, then cancelled.
	local word
	for word in ERR500 OVERLOADED ERR429; do
		gm_paste_submit "$n" "Now $word please"
		sleep 8
		gm_cap "$n" "retrying_$(echo "$word" | tr 'A-Z' 'a-z')_$1"
		gm_keys "$n" Escape
		gm_idle "$n"
	done
	gm_cap "$n" "cancelled_retry_$1"
	gm_kill_fake "$n"
	gm_paste_submit "$n" 'What is the ANSWER?'
	sleep 8
	gm_cap "$n" "retrying_refused_$1"
	gm_stop "$n"
}

scn_retry() { # FLAKY: two 500s (retried silently), then the answer
	local n=rt$1 r=$2 c=$3
	gm_start "$n" "$r" "$c"
	ready "$n"
	gm_paste_submit "$n" 'Answer FLAKY'
	turn_done "$n" 'flaky-ok'
	gm_cap "$n" "completed_after_retries_$1"
	gm_stop "$n"
}

scn_loop() { # an answer that repeats itself: the loop-detection dialog
	local n=lp$1 r=$2 c=$3
	gm_start "$n" "$r" "$c"
	ready "$n"
	gm_paste_submit "$n" 'Be LOOPY'
	gm_wait "$n" 'A potential loop was detected' 60
	gm_settle "$n"
	gm_cap "$n" "loop_detected_$1"
	gm_keys "$n" Enter
	gm_idle "$n"
	gm_cap "$n" "after_loop_detected_$1"
	gm_stop "$n"
}

scn_truecolor() { # COLORTERM=truecolor: the composer between half-block bars
	local n=tc$1 r=$2 c=$3
	GM_COLORTERM=truecolor gm_start "$n" "$r" "$c"
	ready "$n"
	gm_cap "$n" "ready_truecolor_$1"
	gm_paste_submit "$n" 'What is the ANSWER?'
	turn_done "$n" '42<<<END'
	gm_cap "$n" "completed_turn_truecolor_$1"
	gm_stop "$n"
}

main() {
	command -v tmux >/dev/null || { echo "capture-gemini-fixtures: tmux is needed" >&2; exit 1; }
	[[ -x $GM_GEMINI ]] || { echo "capture-gemini-fixtures: no gemini at $GM_GEMINI (run scripts/install-tuis.sh)" >&2; exit 1; }
	gm_build
	local scenarios=("$@")
	[[ ${#scenarios[@]} -gt 0 ]] || scenarios=(trust untrusted main tool slow errors retry loop truecolor)
	local size s
	for size in $SIZES; do
		local rows=${size%x*} cols=${size#*x}
		for s in "${scenarios[@]}"; do
			"scn_$s" "${rows}x${cols}" "$rows" "$cols"
		done
	done
}

main "$@"
