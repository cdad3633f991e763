#!/usr/bin/env bash
# `make bench`: builds and runs the benchmark programs of benchmarks/, each
# writing its table to benchmarks/results/ and printing it. A program runs
# only when its directory exists, so this works while they are being written.
# Each run is bounded in time (timeout) and address space (ulimit -v). On an
# idle 2-core machine the SpGEMM comparison takes about 2 minutes (peak RSS
# about 7 GB, at A·A scale 16) and the whole target well under 30 minutes.
#
# Environment (all optional):
#   BENCH_THREADS  threads of the SpGEMM comparison (default 2)
#   BENCH_MEM_KB   address-space limit per program in KiB (default 3/4 of RAM)
#   BENCH_ARGS_SPGEMM, BENCH_ARGS_DATA, BENCH_ARGS_SAMPLE, BENCH_ARGS_LADIES,
#   BENCH_ARGS_TRAIN, BENCH_ARGS_DIST  extra flags for one program, e.g. BENCH_ARGS_SPGEMM="--reps 9"
#   BENCH_DIST_SCALE  R-MAT scale of the distributed benchmark (default 22)
#   BENCH_ARGS_DPTRAIN  extra flags of benchmarks/dptrainbench (data-parallel training)
#   BENCH_SWEEP_SCALE  R-MAT scale of the bulk size sweep through the CLI (default 20);
#   BENCH_ARGS_SWEEP   extra flags for it
#   BENCH_ARGS_SUMMA  extra flags of benchmarks/summabench (SUMMA against the 1.5D pull)
#   BENCH_ARGS_EPOCHMODEL  extra flags of benchmarks/epochmodel (the papers100M epoch prediction)
#   BENCH_LADIES_THREADS  thread counts of the LADIES sweep through the CLI (default 1,2);
#   BENCH_ARGS_LADIES_SWEEP  extra flags for it
#   BENCH_GATHER_THREADS  thread counts of the feature-gather benchmark (default 1,2; 1,2,4,8,16
#   on a 16-core machine); BENCH_ARGS_GATHER  extra flags for it

#   BENCH_ARGS_SPGEMM, BENCH_ARGS_DATA, BENCH_ARGS_SAMPLE, BENCH_ARGS_FORMATS,
#   BENCH_ARGS_LADIES, BENCH_ARGS_TRAIN, BENCH_ARGS_TORCHPEER  extra flags for one program, e.g.
#   BENCH_ARGS_SPGEMM="--reps 9"
set -uo pipefail
cd "$(dirname "$0")/.."

threads=${BENCH_THREADS:-2}
mem_kb=${BENCH_MEM_KB:-$(awk '/^MemTotal:/ {print int($2 * 3 / 4)}' /proc/meminfo 2>/dev/null || echo 8388608)}
blas=$(scripts/blas-tags.sh)
bindir=$(mktemp -d)
trap 'rm -rf "$bindir"' EXIT
mkdir -p benchmarks/results
failed=()

# build NAME TAGS: builds ./benchmarks/NAME into $bindir/NAME.
build() {
  go build -tags "$2" -o "$bindir/$1" "./benchmarks/$1"
}

# bench NAME SECONDS ARGS...: runs the built program under its limits.
bench() {
  local name=$1 secs=$2
  shift 2
  echo
  echo "=== $name (limit ${secs}s, $((mem_kb / 1024)) MiB) ==="
  (ulimit -v "$mem_kb" && exec timeout --signal=INT --kill-after=30 "$secs" "$bindir/$name" "$@")
  local rc=$?
  case $rc in
    0) ;;
    124|130) echo "bench: $name ran past ${secs}s and was stopped" >&2; failed+=("$name") ;;
    *) echo "bench: $name failed (exit $rc)" >&2; failed+=("$name") ;;
  esac
}

# --- spgemm: bulksample vs SuiteSparse:GraphBLAS (benchmarks/results/spgemm.md) ---
if [ -d benchmarks/spgemmbench ]; then
  if build spgemmbench "${blas:+$blas,}graphblas" 2>"$bindir/graphblas.log"; then
    echo "bench: spgemmbench built against SuiteSparse:GraphBLAS"
  else
    echo "bench: SuiteSparse:GraphBLAS does not build here (install libgraphblas-dev: scripts/deps.sh bench);" >&2
    echo "bench: timing bulksample's SpGEMM alone. Build errors:" >&2
    sed 's/^/  /' "$bindir/graphblas.log" >&2
    build spgemmbench "$blas" || failed+=("spgemmbench (build)")
  fi
  [ ! -x "$bindir/spgemmbench" ] || bench spgemmbench 1200 --threads "$threads" --out benchmarks/results/spgemm.md ${BENCH_ARGS_SPGEMM:-}
