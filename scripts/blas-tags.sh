#!/usr/bin/env bash
# Prints the Go build tags for the BLAS to use: "openblas" when cgo works and
# OpenBLAS can be linked, nothing (pure-Go gonum BLAS) otherwise.
set -u
[ "$(go env CGO_ENABLED)" = 1 ] || exit 0
tmp=$(mktemp -d) || exit 0
trap 'rm -rf "$tmp"' EXIT
printf 'void cblas_sgemm(void);\nint main(void){cblas_sgemm();return 0;}\n' >"$tmp/t.c"
if ${CC:-cc} "$tmp/t.c" -o "$tmp/t" -lopenblas >/dev/null 2>&1; then echo openblas; fi
