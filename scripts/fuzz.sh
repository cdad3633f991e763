#!/usr/bin/env bash
# Runs every Fuzz* target of the module for a while each (default 10s).
# Seed corpora live in each package's testdata/fuzz/<FuzzName>/; what the
# fuzzer finds goes to Go's cache ($(go env GOCACHE)/fuzz), and a crash to
# testdata/fuzz/<FuzzName>/ (commit it with its fix).
# usage: scripts/fuzz.sh [duration] [target-regexp]
#   FUZZPARALLEL  workers per target (default: go's, GOMAXPROCS)
#   FUZZMINTIME   -fuzzminimizetime (default 1s: the 60s default stalls the
#                 search every time a large input adds coverage)
# The counts of executions and the crashes are summarised at the end.
set -euo pipefail
t=${1:-10s}
only=${2:-.}
tags=$(scripts/blas-tags.sh)
par=()
[ -n "${FUZZPARALLEL:-}" ] && par=(-parallel "$FUZZPARALLEL")
# The OGB targets rewrite a folder per input: on tmpfs that costs ~50 µs,
# on this machine's disk ~3 ms.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
  export TMPDIR=/dev/shm
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
found=0 failed=0
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for f in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
    [[ $f =~ $only ]] || continue
    found=1
    echo "fuzz $pkg $f for $t"
    if go test -tags "$tags" -run '^$' -fuzz "^$f\$" -fuzztime "$t" -fuzzminimizetime "${FUZZMINTIME:-1s}" "${par[@]}" "$pkg" 2>&1 | tee "$log"; then
      status=ok
    else
      status=FAILED failed=1
    fi
    execs=$(grep -o 'execs: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    interesting=$(grep -o 'total: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    printf '%s %s: %s executions, corpus %s, %s\n' "${pkg##*/}" "$f" "${execs:-?}" "${interesting:-?}" "$status" >>"$log.sum"
  done
done
[ "$found" = 1 ] || echo "no fuzz targets"
if [ -f "$log.sum" ]; then
  echo "--- summary"
  cat "$log.sum"
  rm -f "$log.sum"
fi
exit "$failed"
