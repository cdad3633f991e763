#!/usr/bin/env bash
# Compiles the CUDA kernels (internal/cuda/kernels/kernels.cu) to PTX for
# compute_80 (the driver JIT-compiles it for A100, H100 and later). The flags
# are what the bit-for-bit contract of the kernels needs: no fused
# multiply-add (-fmad=false), no flush of subnormals, IEEE division and
# square root. `go generate ./internal/cuda/kernels` writes the committed
# kernels.ptx with it; `scripts/ptx.sh --check` (make test) compiles into a
# temporary file and fails if the committed one differs.
#
# usage: scripts/ptx.sh [--check]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$root/internal/cuda/kernels
nvcc=${NVCC:-nvcc}
if ! command -v "$nvcc" >/dev/null; then
  echo "ptx: $nvcc not found: install the CUDA toolkit (scripts/deps.sh cuda, or make test, installs Debian's nvidia-cuda-toolkit)" >&2
  exit 1
fi
compile() { # compile OUT
  (cd "$dir" && "$nvcc" -ptx -arch=compute_80 -O3 -fmad=false -ftz=false -prec-div=true -prec-sqrt=true \
    -std=c++14 -o "$1" kernels.cu)
}
if [ "${1:-}" = --check ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  compile "$tmp/kernels.ptx"
  if ! cmp -s "$tmp/kernels.ptx" "$dir/kernels.ptx"; then
    echo "ptx: internal/cuda/kernels/kernels.ptx is not what $("$nvcc" --version | tail -1) makes of kernels.cu:" >&2
    diff "$dir/kernels.ptx" "$tmp/kernels.ptx" | head -20 >&2
    echo "ptx: run go generate ./internal/cuda/kernels and commit kernels.ptx" >&2
    exit 1
  fi
  echo "ptx: kernels.ptx is up to date ($(wc -c <"$dir/kernels.ptx") bytes)"
  exit 0
fi
compile "$dir/kernels.ptx"
