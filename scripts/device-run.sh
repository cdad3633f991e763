#!/usr/bin/env bash
# Runner of the device bundle (issue 40): scripts/device-bundle.sh copies it
# as run.sh beside payload.tar.gz, which holds the cuda build of bulksample,
# the `go test -c -tags cuda` binaries, gputrain, the peers
# (benchmarks/gpupeer), scalebench and the mpi build with its Open MPI (the
# scale bundle of issue 31), for a machine with an NVIDIA GPU and 16 host
# cores, no Go and no network (the H200 machine: CUDA 13, PyTorch, CuPy).
#
#   run.sh [--dry-run] [PART...]        (default: every part, in this order)
#
# ONE command runs everything within BUDGET seconds (default 540: the device
# tool allows 600 a command), parts in order of value:
#   machine  machine.txt: `bulksample device` (driver, GPU, SMs, memory, the time Open took, every library the
#            binary loaded with path, version, NEEDED and RUNPATH, each kernel's registers, local and shared
#            memory), nvidia-smi (persistence mode), LD_LIBRARY_PATH, BULKSAMPLE_CUDA_LIB, Python and PyTorch
#   tests    the GPU tests, at most 120 s per binary, BULKSAMPLE_REQUIRE_GPU=1 and BULKSAMPLE_CUDA_SYNC=1:
#            cuda.test, gpu.test -test.run TestCUDA, bulksample.test -test.run TestDevice (tests.log)
#   node     node-wise SEPS, R-MAT $SCALE, b = 1024, fanout 15,10,5, k in $NODE_K: GPU, the vectorised PyTorch
#            sampler, the CPU at $CPU_THREADS threads, the GPU's digest against the CPU's (goals: >= 2x PyTorch at every
#            k, >= 5G SEPS at k = 256, digests equal)
#   digest   CPU against GPU digests: node-wise (frontier all, new, weighted, with replacement, both), LADIES,
#            FastGCN, Q·A (goal: all equal)
#   qa       Q·A at scales 20 and 22 (32,768 and 1,048,576 rows): ours against CuPy's cuSPARSE (goal: <= 1.0x)
#   aa       A·A at scales 14 and 16 by cuSPARSE: ours against CuPy (goal: <= 1.0x where CuPy runs, a result)
#   ladies   LADIES SEPS at k in $LADIES_K, GPU and CPU, digests equal
#   step     the SAGE training step on the same minibatches against PyG's SAGEConv (goal: <= 0.8x PyG's best)
#   epoch    an end-to-end epoch at ogbn-products' size against PyG fed by the PyTorch sampler (goal: >= 3x)
#   scale    issue 31's scale table at 16 processes on the host cores (scale-run.sh table), with what is left
# A part whose planned time (PLAN_<PART>, see --dry-run) does not fit in what is left of the budget is marked
# NOT RUN instead of being cut mid-way. Each part writes its rows the moment they exist. A GPU part (node to
# epoch) that fails is rerun once with BULKSAMPLE_CUDA_SYNC=1 (a failing kernel is then named where it fails),
# when its plan fits; the first failure still counts. Every failure is counted in summary.md (each goal: its
# figure, PASS, FAIL or NOT RUN, and the first error line) and in the exit status: the number of parts that
# failed or did not run (0: every goal met).
#
# Outputs, under $OUT (the device tool brings back 8 files): summary.md, machine.txt, tests.log, results.md
# (every table), results.jsonl (every run's JSON, with its part), run.log. Graphs and CUDA_CACHE_PATH (the
# driver's JIT cache) live in $WORK, the unpacked payload in UNPACK; never under $OUT.
#
# On a machine without a GPU (NVIDIA_SMI, default nvidia-smi, -L lists none) it says so and exits 1 before
# running or writing anything; --dry-run lists the parts and their planned times anywhere, and runs nothing.
#
# Environment (defaults in brackets):
#   OUT [./device-out]  WORK [/tmp/bulksample-device]  UNPACK [the bundle's unpacked/]  BUDGET [540]
#   SCALE [22]  SEED [1]  REPS [3]
#   PYTHON [the first of python3 on PATH, then $HOME/*/bin/python3, ... /opt/*/bin/python3 that imports torch]
#   CPU_THREADS [16, capped to nproc]  NODE_K [1,16,64,256]  LADIES_K [1,16,64]
#   QA_JOBS ["20 32768,20 1048576,22 32768,22 1048576"]  AA_JOBS ["14 0,16 0"]: "scale rows" pairs
#   TRAIN_NODES [150000]  EPOCH_NODES [2449029]  PYG_VARIANTS [eager,csr] (add compile for torch.compile)
#   SCALE_CASES [one process at 16 threads, np 16 push, auto, pull, replicated]  SCALE_RELABEL [none]  SCALE_SEEDS [65536]
#   PLAN_<PART> the planned seconds of a part (--dry-run shows them)
#   BULKSAMPLE_CUDA_LIB  the folders of libcusparse and libcublas (colon-separated) when the loader does not find
#            them; run.sh sets it from /usr/local/cuda*/lib64 and the Python environment's nvidia/*/lib folders
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
all_parts=(machine tests node digest qa aa ladies step epoch scale)
gpu_parts=" node digest qa aa ladies step epoch "
declare -A plan=([machine]=10 [tests]=45 [node]=75 [digest]=40 [qa]=40 [aa]=20 [ladies]=35 [step]=75 [epoch]=90 [scale]=60)
declare -A what=(
  [machine]="machine facts (machine.txt): bulksample device, nvidia-smi, libraries, Python"
  [tests]="GPU tests: cuda.test, gpu.test TestCUDA, bulksample.test TestDevice (120 s each, BULKSAMPLE_CUDA_SYNC=1)"
  [node]="node-wise table: GPU vs PyTorch vs CPU, digests (goals >= 2x PyTorch at every k, >= 5G SEPS at k = 256, digests equal)"
  [digest]="CPU against GPU digests: node-wise x5, LADIES, FastGCN, Q·A (goal: all equal)"
  [qa]="Q·A at scales 20 and 22: ours vs CuPy's cuSPARSE (goal <= 1.0x)"
  [aa]="A·A at scales 14 and 16: ours (cuSPARSE) vs CuPy (goal <= 1.0x where CuPy runs)"
  [ladies]="LADIES: GPU vs CPU, digests (goal: digests equal)"
  [step]="SAGE training step vs PyG on the same minibatches (goal <= 0.8x PyG's best)"
  [epoch]="products-sized epoch vs PyG + PyTorch sampler (goal >= 3x)"
  [scale]="scale table at 16 processes on the host cores, with what is left"
)
dry=0
want=()
for a in "$@"; do
  case $a in
    --dry-run) dry=1 ;;
    -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    all) want+=("${all_parts[@]}") ;;
    machine | tests | node | digest | qa | aa | ladies | step | epoch | scale) want+=("$a") ;;
    *) echo "run.sh: unknown part $a (${all_parts[*]}, all, --dry-run)" >&2; exit 2 ;;
  esac
