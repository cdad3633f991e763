#!/usr/bin/env bash
# Builds the sweep bundle of issue 14's 16-core scaling table: static
# (CGO_ENABLED=0) linux/amd64 binaries of bulksample and the three sampling
# benchmarks, and the runner (scripts/sweep-run.sh, copied as run.sh), into
# one folder (default bin/sweep, ignored by .gitignore's /bin/) that runs on
# a machine without Go, without the source tree and without a network: the
# GPU machine's 16-core host, reached through the device tool, which carries
# the folder (carry: ["bin/sweep"]). benchmarks/results/sampling.md
# ("Scaling on 16 cores") gives the commands.
#
#   scripts/sweep-bundle.sh [DIR]
#
# CGO_ENABLED=0 leaves out OpenBLAS and MPI (pure-Go BLAS, no mpirun), which
# the sampling, its CLI and the feature gather do not use.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-bin/sweep}
mkdir -p "$dir"
export CGO_ENABLED=0 GOOS=linux GOARCH=amd64
# -trimpath: no path of this machine in the binaries; -s -w: no symbol
# tables (a third of the size; the folder travels within 64 MiB).
build() { go build -trimpath -buildvcs=auto -ldflags='-s -w' -o "$dir/$1" "$2"; }
build bulksample ./cmd/bulksample
for b in samplebench ladiesbench gatherbench; do
  build "$b" "./benchmarks/$b"
done
cp scripts/sweep-run.sh "$dir/run.sh"
chmod +x "$dir/run.sh"
{
  git rev-parse HEAD 2>/dev/null || echo "unknown commit"
  git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo "with uncommitted changes"
  go version
} >"$dir/BUILD" || true
# Static: no interpreter, no shared library (the device may lack the libc
# of this machine).
for f in bulksample samplebench ladiesbench gatherbench; do
  if readelf -l "$dir/$f" 2>/dev/null | grep -q INTERP; then
    echo "sweep-bundle: $dir/$f is dynamically linked" >&2
    exit 1
  fi
done
size=$(du -sm "$dir" | cut -f1)
echo "sweep-bundle: $dir ($size MiB): $(cd "$dir" && ls | tr '\n' ' ')"
if [ "$size" -gt 56 ]; then
  echo "sweep-bundle: $dir is $size MiB; the device carries at most 64 MiB with the working tree" >&2
  exit 1
fi
