#!/usr/bin/env bash
# Fails when regenerating the gqlgen code would change what is committed.
# It regenerates in place and puts the files back as they were either way.
set -euo pipefail
cd "$(dirname "$0")/.."
files=(reference/graph/generated.go reference/graph/model/models_gen.go)
backup=$(mktemp -d)
trap 'for f in "${files[@]}"; do cp "$backup/$(basename "$f")" "$f"; done; rm -rf "$backup"' EXIT
for f in "${files[@]}"; do cp "$f" "$backup/$(basename "$f")"; done
make --no-print-directory generate >/dev/null
status=0
for f in "${files[@]}"; do
  if ! cmp -s "$f" "$backup/$(basename "$f")"; then
    echo "check-generate: $f is out of date; run 'make generate' and commit the result" >&2
    diff -u "$backup/$(basename "$f")" "$f" | head -40 >&2 || true
    status=1
  fi
done
[ "$status" = 0 ] && echo "check-generate: generated code is up to date"
exit "$status"
