package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"ptywright"
)

const completionsSynopsis = "completions bash|zsh|fish"

const completionsDetails = `Prints a completion script for subcommands and their flags. To use it:

  bash: source <(ptywright completions bash)
        or save it as ~/.local/share/bash-completion/completions/ptywright
  zsh:  ptywright completions zsh > "${fpath[1]}/_ptywright"
        or source <(ptywright completions zsh) after compinit
  fish: ptywright completions fish > ~/.config/fish/completions/ptywright.fish
`

// completionScripts are keyed by shell. A test checks that each names every
// subcommand and every flag the commands accept.
var completionScripts = map[string]string{
	"bash": bashCompletion,
	"zsh":  zshCompletion,
	"fish": fishCompletion,
}

func completionsCommand(args []string, stdout io.Writer) error {
	fs := newFlagSet("completions")
	if help, err := parseFlags(fs, args, stdout); help || err != nil {
		return err
	}
	shells := make([]string, 0, len(completionScripts))
	for sh := range completionScripts {
		shells = append(shells, sh)
	}
	sort.Strings(shells)
	switch fs.NArg() {
	case 0:
		return usagef("completions", "shell required: one of %s", strings.Join(shells, ", "))
	case 1:
	default:
		return usagef("completions", "unexpected argument %q", fs.Arg(1))
	}
	script, ok := completionScripts[fs.Arg(0)]
	if !ok {
		return usagef("completions", "unknown shell %q: want one of %s", fs.Arg(0), strings.Join(shells, ", "))
	}
	script = withKeyNames(script)
	_, err := io.WriteString(stdout, script)
	if err != nil {
		return fmt.Errorf("completions: %w", err)
	}
	return nil
}

// withKeyNames puts the key names "send --key" takes where a script says
// @KEYS@.
func withKeyNames(script string) string {
	keys := ptywright.Keys()
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = string(k)
	}
	return strings.ReplaceAll(script, "@KEYS@", strings.Join(names, " "))
}

