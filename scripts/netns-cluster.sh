#!/usr/bin/env bash
# A cluster on one machine: NODES network namespaces ("nodes"), each joined
# to a bridge in a "switch" namespace by a veth pair whose both ends are
# rate-limited by tc's tbf qdisc (RATE per link and direction: netem is not
# in every kernel, tbf is), and Open MPI's TCP transport between them:
# mpirun runs in node 0's namespace with a hostfile of the nodes' addresses
# and an rsh agent (plm_rsh_agent) that starts each node's orted inside its
# namespace. Every rank is alone in its node and reads only its block of the
# graph file (the JSON's block_only), so the ranks' traffic crosses the
# links that shared memory hides on one machine.
#
#   scripts/netns-cluster.sh test     what `make test` runs (TestNetnsCluster): gen rmat written by the
#                                     nodes into one file, sample --fetch pull and push with the single
#                                     process's digest and their bytes seen on the links, and train
#   scripts/netns-cluster.sh bench    sample pull and push at each rate of RATES and without a limit:
#                                     a markdown table of the time against the cost model's bandwidth
#                                     term (benchmarks/results/dist.md, "A cluster on one machine")
#
# Environment (defaults in brackets): BULKSAMPLE [built with the mpi tag]  NODES [2; 2 to 4]
#   RATE [1gbit] (test)  RATES [1gbit 10gbit 25gbit] (bench)  MTU [9000]  SCALE [12 test, 20 bench]
#   SEEDS [2000 test, 32768 bench]  BULK [8 test, 16 bench]  REPS [3] (bench: runs per case, median)
#   OUT [stdout] (bench: the table's file)  LIMIT [120] seconds per mpirun
#
# Only addresses inside namespaces the script made (10.77.0.0/24 on the
# nodes; the switch has none; nothing is connected to the machine's own
# network namespace, so no traffic can leave), all removed at the end,
# also on failure or a signal: the processes left in the namespaces (ours:
# nothing else runs in them) are stopped by pid, then the namespaces, their
# links and qdiscs deleted. Needs root, iproute2 (ip, tc), Open MPI.
set -euo pipefail

mode=${1:-test}
root=$(cd "$(dirname "$0")/.." && pwd)
nodes=${NODES:-2}
mtu=${MTU:-9000}
limit=${LIMIT:-120}
net=10.77.0
tag=bsn$$ # namespace names: $tag-sw, $tag-n0 ...
work=$(mktemp -d /tmp/bulksample-netns.XXXXXX)
chmod 755 "$work"
made=()

say() { echo "netns-cluster: $*" >&2; }
fail() { say "FAIL: $*"; exit 1; }

