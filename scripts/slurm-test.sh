#!/usr/bin/env bash
# Starts a one-node Slurm cluster on this machine (loopback only), runs
# distributed sampling through it, and checks that the digests equal the
# single-process digest:
#   1. srun --mpi=pmix --overcommit -n 4 bulksample sample --fetch pull
#   2. sbatch --wait of examples/slurm/sample.sbatch (4 ranks, --fetch push)
#   3. sbatch --wait of examples/slurm/train.sbatch (4 ranks, data-parallel training)
#   4. its resubmission with EXTRA=--resume, continuing from the checkpoint
#   5. scancel of a running training job (as at a time limit or a
#      preemption): every rank stops after the same step, rank 0 saves it,
#      and a resubmission with --resume continues from it
# It starts munged (as user munge, its own key and socket), slurmctld and
# slurmd, and stops exactly those processes, by pid, on every exit path.
# Needs root (slurmd) and Debian's slurm-wlm and munge (scripts/deps.sh).
#
# Every step is bounded, and all of them together by SLURM_TEST_SECONDS, so
# that the script fails with the daemons' logs rather than being killed
# (a Slurm client waits without end on a port that accepts and never
# answers). Slurm's ports are a free block below the kernel's ephemeral
# range, where no other test's connection or listener can hold them.
#
# usage: scripts/slurm-test.sh
#   BULKSAMPLE          the binary to run (built with the mpi tag); default:
#                       build one with `go build -tags "$(scripts/build-tags.sh)"`.
#   SLURM_TEST_SECONDS  the whole run's limit (default 200).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/bulksample-slurm.XXXXXX)
chmod 755 "$work"
pids=()
names=()

say() { echo "slurm-test: $*" >&2; }
fail() { say "FAIL: $*"; exit 1; }

limit=${SLURM_TEST_SECONDS:-200}
[[ "$limit" =~ ^[1-9][0-9]*$ ]] || fail "SLURM_TEST_SECONDS=$limit: want a positive number of seconds"
deadline=$((SECONDS + limit))

# bounded SECS CMD...: runs CMD for at most SECS seconds and never past the
# run's deadline; its exit status is CMD's (124 when timed out).
bounded() {
  local secs=$1 left=$((deadline - SECONDS))
  shift
  [ "$left" -gt 0 ] || fail "out of time (SLURM_TEST_SECONDS=$limit) before: $*"
  [ "$secs" -le "$left" ] || secs=$left
  timeout -k 5 "$secs" "$@"
}