const bashCompletion = `# bash completion for ptywright.
# Load with: source <(ptywright completions bash)

# _ptywright_cmdline completes a command line of its own after the "--" at
# or after word $1, and fails when there is none.
_ptywright_cmdline() {
	local j
	for ((j = $1; j < COMP_CWORD; j++)); do
		if [[ ${COMP_WORDS[j]} == -- ]]; then
			if declare -F _command_offset >/dev/null; then
				_command_offset $((j + 1))
			elif ((COMP_CWORD == j + 1)); then
				COMPREPLY=($(compgen -c -- "$cur" | sort -u))
			else
				compopt -o filenames 2>/dev/null
				COMPREPLY=($(compgen -f -- "$cur"))
			fi
			return 0
		fi
	done
	return 1
}

_ptywright() {
	local cur=${COMP_WORDS[COMP_CWORD]}
	local prev=${COMP_WORDS[COMP_CWORD-1]}
	local cmd="" i
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*)
			cmd=${COMP_WORDS[i]}
			break
			;;
		esac
	done

	case $cmd in
	"")
		COMPREPLY=($(compgen -W "run serve mcp snapshot start send wait list close attach adapter completions version help --help --version" -- "$cur"))
		;;
	run)
		_ptywright_cmdline $((i + 1)) && return
		case $prev in
		--rows | -rows | --cols | -cols) return ;;
		--record | -record)
			compopt -o filenames 2>/dev/null
			COMPREPLY=($(compgen -f -- "$cur"))
			return
			;;
		esac
		COMPREPLY=($(compgen -W "--rows --cols --record --help --" -- "$cur"))
		;;
	serve)
		case $prev in
		--socket | -socket)
			compopt -o filenames 2>/dev/null
			COMPREPLY=($(compgen -f -- "$cur"))
			return
			;;
		--plugin | -plugin)
			compopt -o filenames 2>/dev/null
			COMPREPLY=($(compgen -f -X '!*.toml' -- "$cur") $(compgen -d -- "$cur"))
			return
			;;
		--framing | -framing)
			COMPREPLY=($(compgen -W "ndjson lsp" -- "$cur"))
			return
			;;
		--engine | -engine)
			COMPREPLY=($(compgen -W "vtcore xvt" -- "$cur"))
			return
			;;
		--log-level | -log-level)
			COMPREPLY=($(compgen -W "debug info warn error" -- "$cur"))
			return
			;;
		--max-sessions | -max-sessions | --max-memory | -max-memory | --max-cells | -max-cells)
			return
			;;
		--audit | -audit | --policy | -policy)
			compopt -o filenames 2>/dev/null
			COMPREPLY=($(compgen -f -- "$cur"))
			return
			;;
		esac
		COMPREPLY=($(compgen -W "--stdio --socket --framing --plugin --allow-plugin-load --engine --audit --policy --max-sessions --max-memory --max-cells --log-level --help" -- "$cur"))
		;;
	mcp)
		case $prev in
		--plugin | -plugin)
			compopt -o filenames 2>/dev/null
			COMPREPLY=($(compgen -f -X '!*.toml' -- "$cur") $(compgen -d -- "$cur"))
			return
			;;
		--log-level | -log-level)
			COMPREPLY=($(compgen -W "debug info warn error" -- "$cur"))
			return
			;;
		--max-sessions | -max-sessions | --max-memory | -max-memory | --max-cells | -max-cells)
			return
			;;
		--audit | -audit | --policy | -policy)
			compopt -o filenames 2>/dev/null
			COMPREPLY=($(compgen -f -- "$cur"))
			return
			;;
		esac
		COMPREPLY=($(compgen -W "--plugin --audit --policy --max-sessions --max-memory --max-cells --log-level --help" -- "$cur"))
		;;
	snapshot)
		case $prev in
		--socket | -socket)
			compopt -o filenames 2>/dev/null
			COMPREPLY=($(compgen -f -- "$cur"))
			return
			;;
		--session | -session | --adapter | -adapter) return ;;
		esac
		COMPREPLY=($(compgen -W "--socket --json --session --adapter --svg --cells --explain --help" -- "$cur"))
		;;
	start | send | wait | list | close | attach | adapter)
		local sub=$cmd k
		if [[ $cmd == adapter ]]; then
			sub=""
			for ((k = i + 1; k < COMP_CWORD; k++)); do
				case ${COMP_WORDS[k]} in
				-*) ;;
				*)
					sub=adapter-${COMP_WORDS[k]}
					break
					;;
				esac
			done
		fi
		case $sub in
		start | adapter-start) _ptywright_cmdline $((i + 1)) && return ;;
		esac
		case $prev in
		--socket | -socket | --cwd | -cwd)
			compopt -o filenames 2>/dev/null
			COMPREPLY=($(compgen -f -- "$cur"))
			return
			;;
		--key | -key)
			COMPREPLY=($(compgen -W "@KEYS@" -- "$cur"))
			return
			;;
		--rows | -rows | --cols | -cols | --env | -env | --text | -text | --paste | -paste | --regex | -regex | --stable | -stable | --after | -after | --timeout | -timeout | --param | -param | --params | -params | --detach-key | -detach-key) return ;;
		esac
		local flags="--socket --json --help"
		case $sub in
		start) flags+=" --rows --cols --env --cwd --" ;;
		send) flags+=" --text --key --paste --keys" ;;
		wait) flags+=" --text --regex --exited --stable --after --timeout" ;;
		attach) flags="--socket --control --detach-key --help" ;;
		"") flags="start send turn state close --help" ;;
		adapter-start) flags+=" --rows --cols --env --cwd --" ;;
		adapter-send | adapter-turn) flags+=" --param --params --timeout" ;;
		esac
		COMPREPLY=($(compgen -W "$flags" -- "$cur"))
		;;
	completions)
		COMPREPLY=($(compgen -W "bash zsh fish --help" -- "$cur"))
		;;
	version)
		COMPREPLY=($(compgen -W "--help" -- "$cur"))
		;;
	help)
		COMPREPLY=($(compgen -W "run serve mcp snapshot start send wait list close attach adapter completions version" -- "$cur"))
		;;
	esac
}

complete -F _ptywright ptywright
`

