#!/usr/bin/env bash
# Installs the real terminal programs that ptywright's end-to-end tests drive
# (today: Claude Code and the Gemini CLI; Codex has scripts/install-codex.sh)
# from the npm registry into a directory the project owns.
#
#   scripts/install-tuis.sh            # installs into $REPO/.cache/tuis
#   PTYWRIGHT_TUI_DIR=/x scripts/install-tuis.sh
#
# Idempotent: a package already installed at the pinned version is left alone,
# so a second run costs one `--version` call. Prints nothing on success; on
# failure it prints npm's log and exits non-zero. Afterwards each program is at
# "$PTYWRIGHT_TUI_DIR/node_modules/.bin/<name>".
#
# To add a program, write an install_<name> function like install_claude_code
# and call it from main.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIR=${PTYWRIGHT_TUI_DIR:-$REPO/.cache/tuis}

# Pinned so the captured fixtures and the end-to-end tests see one known
# version. Claude Code 2.1.330 declares engines.node >= 22 although it ships a
# native binary; with an older node, npm would silently resolve an older
# release unless the version is named exactly, as here.
CLAUDE_CODE_VERSION=${PTYWRIGHT_CLAUDE_CODE_VERSION:-2.1.330}
# The Gemini CLI (npm @google/gemini-cli) is a JavaScript bundle run by the
# node on PATH (engines.node >= 20); its optional dependencies (node-pty,
# keytar) only serve its own shell tool's PTY mode and keychain, and it
# runs without them.
GEMINI_CLI_VERSION=${PTYWRIGHT_GEMINI_CLI_VERSION:-0.61.0}

die() {
	echo "install-tuis: $*" >&2
	exit 1
}

# npm_install PKG@VERSION installs one package into $DIR, keeping npm's chatter
# (engine warnings, install-script notices) in a log shown only on failure.
npm_install() {
	local spec=$1 log
	command -v npm >/dev/null || die "npm not found on PATH (needed to install $spec)"
	mkdir -p "$DIR"
	[[ -f $DIR/package.json ]] || printf '{\n  "private": true\n}\n' >"$DIR/package.json"
	log=$(mktemp)
	# --save-exact records the package in $DIR/package.json: npm prunes every
	# top-level package the manifest does not list, so with --no-save each
	# install removed the programs other scripts (install-codex.sh) put here.
	if ! npm install --prefix "$DIR" --no-audit --no-fund --save-exact \
		--include=optional --engine-strict=false --loglevel=warn \
		"$spec" >"$log" 2>&1; then
		cat "$log" >&2
		rm -f "$log"
		die "npm install $spec failed"
	fi
	rm -f "$log"
}

# npm_platform prints the suffix npm packages use for this OS and CPU
# (linux-x64, linux-arm64-musl, darwin-arm64, ...).
npm_platform() {
	local os cpu
	case $(uname -s) in
	Linux) os=linux ;;
	Darwin) os=darwin ;;
	FreeBSD) os=freebsd ;;
	*) die "unsupported OS $(uname -s)" ;;
	esac
	case $(uname -m) in
	x86_64 | amd64) cpu=x64 ;;
	aarch64 | arm64) cpu=arm64 ;;
	*) die "unsupported CPU $(uname -m)" ;;
	esac
	if [[ $os == linux ]] && ldd --version 2>&1 | grep -qi musl; then
		echo "$os-$cpu-musl"
	else
		echo "$os-$cpu"
	fi
}

# version_is BIN WANT succeeds when BIN runs and reports version WANT.
version_is() {
	local bin=$1 want=$2 got
	[[ -x $bin ]] || return 1
	got=$("$bin" --version 2>/dev/null) || return 1
	[[ $got == "$want "* || $got == "$want" ]]
}

install_claude_code() {
	local pkg=@anthropic-ai/claude-code
	local bin=$DIR/node_modules/.bin/claude
	version_is "$bin" "$CLAUDE_CODE_VERSION" && return 0

	npm_install "$pkg@$CLAUDE_CODE_VERSION"

	# The package's bin/claude.exe is a placeholder that its postinstall
	# (install.cjs) replaces with the native binary from the optional
	# platform package. If npm skipped the script (install-script policy,
	# --ignore-scripts in a user config), place the binary ourselves.
	if ! version_is "$bin" "$CLAUDE_CODE_VERSION"; then
		local native=$DIR/node_modules/$pkg-$(npm_platform)/claude
		local stub=$DIR/node_modules/$pkg/bin/claude.exe
		[[ -x $native ]] || die "$pkg: native binary $native missing (optional dependency not installed?)"
		ln -f "$native" "$stub" 2>/dev/null || cp -f "$native" "$stub"
		chmod 0755 "$stub"
	fi
	version_is "$bin" "$CLAUDE_CODE_VERSION" ||
		die "$pkg: $bin does not report version $CLAUDE_CODE_VERSION"
}

install_gemini_cli() {
	local pkg=@google/gemini-cli
	local bin=$DIR/node_modules/.bin/gemini
	version_is "$bin" "$GEMINI_CLI_VERSION" && return 0
	command -v node >/dev/null || die "$pkg needs node (>= 20) on PATH"
	npm_install "$pkg@$GEMINI_CLI_VERSION"
	version_is "$bin" "$GEMINI_CLI_VERSION" ||
		die "$pkg: $bin does not report version $GEMINI_CLI_VERSION"
}

main() {
	install_claude_code
	install_gemini_cli
}

main "$@"
