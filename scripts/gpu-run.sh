#!/usr/bin/env bash
# Runner of the GPU bundle (issue 28): scripts/gpu-bundle.sh copies it as
# run.sh beside the cuda build of bulksample, the `go test -c -tags cuda`
# binaries of the packages with CUDA tests and the peers, for a machine
# with an NVIDIA GPU, no Go and no network (the H100 machine: CUDA 13,
# PyTorch, CuPy). Everything it writes goes under $OUT.
#
#   run.sh [PART...]        (default: all)
#
# Parts:
#   info     machine.txt: GPU (nvidia-smi), driver, CUDA libraries found, Python/PyTorch/CuPy, the bundle's commit
#   tests    the test binaries with BULKSAMPLE_REQUIRE_GPU=1 (a missing GPU fails them) and BULKSAMPLE_CUDA_SYNC=1
#            (a failing kernel is named): cuda.test (driver, cuSPARSE/cuBLAS loading, Sgemm), gpu.test (the node-wise
#            and SpGEMM conformance kits on the GPU, the samplers against the CPU bit for bit, products, and the
#            emulator's checks), bulksample.test -test.run TestDevice (CPU-against-GPU digests through the CLI);
#            tests.log, with every difference printed where it is found
#   digest   R-MAT scale $SCALE: `sample --digest` on the CPU and with --device cuda for node-wise (frontier all,
#            new, weighted, with replacement), LADIES and FastGCN, and `spgemm --digest` for Q·A; digest.md
#   spgemm   table 1: Q·A at scales 20 and 22 (32,768 and 1,048,576 rows), A·A at scales 14 and 16, ours
#            (`spgemm --device cuda`) against CuPy's cuSPARSE product in the same run; spgemm.md
#   node     table 2: node-wise SEPS at scale $SCALE, b = 1024, fanout 15,10,5, k in $NODE_K: ours on the GPU, the
#            vectorised PyTorch sampler (benchmarks/gpupeer/torch_sampler.py) and our CPU path at $CPU_THREADS
#            threads, with the GPU's digest against the CPU's at every k; node.md
#   ladies   table 3: LADIES (b = 512, 512 columns per layer, 2 layers) at k in $LADIES_K, GPU and CPU; ladies.md
#   all      info tests digest spgemm node ladies
#   train    issue 29's training tables (train.md), within TRAIN_BUDGET seconds of its own, counted from its start:
#            step: `gputrain --mode step` (150,000-vertex planted graph, 3-layer GraphSAGE, hidden 256, fanouts 15,10,5,
#            batch 1024) against PyG's SAGEConv on the same blocks and features (peers/pyg_step.py: edge_index, CSR and
#            torch.compile variants, the fastest compared), with the CPU backend at $CPU_THREADS threads (the GPU/CPU ratio);
#            epoch: `gputrain --mode epoch` at ogbn-products' size (2,449,029 vertices) against peers/pyg_epoch.py, PyG fed
#            by the vectorised PyTorch sampler; accuracy: `bulksample train --data cora|citeseer --preset
#            kipf-gcn|planetoid-sage --device cpu|cuda` over $ACC_SEEDS seeds (medians). Not part of all: run it on its own
#            (./run.sh train, about 6 minutes).
# On a machine without a GPU (NVIDIA_SMI, default nvidia-smi, -L lists none) it says so and exits 1 before
# running anything.
#
# Environment (defaults in brackets):
#   OUT [./gpu-out]  WORK [/tmp/bulksample-gpu] (graphs)  SCALE [22]  SEED [1]  PYTHON [python3]
#   BUDGET [340] seconds for the whole command: a part still running then is stopped and later parts are skipped,
#            so that a run fits 6 minutes with the graphs' generation
#   CPU_THREADS [16, capped to nproc]  NODE_K [1,16,64,256]  LADIES_K [1,16,64]  REPS [3] passes or products
#   SPGEMM_JOBS ["20 32768,20 1048576,22 32768,22 1048576,14 0,16 0"]: "scale rows" pairs, rows 0 for A·A
#   TRAIN_BUDGET [330] seconds of the train part  TRAIN_NODES [150000]  EPOCH_NODES [2449029]  ACC_SEEDS [1,2,3,4,5]
#   ACC_DATA [cora,citeseer]  ACC_PRESETS [kipf-gcn,planetoid-sage]  COMPILE_SECONDS [90] for torch.compile's variant
#   BULKSAMPLE_CUDA_LIB  folder of libcusparse/libcublas when the loader does not find them (run.sh looks in
#            /usr/local/cuda/lib64 and in the Python environment's nvidia/*/lib folders and sets it)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
for part in "$@"; do
  case $part in
    info | tests | digest | spgemm | node | ladies | all | train) ;;
    *) echo "run.sh: unknown part $part (info, tests, digest, spgemm, node, ladies, all, train)" >&2; exit 2 ;;
  esac
