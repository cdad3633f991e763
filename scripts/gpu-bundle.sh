#!/usr/bin/env bash
# Builds the GPU half of the device bundle (scripts/device-bundle.sh) into
# DIR, for a machine with an NVIDIA GPU, no Go and no network:
#   bulksample        the cuda build (CGO for dlopen only: no OpenBLAS, no MPI; glibc's libdl, libpthread, libc)
#   cuda.test         go test -c -tags cuda ./internal/cuda    (driver, libraries, Sgemm, SpMM)
#   gpu.test          go test -c -tags cuda ./gpu              (samplers and products on the GPU against the CPU)
#   bulksample.test   go test -c -tags cuda ./cmd/bulksample   (CPU-against-GPU digests, bulksample device, through the CLI)
#   gputrain          benchmarks/gputrain, cuda build           (issue 29: the GPU step and its phases, an epoch)
#   peers/            benchmarks/gpupeer: CuPy's cuSPARSE product, the vectorised PyTorch sampler, PyG's SAGEConv
#                     on the same blocks (pyg_step.py) and end to end (pyg_epoch.py), the training tables (train_report.py)
# Nothing in it needs the CUDA toolkit to build (the kernels' fatbin is
# committed and embedded, the libraries are dlopened), and the binaries link
# glibc only, dynamically (2.36 here; the GPU machine has 2.39), which the
# script checks.
#
#   scripts/gpu-bundle.sh DIR
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: scripts/gpu-bundle.sh DIR}
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
chmod +x "$dir/peers/"*.py
# Only glibc's libraries: nothing the GPU machine may lack.
for f in bulksample cuda.test gpu.test bulksample.test gputrain; do
  extra=$(readelf -d "$dir/$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -vE '^(libc|libdl|libpthread|libm|libresolv)\.so\.[0-9]+$' || true)
  if [ -n "$extra" ]; then
    echo "gpu-bundle: $dir/$f needs $extra, which a GPU machine may lack" >&2
    exit 1
  fi
done
