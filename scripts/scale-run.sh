#!/usr/bin/env bash
# Runner of issue 31's scaling table on a many-core machine without Go or
# Open MPI (the GPU machine's 16-core host, 128 GB): scripts/scale-bundle.sh
# copies it as run.sh beside static binaries of bulksample and scalebench
# and the mpi build with its Open MPI (mpi/), and it runs those alone.
#
#   run.sh [PART...]   (default: all)
#
# Parts:
#   info    machine.txt: CPU, memory, disk, load, the bundle's commit
#   check   mpirun of the bundle on 2 ranks of a tiny graph: the single process's digest (catches a bundle
#           that does not run here before the minutes of the table)
#   table   R-MAT SCALE (22): one process at 16 threads, mpirun -np 4 (4 threads each) and 16 (1 thread)
#           with pull, push, auto and a replicated graph (and np 4 push with --overlap on, np 16 pull with --pull-batch 64MiB),
#           as generated and with --relabel degree (scale.md)
#   papers  the papers100M-sized R-MAT (scale 27, edge factor 12: 134M vertices, 3.2 billion stored edges,
#           a 26.5 GB file; 22 GB of memory to generate): one process (cold and warm) and mpirun -np 16 push and auto,
#           as generated and relabelled; each graph is removed after its runs (the disk holds one)
#   all     info check table papers
# Results under $OUT: machine.txt, scale.md (the tables), scale.json (every run's JSON), run.log.
#
# Environment (defaults in brackets): OUT [./scale-out]  WORK [/tmp/bulksample-scale] the graphs
#   SCALE [22]  SEEDS [65536]  PAPERS_SCALE [27]  PAPERS_EF [12]  PAPERS_SEEDS [262144]
#   THREADS [16] of gen and the one-process runs  RELABEL [none,degree]
#   CASES, PAPERS_CASES  the runs, as scalebench --cases (scalebench --help; default the issue's table)
#   BUDGET [470]  seconds for table and papers together (8 minutes with info and check): a run still
#                 going then is stopped, the rest skipped, and what was measured is kept
# TestScaleBundle (cmd/bulksample, part of `make test`) builds the bundle and runs every part at scale 10.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$PWD/scale-out}
work=${WORK:-/tmp/bulksample-scale}
mkdir -p "$out" "$work" || exit 1
exec 2> >(tee -a "$out/run.log" >&2)
[ $# -gt 0 ] || set -- all
failed=0
stamp() { echo "run.sh: $* ($(date -u +%T), load $(cut -d' ' -f1-3 /proc/loadavg))" >&2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

info() {
  {
    echo "# $(date -u '+%F %T UTC'), $(uname -srm)"
    echo "bundle: $(tr '\n' ' ' <"$here/BUILD" 2>/dev/null)"
    echo "nproc: $(nproc); $(grep Cpus_allowed_list /proc/self/status)"
    echo "load: $(cat /proc/loadavg)"
    echo "THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
    grep -E '^(MemTotal|MemAvailable)' /proc/meminfo
    df -h "$work" | tail -n 1
    grep -m1 'model name' /proc/cpuinfo
    echo "system mpirun: $(command -v mpirun || echo none) (the bundle brings its own)"
  } >"$out/machine.txt" 2>&1
  stamp "info: $out/machine.txt"
}

check() {
  local g=$work/check.bsn want got
  "$here/bulksample" gen rmat --scale 10 --seed 1 --out "$g" >/dev/null 2>&1 || { stamp "check: gen failed"; return 1; }
  want=$("$here/bulksample" sample --graph "$g" --seeds 512 --batch 64 --digest 2>/dev/null | sed -n 's/^digest //p')
  got=$(timeout 120 "$here/mpi/mpirun" --oversubscribe --bind-to none -np 2 "$here/mpi/bulksample" sample --graph "$g" --seeds 512 --batch 64 --digest \
    2>>"$out/run.log" | sed -n 's/^digest //p')
  rm -f "$g"
  if [ -z "$got" ] || [ "$got" != "$want" ]; then
    stamp "check: mpirun -np 2 of the bundle gave digest '$got', one process '$want'"
    return 1
  fi
  stamp "check: mpirun -np 2 of the bundle: the single process's digest"
}

# scale PARTS: scalebench on the bundle's binaries.
scale() {
  local args=(--bulksample "$here/bulksample" --bulksample-mpi "$here/mpi/bulksample" --mpirun "$here/mpi/mpirun"
    --work "$work" --out "$out" --parts "$1" --budget "${BUDGET:-470}" --threads "${THREADS:-16}"
    --scale "${SCALE:-22}" --seeds "${SEEDS:-65536}" --papers-scale "${PAPERS_SCALE:-27}"
    --papers-edge-factor "${PAPERS_EF:-12}" --papers-seeds "${PAPERS_SEEDS:-262144}" --relabel "${RELABEL:-none,degree}")
  [ -n "${CASES:-}" ] && args+=(--cases "$CASES")
  [ -n "${PAPERS_CASES:-}" ] && args+=(--papers-cases "$PAPERS_CASES")
  stamp "scalebench --parts $1"
  "$here/scalebench" "${args[@]}" >/dev/null
}

parts=()
for part in "$@"; do
  case $part in
    all) parts+=(info check table papers) ;;
    info | check | table | papers) parts+=("$part") ;;
    *) echo "run.sh: unknown part $part (info, check, table, papers, all)" >&2; exit 2 ;;
  esac
done
measure=()
for part in "${parts[@]}"; do
  case $part in
    info | check) "$part" || failed=1 ;;
    *) measure+=("$part") ;;
  esac
done
# table and papers share one budget: one scalebench.
if ((${#measure[@]})); then
  scale "$(IFS=,; echo "${measure[*]}")" || failed=1
fi
stamp "parts ${parts[*]} finished$( ((failed)) && echo ', some failed')"
ls -l "$out" >&2
exit $failed
