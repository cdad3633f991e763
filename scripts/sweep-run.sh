#!/usr/bin/env bash
# Runner of issue 14's scaling table on a many-core machine without Go (the
# GPU machine's 16-core host): scripts/sweep-bundle.sh copies it as run.sh
# beside static binaries of bulksample, samplebench, ladiesbench and
# gatherbench, and it runs those alone (no Go, no source tree, no network).
#
#   run.sh [PART...]        (default: info node)
#
# Parts, each sized to fit one 10-minute command of the device tool with
# the default settings at scale 22 (benchmarks/results/sampling.md,
# "Scaling on 16 cores", gives the commands and the expected times):
#   info      machine.txt: CPU, topology (hyperthread siblings), memory, THP, load, the bundle's commit
#   gen       the R-MAT graph (bulksample gen rmat), kept in $WORK; node, ladies and pincheck make it when missing
#   node      node-wise sweep through the CLI, pinned: samplebench --cli --pin (node.md, node.json)
#   ladies    LADIES sweep through the CLI, pinned: ladiesbench --cli --pin (ladies.md, ladies.json)
#   gather    feature gather, one pinned process per T: gatherbench --pin (gather.md, gather.json)
#   pincheck  the same CLI run pinned (taskset -c 0-(T-1)) and unpinned, interleaved in pairs (pincheck.md)
#   all       info node ladies gather
# Every part's progress (each run's figures) goes to standard error and to
# $OUT/run.log: the device tool brings back at most 8 files a command.
#
# Environment (defaults in brackets):
#   OUT [./sweep-out]  where the results go;  WORK [/tmp/bulksample-sweep]  the graph
#   SCALE [22]  R-MAT scale;  SEED [1];  GRAPH [$WORK/rSCALE-seedSEED.bsn, made when missing]
#   CORES [1,2,4,8,16]  thread counts, each on as many CPUs; those above the CPUs this process may use
#             (nproc) are left out, which run.log and machine.txt say
#   NODE_K [16,64,256]  NODE_SEEDS [262144]  NODE_ROUNDS [3]  NODE_PASSES [3]  NODE_BATCH [samplebench's, 1024]
#   LADIES_K [1,16,64,256]  LADIES_SEEDS [131072]  LADIES_ROUNDS [2]  LADIES_PASSES [3]
#   LADIES_BATCH, LADIES_BUDGETS [ladiesbench's, 512 and 512,512]
#   GATHER_SCALE [22]  GATHER_REPS [7]  GATHER_FEATURES, GATHER_BATCH, GATHER_MINIBATCHES [gatherbench's, 128, 1024, 4]
#   PIN_K [16,256]  PIN_SEEDS [262144]  PIN_PAIRS [3]  PIN_PASSES [3]  (PIN_CORES [1,2], capped as CORES)
#   BUDGET [580]  seconds this whole command may run: a part still running then is stopped (run.log keeps
#             every run it finished) and the parts after it are skipped, so that the files already
#             written come back within the device tool's 600-second limit
# TestDeviceRunner in benchmarks/internal/benchutil, part of `make test`, runs every part on a tiny graph
# through these variables, with CORES capped on a small machine.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$PWD/sweep-out}
work=${WORK:-/tmp/bulksample-sweep}
scale=${SCALE:-22}
seed=${SEED:-1}
cores=${CORES:-1,2,4,8,16}
budget=${BUDGET:-580}
graph=${GRAPH:-$work/r$scale-seed$seed.bsn}
mkdir -p "$out" "$work" || exit 1
exec 2> >(tee -a "$out/run.log" >&2)
[ $# -gt 0 ] || set -- info node
failed=0

stamp() { echo "run.sh: $* ($(date -u +%T), load $(cut -d' ' -f1-3 /proc/loadavg))" >&2; }

# capped NAME LIST: the thread counts of LIST that fit the CPUs this
# process may use (a pinned run of T threads needs T of them), saying which
# it leaves out; it fails when none fits.
ncpu=$(nproc)
capped() {
  local kept=() dropped=() t
  for t in ${2//,/ }; do
    if ((t <= ncpu)); then kept+=("$t"); else dropped+=("$t"); fi
  done
  if ((${#kept[@]} == 0)); then
    stamp "$1=$2: no thread count fits the $ncpu CPUs this process may use"
    return 1
  fi
  if ((${#dropped[@]})); then
    stamp "$1=$2 capped to $(IFS=,; echo "${kept[*]}"): this process may run on $ncpu CPUs, so thread counts ${dropped[*]} are skipped"
  fi
  (IFS=,; echo "${kept[*]}")
}
cores_asked=$cores pin_cores_asked=${PIN_CORES:-1,2}
cores=$(capped CORES "$cores") || exit 2
pin_cores=$(capped PIN_CORES "$pin_cores_asked") || exit 2

# limited NAME CMD...: runs CMD within what is left of the budget; a stop
# or a failure is reported and counted, and the other parts still run.
limited() {
  local name=$1 rc limit=$((budget - SECONDS - 10)) t0=$SECONDS
  shift
  if ((limit < 10)); then
    stamp "$name skipped: ${SECONDS}s of the ${budget}s budget spent"
    failed=1
    return
  fi
  timeout --signal=INT --kill-after=5 "$limit" "$@"
  rc=$?
  case $rc in
    0) stamp "$name done in $((SECONDS - t0)) s (${SECONDS} s of the ${budget} s budget spent)" ;;
    124|130) stamp "$name ran past the budget (${limit}s left for it) and was stopped"; failed=1 ;;
    *) stamp "$name failed (exit $rc)"; failed=1 ;;
  esac
}

# lastline NAME: the JSON summary, the last line of $WORK/NAME.stdout
# (which repeats NAME.md before it), into $OUT/NAME.json.
lastline() {
  [ -s "$work/$1.stdout" ] && tail -n 1 "$work/$1.stdout" >"$out/$1.json"
  rm -f "$work/$1.stdout"
}

gen() {
  [ -s "$graph" ] && return 0
  stamp "gen rmat --scale $scale"
  local t0=$SECONDS
  "$here/bulksample" gen rmat --scale "$scale" --seed "$seed" --out "$graph.tmp" >&2 && mv "$graph.tmp" "$graph" || {
    stamp "gen failed"
    rm -f "$graph.tmp"
    return 1
  }
  echo "generated $graph in $((SECONDS - t0)) s" >&2
}

info() {
  {
    echo "# $(date -u '+%F %T UTC'), $(uname -srm)"
    echo "bundle: $(tr '\n' ' ' <"$here/BUILD" 2>/dev/null)"
    echo "nproc: $(nproc); $(grep Cpus_allowed_list /proc/self/status)"
    echo "thread counts: CORES $cores (asked $cores_asked), PIN_CORES $pin_cores (asked $pin_cores_asked)"
    echo "load: $(cat /proc/loadavg)"
    echo "THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
    grep -E '^(MemTotal|MemAvailable)' /proc/meminfo
    echo "hyperthread siblings per CPU:"
    for c in /sys/devices/system/cpu/cpu[0-9]*; do
      echo "  ${c##*/}: $(cat "$c/topology/thread_siblings_list" 2>/dev/null) (core $(cat "$c/topology/core_id" 2>/dev/null), package $(cat "$c/topology/physical_package_id" 2>/dev/null))"
    done
    lscpu 2>/dev/null || grep -m1 'model name' /proc/cpuinfo
    command -v taskset || echo "taskset: not found (the pinned parts need it)"
  } >"$out/machine.txt" 2>&1
  stamp "info: $out/machine.txt"
}

node() {
  gen || { failed=1; return; }
  stamp "node: --threads $cores --bulk ${NODE_K:-16,64,256}"
  limited node "$here/samplebench" --cli "$here/bulksample" --graph "$graph" --scale "$scale" --seed "$seed" \
    --seeds "${NODE_SEEDS:-262144}" --threads "$cores" --bulk "${NODE_K:-16,64,256}" \
    --reps "${NODE_ROUNDS:-3}" --cli-passes "${NODE_PASSES:-3}" ${NODE_BATCH:+--batch "$NODE_BATCH"} --pin \
    --json --out "$out/node.md" >"$work/node.stdout"
  lastline node
}

ladies() {
  gen || { failed=1; return; }
  stamp "ladies: --sweep-threads $cores --bulks ${LADIES_K:-1,16,64,256}"
  limited ladies "$here/ladiesbench" --cli "$here/bulksample" --graph "$graph" --scale "$scale" --seed "$seed" \
    --seeds "${LADIES_SEEDS:-131072}" --sweep-threads "$cores" --bulks "${LADIES_K:-1,16,64,256}" \
    --reps "${LADIES_ROUNDS:-2}" --cli-passes "${LADIES_PASSES:-3}" ${LADIES_BATCH:+--batch "$LADIES_BATCH"} \
    ${LADIES_BUDGETS:+--budgets "$LADIES_BUDGETS"} --pin \
    --json --out "$out/ladies.md" >"$work/ladies.stdout"
  lastline ladies
}

gather() {
  stamp "gather: --threads $cores, scale ${GATHER_SCALE:-22}"
  limited gather "$here/gatherbench" --scale "${GATHER_SCALE:-22}" --threads "$cores" --reps "${GATHER_REPS:-7}" \
    ${GATHER_FEATURES:+--features "$GATHER_FEATURES"} ${GATHER_BATCH:+--batch "$GATHER_BATCH"} \
    ${GATHER_MINIBATCHES:+--minibatches "$GATHER_MINIBATCHES"} --seed "$seed" --pin --json --out "$out/gather.md" >"$work/gather.stdout"
  lastline gather
}

# pincheck: each (T, k) runs pinned and unpinned in pairs, the order
# alternating per pair; the ratio pinned/unpinned is taken within a pair.
pincheck() {
  gen || { failed=1; return; }
  local pairs=${PIN_PAIRS:-3} log=$work/pincheck.log t k p first line seps cpu
  : >"$log"
  stamp "pincheck: cores $pin_cores, k ${PIN_K:-16,256}, $pairs pairs"
  for ((p = 1; p <= pairs; p++)); do
    for t in $(tr , ' ' <<<"$pin_cores"); do
      for k in $(tr , ' ' <<<"${PIN_K:-16,256}"); do
        if ((p % 2)); then first="pinned unpinned"; else first="unpinned pinned"; fi
        for mode in $first; do
          local pre=()
          [ "$mode" = pinned ] && pre=(taskset -c "0-$((t - 1))")
          line=$(timeout 300 "${pre[@]}" "$here/bulksample" sample --graph "$graph" --batch 1024 --fanout 15,10,5 \
            --seeds "${PIN_SEEDS:-262144}" --bulk "$k" --threads "$t" --seed "$seed" --reps "${PIN_PASSES:-3}" --json 2>/dev/null | tail -n 1)
          seps=$(sed -n 's/.*"seps":\([0-9.e+-]*\).*/\1/p' <<<"$line")
          # CPU seconds of the last (warm) pass.
          cpu=$(grep -o '"cpu_seconds":[0-9.e+-]*' <<<"$line" | sed -n "${PIN_PASSES:-3}p" | cut -d: -f2)
          [ -n "$seps" ] || { stamp "pincheck: T=$t k=$k $mode gave no JSON"; failed=1; return; }
          echo "pincheck: pair $p T=$t k=$k $mode: $seps SEPS, last pass $cpu CPU s" >&2
          echo "$p $t $k $mode $seps ${cpu:-nan}" >>"$log"
        done
      done
    done
  done
  awk -v load="$(cut -d' ' -f1-3 /proc/loadavg)" -v pairs="$pairs" '
    function median(a, n,   i, j, x) { for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    { key = $2 " " $3; if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
      s[$1, key, $4] = $5; c[$1, key, $4] = $6 }
    END {
      printf "| T | k | pinned SEPS (M) | unpinned SEPS (M) | SEPS pinned / unpinned | CPU-SEPS pinned / unpinned |\n|---:|---:|---:|---:|---:|---:|\n"
      for (i = 1; i <= nk; i++) {
        key = order[i]; n = 0; lo = 1e9; hi = 0; clo = 1e9; chi = 0
        for (p = 1; p <= pairs; p++) { r[++n] = s[p, key, "pinned"] / s[p, key, "unpinned"]; a[n] = s[p, key, "pinned"]; b[n] = s[p, key, "unpinned"]
          q[n] = c[p, key, "unpinned"] / c[p, key, "pinned"]
          if (r[n] < lo) lo = r[n]; if (r[n] > hi) hi = r[n]; if (q[n] < clo) clo = q[n]; if (q[n] > chi) chi = q[n] }
        split(key, kk, " ")
        printf "| %s | %s | %.2f | %.2f | %.3f (%.3f-%.3f) | %.3f (%.3f-%.3f) |\n", kk[1], kk[2], median(a, n) / 1e6, median(b, n) / 1e6,
          median(r, n), lo, hi, median(q, n), clo, chi
      }
      printf "\nLoad average at the end: %s.\n", load
    }' "$log" >"$out/pincheck.md"
  {
    echo "## Pinned against unpinned, R-MAT scale $scale"
    echo
    echo "Each pair runs \`bulksample sample --graph $(basename "$graph") --batch 1024 --fanout 15,10,5 --seeds ${PIN_SEEDS:-262144} --bulk K --threads T --seed $seed --reps ${PIN_PASSES:-3} --json\` twice, under \`taskset -c 0-(T-1)\` and without, in an order alternating per pair; SEPS is the CLI's warm figure, CPU-SEPS divides by the CPU time of the last pass (all threads), which other load inflates less than wall time. The ratios are taken within each pair: median (min-max) over $pairs pairs. $(date -u '+%F %T UTC'), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs."
    echo
    cat "$out/pincheck.md"
  } >"$out/pincheck.md.tmp" && mv "$out/pincheck.md.tmp" "$out/pincheck.md"
  stamp "pincheck done: $out/pincheck.md"
}

for part in "$@"; do
  case $part in
    info | gen | node | ladies | gather | pincheck) "$part" || failed=1 ;;
    all) info; node; ladies; gather ;;
    *) echo "run.sh: unknown part $part (info, gen, node, ladies, gather, pincheck, all)" >&2; exit 2 ;;
  esac
done
stamp "parts $* finished$( ((failed)) && echo ', some failed')"
ls -l "$out" >&2
exit $failed