done
[ ${#want[@]} -gt 0 ] || want=("${all_parts[@]}")
parts=()
for p in "${all_parts[@]}"; do [[ " ${want[*]} " == *" $p "* ]] && parts+=("$p"); done
budget=${BUDGET:-540}
for p in "${all_parts[@]}"; do
  v=PLAN_${p^^}
  [ -n "${!v:-}" ] && plan[$p]=${!v}
done
margin=10 # seconds kept for the last command's kill (5 s after its stop) and the summary

# find_python: the Python that has torch: PYTHON, else the PATH's, else a virtual environment under the home
# folder or /opt, else the PATH's python3 (the peers then fail, saying why).
has_torch() { timeout 60 "$1" -c 'import torch' >/dev/null 2>&1; }
find_python() {
  local p
  if [ -n "${PYTHON:-}" ]; then echo "$PYTHON"; return; fi
  for p in $(type -ap python3 python); do has_torch "$p" && { echo "$p"; return; }; done
  for p in "$HOME"/*/bin/python3 "$HOME"/.[!.]*/bin/python3 "$HOME"/*/envs/*/bin/python3 "$HOME"/.[!.]*/envs/*/bin/python3 \
    "$HOME"/*/*/bin/python3 /opt/*/bin/python3 /opt/*/envs/*/bin/python3 /opt/*/*/bin/python3; do
    [ -x "$p" ] && has_torch "$p" && { echo "$p"; return; }
  done
  command -v python3 || echo python3
}

if ((dry)); then
  echo "run.sh --dry-run: the plan within BUDGET=${budget} s (parts in order of value; a part that does not fit in what is left is NOT RUN):"
  total=0 i=0
  for p in "${parts[@]}"; do
    i=$((i + 1))
    printf '%3d. %-8s %4d s  %s\n' "$i" "$p" "${plan[$p]}" "${what[$p]}"
    total=$((total + plan[$p]))
  done
  echo "planned: $total s of $budget s ($((budget - total - margin)) s spare; the scale part takes what is left)"
  p=$(find_python)
  has_torch "$p" && echo "python with torch: $p" || echo "python with torch: none found ($p does not import torch: the PyTorch, PyG and CuPy peers would fail)"
  ((total + margin <= budget)) || { echo "run.sh: the plan ($total s) does not fit BUDGET=$budget s" >&2; exit 1; }
  exit 0
fi

smi=${NVIDIA_SMI:-nvidia-smi}
if ! "$smi" -L 2>/dev/null | grep -q '^GPU '; then
  echo "run.sh: no GPU on this machine ($smi -L lists none): this bundle runs bulksample on an NVIDIA GPU; nothing was run" >&2
  exit 1
fi

out=${OUT:-$PWD/device-out}
work=${WORK:-/tmp/bulksample-device}
scale=${SCALE:-22}
seed=${SEED:-1}
reps=${REPS:-3}
threads=${CPU_THREADS:-16}
((threads > $(nproc))) && threads=$(nproc)
mkdir -p "$out" "$work/sections" "$work/state" || exit 1
rm -f "$work"/sections/* "$work"/state/*
exec 2> >(tee -a "$out/run.log" >&2)
: >"$out/results.jsonl"
export CUDA_CACHE_PATH=$work/cuda-cache CUDA_CACHE_MAXSIZE=4294967296
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PYTHONUNBUFFERED=1

stamp() { echo "run.sh: $* ($(date -u +%T), ${SECONDS} s of ${budget} s)" >&2; }

# The binaries: payload.tar.gz unpacked once into UNPACK (default the bundle's folder unpacked/: where run.sh
# itself runs, so not on a noexec mount), or the folder itself when there is no payload.
bundle=$here
if [ -f "$here/payload.tar.gz" ]; then
  bundle=${UNPACK:-$here/unpacked}
  if ! cmp -s "$here/BUILD" "$bundle/BUILD" 2>/dev/null; then
    rm -rf "$bundle" && mkdir -p "$bundle" && tar -xzf "$here/payload.tar.gz" -C "$bundle" && cp "$here/BUILD" "$bundle/BUILD" ||
      { echo "run.sh: cannot unpack $here/payload.tar.gz into $bundle" >&2; exit 1; }
    stamp "unpacked the payload into $bundle"
  fi
fi
bs=$bundle/bulksample
py=$(find_python)
has_torch "$py" && stamp "python: $py" || stamp "python: $py, which does not import torch: the PyTorch, PyG and CuPy peers will fail"

# The CUDA libraries: the loader's, or the toolkit's and the Python environment's folders (NVIDIA's wheels keep
# libnvJitLink and libcublasLt in folders of their own; the binding loads them from there).
if [ -z "${BULKSAMPLE_CUDA_LIB:-}" ] && ! ldconfig -p 2>/dev/null | grep -q 'libcusparse\.so\.1[123] '; then
  libs=()
  for d in /usr/local/cuda/lib64 /usr/local/cuda-*/lib64 \
    $("$py" -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null | tr ' ' '\n' | sed 's|$|/nvidia/*/lib|'); do
    for l in $d; do ls "$l"/lib*.so* >/dev/null 2>&1 && libs+=("$l"); done
  done
  ((${#libs[@]})) && export BULKSAMPLE_CUDA_LIB=$(IFS=:; echo "${libs[*]}")
fi

# ---- bookkeeping: per part, $work/state/PART.err holds its failures (first line first), .fig its figure.
part=none
fail() { # fail MSG: a failure of the current part (kept whatever subshell it happens in)
  echo "$*" >>"$work/state/$part.err"
  stamp "$part: FAIL: $*"
}
figure() { echo "$*" >"$work/state/$part.fig"; }

# limited NAME [--cap S] [--quiet] CMD...: runs CMD within what is left of the budget (and at most S seconds); a
# stop or a failure is a failure of the part, with the command's first error line (--quiet: left to the caller,
# in last_err).
last_err=
limited() {
  local name=$1 cap=0 quiet=0 rc left err
  shift
  if [ "$1" = --cap ]; then cap=$2; shift 2; fi
  if [ "$1" = --quiet ]; then quiet=1; shift; fi
  left=$((budget - SECONDS - margin))
  ((cap > 0 && cap < left)) && left=$cap
  if ((left < 3)); then
    last_err="$name: not run, the budget is spent"
    ((quiet)) || fail "$last_err"
    return 1
  fi
  err=$work/state/cmd.$BASHPID.err
  # Standard error through tee (into err and on), standard output where the caller sends it (fd 3).
  { timeout --signal=INT --kill-after=5 "$left" "$@" 2>&1 1>&3 3>&- | tee "$err" >&2; rc=${PIPESTATUS[0]}; } 3>&1
  case $rc in
    0) last_err= ;;
    124 | 130 | 137) last_err="$name: stopped after $left s (the budget or its cap)" ;;
    *) last_err="$name: exit $rc: $(grep -m1 -iE 'error|fail|panic|fatal|exception|traceback' "$err" || tail -n 1 "$err")"
      [[ $last_err == *": " ]] && last_err+="(no message on standard error)" ;;
  esac
  ((rc == 0 || quiet)) || fail "$last_err"
  rm -f "$err"
  return $rc
}

# record NAME: the JSON line on stdin into results.jsonl, tagged with the part and run, and echoes it back.
record() {
  local line
  line=$(grep '^{' | tail -n 1)
  [ -n "$line" ] && echo "{\"part\": \"$part\", \"run\": \"$1\", \"result\": $line}" >>"$out/results.jsonl"
  echo "$line"
}

# js KEY: the value of the first KEY in the JSON line on stdin (a number or a string; Go's and Python's spacing).
js() { grep -o "\"$1\": *\"\{0,1\}[^\",}]*" | head -n 1 | sed "s/^\"$1\": *\"\{0,1\}//"; }

# section: the current part's section of results.md (a rerun gets its own).
sec=/dev/null
publish() { cat "$work"/sections/*.md >"$out/results.md.tmp" 2>/dev/null && mv "$out/results.md.tmp" "$out/results.md"; }
row() { echo "$*" >>"$sec"; publish; }

# graph SCALE: the R-MAT graph of that scale (native format, made once) in $WORK; npz SCALE: its scipy copy.
graph() {
  local g=$work/r$1-seed$seed.bsn
  if [ ! -s "$g" ]; then
    stamp "gen rmat --scale $1"
    limited "gen --scale $1" "$bs" gen rmat --scale "$1" --seed "$seed" --threads "$threads" --out "$g.tmp" >/dev/null && mv "$g.tmp" "$g" || return 1
  fi
  echo "$g"
}
npz() {
  local g z=$work/r$1-seed$seed.npz
  g=$(graph "$1") || return 1
  if [ ! -s "$z" ]; then
    limited "convert to npz" "$bs" convert "$g" "$z.tmp.npz" >/dev/null && mv "$z.tmp.npz" "$z" || return 1
  fi
  echo "$z"
}
cap() { echo $(($1 < (1 << scale) ? $1 : (1 << scale))); } # N, or the vertices of R-MAT $SCALE when fewer

# ---- the parts
machine() {
  local line
  {
    echo "# $(date -u '+%F %T UTC'), $(uname -srm)"
    echo "bundle: $(tr '\n' ' ' <"$here/BUILD" 2>/dev/null)"
    "$bs" --version
    echo
    echo "## nvidia-smi"
    "$smi" -L
    "$smi" --query-gpu=name,driver_version,persistence_mode,memory.total,clocks.max.sm,clocks.max.mem,power.limit,pcie.link.gen.max --format=csv 2>&1
    "$smi" -q 2>/dev/null | grep -iE 'persistence|driver version|cuda version|product name|mig mode|compute mode' | sed 's/^ *//'
    echo
    echo "## environment"
    echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
    echo "BULKSAMPLE_CUDA_LIB=${BULKSAMPLE_CUDA_LIB:-}"
    echo "CUDA_CACHE_PATH=$CUDA_CACHE_PATH"
    echo "nproc: $(nproc); CPU threads used: $threads; $(grep -m1 'model name' /proc/cpuinfo)"
    grep -E '^(MemTotal|MemAvailable)' /proc/meminfo
    ldconfig -p 2>/dev/null | grep -E 'libcuda\.so|libcusparse|libcublas|libnvJitLink' || echo "ldconfig: no CUDA libraries listed"
    echo "python: $py"
    "$py" -c 'import sys; print("python", sys.version.split()[0])' 2>&1
    "$py" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())' 2>&1 | tail -n 1
    "$py" -c 'import torch_geometric; print("torch_geometric", torch_geometric.__version__)' 2>&1 | tail -n 1
    "$py" -c 'import cupy; print("cupy", cupy.__version__)' 2>&1 | tail -n 1
    echo
    echo "## bulksample device (the GPU, the libraries the binary loaded, the kernels)"
  } >"$out/machine.txt" 2>&1
  line=$(limited "bulksample device" "$bs" device --json >"$work/device.txt" && record device <"$work/device.txt")
  grep -v '^{' "$work/device.txt" >>"$out/machine.txt"
  if [ -n "$line" ]; then
    figure "$(grep -m1 '^device:' "$work/device.txt" | cut -d' ' -f2-); open $(js open_seconds <<<"$line" | cut -c1-5) s, kernels $(js module_seconds <<<"$line" | cut -c1-5) s"
  fi
  stamp "machine: $out/machine.txt"
}