fi

# --- dataset: loaders and generators (benchmarks/databench) ---
if [ -d benchmarks/databench ]; then
  if build databench "$blas"; then bench databench 300 ${BENCH_ARGS_DATA:-}; else failed+=("databench (build)"); fi
fi

# --- sampling: bulk node-wise sampling, SEPS (benchmarks/samplebench -> results/sampling.md) ---
if [ -d benchmarks/samplebench ]; then
  if build samplebench "$blas"; then
    bench samplebench 300 ${BENCH_ARGS_SAMPLE:-}
    bench samplebench 300 --scale 22 --threads 1,2 --bulk 1,16,256 --append ${BENCH_ARGS_SAMPLE:-}
    # The bulk size sweep as a user measures it: `bulksample sample --json`,
    # one process per run, every vertex a seed (so that k = 1024 is 1024
    # minibatches), warm and cold passes; the README's sampling table.
    if go build -tags "$blas" -o "$bindir/bulksample" ./cmd/bulksample; then
      bench samplebench 2400 --cli "$bindir/bulksample" --scale "${BENCH_SWEEP_SCALE:-20}" --seeds 0 \
        --threads 1,2 --bulk 1,4,16,64,256,1024 --reps 3 --append ${BENCH_ARGS_SWEEP:-}
    else failed+=("bulksample (build)"); fi
  else failed+=("samplebench (build)"); fi
fi

# --- input formats: the CLI's kernels on a graph read from native vs .npz (benchmarks/formatbench -> results/formats.md) ---
if [ -d benchmarks/formatbench ]; then
  if go build -tags "$blas" -o "$bindir/bulksample" ./cmd/bulksample && build formatbench "$blas"; then
    bench formatbench 600 --bin "$bindir/bulksample" --threads "$threads" --out benchmarks/results/formats.md ${BENCH_ARGS_FORMATS:-}
  else failed+=("formatbench (build)"); fi
fi

# --- layer-wise: LADIES / FastGCN sampling (benchmarks/ladiesbench) ---
if [ -d benchmarks/ladiesbench ]; then
  # Its section goes after the node-wise ones in results/sampling.md.
  if build ladiesbench "$blas"; then
    bench ladiesbench 240 --out "$bindir/layerwise.md" ${BENCH_ARGS_LADIES:-}
    if [ -s "$bindir/layerwise.md" ]; then
      { echo; cat "$bindir/layerwise.md"; } >>benchmarks/results/sampling.md
    fi
    # LADIES at b = 512, 512 columns, k in {1, 16, 64, 256} through the CLI,
    # one process per run: SEPS, parallel efficiency and peak RSS. 15 rounds
    # of 3 passes: the within-round ratios' 95% intervals need that many
    # rounds to be narrower than the 5% the verdict asks for (3 rounds give
    # only their range).
    if go build -tags "$blas" -o "$bindir/bulksample" ./cmd/bulksample; then
      bench ladiesbench 900 --cli "$bindir/bulksample" --bulks 1,16,64,256 --sweep-threads "${BENCH_LADIES_THREADS:-1,2}" \
        --reps 15 --cli-passes 3 --out "$bindir/layerwise-sweep.md" ${BENCH_ARGS_LADIES_SWEEP:-}
      if [ -s "$bindir/layerwise-sweep.md" ]; then
        { echo; cat "$bindir/layerwise-sweep.md"; } >>benchmarks/results/sampling.md
      fi
    else failed+=("bulksample (build)"); fi
  else failed+=("ladiesbench (build)"); fi
fi

# --- feature gathering: featurex.Local's dense and sparse gather at 1, 2, ... threads (benchmarks/gatherbench) ---
if [ -d benchmarks/gatherbench ]; then
  # Its section goes at the end of results/sampling.md, after the layer-wise one.
  if build gatherbench "$blas"; then
    bench gatherbench 300 --threads "${BENCH_GATHER_THREADS:-1,2}" --out "$bindir/gather.md" ${BENCH_ARGS_GATHER:-}
    if [ -s "$bindir/gather.md" ]; then
      { echo; cat "$bindir/gather.md"; } >>benchmarks/results/sampling.md
    fi
  else failed+=("gatherbench (build)"); fi
fi

# --- training: GraphSAGE / GCN epochs (benchmarks/trainbench -> results/train.md) ---
if [ -d benchmarks/trainbench ]; then
  if build trainbench "$blas"; then bench trainbench 300 ${BENCH_ARGS_TRAIN:-}; else failed+=("trainbench (build)"); fi
