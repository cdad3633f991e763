#!/usr/bin/env bash
# Statement coverage of package dataset by its fuzz corpora: the committed
# seeds (testdata/fuzz) plus whatever `make fuzz` has found (Go's fuzz cache),
# run as plain tests (no fuzzing) by a coverage-instrumented test binary.
# Prints the coverage of every file of the package, the parsing files marked.
# usage: scripts/fuzzcover.sh [profile-out]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=${1:-$(mktemp --suffix .cover)}
tags=$(scripts/blas-tags.sh)
pkg=github.com/bulksample/bulksample/dataset
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go test -tags "$tags" -c -cover -covermode set -coverpkg "$pkg" -o "$work/dataset.test" ./dataset
# The test binary reads testdata/fuzz/<Target> relative to its working
# directory: assemble the seeds and the cached corpus there.
mkdir -p "$work/run/testdata/fuzz"
cp -r dataset/testdata/fuzz/. "$work/run/testdata/fuzz/"
cache=$(go env GOCACHE)/fuzz/$pkg
n=0
if [ -d "$cache" ]; then
  for d in "$cache"/*/; do
    t=$(basename "$d")
    mkdir -p "$work/run/testdata/fuzz/$t"
    cp "$d"* "$work/run/testdata/fuzz/$t/" 2>/dev/null || true
    n=$((n + $(ls "$d" | wc -l)))
  done
fi
echo "corpus: $(find "$work/run/testdata/fuzz" -type f | wc -l) inputs ($n from the fuzz cache)"
(cd "$work/run" && "$work/dataset.test" -test.run '^Fuzz' -test.coverprofile "$out" >/dev/null)
# Per-file statement coverage from the profile (blocks: file:pos numStmts count).
awk -F'[: ]' 'NR > 1 { key = $1 ":" $2; stmts[key] = $3; if ($4 > 0) hit[key] = 1 }
  END {
    for (k in stmts) { split(k, p, ":"); f = p[1]; total[f] += stmts[k]; if (k in hit) cov[f] += stmts[k] }
    for (f in total) printf "%6.1f%%  %5d/%-5d %s\n", 100 * cov[f] / total[f], cov[f], total[f], f
  }' "$out" | sed "s|$pkg/||" | sort -b -k3,3 |
  awk '{ parsing = ($3 ~ /^(npy|npz|native|native_read|native_verify|ogb|edgelist|stream)\.go$/) ? "  parser" : ""; print $0 parsing }'
echo "profile: $out"
