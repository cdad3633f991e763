#!/usr/bin/env bash
# Installs what a make target needs on a fresh Debian machine, when it is
# missing and we may:
#   run    (make build, make run; the default): OpenBLAS (the default BLAS of
#          the trainer) and pkg-config;
#   test   (make vet, make test): those and staticcheck;
#   bench  (make bench): those of run and SuiteSparse:GraphBLAS (the peer).
# Without root it only reports what is missing; the build then falls back to
# pure-Go BLAS and the GraphBLAS comparison is skipped. `make run` does not
# install staticcheck: building it takes about as long as the rest of the
# first run.
#
# usage: scripts/deps.sh [run|test|bench] [--list]
#   --list prints what the mode needs, one name per line, and installs nothing.
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
[ "$mode" = bench ] && pkgs+=(libgraphblas-dev)
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
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "deps: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >/tmp/bulksample-apt.log 2>&1 \
      || echo "deps: apt-get failed (see /tmp/bulksample-apt.log); continuing without ${missing[*]}" >&2
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
