package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMakeRunInstallsOnlyWhatRunningNeeds: `make run` (and `make build`)
// install OpenBLAS but not staticcheck, which only `make test` needs. It
// reads the dependency steps `make -n` would run and asks each, with
// --list, what it installs.
func TestMakeRunInstallsOnlyWhatRunningNeeds(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skipf("make not installed: %v", err)
	}
	needs := func(target string) []string {
		cmd := exec.Command("make", "-n", target, "TAGS=openblas") // TAGS set: make -n need not probe for OpenBLAS
		cmd.Dir = "../.."
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("make -n %s: %v", target, err)
		}
		var all []string
		for line := range strings.Lines(string(out)) {
			line = strings.TrimSpace(line)
			if !strings.HasPrefix(line, "scripts/deps.sh") {
				continue
			}
			list := exec.Command("bash", "-c", line+" --list")
			list.Dir = "../.."
			got, err := list.Output()
			if err != nil {
				t.Fatalf("%s --list: %v", line, err)
			}
			all = append(all, strings.Fields(string(got))...)
		}
		return all
	}
	if run := needs("run"); slices.Contains(run, "staticcheck") || !slices.Contains(run, "libopenblas-dev") {
		t.Errorf("make run installs %q; want OpenBLAS and not staticcheck", run)
	}
	if test := needs("test"); !slices.Contains(test, "staticcheck") || !slices.Contains(test, "libopenblas-dev") {
		t.Errorf("make test installs %q; want OpenBLAS and staticcheck", test)
	}
}

// fakeTools writes executable shell scripts named by the keys of tools
// into a new folder and returns it, to put first in PATH.
func fakeTools(t *testing.T, tools map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range tools {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestDepsWaitsForTheLockAndFailsLoudly runs scripts/deps.sh against a
// fake apt-get (and a fake root): apt-get install must be told to wait for
// dpkg's lock (DPkg::Lock::Timeout), apt-get update is tried again while
// another apt holds the lists' lock, each run's output goes to a log of its
// own whose path is printed, and an installation that fails ends the
// script with status 1 and the end of that log (before, it printed one
// line and went on to a build without OpenBLAS, which run.sh reported as
// OpenBLAS).
func TestDepsWaitsForTheLockAndFailsLoudly(t *testing.T) {
	state := t.TempDir()
	calls := filepath.Join(state, "calls")
	// apt-get: update fails twice on the lists' lock, then works; install
	// fails on the dpkg lock unless told to wait for it, and fails for
	// good when $state/broken exists.
	bin := fakeTools(t, map[string]string{
		"id":          `echo 0`,
		"dpkg-query":  `exit 1`, // nothing installed
		"go":          `exit 0`,
		"staticcheck": `exit 0`,
		"apt-get": `echo "$*" >>` + calls + `
case "$*" in
*update*)
  n=$(grep -c update ` + calls + `)
  if [ "$n" -le 2 ]; then echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 1 (apt-get)"; exit 100; fi
  exit 0 ;;
*install*)
  case "$*" in *DPkg::Lock::Timeout=*) ;; *) echo "E: Could not get lock /var/lib/dpkg/lock-frontend"; exit 100 ;; esac
  if [ -e ` + filepath.Join(state, "broken") + ` ]; then echo "E: Unable to locate package libopenblas-dev"; exit 100; fi
  exit 0 ;;
esac`,
	})
	deps := func() (string, error) {
		cmd := exec.Command("bash", "scripts/deps.sh", "run")
		cmd.Dir = "../.."
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "TMPDIR="+state,
			"DEPS_POLICY_RC="+filepath.Join(state, "policy-rc.d"), "DEPS_LOCK_RETRY=0", "BULKSAMPLE_SKIP_DEPS=")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := deps()
	if err != nil {
		t.Fatalf("deps.sh with a lock that frees itself: %v\n%s", err, out)
	}
	b, _ := os.ReadFile(calls)
	if got := string(b); strings.Count(got, "update") != 3 || !strings.Contains(got, "install") || !strings.Contains(got, "DPkg::Lock::Timeout=600") {
		t.Errorf("apt-get calls:\n%s\nwant update tried 3 times and install told to wait for the lock (DPkg::Lock::Timeout=600)", got)
	}
	logs, _ := filepath.Glob(filepath.Join(state, "bulksample-apt.*.log"))
	if len(logs) != 1 || !strings.Contains(out, logs[0]) {
		t.Errorf("logs %q; want one, named in the output:\n%s", logs, out)
	}
	if _, err := os.Stat(filepath.Join(state, "policy-rc.d")); err == nil {
		t.Error("policy-rc.d left behind")
	}

	if err := os.WriteFile(filepath.Join(state, "broken"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = deps()
	if code := exitCode(err); code != 1 || !strings.Contains(out, "apt-get failed") || !strings.Contains(out, "Unable to locate package libopenblas-dev") {
		t.Errorf("deps.sh with a failing install: exit %d; want 1, saying so with the log's end:\n%s", code, out)
	}
	logs, _ = filepath.Glob(filepath.Join(state, "bulksample-apt.*.log"))
	if len(logs) != 2 {
		t.Errorf("logs %q; want one per run", logs)
	}
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// TestRunScriptReportsTheBinarysBLAS: scripts/run.sh prints the BLAS line
// of the binary it runs (`bulksample --version`), not whether OpenBLAS
// links on the machine: here a fake binary built without it. Given the
// lines train prints (a header on stderr, a line per epoch and a result
// line), the script's output fits one screen, 25 lines at most, and ends
// with both models' test accuracies.
func TestRunScriptReportsTheBinarysBLAS(t *testing.T) {
	bin := fakeTools(t, map[string]string{"bulksample": `case "$1" in
--version) printf 'bulksample (devel)\nbuild tags: none\nBLAS: pure-Go gonum (fake)\nMPI: no\n' ;;
*) echo 'training fake on fake (1 nodes)' >&2
   epochs=4; case "$*" in *linear*) epochs=20 ;; esac
   for e in $(seq $epochs); do echo "epoch $e/$epochs: loss 1, accuracy train 0.5, valid 0.5, test 0.5, 0.1 s"; done
   echo 'best epoch 1: valid accuracy 0.5000, test accuracy 0.5123; median epoch 0.1 s, eval 0.1 s' ;;
esac`})
	cmd := exec.Command("bash", "scripts/run.sh", filepath.Join(bin, "bulksample"))
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("run.sh: %v\n%s", err, out)
	}
	if first, _, _ := strings.Cut(string(out), "\n"); first != "BLAS: pure-Go gonum (fake)" {
		t.Errorf("run.sh's first line %q; want the binary's BLAS line\n%s", first, out)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) > 25 || !strings.HasPrefix(lines[len(lines)-1], "test accuracy: GraphSAGE 0.5123, features only 0.5123; ") {
		t.Errorf("run.sh printed %d lines (want at most 25), the last %q\n%s", len(lines), lines[len(lines)-1], out)
	}
}
