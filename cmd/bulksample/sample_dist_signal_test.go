package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bulksample/bulksample/dist/mpitest"
)

// stopBound is how long a signalled MPI job may take to end (issue 15).
const stopBound = 10 * time.Second

// TestSampleMPISignal starts `mpirun -np 4 bulksample sample` on a graph
// whose sampling runs far longer than the test waits (one seed per bulk on
// an R-MAT scale-17 graph: about a minute on 2 cores), waits for rank 0's
// progress line, then signals one process the test started: mpirun itself
// (SIGINT, SIGTERM: what a user's Ctrl-C or a batch system sends) or one
// rank (SIGKILL: a rank that dies; SIGTERM: a rank that is told to stop
// while the others wait for it in a collective; SIGSTOP: a rank that is
// stopped, not dead, which hung the job forever without a word until the
// stall watchdog, --stall-timeout, here 3 s). Every case must end mpirun
// with a non-zero status and every rank within stopBound of the signal.
func TestSampleMPISignal(t *testing.T) {
	mpirun, _ := mpirunTest(t)
	g := filepath.Join(t.TempDir(), "rmat17.bsg")
	if code, _, stderr := runCLI(t, "gen", "rmat", "--scale", "17", "--seed", "3", "--out", g); code != 0 {
		t.Fatalf("gen: exit %d\n%s", code, stderr)
	}
	for _, tc := range []struct {
		name   string
		sig    syscall.Signal
		toRank bool   // signal rank 1 instead of mpirun
		stderr string // what stderr must say, if anything
	}{
		{"SIGINT to mpirun", syscall.SIGINT, false, ""},
		{"SIGTERM to mpirun", syscall.SIGTERM, false, ""},
		{"SIGKILL to rank 1", syscall.SIGKILL, true, ""},
		// No launcher escalates to SIGKILL here: only the rank's own
		// handler, which must abort the job, ends the others.
		{"SIGTERM to rank 1", syscall.SIGTERM, true, "rank 1: stopped by SIGTERM"},
		// The other ranks wait for rank 1 in a collective: each says so
		// after the stall timeout, naming rank 1, which does not answer
		// their query (every rank printed the same line, naming no
		// rank), and one of them ends the job.
		{"SIGSTOP to rank 1", syscall.SIGSTOP, true, "ranks) for rank 1 of the job, which does not answer (stopped, hung, or its node lost)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job := startMPIJob(t, mpirun, 4, "sample", "--graph", g, "--batch", "1", "--bulk", "1", "--fanout", "15,10,5", "--digest",
				"--stall-timeout", "3s")
			target := job.cmd.Process.Pid
			if tc.toRank {
				target = job.ranks[1].pid
			}
			signalled := time.Now()
			if err := syscall.Kill(target, tc.sig); err != nil {
				t.Fatalf("kill %d: %v", target, err)
			}
			exited, lastRank := job.waitStopped(signalled.Add(stopBound))
			t.Logf("%s: mpirun ended %.2fs after the signal (%v), the last rank %.2fs after",
				tc.name, exited.Sub(signalled).Seconds(), job.cmd.ProcessState, lastRank.Sub(signalled).Seconds())
			if code := job.cmd.ProcessState.ExitCode(); code == 0 {
				t.Errorf("%s: mpirun exited 0; want a failed job", tc.name)
			}
			if tc.stderr != "" && !strings.Contains(job.stderr(), tc.stderr) {
				t.Errorf("%s: stderr lacks %q:\n%s", tc.name, tc.stderr, job.stderr())
			}
		})
	}
}

// mpiJob is an mpirun job a test started, and its ranks.
type mpiJob struct {
	t       *testing.T
	cmd     *exec.Cmd
	errPath string // mpirun's stderr
	done    chan struct{}
	ranks   []procID
}

// procID names a process by pid and start time, so that a pid the kernel
// reuses is never mistaken for the rank.
type procID struct {
	pid   int
	start string
}

// startMPIJob starts `mpirun -np np <this test binary as bulksample> args...`
// in its own process group, waits (at most a minute) until rank 0 has
// printed a progress line of sampling, and records the ranks, mpirun's
// children. Cleanup kills the group and any rank left.
func startMPIJob(t *testing.T, mpirun string, np int, args ...string) *mpiJob {
	t.Helper()
	return startMPIJobWhen(t, mpirun, np, "a progress line of sampling", func(stderr string) bool {
		return strings.Contains(stderr, "\nsample: ") || strings.HasPrefix(stderr, "sample: ")
	}, args...)
}