tests() {
  local t
  : >"$out/tests.log"
  local passed=0 failed=0
  for t in "cuda.test -test.v" "gpu.test -test.v -test.run TestCUDA" "bulksample.test -test.v -test.run TestDevice"; do
    stamp "tests: $t"
    # shellcheck disable=SC2086
    local from
    from=$(wc -l <"$out/tests.log")
    if BULKSAMPLE_REQUIRE_GPU=1 BULKSAMPLE_CUDA_SYNC=1 limited "${t%% *}" --cap 120 --quiet "$bundle"/$t -test.timeout 115s >>"$out/tests.log" 2>&1; then
      passed=$((passed + 1))
    else
      failed=$((failed + 1))
      # The first failing test's first message, else the binary's own error.
      local first
      first=$(tail -n +$((from + 1)) "$out/tests.log" | grep -m1 -A3 -E '^\s*--- FAIL' | grep -v -- '--- FAIL' | grep -m1 . | sed 's/^ *//')
      [ -n "$first" ] && fail "${t%% *}: $first" || fail "$last_err"
    fi
  done
  figure "$passed of 3 test binaries passed ($(grep -c -- '--- PASS' "$out/tests.log") tests passed, $(grep -c -- '--- FAIL' "$out/tests.log") failed, $(grep -c -- '--- SKIP' "$out/tests.log") skipped)"
}

