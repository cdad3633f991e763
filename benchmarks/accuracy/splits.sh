#!/usr/bin/env bash
# Trains one model per split and summarises the best-valid epochs' test
# metric: the protocol of benchmarks/results/accuracy.md.
#
# usage: benchmarks/accuracy/splits.sh BIN SPLITS -- TRAIN-FLAGS...
#
# SPLITS is a list such as "0 1 2 3 4 5 6 7 8 9"; each run is
#   BIN train TRAIN-FLAGS... --split-index I --json
# when the flags give no --split, or, with --split, the same with
# --split-seed I instead (random splits drawn by seed). Each run's result
# line is printed, then the mean, the standard deviation over the runs
# (numpy's default, ddof 0, as Platonov et al. report) and the range of
# the test metric, and the command of every run on standard error.
set -euo pipefail
bin=$1 splits=$2
shift 2
[ "${1:-}" = "--" ] && shift
by=--split-index
for a in "$@"; do [ "$a" = --split ] && by=--split-seed; done
vals=()
for i in $splits; do
  echo "+ $bin train $* $by $i --json" >&2
  out=$("$bin" train "$@" "$by" "$i" --json 2>/dev/null)
  echo "$out" | grep '^best epoch' | sed "s/^/split $i: /"
  # The best epoch's test metric: best_test's auc when the metric is AUC,
  # else its accuracy or macro_f1.
  metric=$(echo "$out" | tail -n 1 | sed -n 's/.*"metric":"\([a-z-]*\)".*/\1/p')
  key=accuracy
  case "$metric" in auc) key=auc ;; macro-f1) key=macro_f1 ;; esac
  v=$(echo "$out" | tail -n 1 | sed -n "s/.*\"best_test\":{[^}]*\"$key\":\([0-9.e-]*\).*/\1/p")
  vals+=("$v")
done
printf '%s\n' "${vals[@]}" | awk -v metric="${metric:-}" '
  { v[NR] = $1; s += $1; if (NR == 1 || $1 < lo) lo = $1; if (NR == 1 || $1 > hi) hi = $1 }
  END { m = s / NR; for (i = 1; i <= NR; i++) d += (v[i] - m) ^ 2
        printf "%d runs: test %s mean %.4f, std %.4f (ddof 0), range %.4f-%.4f\n", NR, metric, m, sqrt(d / NR), lo, hi }'
