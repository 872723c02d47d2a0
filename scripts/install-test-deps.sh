#!/usr/bin/env bash
# Installs the tools the test suite needs and that Go cannot fetch itself.
# Idempotent: a dependency already present is left alone, and apt-get update
# runs only when something has to be installed. Add one function per
# dependency and call it at the bottom.
set -euo pipefail

apt_updated=0

# apt_install PACKAGE...: installs with apt-get, updating the index once.
apt_install() {
	local sudo=()
	if [[ $(id -u) -ne 0 ]]; then
		sudo=(sudo)
	fi
	if [[ $apt_updated -eq 0 ]]; then
		"${sudo[@]}" apt-get update
		apt_updated=1
	fi
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends "$@"
}

# lua5.2: the reference interpreter for internal/luapattern's differential test.
install_lua52() {
	if command -v lua5.2 >/dev/null 2>&1; then
		echo "lua5.2: already installed ($(lua5.2 -v 2>&1))"
		return
	fi
	apt_install lua5.2
}

# vim: a real full-screen program for the core's screen and mode tests.
install_vim() {
	if command -v vim >/dev/null 2>&1; then
		echo "vim: already installed"
		return
	fi
	apt_install vim
}

# zsh: cmd/ptywright checks its zsh completion script with zsh -n.
install_zsh() {
	if command -v zsh >/dev/null 2>&1; then
		echo "zsh: already installed"
		return
	fi
	apt_install zsh
}

# fish: cmd/ptywright checks its fish completion script with fish -n.
install_fish() {
	if command -v fish >/dev/null 2>&1; then
		echo "fish: already installed"
		return
	fi
	apt_install fish
}

# tmux: the reference terminal of the fidelity tests (internal/engine/fidelity_unix_test.go,
# the differential corpus): our screen must equal tmux's on the same bytes.
install_tmux() {
	if command -v tmux >/dev/null 2>&1; then
		echo "tmux: already installed ($(tmux -V))"
		return
	fi
	apt_install tmux
}

# The programs of the differential corpus (testdata/corpus, re-recorded with
# go test -run TestRecordCorpus -record-corpus all): the recordings are
# committed, so only re-recording needs them.
install_corpus_programs() {
	local missing=() cmd pkg
	for pair in htop:htop btop:btop tig:tig nano:nano dialog:dialog whiptail:whiptail mc:mc ncdu:ncdu man:man-db less:less watch:procps git:git python3:python3; do
		cmd=${pair%%:*}
		pkg=${pair#*:}
		command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
	done
	if [[ ${#missing[@]} -eq 0 ]]; then
		echo "corpus programs: already installed"
		return
	fi
	apt_install "${missing[@]}"
}

# patch: scripts/check-go-lua-patch.sh re-applies third_party/go-lua's
# patch to upstream go-lua to check it is the whole change.
install_patch() {
	if command -v patch >/dev/null 2>&1; then
		echo "patch: already installed"
		return
	fi
	apt_install patch
}

# git: the Codex end-to-end test makes its work directory a repository
# (Codex asks about trust only there).
install_git() {
	if command -v git >/dev/null 2>&1; then
		echo "git: already installed"
		return
	fi
	apt_install git
}

# man-db and manpages: the redaction precision corpus renders man pages
# (man -P cat) and requires no redaction in them.
install_man() {
	if command -v man >/dev/null 2>&1 && man -w ls >/dev/null 2>&1; then
		echo "man: already installed"
		return
	fi
	apt_install man-db manpages
}

install_lua52
install_patch
install_git
install_man
install_tmux
install_corpus_programs
install_vim
install_zsh
install_fish