node() {
  local g z k seeds gl cl tl worst=
  g=$(graph "$scale") && z=$(npz "$scale") || return
  {
    echo "## Node-wise bulk sampling SEPS, R-MAT scale $scale, b = 1024, fanout 15,10,5"
    echo
    echo "Ours: \`bulksample sample --device cuda --reps $reps\` (warm median; the blocks stay on the device). PyTorch:"
    echo "benchmarks/gpupeer/torch_sampler.py (the same semantics vectorised over the bulk, its own random numbers). CPU:"
    echo "\`bulksample sample --threads $threads\`. A pass samples max(64, k) minibatches. Goals: GPU >= 2x PyTorch at every k,"
    echo "GPU >= 5G SEPS at k = 256, digests equal."
    echo
    echo "| k | GPU SEPS (M) | PyTorch SEPS (M) | GPU / PyTorch | CPU $threads threads SEPS (M) | GPU / CPU | GPU digest = CPU's |"
    echo "|---:|---:|---:|---:|---:|---:|---|"
  } >>"$sec"
  publish
  stamp "node: the PyTorch peer, k = ${NODE_K:-1,16,64,256}"
  limited "node torch" "$py" "$bundle/peers/torch_sampler.py" --npz "$z" --batch 1024 --fanout 15,10,5 --bulks "${NODE_K:-1,16,64,256}" \
    --reps "$reps" --seed "$seed" >"$work/torch.jsonl"
  while read -r l; do echo "$l" | record "torch" >/dev/null; done <"$work/torch.jsonl"
  for k in $(tr , ' ' <<<"${NODE_K:-1,16,64,256}"); do
    seeds=$(cap $((1024 * (k > 64 ? k : 64))))
    stamp "node: k = $k"
    gl=$(limited "node gpu k=$k" "$bs" sample --graph "$g" --batch 1024 --fanout 15,10,5 --bulk "$k" --seeds "$seeds" --seed "$seed" \
      --reps "$reps" --device cuda --digest --json | record "gpu k=$k")
    cl=$(limited "node cpu k=$k" "$bs" sample --graph "$g" --batch 1024 --fanout 15,10,5 --bulk "$k" --seeds "$seeds" --seed "$seed" \
      --reps "$reps" --threads "$threads" --digest --json | record "cpu k=$k")
    tl=$(grep "\"k\": $k," "$work/torch.jsonl" 2>/dev/null | tail -n 1)
    local gs ts cs eq=yes
    gs=$(js seps <<<"$gl") ts=$(js seps <<<"$tl") cs=$(js seps <<<"$cl")
    [ -n "$(js digest <<<"$gl")" ] && [ "$(js digest <<<"$gl")" = "$(js digest <<<"$cl")" ] || { eq='**NO**'; fail "k=$k: the GPU's digest is not the CPU's"; }
    row "$(awk -v k="$k" -v g="$gs" -v t="$ts" -v c="$cs" -v eq="$eq" 'BEGIN {
      f = "failed"; printf "| %s | %s | %s | %s | %s | %s | %s |", k, (g == "") ? f : sprintf("%.1f", g / 1e6), (t == "") ? f : sprintf("%.1f", t / 1e6),
        (g != "" && t != "") ? sprintf("%.2f", g / t) : "-", (c == "") ? f : sprintf("%.1f", c / 1e6), (g != "" && c != "") ? sprintf("%.2f", g / c) : "-", eq }')"
    if [ -n "$gs" ] && [ -n "$ts" ]; then
      awk -v g="$gs" -v t="$ts" 'BEGIN { exit !(g < 2 * t) }' && fail "goal not met: k=$k: GPU $(awk -v g="$gs" -v t="$ts" 'BEGIN { printf "%.2f", g / t }')x PyTorch, want >= 2x"
      worst="$worst k=$k $(awk -v g="$gs" -v t="$ts" 'BEGIN { printf "%.2f", g / t }')x"
    fi
    if [ -n "$gs" ] && [ "$k" = 256 ]; then
      # The absolute goal: at the largest bulk the GPU must sample 5G edges a second, whatever PyTorch does.
      awk -v g="$gs" 'BEGIN { exit !(g < 5e9) }' && fail "goal not met: k=256: GPU $(awk -v g="$gs" 'BEGIN { printf "%.2f", g / 1e9 }')G SEPS, want >= 5G"
      figure "GPU $(awk -v g="$gs" 'BEGIN { printf "%.2f", g / 1e9 }')G SEPS at k = 256 (want >= 5G); GPU/PyTorch:$worst"
    fi
  done
  [ -f "$work/state/node.fig" ] || figure "GPU/PyTorch:${worst:- none measured}"
}

