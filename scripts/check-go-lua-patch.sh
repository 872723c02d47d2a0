#!/usr/bin/env bash
# Checks that internal/golua is upstream go-lua (the version
# internal/golua/UPSTREAM names) plus internal/golua/ptywright.patch,
# nothing else: the patch documented in internal/golua/PATCHES.md is the
# whole change (upstream's go.mod is left out: the copy is a package of
# this module).
set -euo pipefail
cd "$(dirname "$0")/.."

read -r mod ver < internal/golua/UPSTREAM
dir=$(go mod download -json "$mod@$ver" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
if [ -z "$dir" ] || [ ! -d "$dir" ]; then
  echo "check-go-lua-patch: cannot download $mod@$ver" >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
cp -r "$dir" "$tmp/golua"
chmod -R u+w "$tmp/golua"
( cd "$tmp/golua" && rm -rf go.mod ./*_test.go fixtures doc libs dev.yml && patch -p1 -s < "$OLDPWD/internal/golua/ptywright.patch" )
if ! diff -r -x PATCHES.md -x ptywright.patch -x UPSTREAM "$tmp/golua" internal/golua; then
  echo "check-go-lua-patch: internal/golua differs from $mod $ver plus ptywright.patch; regenerate the patch (see PATCHES.md)" >&2
  exit 1
fi
echo "internal/golua is $mod $ver plus ptywright.patch"
