#!/usr/bin/env bash
# The whole test suite, exactly as CI runs it: installs what the tests need,
# vets, cross-builds for macOS and Windows, and runs every test with -race.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-test-deps.sh
# Claude Code from the npm registry, cached in .cache/tuis (this repo's own
# directory): the claude-code end-to-end test drives it, and fails without
# it when CI is set.
echo "== Claude Code (scripts/install-tuis.sh)"
bash scripts/install-tuis.sh

echo "== go vet"
go vet ./...
echo "== cross builds"
GOOS=darwin go build ./...
GOOS=windows go build ./...
echo "== go test -race"
go test -race -count=1 -timeout 20m ./...
