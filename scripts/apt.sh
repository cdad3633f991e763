# Sourced by scripts/deps.sh and scripts/deps-cuda.sh: how bulksample's
# scripts install Debian packages, in one place. apt_install waits for
# another apt or dpkg (unattended-upgrades on a freshly booted machine) to
# let go of its locks, up to DEPS_LOCK_TIMEOUT seconds (default 600), keeps
# each run's apt output in a log of its own whose path it prints, installs
# daemons without starting them, and when the installation fails says so
# with the end of that log and returns 1.
#
# usage: apt_install WHAT_ON_FAILURE PACKAGE...
#   WHAT_ON_FAILURE ends the failure message (how to go on without them).

lock_timeout=${DEPS_LOCK_TIMEOUT:-600}
lock_retry=${DEPS_LOCK_RETRY:-5}
policy_rc=${DEPS_POLICY_RC:-/usr/sbin/policy-rc.d}

# apt_update runs apt-get update, trying again while another apt holds the
# lists lock (DPkg::Lock::Timeout covers only dpkg's locks), for at most
# lock_timeout seconds.
apt_update() {
  local start=$SECONDS out rc
  while :; do
    out=$(apt-get -o DPkg::Lock::Timeout="$lock_timeout" update -qq 2>&1)
    rc=$?
    printf '%s\n' "$out"
    [ $rc = 0 ] && return 0
    if ! grep -qE 'Could not get lock|Unable to lock' <<<"$out" || [ $((SECONDS - start)) -ge "$lock_timeout" ]; then
      return $rc
    fi
    echo "deps: another apt holds the package lists' lock; trying again in $lock_retry s" >&2
    sleep "$lock_retry"
  done
}

apt_install() {
  local fallback=$1 log rc rcd_added=
  shift
  log=$(mktemp "${TMPDIR:-/tmp}/bulksample-apt.XXXXXX.log")
  echo "deps: installing $* (log: $log; waits up to $lock_timeout s for another apt or dpkg to finish)" >&2
  export DEBIAN_FRONTEND=noninteractive
  # Install daemons (munge, slurm) without starting them: the Slurm test
  # starts and stops its own.
  if [ ! -e "$policy_rc" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy_rc" && chmod +x "$policy_rc" && rcd_added=1
  fi
  { apt_update && apt-get -o DPkg::Lock::Timeout="$lock_timeout" install -y -qq --no-install-recommends "$@"; } >"$log" 2>&1
  rc=$?
  [ -n "$rcd_added" ] && rm -f "$policy_rc"
  if [ $rc != 0 ]; then
    {
      echo "deps: apt-get failed (exit $rc) installing $*; the end of $log:"
      tail -n 8 "$log" | sed 's/^/  /'
      echo "deps: fix the cause and run make again, or $fallback"
    } >&2
    return 1
  fi
}