cleanup() {
  local rc=$?
  trap - EXIT
  if [ -n "${SLURM_CONF:-}" ] && [ ${#pids[@]} -ge 2 ]; then
    timeout 10 scancel --quiet --user=root >/dev/null 2>&1 || true
  fi
  # Stop what we started, newest first, by pid; wait at most 10 s each.
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    pid=${pids[$i]}
    kill -TERM "$pid" 2>/dev/null || continue
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
      say "${names[$i]} (pid $pid) ignored SIGTERM: SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
  if [ $rc -ne 0 ]; then
    for f in "$work"/*.log "$work"/munge/*.log "$work"/*.out; do
      [ -f "$f" ] || continue
      say "---- $f (last 40 lines)"
      tail -n 40 "$f" >&2
    done
  fi
  rm -rf "$work"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start NAME CMD...: runs CMD in the background and records its pid.
start() {
  local name=$1
  shift
  "$@" >>"$work/$name.stderr.log" 2>&1 &
  pids+=($!)
  names+=("$name")
}

# waitfor SECONDS WHAT CMD...: polls CMD (each try at most 5 s) until it
# succeeds, or fails; it fails at once when a daemon it started has exited.
waitfor() {
  local secs=$1 what=$2 i
  shift 2
  local until=$((SECONDS + secs))
  [ "$until" -le "$deadline" ] || until=$deadline
  while [ "$SECONDS" -lt "$until" ]; do
    if bounded 5 "$@" >/dev/null 2>&1; then return 0; fi
    for i in "${!pids[@]}"; do
      kill -0 "${pids[$i]}" 2>/dev/null || fail "$what: ${names[$i]} (pid ${pids[$i]}) has exited"
    done
    sleep 0.2
  done
  fail "$what: not ready after ${secs}s"
}

# free_ports N: prints the first of N consecutive TCP ports that no socket
# of this machine uses, below the ephemeral range (so that no outgoing
# connection takes one while the cluster runs), starting at a place of
# this process's own so that runs side by side differ.
free_ports() {
  local n=$1 lo used base try
  lo=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
  [ "$lo" -gt $((10000 + 2 * n)) ] || lo=65000
  used=" "
  while read -r _ addr _; do
    [[ "$addr" == *:* ]] && used+="$((16#${addr##*:})) "
  done < <(cat /proc/net/tcp /proc/net/tcp6 2>/dev/null)
  base=$((10000 + $$ % (lo - 10000 - n)))
  for try in $(seq 1 64); do
    local p clash=
    for ((p = base; p < base + n; p++)); do
      case "$used" in *" $p "*) clash=$p; break ;; esac
    done
    [ -z "$clash" ] && { echo "$base"; return 0; }
    base=$((10000 + (base - 10000 + n + 7 * try) % (lo - 10000 - n)))
  done
  return 1
}

[ "$(id -u)" = 0 ] || fail "must run as root (slurmd runs jobs as their users)"
for c in munged mungekey munge unmunge runuser setpriv slurmctld slurmd srun sbatch sinfo scancel; do
  command -v "$c" >/dev/null || fail "$c not found (Debian: slurm-wlm, munge; scripts/deps.sh installs them)"
done
id munge >/dev/null 2>&1 || fail "no user munge (the munge package creates it)"

bin=${BULKSAMPLE:-}
if [ -z "$bin" ]; then
  tags=$("$root/scripts/build-tags.sh")
  case " $tags " in *" mpi "*) ;; *) fail "no MPI build possible (build tags: '$tags'); install libopenmpi-dev" ;; esac
  say "building bulksample (tags: $tags)"
  (cd "$root" && go build -tags "$tags" -o "$work/bulksample" ./cmd/bulksample) || fail "go build"
  bin=$work/bulksample
fi

# munge: our own key, socket and files, run as user munge (setpriv execs
# munged itself, so the pid we keep is the daemon's).
mkdir -p "$work/munge" /run/munge
chown munge: "$work/munge" && chmod 700 "$work/munge"
chown munge: /run/munge 2>/dev/null || true
chmod 755 /run/munge
sock=/run/munge/bulksample-$$.socket
runuser -u munge -- mungekey --create --keyfile="$work/munge/munge.key" || fail "mungekey"
start munged setpriv --reuid=munge --regid=munge --init-groups munged --foreground --socket="$sock" --key-file="$work/munge/munge.key" \
  --pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" --seed-file="$work/munge/munge.seed"
waitfor 10 "munged" sh -c "munge --socket='$sock' -n | unmunge --socket='$sock'"
say "munged up (socket $sock)"

# slurm.conf from this machine's NodeName line, loopback only.
nodeline=$(bounded 20 slurmd -C | head -n 1) || fail "slurmd -C failed"
node=$(echo "$nodeline" | sed -n 's/^NodeName=\([^ ]*\).*/\1/p')
[ -n "$node" ] || fail "slurmd -C printed no NodeName line"
base=$(free_ports 201) || fail "no 201 free consecutive TCP ports below the ephemeral range"
say "Slurm's ports: $base-$((base + 200))"
mkdir -p "$work/state" "$work/spool"
cat >"$work/slurm.conf" <<CONF
ClusterName=bulksample
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$base
SlurmdPort=$((base + 1))
SrunPortRange=$((base + 2))-$((base + 200))
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
InactiveLimit=0
KillWait=5
$nodeline NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE
CONF
sed -i 's/ UpTime=[^ ]*//' "$work/slurm.conf"
export SLURM_CONF=$work/slurm.conf

start slurmctld slurmctld -D -i -f "$SLURM_CONF"
waitfor 20 "slurmctld (sinfo)" sinfo
start slurmd slurmd -D -N "$node" -f "$SLURM_CONF"
waitfor 30 "node $node idle in sinfo" sh -c "sinfo -h -N -o '%T' | grep -q idle"
say "slurm up: $(sinfo -h -N -o '%N %T %c CPUs')"

# The graph and the single-process digest.
"$bin" gen rmat --scale 13 --seed 5 --out "$work/graph.bsg" >/dev/null
args=(--batch 64 --bulk 8 --seeds 4096 --fanout 15,10,5 --seed 9 --digest)
want=$("$bin" sample --graph "$work/graph.bsg" "${args[@]}" | sed -n 's/^digest //p')
[ -n "$want" ] || fail "single-process run printed no digest"
say "single process: digest $want"

export OMPI_MCA_btl=self,vader OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo PMIX_MCA_gds=hash
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# 1. srun, pull.
bounded 120 srun --mpi=pmix --overcommit -n 4 "$bin" sample --graph "$work/graph.bsg" "${args[@]}" \
  --replication 2 --fetch pull >"$work/srun.out" 2>"$work/srun.log" || fail "srun -n 4 failed (exit $?)"
got=$(sed -n 's/^digest //p' "$work/srun.out")
cat "$work/srun.out"
[ "$(grep -c '^digest ' "$work/srun.out")" = 1 ] || fail "srun: want one digest line (rank 0 only)"
[ "$got" = "$want" ] || fail "srun -n 4 --fetch pull: digest $got, want $want"
say "srun --mpi=pmix --overcommit -n 4 (pull, c=2): digest equal"

# 2. sbatch --wait of the example job script, push.
bounded 180 sbatch --wait --nodes=1 --ntasks=4 --cpus-per-task=1 --overcommit \
  --time=00:05:00 --output="$work/sbatch.out" \
  --export=ALL,GRAPH="$work/graph.bsg",BULKSAMPLE="$bin",REPLICATION=2,FETCH=push,EXTRA="--batch 64 --bulk 8 --seeds 4096 --seed 9 --digest" \
  "$root/examples/slurm/sample.sbatch" >"$work/sbatch.log" 2>&1 || fail "sbatch --wait failed (exit $?)"
cat "$work/sbatch.out"
got=$(sed -n 's/^digest //p' "$work/sbatch.out")
[ "$got" = "$want" ] || fail "sbatch of examples/slurm/sample.sbatch: digest '$got', want $want"
say "sbatch --wait examples/slurm/sample.sbatch (push, c=2): digest equal"

# train_job NAME CHECKPOINT EXTRA [SBATCH-OPTION...]: submits
# examples/slurm/train.sbatch on 4 ranks of this node (c = 2) with its
# output in $work/NAME.out; more sbatch options (--wait, --parsable) follow.
# sbatch is given 180 s at most. (sbatch --export splits its list at
# commas: no comma in the values.)
train_job() {
  local name=$1 ck=$2 extra=$3
  shift 3
  bounded 180 sbatch "$@" --nodes=1 --ntasks=4 --cpus-per-task=1 --overcommit \
    --time=00:05:00 --output="$work/$name.out" \
    --export=ALL,DATA="$work/sbm.bsn",BULKSAMPLE="$bin",REPLICATION=2,CHECKPOINT="$ck",EXTRA="$extra" \
    "$root/examples/slurm/train.sbatch"
}

# 3. sbatch --wait of the example training script: data-parallel training,
# rank 0 alone printing.
"$bin" gen sbm --nodes 2000 --classes 4 --features 16 --seed 2 --out "$work/sbm.bsn" >/dev/null
train_job train "$work/ck" "--epochs 3 --batch 64 --fanout 5 --layers 2 --hidden 16" --wait >"$work/train.log" 2>&1 || fail "sbatch --wait of train.sbatch failed (exit $?)"
cat "$work/train.out"
[ "$(grep -c '^best epoch' "$work/train.out")" = 1 ] || fail "sbatch train: want one result line (rank 0 only)"
grep -q '"ranks":4' "$work/train.out" || fail "sbatch train: the JSON does not say 4 ranks"
[ -f "$work/ck/checkpoint.gob" ] || fail "sbatch train: rank 0 wrote no checkpoint"
say "sbatch --wait examples/slurm/train.sbatch (c=2): one result line, 4 ranks, a checkpoint"

# 4. Its resubmission, as the script's comments say: with --resume (and
# one more epoch) it continues from the checkpoint.
train_job resume "$work/ck" "--epochs 4 --batch 64 --fanout 5 --layers 2 --hidden 16 --resume" --wait >"$work/resume.log" 2>&1 || fail "sbatch --wait of train.sbatch with --resume failed (exit $?)"
cat "$work/resume.out"
grep -q "resumed from $work/ck/checkpoint.gob after epoch 3 of 4" "$work/resume.out" || fail "sbatch train --resume: no 'resumed from ... after epoch 3 of 4'"
grep -q '"resumed_from":3' "$work/resume.out" || fail "sbatch train --resume: the JSON does not say resumed_from 3"
say "sbatch --wait examples/slurm/train.sbatch with EXTRA=--resume: resumed after epoch 3"

# 5. scancel of a running training job: Slurm sends SIGTERM to every task
# (then SIGKILL after KillWait, 5 s here), as at the time limit or a
# preemption. The ranks agree to stop after the same step, rank 0 saves
# that step's progress, every rank says where it stopped, and a
# resubmission with --resume continues from it.
cancel_extra="--epochs 100000 --batch 16 --fanout 5 --layers 2 --hidden 16"
jid=$(train_job cancel "$work/ck2" "$cancel_extra" --parsable 2>"$work/cancel.log") || fail "sbatch of train.sbatch (to cancel) failed: $(cat "$work/cancel.log")"
for _ in $(seq 600); do # at most 60 s for rank 0's second epoch line
  grep -q '^epoch 2/100000: ' "$work/cancel.out" 2>/dev/null && break
  sleep 0.1
done
grep -q '^epoch 2/100000: ' "$work/cancel.out" 2>/dev/null || { cat "$work/cancel.out" 2>/dev/null; fail "scancel: job $jid printed no second epoch in 60 s"; }
bounded 10 scancel "$jid" || fail "scancel $jid failed"
for _ in $(seq 300); do # at most 30 s for the job to end
  [ -z "$(bounded 5 squeue -h -j "$jid" 2>/dev/null)" ] && break
  sleep 0.1
done
[ -z "$(bounded 5 squeue -h -j "$jid" 2>/dev/null)" ] || fail "scancel: job $jid still in the queue 30 s later"
cat "$work/cancel.out"
stops=$(sed -n 's/^bulksample train: rank \([0-9]*\): stopped by SIGTERM in epoch \([0-9]*\) after \([0-9]*\) of its [0-9]* minibatches; checkpoint saved in .*/\1 \2 \3/p' "$work/cancel.out")
[ "$(echo "$stops" | grep -c .)" = 4 ] || fail "scancel: $(echo "$stops" | grep -c .) ranks say where they stopped, want 4"
[ "$(echo "$stops" | cut -d' ' -f2- | sort -u | wc -l)" = 1 ] || fail "scancel: the ranks stopped after other steps: $stops"
! grep -q 'MPI_ABORT' "$work/cancel.out" || fail "scancel: a rank called MPI_Abort"
[ -f "$work/ck2/checkpoint.gob" ] || fail "scancel: rank 0 wrote no checkpoint"
epoch=$(echo "$stops" | head -1 | cut -d' ' -f2)
say "scancel of a training job: every rank stopped in epoch $epoch after the same minibatch, rank 0 saved it"
train_job cancel-resume "$work/ck2" "--epochs $epoch --batch 16 --fanout 5 --layers 2 --hidden 16 --resume" --wait >"$work/cancel-resume.log" 2>&1 || fail "sbatch --wait of the cancelled job's resubmission failed (exit $?)"
cat "$work/cancel-resume.out"
grep -q "\"resumed_from\":$((epoch - 1))" "$work/cancel-resume.out" || fail "scancel resubmission: the JSON does not say resumed_from $((epoch - 1))"
[ "$(grep -c '^best epoch' "$work/cancel-resume.out")" = 1 ] || fail "scancel resubmission: want one result line"
say "sbatch --wait examples/slurm/train.sbatch with EXTRA=--resume after scancel: finished epoch $epoch"
say "PASS"
