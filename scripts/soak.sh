#!/usr/bin/env bash
# The memory soak of `make bench`: trains on the synthetic dataset for 50
# epochs (`bulksample train --data synthetic`, everything else default) and
# reads the resident set size and the Go heap that every epoch's progress
# line reports. Memory that grows epoch after epoch (PyG #3198) shows as
# RSS at epoch 50 above RSS at epoch 5 (after the first epochs' warm-up):
# the soak fails when the median of the last five epochs is more than 5%
# above that of epochs 5-9.
# usage: scripts/soak.sh BULKSAMPLE-BINARY [OUT.md] [EPOCHS]
set -euo pipefail
bin=$1
out=${2:-benchmarks/results/soak.md}
epochs=${3:-50}
log=$(mktemp)
start=$(date +%s)
"$bin" train --data synthetic --epochs "$epochs" >"$log"
secs=$(($(date +%s) - start))
# "epoch 7/50: ... | RSS 224.0 MB, heap 116.7 MB"
curve=$(sed -n 's#^epoch \([0-9]*\)/[0-9]*:.* RSS \([0-9.]*\) MB, heap \([0-9.]*\) MB$#\1 \2 \3#p' "$log")
n=$(echo "$curve" | wc -l)
if [ "$n" -ne "$epochs" ]; then
  echo "soak: $n epoch lines with memory figures in the output, want $epochs (output kept in $log)" >&2
  exit 1
fi
rss5=$(echo "$curve" | awk '$1 == 5 { print $2 }')
rssN=$(echo "$curve" | awk -v e="$epochs" '$1 == e { print $2 }')
# One epoch's figure depends on where the garbage collector's cycle is when
# the epoch ends (here +-10% from epoch to epoch): the verdict compares the
# medians of epochs 5-9 and of the last five epochs.
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
early=$(echo "$curve" | awk '$1 >= 5 && $1 <= 9 { print $2 }' | median)
late=$(echo "$curve" | awk -v e="$epochs" '$1 > e - 5 { print $2 }' | median)
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f", 100 * (b - a) / a }'; }
growth=$(pct "$early" "$late")
verdict=$(awk -v g="$growth" 'BEGIN { print (g <= 5) ? "no growth (not more than 5% above)" : "GROWS (more than 5% above)" }')
{
  echo "## Memory over $epochs epochs of \`bulksample train --data synthetic\`"
  echo
  echo "$(date -u +%Y-%m-%d), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end; $secs s in all."
  echo "Resident set size (/proc/self/statm) and Go heap (HeapAlloc) at the end of each epoch, after its evaluation."
  echo
  echo "Median RSS of epochs $((epochs - 4))-$epochs vs epochs 5-9: $late MB vs $early MB, $growth%: **$verdict**."
  echo "Single epochs: $rssN MB at epoch $epochs vs $rss5 MB at epoch 5, $(pct "$rss5" "$rssN")%."
  echo "Peak over the run: RSS $(echo "$curve" | sort -k2 -n | tail -1 | cut -d' ' -f2) MB, heap $(echo "$curve" | sort -k3 -n | tail -1 | cut -d' ' -f3) MB."
  echo
  echo "| epoch | RSS MB | heap MB |"
  echo "|---:|---:|---:|"
  echo "$curve" | awk '{ printf "| %d | %s | %s |\n", $1, $2, $3 }'
} >"$out"
rm -f "$log"
cat "$out"
case $verdict in "no growth"*) ;; *) exit 1 ;; esac