const zshCompletion = `#compdef ptywright
# zsh completion for ptywright.
# Save as _ptywright in a directory on $fpath, or source it after compinit.

_ptywright() {
	local curcontext="$curcontext" state line ret=1
	typeset -A opt_args
	local -a commands
	commands=(
		'run:run a command on a PTY, passing its terminal through live'
		'serve:serve the JSON-RPC automation API'
		'mcp:serve the Model Context Protocol over stdio'
		'snapshot:print the screen of a served session as text, JSON or SVG'
		'start:start a program on a served session'
		'send:type text and keys into a served session'
		'wait:wait until a served session shows a text or a match'
		'list:list the sessions of a server'
		'close:close a served session'
		'attach:show a served session live in this terminal'
		'adapter:drive a served TUI through a plugin'
		'completions:print a shell completion script'
		'version:print the version'
		'help:show help for a command'
	)

	# The flags every client command takes.
	local -a client
	client=(
		'--socket=[connect to the server socket]:socket path:_files'
		'--json[print the JSON-RPC result as it came]'
		'(- *)'{-h,--help}'[show help]'
	)

	_arguments -C \
		'(- *)'{-h,--help}'[show help]' \
		'(- *)--version[print the version]' \
		'1: :->command' \
		'*:: :->args' && ret=0

	case $state in
	command)
		_describe -t commands 'ptywright command' commands && ret=0
		;;
	args)
		curcontext="${curcontext%:*:*}:ptywright-$line[1]:"
		case $line[1] in
		run)
			# After "--" the rest is a command line of its own.
			local dashdash=${words[(i)--]}
			if ((dashdash < CURRENT)); then
				shift $dashdash words
				((CURRENT -= dashdash))
				_normal && ret=0
			else
				_arguments \
					'--rows=[terminal height in rows]:rows: ' \
					'--cols=[terminal width in columns]:columns: ' \
					'--record=[record the session as an asciicast file]:recording:_files' \
					'(- *)'{-h,--help}'[show help]' && ret=0
			fi
			;;
		serve)
			_arguments \
				'(--socket)--stdio[serve one client over stdin/stdout]' \
				'(--stdio)--socket=[serve on a local socket or named pipe]:socket path:_files' \
				'--framing=[message framing]:framing:(ndjson lsp)' \
				'*--plugin=[load a plugin manifest]:manifest:_files -g "*.toml"' \
				'--allow-plugin-load[let clients load and unload plugins]' \
				'--engine=[terminal emulator of new sessions]:engine:(vtcore xvt)' \
				'--audit=[append every dialog answered to a file]:audit log:_files' \
				'--policy=[decide permission dialogs by a TOML policy]:policy:_files -g "*.toml"' \
				'--max-sessions=[refuse sessions past N open ones]:sessions:' \
				'--max-memory=[refuse sessions while the server holds this much memory]:bytes:' \
				'--max-cells=[cell budget of each session]:cells:' \
				'--log-level=[least level logged on stderr]:level:(debug info warn error)' \
				'(- *)'{-h,--help}'[show help]' && ret=0
			;;
		mcp)
			_arguments \
				'*--plugin=[load a plugin manifest]:manifest:_files -g "*.toml"' \
				'--audit=[append every dialog answered to a file]:audit log:_files' \
				'--policy=[decide permission dialogs by a TOML policy]:policy:_files -g "*.toml"' \
				'--max-sessions=[refuse sessions past N open ones]:sessions:' \
				'--max-memory=[refuse sessions while the server holds this much memory]:bytes:' \
				'--max-cells=[cell budget of each session]:cells:' \
				'--log-level=[least level logged on stderr]:level:(debug info warn error)' \
				'(- *)'{-h,--help}'[show help]' && ret=0
			;;
		snapshot)
			_arguments \
				'--socket=[connect to the server socket]:socket path:_files' \
				'(--svg)--json[print the result as JSON]' \
				'(--adapter)--session=[read a session]:session id: ' \
				'(--session)--adapter=[read the screen of an adapter]:adapter id: ' \
				'(--cells --explain)--svg[print an SVG picture of the screen]' \
				'(--svg)--cells[keep the cell grid in the JSON]' \
				'(--svg)--explain[add the adapter explanation of its classification]' \
				'(- *)'{-h,--help}'[show help]' && ret=0
			;;
		start)
			local dashdash=${words[(i)--]}
			if ((dashdash < CURRENT)); then
				shift $dashdash words
				((CURRENT -= dashdash))
				_normal && ret=0
			else
				_arguments $client \
					'--rows=[terminal height in rows]:rows: ' \
					'--cols=[terminal width in columns]:columns: ' \
					'*--env=[set a variable of the program]:KEY=VALUE: ' \
					'--cwd=[run the program in a directory]:directory:_directories' && ret=0
			fi
			;;
		send)
			_arguments $client \
				'*--text=[type a text]:text: ' \
				'*--key=[press a key]:key:(@KEYS@)' \
				'*--paste=[paste a text, bracketed]:text: ' \
				'--keys[list the key names]' \
				'1:session id: ' && ret=0
			;;
		wait)
			_arguments $client \
				'(--regex --exited)--text=[wait for a text]:text: ' \
				'(--text --exited)--regex=[wait for a regex match]:regex: ' \
				'(--text --regex --stable)--exited[wait until the program has exited]' \
				'--stable=[and for the screen to be unchanged that long]:duration: ' \
				'--after=[match only screens after a sequence]:sequence: ' \
				'--timeout=[give up after a duration]:duration: ' \
				'1:session id: ' && ret=0
			;;
		list)
			_arguments $client && ret=0
			;;
		close)
			_arguments $client '1:session id: ' && ret=0
			;;
		attach)
			_arguments \
				'--socket=[connect to the server socket]:socket path:_files' \
				'--control[type into the session]' \
				'--detach-key=[the key that detaches]:key: ' \
				'(- *)'{-h,--help}'[show help]' \
				'1:session or adapter id: ' && ret=0
			;;
		adapter)
			local -a subs
			subs=(
				'start:start an adapter and print its id'
				'send:send an intent'
				'turn:send an intent, then await the end of the turn'
				'state:print the state of an adapter'
				'close:close an adapter and its session'
			)
			if ((CURRENT == 2)); then
				_describe -t commands 'adapter command' subs && ret=0
			else
				# The subcommand's words, from the subcommand on.
				shift words
				((CURRENT--))
				curcontext="${curcontext%:*}-$words[1]:"
				case $words[1] in
				start)
					_arguments $client \
						'--rows=[terminal height in rows]:rows: ' \
						'--cols=[terminal width in columns]:columns: ' \
						'*--env=[set a variable of the program]:KEY=VALUE: ' \
						'--cwd=[run the program in a directory]:directory:_directories' \
						'1:plugin: ' && ret=0
					;;
				send | turn)
					_arguments $client \
						'*--param=[set a param of the intent]:KEY=VALUE: ' \
						'--params=[the params of the intent as a JSON object]:JSON: ' \
						'--timeout=[give up after a duration]:duration: ' \
						'1:adapter id: ' '2:intent: ' && ret=0
					;;
				state | close)
					_arguments $client '1:adapter id: ' && ret=0
					;;
				esac
			fi
			;;
		completions)
			_arguments \
				'(- *)'{-h,--help}'[show help]' \
				'1:shell:(bash zsh fish)' && ret=0
			;;
		version)
			_arguments '(- *)'{-h,--help}'[show help]' && ret=0
			;;
		help)
			_describe -t commands 'ptywright command' commands && ret=0
			;;
		esac
		;;
	esac
	return ret
}

if [[ $funcstack[1] == _ptywright ]]; then
	_ptywright "$@"
else
	compdef _ptywright ptywright
fi
`