cleanup() {
  local rc=$? ns pid
  trap - EXIT
  # Every process still in one of our namespaces was started by this
  # script (mpirun, orted, ranks): stop them by pid, then the namespaces.
  for ns in "${made[@]}"; do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -TERM "$pid" 2>/dev/null || true; done
  done
  for ns in "${made[@]}"; do
    for _ in $(seq 50); do [ -z "$(ip netns pids "$ns" 2>/dev/null)" ] && break; sleep 0.1; done
    for pid in $(ip netns pids "$ns" 2>/dev/null); do say "pid $pid in $ns ignored SIGTERM: SIGKILL"; kill -KILL "$pid" 2>/dev/null || true; done
  done
  for ns in "${made[@]}"; do ip netns del "$ns" 2>/dev/null || say "could not delete namespace $ns"; done
  if [ $rc -ne 0 ]; then
    for f in "$work"/*.err; do
      [ -s "$f" ] || continue
      say "---- $f (last 30 lines)"
      tail -n 30 "$f" >&2
    done
  fi
  rm -rf "$work"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[ "$(id -u)" = 0 ] || { say "must run as root (network namespaces, veth pairs and qdiscs need CAP_NET_ADMIN)"; exit 77; }
for c in ip tc mpirun; do command -v "$c" >/dev/null || fail "$c not found (Debian: iproute2, openmpi-bin)"; done
((nodes >= 2 && nodes <= 4)) || fail "NODES=$nodes: want 2 to 4"
case $mode in test | bench) ;; *) fail "unknown mode $mode (test or bench)" ;; esac

bin=${BULKSAMPLE:-}
if [ -z "$bin" ]; then
  tags=$("$root/scripts/build-tags.sh")
  case " $tags " in *" mpi "*) ;; *) fail "no MPI build possible (build tags: '$tags'); install libopenmpi-dev" ;; esac
  (cd "$root" && go build -tags "$tags" -o "$work/bulksample" ./cmd/bulksample) || fail "go build"
  bin=$work/bulksample
fi

# The nodes, the switch and the links.
addr() { echo "$net.$((10 + $1))"; }
# Exit status 77: this machine cannot make network namespaces (a container
# without CAP_NET_ADMIN), which the test reports as the reason it skips.
ip netns add "$tag-sw" 2>"$work/netns.err" || { say "cannot create a network namespace: $(cat "$work/netns.err")"; exit 77; }
made+=("$tag-sw")
ip -n "$tag-sw" link add br0 type bridge
ip -n "$tag-sw" link set br0 mtu "$mtu" up
for ((i = 0; i < nodes; i++)); do
  ns=$tag-n$i
  ip netns add "$ns" && made+=("$ns")
  ip link add v$i netns "$ns" mtu "$mtu" type veth peer name p$i netns "$tag-sw" mtu "$mtu"
  ip -n "$tag-sw" link set p$i master br0 up
  ip -n "$ns" link set lo up
  ip -n "$ns" addr add "$(addr $i)/24" dev v$i
  ip -n "$ns" link set v$i up
  echo "$(addr $i) $ns" >>"$work/map"
  echo "$(addr $i) slots=1" >>"$work/hosts"
done

# rate RATE: both directions of every link at RATE (a tc rate: 1gbit;
# "none" removes the limits). The bucket holds 2 ms at the rate (a 25 Gbit/s
# link needs more than the default to reach its rate); the queue 20 ms.
rate() {
  local i burst
  for ((i = 0; i < nodes; i++)); do
    if [ "$1" = none ]; then
      tc -n "$tag-n$i" qdisc del dev v$i root 2>/dev/null || true
      tc -n "$tag-sw" qdisc del dev p$i root 2>/dev/null || true
      continue
    fi
    burst=$(($(gbit "$1") * 1000000000 / 8 / 500))
    burst=$((burst > 65536 ? burst : 65536))
    tc -n "$tag-n$i" qdisc replace dev v$i root tbf rate "$1" burst "$burst" latency 20ms
    tc -n "$tag-sw" qdisc replace dev p$i root tbf rate "$1" burst "$burst" latency 20ms
  done
}
gbit() { local r=${1%gbit}; [ "$r" != "$1" ] || fail "rate $1: give it in gbit (1gbit, 10gbit)"; echo "$r"; }

# The rsh agent: [options] HOST COMMAND... runs COMMAND in HOST's node.
cat >"$work/nsrsh" <<EOF
#!/bin/sh
while [ \$# -gt 0 ] && [ "\${1#-}" != "\$1" ]; do shift; done
host=\$1
shift
ns=\$(awk -v h="\$host" '\$1 == h { print \$2 }' "$work/map")
[ -n "\$ns" ] || { echo "nsrsh: unknown host \$host" >&2; exit 1; }
exec ip netns exec "\$ns" sh -c "\$*"
EOF
chmod +x "$work/nsrsh"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PMIX_MCA_gds=hash
export OMPI_MCA_plm_rsh_agent=$work/nsrsh OMPI_MCA_btl=self,tcp
export OMPI_MCA_btl_tcp_if_include=$net.0/24 OMPI_MCA_oob_tcp_if_include=$net.0/24
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_rmaps_base_oversubscribe=1

# mpi NAME CMD-ARGS...: runs bulksample CMD-ARGS on one rank per node under
# mpirun in node 0, within LIMIT seconds; stdout to $work/NAME.out.
mpi() {
  local name=$1
  shift
  timeout --kill-after=5 "$limit" ip netns exec "$tag-n0" mpirun --hostfile "$work/hosts" -np "$nodes" "$bin" "$@" \
    >"$work/$name.out" 2>"$work/$name.err" || fail "$name: mpirun -np $nodes $* failed (exit $?)"
}
json() { tail -n 1 "$work/$1.out"; }
field() { grep -o "\"$2\":[^,}]*" <<<"$1" | head -n 1 | cut -d: -f2- | tr -d '"'; }
# sample_bytes JSON: the sample phase's bytes_sent over all ranks, and the busiest rank's.
sample_bytes() { sed -n 's/.*"sample":{"bytes_sent":\([0-9]*\),"messages":[0-9]*,"bytes_sent_max":\([0-9]*\).*/\1 \2/p' <<<"$1"; }
# txsum: bytes sent by the nodes' ends of the links so far.
txsum() {
  local i s=0
  for ((i = 0; i < nodes; i++)); do s=$((s + $(ip netns exec "$tag-n$i" cat /sys/class/net/v$i/statistics/tx_bytes))); done
  echo $s
}

say "$nodes nodes: $(cut -d' ' -f1 "$work/hosts" | paste -sd' '), MTU $mtu; $bin"

if [ "$mode" = test ]; then
  scale=${SCALE:-12} seeds=${SEEDS:-2000} bulk=${BULK:-8}
  rate "${RATE:-1gbit}"
  say "links at ${RATE:-1gbit} each way"
  # 1. gen rmat: each node generates its block and writes it into the one
  # file (a graph no one node holds), equal to one process's file.
  "$bin" gen rmat --scale "$scale" --seed 5 --relabel degree --out "$work/one.bsn" >/dev/null 2>"$work/gen1.err" || fail "gen (one process)"
  mpi gen gen rmat --scale "$scale" --seed 5 --relabel degree --out "$work/g.bsn" --json
  cmp -s "$work/one.bsn" "$work/g.bsn" || fail "gen rmat across $nodes nodes wrote another file than one process"
  say "gen rmat --relabel degree across $nodes nodes: the single process's file, byte for byte"
  # 2. sample, pull and push: the single process's digest, and the bytes
  # the ranks counted went over the links.
  args=(--batch 64 --bulk "$bulk" --seeds "$seeds" --fanout 15,10,5 --seed 9 --digest --json)
  want=$("$bin" sample --graph "$work/g.bsn" "${args[@]}" 2>"$work/one.err" | sed -n 's/^digest //p')
  [ -n "$want" ] || fail "single-process run printed no digest"
  for fetch in pull push; do
    before=$(txsum)
    mpi "$fetch" sample --graph "$work/g.bsn" "${args[@]}" --fetch "$fetch"
    sent=$(($(txsum) - before))
    got=$(sed -n 's/^digest //p' "$work/$fetch.out")
    [ "$got" = "$want" ] || fail "sample --fetch $fetch across $nodes nodes: digest '$got', want $want"
    s=$(json "$fetch")
    [ "$(field "$s" block_only)" = true ] || fail "sample --fetch $fetch: the ranks did not read only their blocks"
    read -r bytes _ <<<"$(sample_bytes "$s")"
    ((bytes > 0 && sent >= bytes)) || fail "sample --fetch $fetch: the ranks counted $bytes bytes of sampling, the links carried $sent"
    say "sample --fetch $fetch across $nodes nodes: digest equal; $bytes bytes of sampling counted, $sent carried by the links"
  done
  # 3. data-parallel training, one rank per node.
  "$bin" gen sbm --nodes 2000 --classes 4 --features 16 --seed 2 --out "$work/sbm.bsn" >/dev/null 2>"$work/gen2.err" || fail "gen sbm"
  mpi train train --data "$work/sbm.bsn" --epochs 2 --batch 64 --fanout 5,5 --hidden 16 --json
  s=$(json train)
  [ "$(field "$s" ranks)" = "$nodes" ] || fail "train: the JSON does not say $nodes ranks"
  [ "$(grep -c '^best epoch' "$work/train.out")" = 1 ] || fail "train: want one result line (rank 0 only)"
  say "train across $nodes nodes: 2 epochs, $(grep -o '"test_acc":[0-9.]*' <<<"$s" | tail -n 1)"
  say "PASS"
  exit 0
fi

# probe: the payload bytes per second one TCP stream carries from node 0 to
# node 1 as the links are now (python3; empty without it), 200 MB.
probe() {
  command -v python3 >/dev/null || return 0
  local port=$((20000 + RANDOM % 20000))
  ip netns exec "$tag-n1" python3 -c '
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(1); s.settimeout(30)
c, _ = s.accept(); n = 0; t = None
while True:
    b = c.recv(1 << 20)
    if not b: break
    if t is None: t = time.time()
    n += len(b)
print(int(n / (time.time() - t)))' "$(addr 1)" "$port" >"$work/probe.out" 2>"$work/probe.err" &
  local server=$!
  timeout 60 ip netns exec "$tag-n0" python3 -c '
import socket, sys, time
for _ in range(100):
    try: c = socket.create_connection((sys.argv[1], int(sys.argv[2]))); break
    except OSError: time.sleep(0.05)
buf = bytes(1 << 20)
for _ in range(200): c.sendall(buf)
c.close()' "$(addr 1)" "$port" 2>>"$work/probe.err" || true
  wait "$server" || true
  cat "$work/probe.out"
}
# drops: packets the links' qdiscs dropped so far.
drops() {
  local i
  for ((i = 0; i < nodes; i++)); do
    tc -s -n "$tag-n$i" qdisc show dev v$i
    tc -s -n "$tag-sw" qdisc show dev p$i
  done | awk '{ for (j = 1; j < NF; j++) if ($j == "(dropped") { x = $(j + 1); sub(/,/, "", x); s += x } } END { print s + 0 }'
}

# bench: per rate (and none), pull and push, REPS runs each, interleaved;
# a probe of the links' TCP throughput per rate, in the first round.
scale=${SCALE:-20} seeds=${SEEDS:-32768} bulk=${BULK:-16} reps=${REPS:-3}
rates=(${RATES:-1gbit 2gbit 5gbit 10gbit 25gbit} none)
"$bin" gen rmat --scale "$scale" --seed 1 --out "$work/g.bsn" >/dev/null 2>"$work/gen.err" || fail "gen"
args=(--batch 1024 --bulk "$bulk" --seeds "$seeds" --fanout 15,10,5 --seed 1 --threads 1 --json)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
: >"$work/runs"
: >"$work/probes"
for ((r = 1; r <= reps; r++)); do
  for rt in "${rates[@]}"; do
    rate "$rt"
    if ((r == 1)); then
      p=$(probe)
      echo "$rt ${p:-nan}" >>"$work/probes"
      say "probe at $rt: ${p:-no python3} bytes/s"
    fi
    for fetch in pull push; do
      d0=$(drops)
      mpi run sample --graph "$work/g.bsn" "${args[@]}" --fetch "$fetch"
      s=$(json run)
      read -r bytes most <<<"$(sample_bytes "$s")"
      secs=$(field "$s" seconds)
      echo "$rt $fetch $secs $bytes $most $(($(drops) - d0))" >>"$work/runs"
      say "rep $r, $rt, $fetch: $secs s, $most bytes on the busiest rank, $(($(drops) - d0)) packets dropped"
    done
  done
done
rate none
table=$(awk -v mtu="$mtu" '
  function median(a, n,   i, j, x) { for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  FNR == NR { probe[$1] = $2; next }
  { k = $1 " " $2; n[k]++; t[k, n[k]] = $3; most[k] = $5; drop[k] += $6; if (!($1 in seen)) { seen[$1] = 1; order[++nr] = $1 } }
  END {
    # Each frame of MTU bytes of IP carries MTU - 52 bytes of TCP payload
    # (IP and TCP headers with timestamps) and costs MTU + 14 on the link.
    wire = (mtu + 14) / (mtu - 52)
    # The link rate of the cost model: the tbf rate, or what the links
    # carry without a limit (the probe) where that is lower.
    cap = probe["none"] != "nan" && probe["none"] > 0 ? probe["none"] : 0
    printf "| link | fetch | seconds: least / median of %d | busiest rank sends | TCP probe | model: its bytes at the link rate, less at no limit | measured: least - least without a limit | measured / model | packets dropped |\n", n[order[1] " pull"]
    printf "|---|---|---:|---:|---:|---:|---:|---:|---:|\n"
    for (f = 1; f <= 2; f++) {
      fetch = f == 1 ? "pull" : "push"
      for (i = 1; i <= nr; i++) {
        k = order[i] " " fetch
        lo[k] = t[k, 1]
        for (j = 1; j <= n[k]; j++) { a[j] = t[k, j]; if (a[j] < lo[k]) lo[k] = a[j] }
        med[k] = median(a, n[k])
      }
      base = lo["none " fetch]
      # The fit: least squares of the least seconds on 1/rate over every
      # setting; its slope is the bytes the exchanges wait for.
      sx = sy = sxx = sxy = m = 0
      for (i = 1; i <= nr; i++) {
        rt = order[i]; k = rt " " fetch
        g = rt; sub(/gbit/, "", g)
        r = rt == "none" ? cap : g * 1e9 / 8
        if (cap > 0 && r > cap) r = cap
        pr = probe[rt] == "nan" ? "" : sprintf("%.2f Gbit/s", probe[rt] * 8 / 1e9)
        if (r > 0) { x = 1 / r; sx += x; sy += lo[k]; sxx += x * x; sxy += x * lo[k]; m++ }
        if (rt == "none") { printf "| none | %s | %.3f / %.3f | %.1f MB | %s | | | | %d |\n", fetch, lo[k], med[k], most[k] / 1e6, pr, drop[k]; continue }
        model = most[k] * wire * (1 / r - (cap > 0 ? 1 / cap : 0))
        printf "| %s Gbit/s | %s | %.3f / %.3f | %.1f MB | %s | %.3f s | %.3f s | %s | %d |\n", g, fetch, lo[k], med[k], most[k] / 1e6, pr, model, lo[k] - base, (model > 0.05 ? sprintf("%.2f", (lo[k] - base) / model) : "(model < 0.05 s)"), drop[k]
      }
      if (m >= 2 && m * sxx - sx * sx > 0) {
        slope = (m * sxy - sx * sy) / (m * sxx - sx * sx)
        fit[fetch] = sprintf("%s: seconds = %.3f + %.1f MB / rate; the busiest rank sends %.1f MB (%.1f MB on the wire): fitted / sent %.2f", fetch, (sy - slope * sx) / m, slope / 1e6, most["none " fetch] / 1e6, most["none " fetch] * wire / 1e6, slope / (most["none " fetch] * wire))
      }
    }
    printf "\nFit over every setting (least squares of the least seconds on 1/rate, the rate of the model): %s; %s.\n", fit["pull"], fit["push"]
  }' "$work/probes" "$work/runs")
{
  echo "R-MAT scale $scale, seed 1; sample --batch 1024 --bulk $bulk --seeds $seeds --fanout 15,10,5 --threads 1; $nodes nodes (network namespaces), one rank each, Open MPI TCP over veth pairs and a bridge, MTU $mtu, both directions of every link limited by tbf; the TCP probe is one stream's payload rate from node 0 to node 1 at that setting (200 MB). Seconds are the JSON's (the busiest rank's time in the sampler); other load only adds time, so the least of the runs is the figure compared. $(date -u '+%F %H:%M UTC'), $(nproc) CPUs, load average $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end."
  echo
  echo "$table"
  echo
  echo "Command: \`NODES=$nodes SCALE=$scale SEEDS=$seeds BULK=$bulk REPS=$reps RATES=\"${RATES:-1gbit 2gbit 5gbit 10gbit 25gbit}\" scripts/netns-cluster.sh bench\`"
} >"$work/table.md"
if [ -n "${OUT:-}" ]; then cp "$work/table.md" "$OUT"; fi
cat "$work/table.md"
