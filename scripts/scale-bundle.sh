#!/usr/bin/env bash
# Builds the bundle of issue 31's scaling table for a many-core machine
# without Go and without Open MPI (the GPU machine's 16-core host, reached
# through the device tool, which carries the folder: carry ["bin/scale"]),
# in DIR (default bin/scale, ignored by .gitignore's /bin/):
#
#   bulksample, scalebench   static (CGO_ENABLED=0) linux/amd64 binaries: gen, the one-process runs, the runner
#   mpi/                     the mpi build of bulksample and this machine's Open MPI runtime: mpirun (orterun),
#                            the libraries they load, glibc's dynamic loader and libc included, the MCA and PMIx
#                            plugins (without the ones for InfiniBand, UCX, OFI, PSM and CUDA: one node needs
#                            shared memory and TCP), the help texts and the MCA defaults; mpi/mpirun and
#                            mpi/bulksample are wrappers that run them with the bundled loader and point Open MPI
#                            at the bundle (OPAL_PREFIX and the other installdirs variables), so that nothing of
#                            the machine's own libraries is used
#   run.sh                   scripts/scale-run.sh, the runner (see there; RESULTS under $OUT)
#
#   scripts/scale-bundle.sh [DIR]
#
# It checks that the static binaries have no interpreter and that every
# library the MPI side loads resolves inside the bundle, and that the
# folder stays within the device tool's 64 MiB (with the working tree).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-bin/scale}
say() { echo "scale-bundle: $*" >&2; }
fail() { say "$*"; exit 1; }
command -v mpirun >/dev/null && command -v ompi_info >/dev/null || fail "Open MPI not found (Debian: openmpi-bin, libopenmpi-dev; scripts/deps.sh test installs them)"
case " $(scripts/build-tags.sh) " in *" mpi "*) ;; *) fail "no MPI build possible here (scripts/build-tags.sh: no mpi tag)" ;; esac
rm -rf "$dir"
m=$dir/mpi
mkdir -p "$m/lib/openmpi3" "$m/lib/pmix" "$m/share/openmpi" "$m/share/pmix" "$m/etc"

# -trimpath: no path of this machine in the binaries; -s -w: no symbol tables.
CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -buildvcs=auto -ldflags='-s -w' -o "$dir/bulksample" ./cmd/bulksample
CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -buildvcs=auto -ldflags='-s -w' -o "$dir/scalebench" ./benchmarks/scalebench
# The mpi tag alone: sampling needs no BLAS (no OpenBLAS and Fortran runtime to carry).
CGO_ENABLED=1 go build -trimpath -buildvcs=auto -tags mpi -ldflags='-s -w' -o "$m/bulksample.bin" ./cmd/bulksample

# Open MPI: the launcher, its plugins, texts and defaults.
ompi() { ompi_info --parsable --path "$1" | sed -n "s/^path:$1://p"; }
cp "$(readlink -f "$(command -v mpirun)")" "$m/mpirun.bin"
for p in "$(ompi pkglibdir)"/*.so; do
  case ${p##*/} in *ucx* | *ofi* | *psm* | *openib* | *verbs* | *cuda* | *_flux* | *_jsm* | *java*) continue ;; esac
  cp "$p" "$m/lib/openmpi3/"
