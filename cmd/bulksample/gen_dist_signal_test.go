package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bulksample/bulksample/dataset"
)

// TestGenRMATMPIStop starts `mpirun -np 2 bulksample gen rmat` (scale 18,
// a 65 MB file) and, once the ranks write the temporary file, signals
// every rank (SIGTERM: what mpirun sends them on Ctrl-C, and Slurm on
// scancel; mpirun forwards its own too late for so short a write) or rank
// 1 (SIGKILL: a rank that dies; SIGSTOP: a stopped rank, with
// --stall-timeout 3s). Every case must end
// the job within stopBound with a non-zero status and leave no output
// under --out (or the complete file, when the ranks had finished it before
// the signal reached them); a temporary that the ranks could not remove (they are
// killed too) must be refused as unfinished by info, and the next gen
// into the same path must remove it. A kill -9 of a rank or a SIGTERM to
// mpirun left a full-size temporary that info read as the whole graph and
// nothing removed, and a stopped rank hung gen silently.
func TestGenRMATMPIStop(t *testing.T) {
	mpirun, _ := mpirunTest(t)
	for _, tc := range []struct {
		name   string
		sig    syscall.Signal
		ranks  []int
		stderr string
	}{
		{"SIGTERM to every rank", syscall.SIGTERM, []int{0, 1}, "stopped by SIGTERM"},
		{"SIGKILL to rank 1", syscall.SIGKILL, []int{1}, ""},
		{"SIGSTOP to rank 1", syscall.SIGSTOP, []int{1}, "in Allgatherv (phase control, 2 ranks) for rank 1 of the job, which does not answer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "g.bsn")
			temps := func() []string { m, _ := filepath.Glob(filepath.Join(dir, ".g.bsn.tmp*")); return m }
			job := startMPIJobWhen(t, mpirun, 2, "the temporary file", func(string) bool { return len(temps()) > 0 },
				"gen", "rmat", "--scale", "18", "--seed", "5", "--threads", "1", "--out", out, "--stall-timeout", "3s")
			signalled := time.Now()
			for _, r := range tc.ranks {
				if err := syscall.Kill(job.ranks[r].pid, tc.sig); err != nil {
					t.Fatalf("kill %d: %v", job.ranks[r].pid, err)
				}
			}
			exited, _ := job.waitStopped(signalled.Add(stopBound))
			left := temps()
			t.Logf("%s: mpirun ended %.2fs after the signal (%v); temporaries left: %v", tc.name, exited.Sub(signalled).Seconds(), job.cmd.ProcessState, left)
			if code := job.cmd.ProcessState.ExitCode(); code == 0 {
				t.Errorf("mpirun exited 0; want a failed job\n%s", job.stderr())
			}
			if tc.stderr != "" && !strings.Contains(job.stderr(), tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, job.stderr())
			}
			// Either nothing under --out or, when the ranks had renamed it
			// before the signal reached them (mpirun forwards it late), the
			// complete file.
			if _, err := os.Stat(out); err == nil {
				d, err := dataset.Load(out, &dataset.LoadOptions{Verify: dataset.VerifyChecksums})
				if err != nil {
					t.Errorf("%s after the stopped job: %v", out, err)
				} else {
					t.Logf("the ranks had completed %s before the signal reached them", out)
					d.Close()
				}
			} else if !errors.Is(err, os.ErrNotExist) {
				t.Error(err)
			}
			for _, tmp := range left {
				if code, _, stderr := runCLI(t, "info", tmp); code != 1 || !strings.Contains(stderr, tmp+": dataset: bad input: an unfinished native file") {
					t.Errorf("info %s: exit %d\n%s; want the temporary refused as unfinished", tmp, code, stderr)
				}
			}
			if len(left) > 0 {
				// The next gen removes what dead writers left.
				if code, _, stderr := runCLI(t, "gen", "rmat", "--scale", "8", "--out", out); code != 0 {
					t.Fatalf("the next gen: exit %d\n%s", code, stderr)
				}
				if got := temps(); len(got) > 0 {
					t.Errorf("the next gen left the temporaries %v", got)
				}
				if _, err := dataset.Load(out, nil); err != nil {
					t.Errorf("the next gen's file: %v", err)
				}
			}
		})
	}
}

// TestGenConvertLaunchFlags: --stall-timeout is gen rmat's under an MPI
// launcher only; convert and gen sbm, which run on one process, refuse to
// run as one of several launched ranks (each would do the whole work and
// write the same output), with a usage error saying so.
func TestGenConvertLaunchFlags(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "g.txt")
	if err := os.WriteFile(in, []byte("0 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		launched bool
		args     []string
		want     string
	}{
		{false, []string{"gen", "rmat", "--scale", "4", "--out", filepath.Join(dir, "a.bsn"), "--stall-timeout", "10s"}, "--stall-timeout: only for gen rmat under mpirun or srun"},
		{true, []string{"gen", "rmat", "--scale", "4", "--out", filepath.Join(dir, "a.bsn"), "--stall-timeout", "-1s"}, "--stall-timeout -1s: want a duration >= 0"},
		{true, []string{"gen", "sbm", "--nodes", "100", "--out", filepath.Join(dir, "b.bsn")}, "gen sbm runs on one process, and this is one of 2 that mpirun or srun started"},
		{true, []string{"gen", "sbm", "--nodes", "100", "--out", filepath.Join(dir, "b.bsn"), "--stall-timeout", "10s"}, "--stall-timeout: only for gen rmat"},
		{true, []string{"convert", in, filepath.Join(dir, "c.bsn")}, "convert runs on one process, and this is one of 2 that mpirun or srun started"},
	} {
		if tc.launched {
			t.Setenv("OMPI_COMM_WORLD_SIZE", "2")
			t.Setenv("OMPI_COMM_WORLD_RANK", "0")
		} else {
			for _, v := range []string{"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "SLURM_STEP_NUM_TASKS"} {
				t.Setenv(v, "")
			}
		}
		code, _, stderr := runCLI(t, tc.args[0], tc.args[1:]...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q (launched %v): exit %d, stderr %q; want 2 and %q", tc.args, tc.launched, code, firstLine(stderr), tc.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the refused commands wrote %v", entries)
	}
}
