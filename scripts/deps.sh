#!/usr/bin/env bash
# Installs what a make target needs on a fresh Debian machine, when it is
# missing and we may:
#   run    (make build, make run; the default): OpenBLAS (the default BLAS of
#          the trainer) and pkg-config;
#   test   (make vet, make test): those, Open MPI (the mpi build tag, the
#          mpirun tests), Slurm, munge and PMIx (the one-node Slurm test of
#          scripts/slurm-test.sh) and staticcheck;
#   bench  (make bench): those of run, Open MPI (the distributed benchmark),
#          SuiteSparse:GraphBLAS (the SpGEMM peer) and PyTorch with NumPy
#          (python3-torch, the training peer of benchmarks/torchpeer).
# Without root it only reports what is missing; the build then falls back to
# pure-Go BLAS and no MPI, the GraphBLAS comparison is skipped, and the tests
# that need MPI or Slurm say why they cannot run (and fail in CI). `make run`
# does not install staticcheck: building it takes about as long as the rest
# of the first run.
#
# As root it waits for another apt or dpkg (unattended-upgrades on a freshly
# booted machine) to let go of its locks, up to DEPS_LOCK_TIMEOUT seconds
# (default 600), and keeps each run's apt output in a log of its own, whose
# path it prints. When the installation fails it says so, shows the end of
# that log and exits 1, so that `make` stops rather than build without
# what was asked for; BULKSAMPLE_SKIP_DEPS=1 builds without it instead
# (pure-Go BLAS, no MPI: `bulksample --version` then says so).
#
# usage: scripts/deps.sh [run|test|bench] [--list]
#   --list prints what the mode needs, one name per line, and installs nothing.
# Tests set DEPS_POLICY_RC (the policy-rc.d file, default
# /usr/sbin/policy-rc.d) and DEPS_LOCK_RETRY (seconds between the tries of
# apt-get update, whose lists lock apt's own timeout does not cover).
set -uo pipefail

mode=run list=
for a in "$@"; do
  case $a in
    run|test|bench) mode=$a ;;
    --bench) mode=bench ;; # the old spelling
    --list) list=1 ;;
    *) echo "deps: unknown argument $a (want run, test or bench, and --list)" >&2; exit 2 ;;
  esac
done

pkgs=(libopenblas-dev pkg-config)
mpi=(libopenmpi-dev openmpi-bin)
[ "$mode" = test ] && pkgs+=("${mpi[@]}" slurm-wlm munge libpmix-dev)
[ "$mode" = bench ] && pkgs+=("${mpi[@]}" libgraphblas-dev python3-torch python3-numpy)
gotools=()
[ "$mode" = test ] && gotools+=(staticcheck)

if [ -n "$list" ]; then
  printf '%s\n' "${pkgs[@]}" "${gotools[@]}"
  exit 0
fi

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

lock_timeout=${DEPS_LOCK_TIMEOUT:-600}
lock_retry=${DEPS_LOCK_RETRY:-5}
policy_rc=${DEPS_POLICY_RC:-/usr/sbin/policy-rc.d}

# apt_update runs apt-get update, trying again while another apt holds the
# lists lock (DPkg::Lock::Timeout covers only dpkg's locks), for at most
# lock_timeout seconds.
apt_update() {
  local start=$SECONDS out rc
  while :; do
    out=$(apt-get -o DPkg::Lock::Timeout="$lock_timeout" update -qq 2>&1)
    rc=$?
    printf '%s\n' "$out"
    [ $rc = 0 ] && return 0
    if ! grep -qE 'Could not get lock|Unable to lock' <<<"$out" || [ $((SECONDS - start)) -ge "$lock_timeout" ]; then
      return $rc
    fi
    echo "deps: another apt holds the package lists' lock; trying again in $lock_retry s" >&2
    sleep "$lock_retry"
  done
}

if [ ${#missing[@]} -gt 0 ]; then
  if [ -n "${BULKSAMPLE_SKIP_DEPS:-}" ]; then
    echo "deps: missing ${missing[*]} (BULKSAMPLE_SKIP_DEPS is set: not installing)" >&2
  elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    log=$(mktemp "${TMPDIR:-/tmp}/bulksample-apt.XXXXXX.log")
    echo "deps: installing ${missing[*]} (log: $log; waits up to $lock_timeout s for another apt or dpkg to finish)" >&2
    export DEBIAN_FRONTEND=noninteractive
    # Install daemons (munge, slurm) without starting them: the Slurm test
    # starts and stops its own.
    rcd_added=
    if [ ! -e "$policy_rc" ]; then
      printf '#!/bin/sh\nexit 101\n' >"$policy_rc" && chmod +x "$policy_rc" && rcd_added=1
    fi
    { apt_update && apt-get -o DPkg::Lock::Timeout="$lock_timeout" install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1
    rc=$?
    [ -n "$rcd_added" ] && rm -f "$policy_rc"
    if [ $rc != 0 ]; then
      {
        echo "deps: apt-get failed (exit $rc) installing ${missing[*]}; the end of $log:"
        tail -n 8 "$log" | sed 's/^/  /'
        echo "deps: fix the cause and run make again, or set BULKSAMPLE_SKIP_DEPS=1 to build without them (pure-Go BLAS, no MPI)"
      } >&2
      exit 1
    fi
  else
    echo "deps: missing ${missing[*]} (not root: not installing)" >&2
  fi
fi

if [ ${#gotools[@]} -gt 0 ]; then
  gobin=$(go env GOPATH)/bin
  if ! command -v staticcheck >/dev/null && [ ! -x "$gobin/staticcheck" ]; then
    echo "deps: installing staticcheck" >&2
    go install honnef.co/go/tools/cmd/staticcheck@v0.8.2 >/dev/null 2>&1 || echo "deps: staticcheck not installable; skipping it" >&2
  fi
fi
exit 0