done
smi=${NVIDIA_SMI:-nvidia-smi}
if ! "$smi" -L 2>/dev/null | grep -q '^GPU '; then
  echo "run.sh: no GPU on this machine ($smi -L lists none): this bundle runs bulksample on an NVIDIA GPU; nothing was run" >&2
  exit 1
fi
out=${OUT:-$PWD/gpu-out}
work=${WORK:-/tmp/bulksample-gpu}
scale=${SCALE:-22}
seed=${SEED:-1}
budget=${BUDGET:-340}
py=${PYTHON:-python3}
reps=${REPS:-3}
threads=${CPU_THREADS:-16}
((threads > $(nproc))) && threads=$(nproc)
bs=$here/bulksample
mkdir -p "$out" "$work" || exit 1
exec 2> >(tee -a "$out/run.log" >&2)
[ $# -gt 0 ] || set -- all
failed=0

stamp() { echo "run.sh: $* ($(date -u +%T), ${SECONDS}s of ${budget}s)" >&2; }

# limited NAME CMD...: runs CMD within what is left of the budget.
limited() {
  local name=$1 rc limit=$((budget - SECONDS - 5))
  shift
  if ((limit < 5)); then
    stamp "$name skipped: the budget is spent"
    failed=1
    return 1
  fi
  timeout --signal=INT --kill-after=5 "$limit" "$@"
  rc=$?
  case $rc in
    0) return 0 ;;
    124 | 130) stamp "$name ran past the budget and was stopped"; failed=1 ;;
    *) stamp "$name failed (exit $rc)"; failed=1 ;;
  esac
  return $rc
}

# The CUDA libraries: the loader's, /usr/local/cuda's, or the Python environment's (NVIDIA's wheels).
if [ -z "${BULKSAMPLE_CUDA_LIB:-}" ] && ! ldconfig -p 2>/dev/null | grep -q 'libcusparse\.so\.1[123] ' &&
  ! ls /usr/local/cuda/lib64/libcusparse.so.1[123] >/dev/null 2>&1; then
  for d in $("$py" -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null); do
    for lib in "$d"/nvidia/cu13/lib "$d"/nvidia/cu12/lib "$d"/nvidia/cusparse/lib; do
      if ls "$lib"/libcusparse.so.1[123] >/dev/null 2>&1; then
        export BULKSAMPLE_CUDA_LIB=$lib
        break 2
      fi
    done
  done
fi

# graph SCALE: the R-MAT graph of that scale (native format, made once) in $WORK; npz SCALE: its scipy copy for the peers.
graph() {
  local g=$work/r$1-seed$seed.bsn
  if [ ! -s "$g" ]; then
    stamp "gen rmat --scale $1"
    limited "gen --scale $1" "$bs" gen rmat --scale "$1" --seed "$seed" --out "$g.tmp" >/dev/null 2>>"$out/run.log" && mv "$g.tmp" "$g" || return 1
  fi
  echo "$g"
}
npz() {
  local g z=$work/r$1-seed$seed.npz
  g=$(graph "$1") || return 1
  if [ ! -s "$z" ]; then
    limited "convert to $z" "$bs" convert "$g" "$z.tmp.npz" >/dev/null 2>>"$out/run.log" && mv "$z.tmp.npz" "$z" || return 1
  fi
  echo "$z"
}

# cap N: N, or the vertices of the R-MAT graph of $SCALE when fewer (a small SCALE for trying the runner).
cap() { echo $(($1 < (1 << scale) ? $1 : (1 << scale))); }

# js KEY: the value of the first KEY in the JSON line on stdin (a number or a string; Go's and Python's spacing).
js() { grep -o "\"$1\": *\"\{0,1\}[^\",}]*" | head -n 1 | sed "s/^\"$1\": *\"\{0,1\}//"; }

