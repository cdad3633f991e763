#!/usr/bin/env bash
# Installs Debian's CUDA toolkit for `make test` (scripts/deps.sh cuda):
# nvcc (scripts/ptx.sh compiles the kernels' PTX and checks the committed
# one), the headers (internal/cuda's declarations are checked against
# them), and cuSPARSE, cuBLAS and a libcuda to link against. `make run` and
# `make build` never need it: the cuda build dlopens the libraries and
# embeds the PTX.
#
# The toolkit is in Debian's contrib and non-free components. When no apt
# source enables non-free, this writes /etc/apt/sources.list.d/
# bulksample-cuda.sources: the machine's own Debian archive (the URIs and
# Signed-By of the stanza of /etc/apt/sources.list.d/debian.sources, or the
# line of /etc/apt/sources.list, that lists this release's suite) with
# `Suites: <release>` and `Components: contrib non-free`. apt waits up to
# 10 minutes for the dpkg lock instead of failing (scripts/apt.sh). About
# 65 packages and 2.8 GB, some minutes.
#
# usage: scripts/deps-cuda.sh [--list]
set -uo pipefail
pkgs=(nvidia-cuda-toolkit nvidia-cuda-dev)
if [ "${1:-}" = --list ]; then
  printf '%s\n' "${pkgs[@]}"
  exit 0
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ -n "${BULKSAMPLE_SKIP_DEPS:-}" ]; then
  echo "deps: missing ${missing[*]} (BULKSAMPLE_SKIP_DEPS is set: not installing)" >&2
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  echo "deps: missing ${missing[*]} (not root: not installing); make test's CUDA checks need nvcc and the CUDA headers" >&2
  exit 0
fi

release=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
sources=/etc/apt/sources.list.d/bulksample-cuda.sources
# A source line or stanza that already has both components, or our file.
enabled() {
  grep -rhsE '^[[:space:]]*(Components:|deb )' /etc/apt/sources.list /etc/apt/sources.list.d/ |
    grep -E '[[:space:]]non-free([[:space:]]|$)' | grep -qE '[[:space:]]contrib([[:space:]]|$)'
}
if [ ! -e "$sources" ] && ! enabled; then
  uris= signed=
  if [ -r /etc/apt/sources.list.d/debian.sources ] && [ -n "$release" ]; then
    # The first stanza whose Suites list the release itself.
    read -r uris signed < <(awk -v rel="$release" 'BEGIN { RS = "" } {
        u = ""; s = ""; hit = 0
        n = split($0, lines, "\n")
        for (i = 1; i <= n; i++) {
          if (lines[i] ~ /^[[:space:]]*#/) continue
          if (lines[i] ~ /^URIs:/) { u = lines[i]; sub(/^URIs:[[:space:]]*/, "", u) }
          if (lines[i] ~ /^Signed-By:/) { s = lines[i]; sub(/^Signed-By:[[:space:]]*/, "", s) }
          if (lines[i] ~ /^Suites:/) { m = split(lines[i], w, /[[:space:]]+/); for (j = 2; j <= m; j++) if (w[j] == rel) hit = 1 }
        }
        if (hit && u != "") { print u, s; exit }
      }' /etc/apt/sources.list.d/debian.sources)
  fi
  if [ -z "$uris" ] && [ -r /etc/apt/sources.list ] && [ -n "$release" ]; then
    # deb [signed-by=KEY] URI RELEASE main ...
    read -r uris signed < <(awk -v rel="$release" '$1 == "deb" {
        k = ""; i = 2
        if ($2 ~ /^\[/) { for (; i <= NF; i++) { if ($i ~ /signed-by=/) { k = $i; sub(/.*signed-by=/, "", k); sub(/\].*/, "", k) } if ($i ~ /\]$/) break } i++ }
        if ($(i + 1) == rel) { print $i, k; exit } }' /etc/apt/sources.list)
  fi
  if [ -z "$uris" ]; then
    echo "deps: no Debian source for release '${release:-unknown}' found to add contrib and non-free to; not installing ${missing[*]}" >&2
    exit 0
  fi
  {
    echo "Types: deb"
    echo "URIs: $uris"
    echo "Suites: $release"
    echo "Components: contrib non-free"
    [ -n "$signed" ] && echo "Signed-By: $signed"
  } >"$sources"
  echo "deps: wrote $sources (contrib and non-free of this machine's Debian archive, for the CUDA toolkit)" >&2
fi

. "$(dirname "$0")/apt.sh"
apt_install "set BULKSAMPLE_SKIP_DEPS=1 to go on without them (make test's CUDA checks then fail, naming what is missing)" "${missing[@]}" || exit 1
exit 0
