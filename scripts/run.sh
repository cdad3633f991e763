#!/usr/bin/env bash
# The main job of `make run`: generates the default labelled planted-partition
# graph (100,000 nodes, 10 classes), trains a 2-layer GraphSAGE on minibatches
# sampled in bulk (fanouts 15,10, batch 1024, 16 minibatches per bulk) for a
# few epochs, then the features-only baseline (softmax regression) on the same
# split, and prints the accuracies, SEPS and epoch times: about 15 lines, which
# fit one screen (the baseline's 20 epoch lines are left out; its result line
# is kept). Where standard error is a terminal, progress bars show the
# generation and each epoch's minibatches, and clear themselves. It takes well
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

out=$(mktemp)
trap 'rm -f "$out"' EXIT
start=$(date +%s)
# testacc prints the test accuracy of the result line in $out ("best epoch 4:
# valid accuracy 0.9801, test accuracy 0.9790; ...").
testacc() { sed -n 's/^best epoch .*, test accuracy \([0-9.]*\).*/\1/p' "$out"; }

echo
echo "== GraphSAGE, 2 layers, hidden 64, bulk node-wise sampling =="
"$bin" train --data synthetic --model sage --fanout 15,10 --batch 1024 --bulk 16 \
  --epochs 4 --hidden 64 --lr 0.01 --dropout 0.5 --seed 1 | tee "$out"
sage=$(testacc)

echo
echo "== features-only baseline (softmax regression on the same split), 20 epochs =="
"$bin" train --data synthetic --model linear --batch 1024 --bulk 16 \
  --epochs 20 --lr 0.01 --dropout 0 --seed 1 | tee "$out" | { grep -E '^(best epoch|no epoch)' || true; }
linear=$(testacc)

echo
echo "test accuracy: GraphSAGE $sage, features only $linear; $(($(date +%s) - start)) s in all"