info() {
  {
    echo "# $(date -u '+%F %T UTC'), $(uname -srm)"
    echo "bundle: $(tr '\n' ' ' <"$here/BUILD" 2>/dev/null)"
    "$bs" --version
    "$smi" -L
    "$smi" 2>&1 | head -n 20
    echo "nproc: $(nproc); CPU threads used: $threads"
    grep -E '^(MemTotal|MemAvailable)' /proc/meminfo
    grep -m1 'model name' /proc/cpuinfo
    echo "BULKSAMPLE_CUDA_LIB: ${BULKSAMPLE_CUDA_LIB:-unset}"
    ldconfig -p 2>/dev/null | grep -E 'libcuda\.so|libcusparse|libcublas\.so' || echo "ldconfig: no CUDA libraries listed"
    ls /usr/local/cuda/lib64/libcusparse.so* /usr/local/cuda/lib64/libcublas.so* 2>/dev/null
    "$py" -c 'import sys; print("python", sys.version.split()[0])' 2>&1
    "$py" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())' 2>&1 | tail -n 1
    "$py" -c 'import cupy; print("cupy", cupy.__version__)' 2>&1 | tail -n 1
  } >"$out/machine.txt" 2>&1
  stamp "info: $out/machine.txt"
}

tests() {
  local t rc=0
  : >"$out/tests.log"
  for t in "cuda.test -test.v" "gpu.test -test.v" "bulksample.test -test.v -test.run TestDevice"; do
    stamp "tests: $t"
    # shellcheck disable=SC2086
    BULKSAMPLE_REQUIRE_GPU=1 BULKSAMPLE_CUDA_SYNC=1 limited "$t" "$here"/$t -test.timeout 300s >>"$out/tests.log" 2>&1 || rc=1
  done
  grep -E '^(--- FAIL|FAIL|ok|PASS)|differ|want' "$out/tests.log" | head -n 40 >&2
  ((rc)) && stamp "tests: FAILED (tests.log)" || stamp "tests: all passed"
}

digest() {
  local g line cpu gpu
  g=$(graph "$scale") || { failed=1; return; }
  {
    echo "## CPU against GPU digests, R-MAT scale $scale"
    echo
    echo "| run | CPU digest | GPU digest | equal |"
    echo "|---|---|---|---|"
  } >"$out/digest.md"
  local IFS=$'\n' cfg
  for cfg in "node all|--fanout 15,10,5" "node new|--fanout 15,10,5 --frontier new" "node weighted|--fanout 15,10,5 --weighted" \
    "node with replacement|--fanout 15,10,5 --replace" "ladies|--method ladies --batch 512 --fanout 512,512" \
    "fastgcn|--method fastgcn --batch 512 --fanout 512,512"; do
    local name=${cfg%%|*} args
    IFS=' ' read -r -a args <<<"${cfg#*|}"
    stamp "digest: $name"
    cpu=$(limited "digest cpu $name" "$bs" sample --graph "$g" --seeds "$(cap 65536)" --bulk 64 --seed "$seed" --threads "$threads" --digest --json "${args[@]}" 2>>"$out/run.log" | tail -n 1 | js digest)
    gpu=$(limited "digest gpu $name" "$bs" sample --graph "$g" --seeds "$(cap 65536)" --bulk 64 --seed "$seed" --device cuda --digest --json "${args[@]}" 2>>"$out/run.log" | tail -n 1 | js digest)
    echo "| sample $name | ${cpu:-none} | ${gpu:-none} | $([ -n "$cpu" ] && [ "$cpu" = "$gpu" ] && echo yes || echo "**NO**") |" >>"$out/digest.md"
    [ -n "$cpu" ] && [ "$cpu" = "$gpu" ] || failed=1
  done
  for rows in $(cap 32768); do
    cpu=$(limited "digest cpu spgemm" "$bs" spgemm --a "$g" --select-rows "$rows" --reps 1 --digest --json 2>>"$out/run.log" | tail -n 1 | js digest)
    gpu=$(limited "digest gpu spgemm" "$bs" spgemm --a "$g" --select-rows "$rows" --reps 1 --device cuda --digest --json 2>>"$out/run.log" | tail -n 1 | js digest)
    echo "| spgemm Q·A, $rows rows | ${cpu:-none} | ${gpu:-none} | $([ -n "$cpu" ] && [ "$cpu" = "$gpu" ] && echo yes || echo "**NO**") |" >>"$out/digest.md"
    [ -n "$cpu" ] && [ "$cpu" = "$gpu" ] || failed=1
  done
  cat "$out/digest.md" >&2
}