done
cp -r "$(ompi pkgdatadir)/." "$m/share/openmpi/"
[ -f "$(ompi sysconfdir)/openmpi-mca-params.conf" ] && cp "$(ompi sysconfdir)/openmpi-mca-params.conf" "$m/etc/"
# An external PMIx (Debian's libpmix2): its plugins and texts, found from
# the library Open MPI's PMIx component loads.
pmixlib=$(ldd "$m"/lib/openmpi3/mca_pmix_*.so 2>/dev/null | awk '$1 ~ /^libpmix\.so/ { print $3; exit }')
if [ -n "$pmixlib" ]; then
  pmixdir=$(dirname "$(readlink -f "$pmixlib")")
  [ -d "$pmixdir/pmix" ] && cp "$pmixdir"/pmix/*.so "$m/lib/pmix/"
  [ -d "$pmixdir/../share/pmix" ] && cp -r "$pmixdir/../share/pmix/." "$m/share/pmix/"
fi
# Every library any of them loads, glibc's loader and libc included.
for f in "$m/bulksample.bin" "$m/mpirun.bin" "$m"/lib/openmpi3/*.so "$m"/lib/pmix/*.so; do
  ldd "$f" | awk '$3 ~ /^\// { print $3 } $1 ~ /^\/.*ld-linux/ { print $1 }'
done | sort -u | while read -r lib; do cp -L "$lib" "$m/lib/${lib##*/}"; done
[ -f "$m/lib/ld-linux-x86-64.so.2" ] || fail "no ld-linux-x86-64.so.2 among the libraries: not an x86-64 glibc machine?"

# The wrappers: the bundled loader runs each binary with the bundle's
# libraries only, and Open MPI finds its plugins and texts in the bundle.
cat >"$m/bulksample" <<'EOF'
#!/bin/sh
# bulksample built with the mpi tag, on the bundle's loader and libraries.
M=$(dirname "$(readlink -f "$0")")
exec "$M/lib/ld-linux-x86-64.so.2" --library-path "$M/lib" "$M/bulksample.bin" "$@"
EOF
cat >"$m/mpirun" <<'EOF'
#!/bin/sh
# Open MPI's mpirun from the bundle: its loader, libraries, plugins and texts.
M=$(dirname "$(readlink -f "$0")")
export OPAL_PREFIX="$M" OPAL_EXEC_PREFIX="$M" OPAL_BINDIR="$M" OPAL_LIBDIR="$M/lib" OPAL_PKGLIBDIR="$M/lib/openmpi3" \
  OPAL_DATAROOTDIR="$M/share" OPAL_DATADIR="$M/share" OPAL_PKGDATADIR="$M/share/openmpi" OPAL_SYSCONFDIR="$M/etc" \
  PMIX_MCA_mca_base_component_path="$M/lib/pmix" PMIX_INSTALL_PREFIX="$M"
exec "$M/lib/ld-linux-x86-64.so.2" --library-path "$M/lib" "$M/mpirun.bin" "$@"
EOF
chmod +x "$m/bulksample" "$m/mpirun"
cp scripts/scale-run.sh "$dir/run.sh"
chmod +x "$dir/run.sh"
{
  git rev-parse HEAD 2>/dev/null || echo "unknown commit"
  git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo "with uncommitted changes"
  go version
  mpirun --version 2>&1 | head -n 1
} >"$dir/BUILD" || true

# Checks: the static binaries are static; the MPI side loads nothing from
# outside the bundle.
for f in bulksample scalebench; do
  if readelf -l "$dir/$f" 2>/dev/null | grep -q INTERP; then fail "$dir/$f is dynamically linked"; fi
done
for f in "$m/bulksample.bin" "$m/mpirun.bin" "$m"/lib/openmpi3/*.so "$m"/lib/pmix/*.so; do
  "$m/lib/ld-linux-x86-64.so.2" --library-path "$m/lib" --list "$f" 2>&1 | awk -v m="$(cd "$m" && pwd)" -v f="$f" '
    $2 == "=>" && $3 !~ "^" m "/" { print "scale-bundle: " f ": " $1 " resolves to " $3 " outside the bundle"; bad = 1 }
    END { exit bad }' >&2 || fail "a library of the MPI side is not in the bundle"
done
size=$(du -sm "$dir" | cut -f1)
say "$dir ($size MiB): $(cd "$dir" && ls | tr '\n' ' ')"
((size <= 56)) || fail "$dir is $size MiB; the device carries at most 64 MiB with the working tree"
