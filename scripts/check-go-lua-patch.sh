#!/usr/bin/env bash
# Checks that third_party/go-lua is upstream go-lua (the version go.mod
# requires) plus third_party/go-lua/ptywright.patch, nothing else: the
# patch documented in third_party/go-lua/PATCHES.md is the whole change.
set -euo pipefail
cd "$(dirname "$0")/.."

ver=$(go list -m -f '{{.Version}}' github.com/Shopify/go-lua)
dir=$(go mod download -json "github.com/Shopify/go-lua@$ver" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
if [ -z "$dir" ] || [ ! -d "$dir" ]; then
  echo "check-go-lua-patch: cannot download github.com/Shopify/go-lua@$ver" >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
cp -r "$dir" "$tmp/go-lua"
chmod -R u+w "$tmp/go-lua"
( cd "$tmp/go-lua" && rm -rf ./*_test.go fixtures doc libs dev.yml && patch -p1 -s < "$OLDPWD/third_party/go-lua/ptywright.patch" )
if ! diff -r -x PATCHES.md -x ptywright.patch "$tmp/go-lua" third_party/go-lua; then
  echo "check-go-lua-patch: third_party/go-lua differs from go-lua $ver plus ptywright.patch; regenerate the patch (see PATCHES.md)" >&2
  exit 1
fi
echo "third_party/go-lua is go-lua $ver plus ptywright.patch"