spgemm() {
  {
    echo "## SpGEMM on the GPU: ours against CuPy's cuSPARSE product, R-MAT"
    echo
    echo "Ours: \`bulksample spgemm --device cuda --reps $((reps + 2))\` (median of the warm products, each synchronised; the"
    echo "method is our row gather for Q·A, cuSPARSE's SpGEMM with the algorithm that had the resources for A·A). CuPy:"
    echo "benchmarks/gpupeer/cupy_spgemm.py, the same number of products, on the same graph (its own random rows)."
    echo
    echo "| product | scale | rows of Q | nnz(C) | ours (ms) | method | CuPy (ms) | ours / CuPy |"
    echo "|---|---:|---:|---:|---:|---|---:|---:|"
  } >"$out/spgemm.md"
  local s rows g z ours peer oms pms
  local IFS=,
  for job in ${SPGEMM_JOBS:-20 32768,20 1048576,22 32768,22 1048576,14 0,16 0}; do
    IFS=' ' read -r s rows <<<"$job"
    g=$(graph "$s") && z=$(npz "$s") || { failed=1; continue; }
    local sel=()
    ((rows > 0)) && sel=(--select-rows "$rows")
    stamp "spgemm: scale $s rows $rows"
    ours=$(limited "spgemm ours $s $rows" "$bs" spgemm --a "$g" "${sel[@]}" --reps $((reps + 2)) --device cuda --json 2>>"$out/run.log" | tail -n 1)
    echo "$ours" >>"$out/spgemm.jsonl"
    peer=$(limited "spgemm cupy $s $rows" "$py" "$here/peers/cupy_spgemm.py" --npz "$z" --select-rows "$rows" --reps $((reps + 2)) 2>>"$out/run.log" | tail -n 1)
    echo "$peer" >>"$out/spgemm.jsonl"
    oms=$(js seconds <<<"$ours")
    pms=$(js seconds <<<"$peer")
    local perr
    perr=$(js error <<<"$peer")
    awk -v p="$( ((rows > 0)) && echo 'Q·A' || echo 'A·A')" -v s="$s" -v r="$rows" -v nnz="$(js nnz_out <<<"$ours")" -v o="$oms" \
      -v m="$(js method <<<"$ours")" -v c="$pms" -v e="$perr" 'BEGIN {
        os = (o == "") ? "failed" : sprintf("%.3f", o * 1000); cs = (c == "") ? "fails: " e : sprintf("%.3f", c * 1000)
        ratio = (o != "" && c != "") ? sprintf("%.2f", o / c) : "-"
        printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", p, s, (r > 0 ? r : "-"), nnz, os, m, cs, ratio }' >>"$out/spgemm.md"
  done
  cat "$out/spgemm.md" >&2
}

