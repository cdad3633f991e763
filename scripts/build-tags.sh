#!/usr/bin/env bash
# Prints the Go build tags of this machine's build: the BLAS tag of
# scripts/blas-tags.sh, plus "mpi" when an MPI C library can be compiled
# against (mpicc and the mpi-c pkg-config module, Debian's libopenmpi-dev).
set -u
here=$(dirname "$0")
tags=$("$here/blas-tags.sh")
if [ "$(go env CGO_ENABLED)" = 1 ] && command -v mpicc >/dev/null 2>&1 && pkg-config --exists mpi-c 2>/dev/null; then
  tmp=$(mktemp -d) || exit 0
  trap 'rm -rf "$tmp"' EXIT
  printf '#include <mpi.h>\nint main(void){return MPI_Init((void*)0,(void*)0);}\n' >"$tmp/t.c"
  # shellcheck disable=SC2046
  if ${CC:-cc} "$tmp/t.c" -o "$tmp/t" $(pkg-config --cflags --libs mpi-c) >/dev/null 2>&1; then
    tags="${tags:+$tags }mpi"
  fi
fi
echo "$tags"
