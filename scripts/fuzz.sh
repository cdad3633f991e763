#!/usr/bin/env bash
# Runs every Fuzz* target of the module for a short time each (default 10s).
# Seed corpora live in each package's testdata/fuzz/<FuzzName>/.
# usage: scripts/fuzz.sh [duration]
set -euo pipefail
t=${1:-10s}
tags=$(scripts/blas-tags.sh)
found=0
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for f in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
    found=1
    echo "fuzz $pkg $f for $t"
    go test -tags "$tags" -run '^$' -fuzz "^$f\$" -fuzztime "$t" "$pkg"
  done
done
[ "$found" = 1 ] || echo "no fuzz targets"
