#!/usr/bin/env bash
# Installs what building and testing bulksample needs on a fresh Debian
# machine, when it is missing and we may: OpenBLAS (the default BLAS of the
# trainer), SuiteSparse:GraphBLAS (the peer of `make bench`), pkg-config and
# staticcheck. Without root it only reports what is missing; the build then
# falls back to pure-Go BLAS and the GraphBLAS comparison is skipped.
#
# usage: scripts/deps.sh [--bench]
set -uo pipefail

pkgs=(libopenblas-dev pkg-config)
[ "${1:-}" = "--bench" ] && pkgs+=(libgraphblas-dev)

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "deps: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >/tmp/bulksample-apt.log 2>&1 \
      || echo "deps: apt-get failed (see /tmp/bulksample-apt.log); continuing without ${missing[*]}" >&2
  else
    echo "deps: missing ${missing[*]} (not root: not installing)" >&2
  fi
fi

gobin=$(go env GOPATH)/bin
if ! command -v staticcheck >/dev/null && [ ! -x "$gobin/staticcheck" ]; then
  echo "deps: installing staticcheck" >&2
  go install honnef.co/go/tools/cmd/staticcheck@v0.8.2 >/dev/null 2>&1 || echo "deps: staticcheck not installable; skipping it" >&2
fi
exit 0
