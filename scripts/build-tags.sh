#!/usr/bin/env bash
# Prints the Go build tags of this machine's build: the BLAS tag of
# scripts/blas-tags.sh, plus "mpi" when an MPI C library can be compiled
# against (mpicc and the mpi-c pkg-config module, Debian's libopenmpi-dev),
# plus "cuda" when CUDA=1 or `nvidia-smi -L` lists a GPU (package gpu,
# --device cuda; it needs no CUDA toolkit to build, only cgo).
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
if [ "${CUDA:-}" = 1 ] || { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; }; then
  if [ "$(go env CGO_ENABLED)" = 1 ]; then
    tags="${tags:+$tags }cuda"
  else
    echo "build-tags: the cuda tag needs cgo (CGO_ENABLED=1); building without it" >&2
  fi
fi
echo "$tags"