digest() {
  local g cpu gpu name args cfg n=0 same=0
  g=$(graph "$scale") || return
  {
    echo "## CPU against GPU digests, R-MAT scale $scale"
    echo
    echo "| run | CPU digest | GPU digest | equal |"
    echo "|---|---|---|---|"
  } >>"$sec"
  publish
  local IFS=$'\n'
  for cfg in "node all|--fanout 15,10,5" "node new|--fanout 15,10,5 --frontier new" "node weighted|--fanout 15,10,5 --weighted" \
    "node with replacement|--fanout 15,10,5 --replace" "node weighted with replacement|--fanout 10,5 --weighted --replace" \
    "ladies|--method ladies --batch 512 --fanout 512,512" "fastgcn|--method fastgcn --batch 512 --fanout 512,512"; do
    name=${cfg%%|*}
    IFS=' ' read -r -a args <<<"${cfg#*|}"
    stamp "digest: $name"
    cpu=$(limited "digest cpu $name" "$bs" sample --graph "$g" --seeds "$(cap 65536)" --bulk 64 --seed "$seed" --threads "$threads" --digest --json "${args[@]}" | record "cpu $name" | js digest)
    gpu=$(limited "digest gpu $name" "$bs" sample --graph "$g" --seeds "$(cap 65536)" --bulk 64 --seed "$seed" --device cuda --digest --json "${args[@]}" | record "gpu $name" | js digest)
    n=$((n + 1))
    if [ -n "$cpu" ] && [ "$cpu" = "$gpu" ]; then same=$((same + 1)); row "| sample $name | $cpu | $gpu | yes |"; else
      row "| sample $name | ${cpu:-none} | ${gpu:-none} | **NO** |"; fail "sample $name: GPU digest ${gpu:-none}, CPU ${cpu:-none}"; fi
  done
  cpu=$(limited "digest cpu spgemm" "$bs" spgemm --a "$g" --select-rows "$(cap 32768)" --reps 1 --digest --json | record "cpu Q·A" | js digest)
  gpu=$(limited "digest gpu spgemm" "$bs" spgemm --a "$g" --select-rows "$(cap 32768)" --reps 1 --device cuda --digest --json | record "gpu Q·A" | js digest)
  n=$((n + 1))
  if [ -n "$cpu" ] && [ "$cpu" = "$gpu" ]; then same=$((same + 1)); row "| spgemm Q·A, $(cap 32768) rows | $cpu | $gpu | yes |"; else
    row "| spgemm Q·A, $(cap 32768) rows | ${cpu:-none} | ${gpu:-none} | **NO** |"; fail "spgemm Q·A: GPU digest ${gpu:-none}, CPU ${cpu:-none}"; fi
  figure "$same of $n digests equal"
}

