#!/usr/bin/env bash
# Compiles the CUDA kernels (internal/cuda/kernels/kernels.cu) into the two
# committed images: kernels.fatbin, which the cuda build embeds (SASS for
# sm_80 and sm_90, so that A100, H100 and H200 load it without a JIT, and
# compute_80 PTX, which the driver JIT-compiles for newer devices), and
# kernels.ptx, the same PTX as text, for review. The flags are what the
# bit-for-bit contract of the kernels needs: no fused multiply-add
# (-fmad=false, which nvcc also passes to ptxas), no flush of subnormals,
# IEEE division and square root. `go generate ./internal/cuda/kernels`
# writes both with it.
#
# `scripts/ptx.sh --check` (make test) compiles both into a temporary folder
# and fails if a committed one differs, and checks the contract on the
# images themselves:
#   - PTX: every float add, sub, mul, div, sqrt, rcp and fma is rounded to
#     nearest (.rn): PTX's optimiser never contracts an operation that names
#     its rounding; none is .approx or .ftz, and no approximate ex2, lg2,
#     sin, cos, rsqrt or tanh is used; an fma appears only in kernels
#     that call the device's exp (libdevice's), whose results are not bit
#     for bit the CPU's (bs_nn.h says which);
#   - SASS: ptxas with contraction on (--fmad=true) makes of the embedded PTX
#     exactly the embedded sm_80 and sm_90 SASS, so no multiply and add were
#     fused in it: the FFMA/DFMA it holds are those of the PTX's fma and of
#     the IEEE division and square-root sequences.
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
flags=(-O3 -fmad=false -ftz=false -prec-div=true -prec-sqrt=true -std=c++14)
# The architectures with SASS in the fatbin; the PTX is compute_80's.
sass_archs=(80 90)
# Kernels whose PTX may hold fma: those that call libdevice's exp.
fma_ok='^bs_nn_xent$'
compile() { # compile DIR: DIR/kernels.ptx and DIR/kernels.fatbin
  local gencode=()
  for a in "${sass_archs[@]}"; do gencode+=(-gencode "arch=compute_$a,code=sm_$a"); done
  gencode+=(-gencode arch=compute_80,code=compute_80)
  (cd "$dir" && "$nvcc" -ptx -arch=compute_80 "${flags[@]}" -o "$1/kernels.ptx" kernels.cu &&
    "$nvcc" -fatbin "${gencode[@]}" "${flags[@]}" -o "$1/kernels.fatbin" kernels.cu)
}
if [ "${1:-}" != --check ]; then
  compile "$dir"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
compile "$tmp"
bad=0
for f in kernels.ptx kernels.fatbin; do
  if ! cmp -s "$tmp/$f" "$dir/$f"; then
    echo "ptx: internal/cuda/kernels/$f is not what $("$nvcc" --version | tail -1) makes of kernels.cu" >&2
    [ $f = kernels.ptx ] && diff "$dir/$f" "$tmp/$f" | head -20 >&2
    bad=1
  fi
done
if ((bad)); then
  echo "ptx: run go generate ./internal/cuda/kernels and commit kernels.ptx and kernels.fatbin" >&2
  exit 1
fi
# The contract, on the committed images.
mkdir "$tmp/x"
(cd "$tmp/x" && cuobjdump -xptx all "$dir/kernels.fatbin" >/dev/null && cuobjdump -xelf all "$dir/kernels.fatbin" >/dev/null)
ptx=$(ls "$tmp"/x/*.ptx)
[ "$(echo "$ptx" | wc -l)" = 1 ] || { echo "ptx: the fatbin holds $(echo "$ptx" | wc -l) PTX images, want 1 (compute_80)" >&2; exit 1; }
awk -v fma_ok="$fma_ok" '
  /\.entry/ { entry = $3; sub(/\(.*/, "", entry) }
  $1 ~ /^(add|sub|mul|div|sqrt|rcp|fma|mad)\.[a-z0-9.]*f(32|64)$/ {
    op = $1
    if (op !~ /\.rn(\.|$)/ || op ~ /\.(approx|ftz)/) { printf "ptx: %s: %s at line %d is not rounded to nearest as written\n", entry, op, NR; bad = 1 }
    if (op ~ /^(fma|mad)/ && entry !~ fma_ok) { printf "ptx: %s: %s at line %d: only %s may fuse (the device exp)\n", entry, op, NR, fma_ok; bad = 1 }
    n++ }
  $1 ~ /^(ex2|lg2|sin|cos|rsqrt|tanh)\./ { printf "ptx: %s: %s at line %d is an approximation\n", entry, $1, NR; bad = 1 }
  END { if (!bad) printf "ptx: %d float operations, every one .rn\n", n; exit bad }' "$ptx" >&2
for a in "${sass_archs[@]}"; do
  cubin=$(ls "$tmp"/x/*.sm_$a.cubin)
  ptxas -arch=sm_$a -O3 --fmad=true -o "$tmp/fmad$a.cubin" "$ptx"
  if ! cmp -s <(cuobjdump -sass "$cubin") <(cuobjdump -sass "$tmp/fmad$a.cubin"); then
    echo "ptx: the sm_$a SASS of kernels.fatbin differs from ptxas --fmad=true of its PTX: a multiply-add is contracted or not" >&2
    exit 1
  fi
done
echo "ptx: kernels.ptx and kernels.fatbin are up to date ($(wc -c <"$dir/kernels.ptx") and $(wc -c <"$dir/kernels.fatbin") bytes; SASS for $(printf "sm_%s " "${sass_archs[@]}")independent of contraction)"
