#!/usr/bin/env bash
# The whole test suite, exactly as CI runs it: installs what the tests need,
# vets, cross-builds for macOS and Windows, and runs every test with -race.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-test-deps.sh
# Claude Code and the Gemini CLI from the npm registry, cached in .cache/tuis
# (this repo's own directory): the claude-code and gemini-cli end-to-end
# tests drive them, and fail without them when CI is set.
echo "== Claude Code and the Gemini CLI (scripts/install-tuis.sh)"
bash scripts/install-tuis.sh
# The Codex CLI, likewise, for the codex plugin's end-to-end test.
echo "== Codex CLI (scripts/install-codex.sh)"
bash scripts/install-codex.sh

echo "== gofmt and go vet"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt: these files need gofmt -w:" >&2
  echo "$unformatted" >&2
  exit 1
fi
go vet ./...
# The opt-in groundwork tests of the fake APIs build only under their tags:
# vet them too, so they do not rot between the times someone runs them.
go vet -tags e2e ./internal/fakeanthropic
go vet -tags codex_e2e ./internal/fakeopenai
echo "== cross builds (library, commands and tests)"
GOOS=darwin go build ./...
GOOS=windows go build ./...
GOOS=darwin go vet ./...
GOOS=windows go vet ./...
echo "== go test -race"
# One test binary more than there are CPUs (three on CI's two cores):
# much of the suite waits on real programs (node start-ups, child
# processes, PTY round trips), so one more keeps the CPUs busy; the tests
# are built to hold under load.
procs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
go test -race -count=1 -p $((procs + 1)) -timeout 20m ./...
# internal/golua (tested with the rest above) is upstream go-lua plus its
# documented patch, nothing else.
echo "== internal/golua is go-lua plus its patch"
bash scripts/check-go-lua-patch.sh
