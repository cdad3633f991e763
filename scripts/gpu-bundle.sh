#!/usr/bin/env bash
# Builds the GPU bundle of issue 28 (make gpu-bundle): one folder (default
# bin/gpu, at most 60 MiB) that a machine with an NVIDIA GPU, no Go and no
# network runs with ./run.sh (scripts/gpu-run.sh: parts, budget, outputs
# under $OUT):
#   bulksample        the cuda build (CGO for dlopen only: no OpenBLAS, no MPI; glibc's libdl, libpthread, libc)
#   cuda.test         go test -c -tags cuda ./internal/cuda    (driver, libraries, Sgemm)
#   gpu.test          go test -c -tags cuda ./gpu              (samplers and products on the GPU against the CPU)
#   bulksample.test   go test -c -tags cuda ./cmd/bulksample   (CPU-against-GPU digests, train --device cuda, through the CLI)
#   gputrain          benchmarks/gputrain, cuda build           (issue 29: the GPU step and its phases, an epoch)
#   peers/            benchmarks/gpupeer: CuPy's cuSPARSE product, the vectorised PyTorch sampler, PyG's SAGEConv
#                     on the same blocks (pyg_step.py) and end to end (pyg_epoch.py), the training tables (train_report.py)
#   shared/data/      Cora and CiteSeer (Planetoid's files) from this machine's shared/data, for train --data cora|citeseer
#   run.sh, BUILD     the runner; the commit and Go version it was built from
# Nothing in it needs the CUDA toolkit to build (the kernels' PTX is
# committed and embedded, the libraries are dlopened); the binaries link
# glibc dynamically (2.36 here; the GPU machine has 2.39).
#
#   scripts/gpu-bundle.sh [DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-bin/gpu}
rm -rf "$dir"
mkdir -p "$dir/peers"
export CGO_ENABLED=1 GOOS=linux GOARCH=amd64
flags=(-trimpath -tags cuda -ldflags='-s -w')
go build "${flags[@]}" -buildvcs=auto -o "$dir/bulksample" ./cmd/bulksample
go test -c "${flags[@]}" -o "$dir/cuda.test" ./internal/cuda
go test -c "${flags[@]}" -o "$dir/gpu.test" ./gpu
go test -c "${flags[@]}" -o "$dir/bulksample.test" ./cmd/bulksample
go build "${flags[@]}" -o "$dir/gputrain" ./benchmarks/gputrain
cp benchmarks/gpupeer/cupy_spgemm.py benchmarks/gpupeer/torch_sampler.py benchmarks/gpupeer/pyg_step.py \
  benchmarks/gpupeer/pyg_epoch.py benchmarks/gpupeer/train_report.py "$dir/peers/"
# Cora and CiteSeer, where train --data cora|citeseer finds them beside the binary (shared/data above the
# repository, or $BULKSAMPLE_DATA, as the CLI looks).
data=${BULKSAMPLE_DATA:-}
if [ -z "$data" ]; then
  d=$PWD
  while [ "$d" != / ]; do
    [ -d "$d/shared/data/Planetoid" ] && data=$d/shared/data && break
    d=$(dirname "$d")
  done
fi
if [ -n "$data" ] && [ -d "$data/Planetoid" ]; then
  mkdir -p "$dir/shared/data"
  cp -r "$data/Planetoid" "$dir/shared/data/"
  chmod -R u+w "$dir/shared" # the next build removes it
else
  echo "gpu-bundle: no shared/data/Planetoid found: the bundle's train part will skip Cora and CiteSeer" >&2
fi
cp scripts/gpu-run.sh "$dir/run.sh"
chmod +x "$dir/run.sh" "$dir/peers/"*.py
{
  git rev-parse HEAD 2>/dev/null || echo "unknown commit"
  git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo "with uncommitted changes"
  go version
} >"$dir/BUILD" || true
# Only glibc's libraries: nothing the GPU machine may lack.
for f in bulksample cuda.test gpu.test bulksample.test gputrain; do
  extra=$(readelf -d "$dir/$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -vE '^(libc|libdl|libpthread|libm|libresolv)\.so\.[0-9]+$' || true)
  if [ -n "$extra" ]; then
    echo "gpu-bundle: $dir/$f needs $extra, which a GPU machine may lack" >&2
    exit 1
  fi
done
size=$(du -sm "$dir" | cut -f1)
echo "gpu-bundle: $dir ($size MiB): $(cd "$dir" && ls | tr '\n' ' ')"
if [ "$size" -gt 60 ]; then
  echo "gpu-bundle: $dir is $size MiB, over the 60 MiB the device tool carries beside the working tree" >&2
  exit 1
fi