# products JOBS TITLE: the SpGEMM table of "scale rows" jobs (rows 0: A·A), ours against CuPy.
products() {
  local s rows g z ours peer oms pms perr prod worst=
  {
    echo "## $2 on the GPU: ours against CuPy's cuSPARSE product, R-MAT"
    echo
    echo "Ours: \`bulksample spgemm --device cuda --reps $((reps + 2))\` (median of the warm products, each synchronised; Q·A by our"
    echo "row gather, A·A by cuSPARSE's SpGEMM with the first algorithm that has the resources). CuPy: benchmarks/gpupeer/cupy_spgemm.py."
    echo
    echo "| product | scale | rows of Q | nnz(C) | ours (ms) | method | CuPy (ms) | ours / CuPy |"
    echo "|---|---:|---:|---:|---:|---|---:|---:|"
  } >>"$sec"
  publish
  local IFS=,
  for job in $1; do
    IFS=' ' read -r s rows <<<"$job"
    g=$(graph "$s") && z=$(npz "$s") || continue
    local sel=()
    ((rows > 0)) && sel=(--select-rows "$rows")
    prod=$( ((rows > 0)) && echo 'Q·A' || echo 'A·A')
    stamp "$part: scale $s rows $rows"
    ours=$(limited "$prod ours scale $s" "$bs" spgemm --a "$g" "${sel[@]}" --reps $((reps + 2)) --device cuda --json | record "ours $s $rows")
    peer=$(limited "$prod cupy scale $s" "$py" "$bundle/peers/cupy_spgemm.py" --npz "$z" --select-rows "$rows" --reps $((reps + 2)) | record "cupy $s $rows")
    oms=$(js seconds <<<"$ours") pms=$(js seconds <<<"$peer") perr=$(js error <<<"$peer")
    row "$(awk -v p="$prod" -v s="$s" -v r="$rows" -v nnz="$(js nnz_out <<<"$ours")" -v o="$oms" -v m="$(js method <<<"$ours")" -v c="$pms" -v e="$perr" 'BEGIN {
      os = (o == "") ? "failed" : sprintf("%.3f", o * 1000); cs = (c == "") ? "fails: " e : sprintf("%.3f", c * 1000)
      printf "| %s | %s | %s | %s | %s | %s | %s | %s |", p, s, (r > 0 ? r : "-"), nnz, os, m, cs, (o != "" && c != "") ? sprintf("%.2f", o / c) : "-" }')"
    if [ -n "$oms" ] && [ -n "$pms" ]; then
      worst="$worst scale $s$( ((rows > 0)) && echo "/$rows"): $(awk -v o="$oms" -v c="$pms" 'BEGIN { printf "%.2f", o / c }')x;"
      awk -v o="$oms" -v c="$pms" 'BEGIN { exit !(o > c) }' && fail "goal not met: $prod scale $s rows $rows: ours $(awk -v o="$oms" -v c="$pms" 'BEGIN { printf "%.2f", o / c }')x CuPy's time, want <= 1.0x"
    fi
  done
  figure "ours/CuPy:${worst:- none measured}"
}
qa() { products "${QA_JOBS:-20 32768,20 1048576,22 32768,22 1048576}" "Q·A"; }
aa() { products "${AA_JOBS:-14 0,16 0}" "A·A"; }

ladies() {
  local g k seeds gl cl n=0 same=0 last=
  g=$(graph "$scale") || return
  {
    echo "## LADIES bulk sampling SEPS, R-MAT scale $scale (normalised adjacency), b = 512, 512 columns per layer, 2 layers"
    echo
    echo "| k | GPU SEPS (M) | CPU $threads threads SEPS (M) | GPU / CPU | GPU digest = CPU's |"
    echo "|---:|---:|---:|---:|---|"
  } >>"$sec"
  publish
  for k in $(tr , ' ' <<<"${LADIES_K:-1,16,64}"); do
    seeds=$(cap $((512 * (k > 32 ? k : 32))))
    stamp "ladies: k = $k"
    gl=$(limited "ladies gpu k=$k" "$bs" sample --graph "$g" --method ladies --batch 512 --fanout 512,512 --bulk "$k" --seeds "$seeds" \
      --seed "$seed" --reps "$reps" --device cuda --digest --json | record "gpu k=$k")
    cl=$(limited "ladies cpu k=$k" "$bs" sample --graph "$g" --method ladies --batch 512 --fanout 512,512 --bulk "$k" --seeds "$seeds" \
      --seed "$seed" --reps "$reps" --threads "$threads" --digest --json | record "cpu k=$k")
    local eq=yes gs cs
    gs=$(js seps <<<"$gl") cs=$(js seps <<<"$cl")
    n=$((n + 1))
    if [ -n "$(js digest <<<"$gl")" ] && [ "$(js digest <<<"$gl")" = "$(js digest <<<"$cl")" ]; then same=$((same + 1)); else eq='**NO**'; fail "k=$k: the GPU's digest is not the CPU's"; fi
    row "$(awk -v k="$k" -v g="$gs" -v c="$cs" -v eq="$eq" 'BEGIN { printf "| %s | %s | %s | %s | %s |", k, (g == "") ? "failed" : sprintf("%.1f", g / 1e6),
      (c == "") ? "failed" : sprintf("%.1f", c / 1e6), (g != "" && c != "") ? sprintf("%.2f", g / c) : "-", eq }')"
    [ -n "$gs" ] && [ -n "$cs" ] && last="k=$k GPU/CPU $(awk -v g="$gs" -v c="$cs" 'BEGIN { printf "%.2f", g / c }')x"
  done
  figure "${last:-no GPU/CPU ratio}; $same of $n digests equal"
}

# train_section TABLE: the training table (benchmarks/gpupeer/train_report.py) of what step or epoch measured.
train_section() {
  "$py" "$bundle/peers/train_report.py" --out "$sec" --tables "$1" --step "$work/step.jsonl" --peer-step "$work/pyg-step.jsonl" \
    --epoch "$work/epoch.jsonl" --peer-epoch "$work/pyg-epoch.jsonl" >/dev/null 2>>"$out/run.log" || fail "train_report.py failed"
  publish
}