node() {
  local g z k seeds line cpu_digest
  g=$(graph "$scale") && z=$(npz "$scale") || { failed=1; return; }
  {
    echo "## Node-wise bulk sampling SEPS, R-MAT scale $scale, b = 1024, fanout 15,10,5"
    echo
    echo "Ours on the GPU: \`bulksample sample --device cuda --reps $reps\` (warm median; the blocks stay on the device). PyTorch:"
    echo "benchmarks/gpupeer/torch_sampler.py, the same semantics vectorised over the bulk, the same minibatches a pass"
    echo "(its own random numbers). CPU: \`bulksample sample --threads $threads\`. A pass samples max(64, k) minibatches."
    echo
    echo "| k | GPU SEPS (M) | PyTorch SEPS (M) | GPU / PyTorch | CPU $threads threads SEPS (M) | GPU / CPU | GPU digest = CPU's |"
    echo "|---:|---:|---:|---:|---:|---:|---|"
  } >"$out/node.md"
  stamp "node: the PyTorch peer, k = ${NODE_K:-1,16,64,256}"
  limited "node torch" "$py" "$here/peers/torch_sampler.py" --npz "$z" --batch 1024 --fanout 15,10,5 --bulks "${NODE_K:-1,16,64,256}" \
    --reps "$reps" --seed "$seed" >"$work/torch.jsonl" 2>>"$out/run.log"
  cp "$work/torch.jsonl" "$out/node-torch.jsonl" 2>/dev/null
  for k in $(tr , ' ' <<<"${NODE_K:-1,16,64,256}"); do
    seeds=$(cap $((1024 * (k > 64 ? k : 64))))
    stamp "node: k = $k"
    local gl cl tl
    gl=$(limited "node gpu $k" "$bs" sample --graph "$g" --batch 1024 --fanout 15,10,5 --bulk "$k" --seeds "$seeds" --seed "$seed" \
      --reps "$reps" --device cuda --digest --json 2>>"$out/run.log" | tail -n 1)
    cl=$(limited "node cpu $k" "$bs" sample --graph "$g" --batch 1024 --fanout 15,10,5 --bulk "$k" --seeds "$seeds" --seed "$seed" \
      --reps "$reps" --threads "$threads" --digest --json 2>>"$out/run.log" | tail -n 1)
    tl=$(grep "\"k\": $k," "$work/torch.jsonl" 2>/dev/null | tail -n 1)
    echo "$gl" >>"$out/node.jsonl"
    echo "$cl" >>"$out/node.jsonl"
    awk -v k="$k" -v g="$(js seps <<<"$gl")" -v t="$(js seps <<<"$tl")" -v c="$(js seps <<<"$cl")" \
      -v eq="$([ -n "$(js digest <<<"$gl")" ] && [ "$(js digest <<<"$gl")" = "$(js digest <<<"$cl")" ] && echo yes || echo '**NO**')" 'BEGIN {
        gs = (g == "") ? "failed" : sprintf("%.1f", g / 1e6); ts = (t == "") ? "failed" : sprintf("%.1f", t / 1e6)
        cs = (c == "") ? "failed" : sprintf("%.1f", c / 1e6)
        printf "| %s | %s | %s | %s | %s | %s | %s |\n", k, gs, ts, (g != "" && t != "") ? sprintf("%.2f", g / t) : "-",
          cs, (g != "" && c != "") ? sprintf("%.2f", g / c) : "-", eq }' >>"$out/node.md"
  done
  cat "$out/node.md" >&2
}

ladies() {
  local g k
  g=$(graph "$scale") || { failed=1; return; }
  {
    echo "## LADIES bulk sampling SEPS, R-MAT scale $scale (normalised adjacency), b = 512, 512 columns per layer, 2 layers"
    echo
    echo "\`bulksample sample --method ladies --batch 512 --fanout 512,512 --reps $reps\`, with --device cuda and with --threads $threads."
    echo
    echo "| k | GPU SEPS (M) | CPU $threads threads SEPS (M) | GPU / CPU | GPU digest = CPU's |"
    echo "|---:|---:|---:|---:|---|"
  } >"$out/ladies.md"
  for k in $(tr , ' ' <<<"${LADIES_K:-1,16,64}"); do
    local seeds gl cl
    seeds=$(cap $((512 * (k > 32 ? k : 32))))
    stamp "ladies: k = $k"
    gl=$(limited "ladies gpu $k" "$bs" sample --graph "$g" --method ladies --batch 512 --fanout 512,512 --bulk "$k" --seeds "$seeds" \
      --seed "$seed" --reps "$reps" --device cuda --digest --json 2>>"$out/run.log" | tail -n 1)
    cl=$(limited "ladies cpu $k" "$bs" sample --graph "$g" --method ladies --batch 512 --fanout 512,512 --bulk "$k" --seeds "$seeds" \
      --seed "$seed" --reps "$reps" --threads "$threads" --digest --json 2>>"$out/run.log" | tail -n 1)
    echo "$gl" >>"$out/ladies.jsonl"
    echo "$cl" >>"$out/ladies.jsonl"
    awk -v k="$k" -v g="$(js seps <<<"$gl")" -v c="$(js seps <<<"$cl")" \
      -v eq="$([ -n "$(js digest <<<"$gl")" ] && [ "$(js digest <<<"$gl")" = "$(js digest <<<"$cl")" ] && echo yes || echo '**NO**')" 'BEGIN {
        printf "| %s | %s | %s | %s | %s |\n", k, (g == "") ? "failed" : sprintf("%.1f", g / 1e6), (c == "") ? "failed" : sprintf("%.1f", c / 1e6),
          (g != "" && c != "") ? sprintf("%.2f", g / c) : "-", eq }' >>"$out/ladies.md"
  done
  cat "$out/ladies.md" >&2
}

