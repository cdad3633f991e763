#!/usr/bin/env bash
# Installs what building and testing bulksample needs on a fresh Debian
# machine, when it is missing and we may: OpenBLAS (the default BLAS of the
# trainer), Open MPI (the mpi build tag and mpirun), Slurm and munge (the
# one-node Slurm test of scripts/slurm-test.sh), SuiteSparse:GraphBLAS (the
# peer of `make bench`), pkg-config and staticcheck. Without root it only
# reports what is missing; the build then falls back to pure-Go BLAS and no
# MPI, and the tests that need MPI or Slurm say why they cannot run (and
# fail in CI).
#
# usage: scripts/deps.sh [--bench]
set -uo pipefail

pkgs=(libopenblas-dev pkg-config libopenmpi-dev openmpi-bin slurm-wlm munge libpmix-dev)
[ "${1:-}" = "--bench" ] && pkgs+=(libgraphblas-dev)

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "deps: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    # Install daemons (munge, slurm) without starting them: the Slurm test
    # starts and stops its own.
    if [ ! -e /usr/sbin/policy-rc.d ]; then
      printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && rcd_added=1
    fi
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >/tmp/bulksample-apt.log 2>&1 \
      || echo "deps: apt-get failed (see /tmp/bulksample-apt.log); continuing without ${missing[*]}" >&2
    [ -n "${rcd_added:-}" ] && rm -f /usr/sbin/policy-rc.d
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
