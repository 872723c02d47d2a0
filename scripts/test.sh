#!/usr/bin/env bash
# The whole test suite, exactly as CI runs it: installs what the tests need,
# vets, cross-builds for macOS and Windows, and runs every test with -race.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-test-deps.sh
# The real Codex CLI for the codex plugin's end-to-end test (TestCodexEndToEnd
# fails under CI without it).
bash scripts/install-codex.sh >/dev/null

echo "== go vet"
go vet ./...
echo "== cross builds"
GOOS=darwin go build ./...
GOOS=windows go build ./...
echo "== go test -race"
go test -race -count=1 -timeout 20m ./...