const fishCompletion = `# fish completion for ptywright.
# Save as ~/.config/fish/completions/ptywright.fish

# __ptywright_run_cmdline prints the words after "ptywright run ... --",
# the current one included, and fails when there is no "--".
function __ptywright_run_cmdline
	set -l tokens (commandline -opc)
	set -l i (contains -i -- -- $tokens); or return 1
	printf '%s\n' $tokens[(math $i + 1)..-1] (commandline -ct)
end

complete -c ptywright -f

complete -c ptywright -n __fish_use_subcommand -a run -d 'run a command on a PTY, passing its terminal through live'
complete -c ptywright -n __fish_use_subcommand -a serve -d 'serve the JSON-RPC automation API'
complete -c ptywright -n __fish_use_subcommand -a mcp -d 'serve the Model Context Protocol over stdio'
complete -c ptywright -n __fish_use_subcommand -a snapshot -d 'print the screen of a served session as text, JSON or SVG'
complete -c ptywright -n __fish_use_subcommand -a start -d 'start a program on a served session'
complete -c ptywright -n __fish_use_subcommand -a send -d 'type text and keys into a served session'
complete -c ptywright -n __fish_use_subcommand -a wait -d 'wait until a served session shows a text or a match'
complete -c ptywright -n __fish_use_subcommand -a list -d 'list the sessions of a server'
complete -c ptywright -n __fish_use_subcommand -a close -d 'close a served session'
complete -c ptywright -n __fish_use_subcommand -a attach -d 'show a served session live in this terminal'
complete -c ptywright -n __fish_use_subcommand -a adapter -d 'drive a served TUI through a plugin'
complete -c ptywright -n __fish_use_subcommand -a completions -d 'print a shell completion script'
complete -c ptywright -n __fish_use_subcommand -a version -d 'print the version'
complete -c ptywright -n __fish_use_subcommand -a help -d 'show help for a command'
complete -c ptywright -n __fish_use_subcommand -l version -d 'print the version'
complete -c ptywright -s h -l help -d 'show help'

complete -c ptywright -n '__fish_seen_subcommand_from run; and not __ptywright_run_cmdline >/dev/null' -l rows -x -d 'terminal height in rows'
complete -c ptywright -n '__fish_seen_subcommand_from run; and not __ptywright_run_cmdline >/dev/null' -l cols -x -d 'terminal width in columns'
complete -c ptywright -n '__fish_seen_subcommand_from run; and not __ptywright_run_cmdline >/dev/null' -l record -r -F -d 'record the session as an asciicast file'
complete -c ptywright -n '__fish_seen_subcommand_from run; and __ptywright_run_cmdline >/dev/null' -x -a '(__fish_complete_subcommand --commandline (__ptywright_run_cmdline))'

complete -c ptywright -n '__fish_seen_subcommand_from serve' -l stdio -d 'serve one client over stdin/stdout'
complete -c ptywright -n '__fish_seen_subcommand_from serve' -l socket -r -F -d 'serve on a local socket or named pipe'
complete -c ptywright -n '__fish_seen_subcommand_from serve' -l framing -x -a 'ndjson lsp' -d 'message framing'
complete -c ptywright -n '__fish_seen_subcommand_from serve' -l plugin -r -F -d 'load a plugin manifest (repeatable)'
complete -c ptywright -n '__fish_seen_subcommand_from serve' -l allow-plugin-load -d 'let clients load and unload plugins'
complete -c ptywright -n '__fish_seen_subcommand_from serve' -l engine -x -a 'vtcore xvt' -d 'terminal emulator of new sessions'
complete -c ptywright -n '__fish_seen_subcommand_from serve' -l audit -r -F -d 'append every dialog answered to a file'
complete -c ptywright -n '__fish_seen_subcommand_from serve' -l policy -r -F -d 'decide permission dialogs by a TOML policy'
complete -c ptywright -n '__fish_seen_subcommand_from serve' -l max-sessions -x -d 'refuse sessions past N open ones'
complete -c ptywright -n '__fish_seen_subcommand_from serve' -l max-memory -x -d 'refuse sessions while the server holds this much memory'
complete -c ptywright -n '__fish_seen_subcommand_from serve' -l max-cells -x -d 'cell budget of each session'
complete -c ptywright -n '__fish_seen_subcommand_from serve' -l log-level -x -a 'debug info warn error' -d 'least level logged on stderr'

complete -c ptywright -n '__fish_seen_subcommand_from mcp' -l plugin -r -F -d 'load a plugin manifest (repeatable)'
complete -c ptywright -n '__fish_seen_subcommand_from mcp' -l audit -r -F -d 'append every dialog answered to a file'
complete -c ptywright -n '__fish_seen_subcommand_from mcp' -l policy -r -F -d 'decide permission dialogs by a TOML policy'
complete -c ptywright -n '__fish_seen_subcommand_from mcp' -l max-sessions -x -d 'refuse sessions past N open ones'
complete -c ptywright -n '__fish_seen_subcommand_from mcp' -l max-memory -x -d 'refuse sessions while the server holds this much memory'
complete -c ptywright -n '__fish_seen_subcommand_from mcp' -l max-cells -x -d 'cell budget of each session'
complete -c ptywright -n '__fish_seen_subcommand_from mcp' -l log-level -x -a 'debug info warn error' -d 'least level logged on stderr'

complete -c ptywright -n '__fish_seen_subcommand_from snapshot' -l socket -r -F -d 'connect to the server socket'
complete -c ptywright -n '__fish_seen_subcommand_from snapshot' -l json -d 'print the result as JSON'
complete -c ptywright -n '__fish_seen_subcommand_from snapshot' -l session -x -d 'read a session'
complete -c ptywright -n '__fish_seen_subcommand_from snapshot' -l adapter -x -d 'read the screen of an adapter'
complete -c ptywright -n '__fish_seen_subcommand_from snapshot' -l svg -d 'print an SVG picture of the screen'
complete -c ptywright -n '__fish_seen_subcommand_from snapshot' -l cells -d 'keep the cell grid in the JSON'
complete -c ptywright -n '__fish_seen_subcommand_from snapshot' -l explain -d 'add the adapter explanation of its classification'

# The client commands; "adapter send" is not "send", nor "adapter close" "close".
complete -c ptywright -n '__fish_seen_subcommand_from start send wait list close attach adapter; and not __ptywright_run_cmdline >/dev/null' -l socket -r -F -d 'connect to the server socket'
complete -c ptywright -n '__fish_seen_subcommand_from start send wait list close adapter; and not __ptywright_run_cmdline >/dev/null' -l json -d 'print the JSON-RPC result as it came'
complete -c ptywright -n '__fish_seen_subcommand_from start; and not __fish_seen_subcommand_from adapter; and __ptywright_run_cmdline >/dev/null' -x -a '(__fish_complete_subcommand --commandline (__ptywright_run_cmdline))'
complete -c ptywright -n '__fish_seen_subcommand_from start; and not __ptywright_run_cmdline >/dev/null' -l rows -x -d 'terminal height in rows'
complete -c ptywright -n '__fish_seen_subcommand_from start; and not __ptywright_run_cmdline >/dev/null' -l cols -x -d 'terminal width in columns'
complete -c ptywright -n '__fish_seen_subcommand_from start; and not __ptywright_run_cmdline >/dev/null' -l env -x -d 'set a variable of the program (KEY=VALUE)'
complete -c ptywright -n '__fish_seen_subcommand_from start; and not __ptywright_run_cmdline >/dev/null' -l cwd -x -a '(__fish_complete_directories)' -d 'run the program in a directory'
complete -c ptywright -n '__fish_seen_subcommand_from send; and not __fish_seen_subcommand_from adapter' -l text -x -d 'type a text'
complete -c ptywright -n '__fish_seen_subcommand_from send; and not __fish_seen_subcommand_from adapter' -l key -x -a '@KEYS@' -d 'press a key'
complete -c ptywright -n '__fish_seen_subcommand_from send; and not __fish_seen_subcommand_from adapter' -l paste -x -d 'paste a text, bracketed'
complete -c ptywright -n '__fish_seen_subcommand_from send; and not __fish_seen_subcommand_from adapter' -l keys -d 'list the key names'
complete -c ptywright -n '__fish_seen_subcommand_from wait' -l text -x -d 'wait for a text'
complete -c ptywright -n '__fish_seen_subcommand_from wait' -l regex -x -d 'wait for a regex match'
complete -c ptywright -n '__fish_seen_subcommand_from wait' -l exited -d 'wait until the program has exited'
complete -c ptywright -n '__fish_seen_subcommand_from wait' -l stable -x -d 'and for the screen to be unchanged that long'
complete -c ptywright -n '__fish_seen_subcommand_from wait' -l after -x -d 'match only screens after a sequence'
complete -c ptywright -n '__fish_seen_subcommand_from wait' -l timeout -x -d 'give up after a duration'
complete -c ptywright -n '__fish_seen_subcommand_from attach' -l control -d 'type into the session'
complete -c ptywright -n '__fish_seen_subcommand_from attach' -l detach-key -x -d 'the key that detaches (ctrl-X)'
complete -c ptywright -n '__fish_seen_subcommand_from adapter; and not __fish_seen_subcommand_from start send turn state close' -x -a 'start send turn state close'
complete -c ptywright -n '__fish_seen_subcommand_from adapter; and __fish_seen_subcommand_from send turn' -l param -x -d 'set a param of the intent (KEY=VALUE)'
complete -c ptywright -n '__fish_seen_subcommand_from adapter; and __fish_seen_subcommand_from send turn' -l params -x -d 'the params of the intent as a JSON object'
complete -c ptywright -n '__fish_seen_subcommand_from adapter; and __fish_seen_subcommand_from send turn' -l timeout -x -d 'give up after a duration'

complete -c ptywright -n '__fish_seen_subcommand_from completions' -x -a 'bash zsh fish'
complete -c ptywright -n '__fish_seen_subcommand_from help' -x -a 'run serve mcp snapshot start send wait list close attach adapter completions version'
`