step() {
  local tw=$work/train-step line best
  rm -rf "$tw"
  : >"$work/step.jsonl"
  : >"$work/pyg-step.jsonl"
  stamp "step: ours (GPU, and the CPU backend at $threads threads)"
  limited "gputrain step" "$bundle/gputrain" --mode step --nodes "${TRAIN_NODES:-150000}" --cpu-threads "$threads" --export "$tw" \
    >"$work/step.out" && grep '^{' "$work/step.out" >"$work/step.jsonl"
  while read -r l; do echo "$l" | record "ours" >/dev/null; done <"$work/step.jsonl"
  train_section step
  if [ -s "$tw/manifest.json" ]; then
    stamp "step: PyG (${PYG_VARIANTS:-eager,csr})"
    limited "pyg_step.py" "$py" "$bundle/peers/pyg_step.py" --dir "$tw" --variants "${PYG_VARIANTS:-eager,csr}" --compile-seconds 60 \
      >"$work/pyg-step.out"
    grep '^{' "$work/pyg-step.out" >"$work/pyg-step.jsonl"
    while read -r l; do echo "$l" | record "pyg" >/dev/null; done <"$work/pyg-step.jsonl"
    train_section step
  fi
  line=$(tail -n 1 "$work/step.jsonl" 2>/dev/null)
  best=$(grep '"best"' "$work/pyg-step.jsonl" 2>/dev/null | tail -n 1)
  local o p
  o=$(js step_ms <<<"$line") p=$(js step_ms <<<"$best")
  if [ -n "$o" ] && [ -n "$p" ]; then
    figure "step $o ms, PyG's best ($(js best <<<"$best")) $p ms: $(awk -v o="$o" -v p="$p" 'BEGIN { printf "%.2f", o / p }')x"
    awk -v o="$o" -v p="$p" 'BEGIN { exit !(o > 0.8 * p) }' && fail "goal not met: our step is $(awk -v o="$o" -v p="$p" 'BEGIN { printf "%.2f", o / p }')x PyG's, want <= 0.8x"
  else
    figure "step ${o:-not measured} ms, PyG ${p:-not measured}"
    [ -n "$o" ] && [ -z "$p" ] && fail "PyG's step gave no result (run.log)"
    [ -z "$o" ] && fail "our step gave no result (run.log)"
  fi
  # The variant for the epoch: compile's graph breaks differ per minibatch shape, so eager or csr end to end.
  best=$(js best <<<"$best")
  [ "$best" = csr ] && echo csr >"$work/pyg-variant" || echo eager >"$work/pyg-variant"
  rm -rf "$tw"
}

epoch() {
  local tw=$work/train-epoch o p variant
  rm -rf "$tw"
  : >"$work/epoch.jsonl"
  : >"$work/pyg-epoch.jsonl"
  variant=$(cat "$work/pyg-variant" 2>/dev/null || echo eager)
  stamp "epoch: ours"
  limited "gputrain epoch" "$bundle/gputrain" --mode epoch --nodes "${EPOCH_NODES:-2449029}" --export "$tw" >"$work/epoch.out" &&
    grep '^{' "$work/epoch.out" >"$work/epoch.jsonl"
  while read -r l; do echo "$l" | record "ours" >/dev/null; done <"$work/epoch.jsonl"
  train_section epoch
  if [ -s "$tw/manifest.json" ]; then
    stamp "epoch: PyG ($variant)"
    limited "pyg_epoch.py" "$py" "$bundle/peers/pyg_epoch.py" --dir "$tw" --variant "$variant" >"$work/pyg-epoch.out"
    grep '^{' "$work/pyg-epoch.out" >"$work/pyg-epoch.jsonl"
    while read -r l; do echo "$l" | record "pyg" >/dev/null; done <"$work/pyg-epoch.jsonl"
    train_section epoch
  fi
  o=$(tail -n 1 "$work/epoch.jsonl" 2>/dev/null | grep -o '"epoch_seconds": *\[[^]]*\]' | grep -o '[0-9.e+-]*\]' | tr -d ']')
  p=$(tail -n 1 "$work/pyg-epoch.jsonl" 2>/dev/null | grep -o '"epoch_seconds": *\[[^]]*\]' | grep -o '[0-9.e+-]*\]' | tr -d ']')
  if [ -n "$o" ] && [ -n "$p" ]; then
    figure "last epoch $o s, PyG $p s: $(awk -v o="$o" -v p="$p" 'BEGIN { printf "%.2f", p / o }')x faster"
    awk -v o="$o" -v p="$p" 'BEGIN { exit !(p < 3 * o) }' && fail "goal not met: $(awk -v o="$o" -v p="$p" 'BEGIN { printf "%.2f", p / o }')x PyG's speed, want >= 3x"
  else
    figure "last epoch ${o:-not measured} s, PyG ${p:-not measured} s"
    [ -z "$o" ] && fail "our epoch gave no result (run.log)"
    [ -n "$o" ] && [ -z "$p" ] && fail "PyG's epoch gave no result (run.log)"
  fi
  rm -rf "$tw"
}

