#!/usr/bin/env bash
# Installs the real OpenAI Codex CLI (npm package @openai/codex) for the codex
# plugin's end-to-end test, into ${PTYWRIGHT_TUI_DIR:-<repo>/.cache/tuis}.
#
# Idempotent: when the pinned version is already there and its native binary
# runs, nothing is fetched. The npm package is a small JS launcher; the real
# program is a Rust binary shipped in a per-platform optional dependency
# (@openai/codex-linux-x64 = @openai/codex@VERSION-linux-x64, ...). npm skips
# optional dependencies when configured with omit=optional, so this script
# passes --include=optional and then checks the native binary really landed.
#
# Prints the launcher's path as its last line: <dir>/node_modules/.bin/codex.
# Override the version with CODEX_VERSION (default pinned below).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
tui_dir=${PTYWRIGHT_TUI_DIR:-$repo/.cache/tuis}
version=${CODEX_VERSION:-0.169.0}
launcher=$tui_dir/node_modules/.bin/codex

# native_triple prints the Rust target triple the launcher looks for under
# vendor/<triple>/bin/ for this machine, or fails on an unsupported one.
native_triple() {
	local os arch
	os=$(uname -s)
	arch=$(uname -m)
	case "$os/$arch" in
	Linux/x86_64) echo x86_64-unknown-linux-musl ;;
	Linux/aarch64 | Linux/arm64) echo aarch64-unknown-linux-musl ;;
	Darwin/x86_64) echo x86_64-apple-darwin ;;
	Darwin/arm64) echo aarch64-apple-darwin ;;
	*)
		echo "install-codex: unsupported platform $os/$arch" >&2
		return 1
		;;
	esac
}

# native_binary prints the path of the installed native codex binary, if any.
native_binary() {
	local triple
	triple=$(native_triple)
	find "$tui_dir/node_modules/@openai" -path "*/vendor/$triple/bin/codex" -type f 2>/dev/null | head -n 1
}

# installed_ok succeeds when the pinned version is installed and runs.
installed_ok() {
	[[ -x $launcher ]] || return 1
	[[ -n $(native_binary) ]] || return 1
	local got
	got=$("$launcher" --version 2>/dev/null) || return 1
	[[ $got == *" $version" ]]
}

if installed_ok; then
	echo "codex: already installed ($("$launcher" --version))" >&2
	echo "$launcher"
	exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
	echo "install-codex: npm not found; install Node.js >= 16 and npm first" >&2
	exit 1
fi

mkdir -p "$tui_dir"
# A private package.json keeps npm from walking up into the repository.
if [[ ! -f $tui_dir/package.json ]]; then
	printf '{\n  "name": "ptywright-tuis",\n  "private": true\n}\n' >"$tui_dir/package.json"
fi

echo "codex: installing @openai/codex@$version into $tui_dir" >&2
# --save-exact records the package in $tui_dir/package.json: npm prunes every
# top-level package the manifest does not list, so with --no-save this install
# would remove Claude Code (scripts/install-tuis.sh) from the same directory,
# and that script's next install would remove codex.
npm install --prefix "$tui_dir" --no-audit --no-fund --save-exact --include=optional \
	"@openai/codex@$version" >&2

if [[ -z $(native_binary) ]]; then
	echo "install-codex: the native binary for $(native_triple) is missing under $tui_dir/node_modules/@openai; npm did not install the platform optional dependency" >&2
	exit 1
fi
if ! installed_ok; then
	echo "install-codex: $launcher --version does not report $version:" >&2
	"$launcher" --version >&2 || true
	exit 1
fi
echo "codex: installed ($("$launcher" --version))" >&2
echo "$launcher"
