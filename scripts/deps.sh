#!/usr/bin/env bash
# Installs what a make target needs on a fresh Debian machine, when it is
# missing and we may:
#   run    (make build, make run; the default): OpenBLAS (the default BLAS of
#          the trainer) and pkg-config;
#   test   (make vet, make test): those, Open MPI (the mpi build tag, the
#          mpirun tests), Slurm, munge and PMIx (the one-node Slurm test of
#          scripts/slurm-test.sh), iproute2 (ip and tc: the network-namespace
#          cluster of scripts/netns-cluster.sh) and staticcheck;
#   bench  (make bench): those of run, Open MPI (the distributed benchmark),
#          SuiteSparse:GraphBLAS (the SpGEMM peer) and PyTorch with NumPy
#          (python3-torch, the training peer of benchmarks/torchpeer);
#   cuda   (make test): Debian's CUDA toolkit, by scripts/deps-cuda.sh.
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
# usage: scripts/deps.sh [run|test|bench|cuda] [--list]
#   --list prints what the mode needs, one name per line, and installs nothing.
# Tests set DEPS_POLICY_RC (the policy-rc.d file, default
# /usr/sbin/policy-rc.d) and DEPS_LOCK_RETRY (seconds between the tries of
# apt-get update, whose lists lock apt's own timeout does not cover).
set -uo pipefail

mode=run list=
for a in "$@"; do
  case $a in
    run|test|bench|cuda) mode=$a ;;
    --bench) mode=bench ;; # the old spelling
    --list) list=1 ;;
    *) echo "deps: unknown argument $a (want run, test, bench or cuda, and --list)" >&2; exit 2 ;;
  esac
done
[ "$mode" = cuda ] && exec "$(dirname "$0")/deps-cuda.sh" ${list:+--list}

pkgs=(libopenblas-dev pkg-config)
mpi=(libopenmpi-dev openmpi-bin)
[ "$mode" = test ] && pkgs+=("${mpi[@]}" slurm-wlm munge libpmix-dev iproute2)
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

. "$(dirname "$0")/apt.sh"

if [ ${#missing[@]} -gt 0 ]; then
  if [ -n "${BULKSAMPLE_SKIP_DEPS:-}" ]; then
    echo "deps: missing ${missing[*]} (BULKSAMPLE_SKIP_DEPS is set: not installing)" >&2
  elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt_install "set BULKSAMPLE_SKIP_DEPS=1 to build without them (pure-Go BLAS, no MPI)" "${missing[@]}" || exit 1
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
