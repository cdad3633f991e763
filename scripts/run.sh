#!/usr/bin/env bash
# The main job of `make run`: generates the default labelled planted-partition
# graph (100,000 nodes, 10 classes), trains a 2-layer GraphSAGE on minibatches
# sampled in bulk (fanouts 15,10, batch 1024, 16 minibatches per bulk) for a
# few epochs, then the features-only baseline (softmax regression) on the same
# split, and prints the accuracies, SEPS and per-phase times. It takes well
# under 3 minutes on 2 cores.
#
# usage: scripts/run.sh [path/to/bulksample]
set -euo pipefail
bin=${1:-bin/bulksample}
cd "$(dirname "$0")/.."

# What the binary was built with, from the binary itself (not from whether
# OpenBLAS links on this machine now: a build whose install failed has no
# tags whatever the machine has since).
"$bin" --version | grep '^BLAS:'

# The --json line (with one record per epoch) goes to $out, not the screen.
out=$(mktemp)
trap 'rm -f "$out"' EXIT
start=$(date +%s)

echo
echo "== GraphSAGE, 2 layers, hidden 64, bulk node-wise sampling =="
"$bin" train --data synthetic --model sage --fanout 15,10 --batch 1024 --bulk 16 \
  --epochs 4 --hidden 64 --lr 0.01 --dropout 0.5 --seed 1 --json | tee "$out" | grep -v '^{'
# The run's test_acc comes first in the JSON line, before the per-epoch records.
sage=$(tail -n 1 "$out" | grep -o '"test_acc":[0-9.e-]*' | head -n 1 | cut -d: -f2)

echo
echo "== features-only baseline (softmax regression on the same split) =="
"$bin" train --data synthetic --model linear --batch 1024 --bulk 16 \
  --epochs 20 --lr 0.01 --dropout 0 --seed 1 --json | tee "$out" | grep -v '^{'
linear=$(tail -n 1 "$out" | grep -o '"test_acc":[0-9.e-]*' | head -n 1 | cut -d: -f2)

echo
echo "test accuracy: GraphSAGE $sage, features only $linear; $(($(date +%s) - start)) s in all"