// startMPIJobWhen is startMPIJob waiting (polling every 5 ms) until ready,
// given mpirun's stderr so far, reports true; what names that moment.
func startMPIJobWhen(t *testing.T, mpirun string, np int, what string, ready func(stderr string) bool, args ...string) *mpiJob {
	t.Helper()
	exe := testBinary(t)
	j := &mpiJob{t: t, errPath: filepath.Join(t.TempDir(), "stderr"), done: make(chan struct{})}
	errFile, err := os.Create(j.errPath)
	if err != nil {
		t.Fatal(err)
	}
	defer errFile.Close()
	j.cmd = mpitest.Command(context.Background(), mpirun, np, exe, args...)
	j.cmd.Env = append(j.cmd.Env, "BULKSAMPLE_TEST_MAIN=1")
	// A file, not a pipe: Wait returns when mpirun exits, whatever ranks
	// still hold the stream.
	j.cmd.Stdout, j.cmd.Stderr = nil, errFile
	j.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := j.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { j.cmd.Wait(); close(j.done) }()
	t.Cleanup(func() {
		select {
		case <-j.done:
		default:
			syscall.Kill(-j.cmd.Process.Pid, syscall.SIGKILL)
			<-j.done
		}
		for _, r := range j.ranks {
			if r.alive() {
				syscall.Kill(r.pid, syscall.SIGKILL)
			}
		}
	})
	deadline := time.Now().Add(time.Minute)
	for !ready(j.stderr()) {
		select {
		case <-j.done:
			t.Fatalf("mpirun ended before %s (%v)\n%s", what, j.cmd.ProcessState, j.stderr())
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s within a minute\n%s", what, j.stderr())
		}
	}
	j.ranks = childrenOf(j.cmd.Process.Pid)
	if len(j.ranks) != np {
		t.Fatalf("mpirun (pid %d) has %d children %v; want its %d ranks", j.cmd.Process.Pid, len(j.ranks), j.ranks, np)
	}
	return j
}

func (j *mpiJob) stderr() string {
	b, err := os.ReadFile(j.errPath)
	if err != nil {
		j.t.Fatal(err)
	}
	return string(b)
}

// waitStopped returns when mpirun exited and when the last rank was first
// seen gone, polling both every 20 ms; it fails the test if either still
// runs at the deadline.
func (j *mpiJob) waitStopped(deadline time.Time) (exited, lastRank time.Time) {
	for {
		now := time.Now()
		if exited.IsZero() {
			select {
			case <-j.done:
				exited = now
			default:
			}
		}
		var alive []int
		for _, r := range j.ranks {
			if r.alive() {
				alive = append(alive, r.pid)
			}
		}
		if lastRank.IsZero() && len(alive) == 0 {
			lastRank = now
		}
		if !exited.IsZero() && !lastRank.IsZero() {
			return exited, lastRank
		}
		if now.After(deadline) {
			j.t.Fatalf("%v after the signal: mpirun ended: %v; ranks still running: %v\n%s", stopBound, !exited.IsZero(), alive, j.stderr())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// childrenOf returns the processes whose parent is pid, from /proc.
func childrenOf(pid int) []procID {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []procID
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		state, ppid, start, ok := procStat(p)
		if ok && ppid == pid && state != "Z" {
			out = append(out, procID{p, start})
		}
	}
	return out
}

// alive reports whether the process still runs: it exists, has the same
// start time, and is not a zombie (dead, waiting for its parent to reap it).
func (r procID) alive() bool {
	state, _, start, ok := procStat(r.pid)
	return ok && start == r.start && state != "Z" && state != "X"
}

// procStat reads the state, parent and start time of pid from
// /proc/pid/stat; ok is false once the process is gone.
func procStat(pid int) (state string, ppid int, start string, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", 0, "", false
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return "", 0, "", false
	}
	f := strings.Fields(string(b[i+1:])) // fields 3 on: state, ppid, ...
	if len(f) < 20 {
		return "", 0, "", false
	}
	ppid, err = strconv.Atoi(f[1])
	if err != nil {
		return "", 0, "", false
	}
	return f[0], ppid, f[19], true // field 22: start time
}
