#!/usr/bin/env bash
# The whole test suite, exactly as CI runs it: installs what the tests need,
# vets, cross-builds for macOS and Windows, and runs every test with -race.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-test-deps.sh

echo "== go vet"
go vet ./...
echo "== cross builds"
GOOS=darwin go build ./...
GOOS=windows go build ./...
echo "== go test -race"
go test -race -count=1 -timeout 20m ./...