scale() {
  local so=$work/scale-out left=$((budget - SECONDS - margin - 5))
  rm -rf "$so"
  if [ ! -x "$bundle/scale-run.sh" ]; then
    fail "no scale-run.sh in the bundle (not a device-bundle.sh build)"
    return
  fi
  stamp "scale: $left s for the table"
  local rc=0
  OUT=$so WORK=$work/scale BUDGET=$left SCALE=$scale SEEDS=${SCALE_SEEDS:-65536} THREADS=$threads RELABEL=${SCALE_RELABEL:-none} \
    CASES=${SCALE_CASES:-"1 process x 16 threads=0:16:;np 16 x 1 thread, push=16:1:--fetch push;np 16, auto=16:1:--fetch auto;np 16, pull=16:1:--fetch pull;np 16, replicated=16:1:--replicate-graph"} \
    limited "scale-run.sh table" --quiet "$bundle/scale-run.sh" table || rc=$?
  [ -s "$so/scale.md" ] && cp "$so/scale.md" "$sec" && publish
  [ -s "$so/scale.json" ] && record "scale.json" <<<"$(tr -d '\n' <"$so/scale.json")" >/dev/null
  local runs bad first
  runs=$(grep -cE '^\| (1 process|np [0-9])' "$so/scale.md" 2>/dev/null)
  bad=$(grep -E '^\| (1 process|np [0-9])' "$so/scale.md" 2>/dev/null | grep -vE '\| (the reference|= 1 process[^|]*) \|$')
  figure "${runs:-0} runs measured, $(grep -c . <<<"$bad" | sed 's/^0$//;s/^$/0/') without the one process's digest"
  if [ -n "$bad" ]; then
    first=$(grep -m1 -E '^[^|].*(exit status|error|failed)' "$so/scale.md" 2>/dev/null)
    fail "$(grep -c . <<<"$bad") runs of the scale table failed or differ from the one process's digest${first:+: $first}"
  fi
  ((rc == 0)) || fail "$last_err"
}

# summary: summary.md from the parts' state (a part not reached yet: NOT RUN).
declare -A status reason
summary() {
  local p i=0 n=0
  {
    echo "# Device bundle run: $(date -u '+%F %T UTC'), ${SECONDS} s of BUDGET=${budget} s"
    echo
    echo "$(head -n 1 "$here/BUILD" 2>/dev/null); $("$smi" -L 2>/dev/null | head -n 1)"
    echo
    echo "| # | goal | figure | result | first error |"
    echo "|---:|---|---|---|---|"
    for p in "${parts[@]}"; do
      i=$((i + 1))
      local st=${status[$p]:-NOT RUN} why=${reason[$p]:-not reached} fig err
      fig=$(cat "$work/state/$p.fig" 2>/dev/null | tr '|' '/')
      err=$(head -n 1 "$work/state/$p.err" 2>/dev/null | tr '|' '/' | cut -c1-300)
      [ "$st" = "NOT RUN" ] && err=$why
      [ "$st" != PASS ] && n=$((n + 1))
      echo "| $i | $p: ${what[$p]} | ${fig:--} | $st | ${err:--} |"
    done
    echo
    echo "$n of ${#parts[@]} parts failed or did not run (the exit status). Tables: results.md; every run's JSON: results.jsonl; tests.log, machine.txt, run.log."
  } >"$out/summary.md.tmp" && mv "$out/summary.md.tmp" "$out/summary.md"
  return "$n"
}

i=0
for p in "${parts[@]}"; do
  i=$((i + 1))
  left=$((budget - SECONDS - margin))
  if ((plan[$p] > left)); then
    status[$p]="NOT RUN" reason[$p]="planned ${plan[$p]} s, ${left} s left of the budget"
    stamp "$p: NOT RUN (${reason[$p]})"
    summary
    continue
  fi
  part=$p sec=$work/sections/$(printf %02d "$i")-$p.md
  stamp "part $p (planned ${plan[$p]} s)"
  t0=$SECONDS
  "$p"
  if [ -s "$work/state/$p.err" ]; then
    status[$p]=FAIL
    left=$((budget - SECONDS - margin))
    if [[ $gpu_parts == *" $p "* ]] && [ "${BULKSAMPLE_CUDA_SYNC:-}" != 1 ]; then
      if ((plan[$p] <= left)); then
        stamp "$p failed: rerun with BULKSAMPLE_CUDA_SYNC=1"
        mv "$work/state/$p.err" "$work/state/$p.err1"
        [ -f "$work/state/$p.fig" ] && mv "$work/state/$p.fig" "$work/state/$p.fig1"
        sec=$work/sections/$(printf %02d "$i")-$p-rerun.md
        echo "### $p, rerun with BULKSAMPLE_CUDA_SYNC=1 (every launch synchronised: a failing kernel is named)" >"$sec"
        echo >>"$sec"
        BULKSAMPLE_CUDA_SYNC=1 "$p"
        if [ -s "$work/state/$p.err" ]; then
          status[$p]="FAIL (again when rerun with BULKSAMPLE_CUDA_SYNC=1)"
          sed -i '1s/^/rerun: /' "$work/state/$p.err"
        else
          status[$p]="FAIL (the rerun with BULKSAMPLE_CUDA_SYNC=1 passed)"
        fi
        cat "$work/state/$p.err1" "$work/state/$p.err" 2>/dev/null >"$work/state/$p.err.all"
        mv "$work/state/$p.err.all" "$work/state/$p.err"
        [ -s "$work/state/$p.fig" ] || mv "$work/state/$p.fig1" "$work/state/$p.fig" 2>/dev/null
      else
        status[$p]="FAIL (no time left for the rerun with BULKSAMPLE_CUDA_SYNC=1)"
      fi
    fi
  else
    status[$p]=PASS
  fi
  stamp "$p: ${status[$p]} in $((SECONDS - t0)) s"
  summary
done
summary
failed=$?
publish
stamp "done: $failed of ${#parts[@]} parts failed or did not run; $out/summary.md"
cat "$out/summary.md" >&2
exit "$failed"