fi

# --- training compute vs a tuned PyTorch on the same minibatches (benchmarks/torchpeer -> results/training.md) ---
if [ -d benchmarks/torchpeer ]; then
  if build torchpeer "$blas"; then
    py=python3; [ -x /usr/bin/python3 ] && py=/usr/bin/python3   # where Debian's python3-torch lives
    if "$py" -c 'import torch, numpy' 2>/dev/null; then
      bench torchpeer 900 --threads "$threads" ${BENCH_ARGS_TORCHPEER:-}
    else
      echo "bench: torchpeer: no PyTorch (python3-torch: scripts/deps.sh bench); timing bulksample alone" >&2
      bench torchpeer 600 --threads "$threads" --peer "" ${BENCH_ARGS_TORCHPEER:-}
    fi
  else failed+=("torchpeer (build)"); fi
fi

# --- dist: distributed sampling and feature exchange under mpirun (benchmarks/distbench -> results/dist.md) ---
if [ -d benchmarks/distbench ]; then
  tags=$(scripts/build-tags.sh)
  case " $tags " in
    *" mpi "*)
      # distbench runs itself under mpirun for the feature exchange: the mpi tag too.
      if go build -tags "$tags" -o "$bindir/bulksample" ./cmd/bulksample && build distbench "$tags"; then
        bench distbench 2400 --bulksample "$bindir/bulksample" --scale "${BENCH_DIST_SCALE:-22}" ${BENCH_ARGS_DIST:-}
      else failed+=("distbench (build)"); fi ;;
    *) echo "bench: distbench needs the mpi build (libopenmpi-dev: scripts/deps.sh bench)" >&2; failed+=("distbench (no MPI)") ;;
  esac
fi

# --- data-parallel training under mpirun (benchmarks/dptrainbench -> appended to results/dist.md) ---
if [ -d benchmarks/dptrainbench ]; then
  case " $(scripts/build-tags.sh) " in
    *" mpi "*)
      if go build -tags "$(scripts/build-tags.sh)" -o "$bindir/bulksample" ./cmd/bulksample && build dptrainbench "$blas"; then
        bench dptrainbench 900 --bulksample "$bindir/bulksample" ${BENCH_ARGS_DPTRAIN:-}
      else failed+=("dptrainbench (build)"); fi ;;
    *) echo "bench: dptrainbench needs the mpi build (libopenmpi-dev: scripts/deps.sh bench)" >&2; failed+=("dptrainbench (no MPI)") ;;
  esac
fi

# --- Q·A and A·A by Sparse SUMMA against the 1.5D pull under mpirun (benchmarks/summabench -> appended to results/dist.md) ---
if [ -d benchmarks/summabench ]; then
  case " $(scripts/build-tags.sh) " in
    *" mpi "*)
      if go build -tags "$(scripts/build-tags.sh)" -o "$bindir/bulksample" ./cmd/bulksample && build summabench "$blas"; then
        bench summabench 600 --bulksample "$bindir/bulksample" ${BENCH_ARGS_SUMMA:-}
      else failed+=("summabench (build)"); fi ;;
    *) echo "bench: summabench needs the mpi build (libopenmpi-dev: scripts/deps.sh bench)" >&2; failed+=("summabench (no MPI)") ;;
  esac
fi

# --- papers100M epoch prediction from the whole-epoch cost model (benchmarks/epochmodel -> appended to results/dist.md) ---
# Measures the per-minibatch compute and the sampler on this CPU (one epoch of a
# products-shaped graph, twice; about a minute) and appends the prediction
# after distbench's sections, whose feature model it reuses.
if [ -d benchmarks/epochmodel ]; then
  if build epochmodel "$blas"; then bench epochmodel 600 --threads "$threads" ${BENCH_ARGS_EPOCHMODEL:-}; else failed+=("epochmodel (build)"); fi
fi

# --- soak: resident memory over 50 epochs of `bulksample train --data synthetic` (results/soak.md) ---
if go build -tags "$blas" -o "$bindir/bulksample" ./cmd/bulksample; then
  echo
  echo "=== soak (limit 1200s) ==="
  timeout --signal=INT --kill-after=30 1200 scripts/soak.sh "$bindir/bulksample" benchmarks/results/soak.md 50 || failed+=("soak")
else failed+=("bulksample (build)"); fi

echo
echo "bench: results in benchmarks/results/:"
ls -l benchmarks/results/ | sed 1d | sed 's/^/  /'
if [ ${#failed[@]} -gt 0 ]; then
  echo "bench: failed: ${failed[*]}" >&2
  exit 1
fi