train() {
  local saved=$budget tw=$work/train
  budget=$((SECONDS + ${TRAIN_BUDGET:-330}))
  mkdir -p "$tw"
  : >"$out/train-step.jsonl"
  : >"$out/train-pyg-step.jsonl"
  : >"$out/train-epoch.jsonl"
  : >"$out/train-pyg-epoch.jsonl"
  : >"$out/train-accuracy.jsonl"
  stamp "train: step, ours (GPU and CPU at $threads threads)"
  rm -rf "$tw/step"
  limited "train step ours" "$here/gputrain" --mode step --nodes "${TRAIN_NODES:-150000}" --cpu-threads "$threads" --export "$tw/step" \
    >>"$out/train-step.jsonl" 2>>"$out/run.log"
  if [ -s "$tw/step/manifest.json" ]; then
    stamp "train: step, PyG"
    limited "train step pyg" "$py" "$here/peers/pyg_step.py" --dir "$tw/step" --compile-seconds "${COMPILE_SECONDS:-90}" \
      >>"$out/train-pyg-step.jsonl" 2>>"$out/run.log"
  fi
  local variant
  variant=$(grep '"best"' "$out/train-pyg-step.jsonl" | js best)
  [ "$variant" = eager ] || [ "$variant" = csr ] || variant=eager # compile's graph breaks differ per minibatch shape: eager end to end
  stamp "train: epoch, ours"
  rm -rf "$tw/epoch"
  limited "train epoch ours" "$here/gputrain" --mode epoch --nodes "${EPOCH_NODES:-2449029}" --export "$tw/epoch" \
    >>"$out/train-epoch.jsonl" 2>>"$out/run.log"
  if [ -s "$tw/epoch/manifest.json" ]; then
    stamp "train: epoch, PyG ($variant)"
    limited "train epoch pyg" "$py" "$here/peers/pyg_epoch.py" --dir "$tw/epoch" --variant "$variant" \
      >>"$out/train-pyg-epoch.jsonl" 2>>"$out/run.log"
  fi
  rm -rf "$tw/epoch" "$tw/step"
  local data preset dev seed line
  for data in $(tr , ' ' <<<"${ACC_DATA:-cora,citeseer}"); do
    for preset in $(tr , ' ' <<<"${ACC_PRESETS:-kipf-gcn,planetoid-sage}"); do
      for seed in $(tr , ' ' <<<"${ACC_SEEDS:-1,2,3,4,5}"); do
        for dev in cpu cuda; do
          stamp "train: accuracy $data $preset $dev seed $seed"
          local extra=()
          [ "$data" = citeseer ] && [ "$preset" = planetoid-sage ] && extra=(--epochs 100) # the preset's note for CiteSeer
          line=$(limited "train $data $preset $dev $seed" "$bs" train --data "$data" --preset "$preset" --device "$dev" --seed "$seed" \
            --threads "$threads" "${extra[@]}" --json 2>>"$out/run.log" | tail -n 1)
          [ -n "$line" ] || continue
          echo "{\"data\": \"$data\", \"preset\": \"$preset\", \"device\": \"$dev\", \"seed\": $seed, \"test_acc\": $(js test_acc <<<"$line"), \"val_acc\": $(js val_acc <<<"$line")}" \
            >>"$out/train-accuracy.jsonl"
        done
      done
    done
  done
  "$py" "$here/peers/train_report.py" --out "$out/train.md" --step "$out/train-step.jsonl" --peer-step "$out/train-pyg-step.jsonl" \
    --epoch "$out/train-epoch.jsonl" --peer-epoch "$out/train-pyg-epoch.jsonl" --accuracy "$out/train-accuracy.jsonl" >&2 ||
    failed=1
  budget=$saved
}

for part in "$@"; do
  case $part in
    info | tests | digest | spgemm | node | ladies | train) "$part" || failed=1 ;;
    all) info; tests; digest; spgemm; node; ladies ;;
  esac
done
stamp "parts $* finished$( ((failed)) && echo ', some failed')"
ls -l "$out" >&2
exit $failed
