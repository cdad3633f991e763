package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSlurmJob runs scripts/slurm-test.sh: a one-node Slurm cluster on
// loopback, `srun --mpi=pmix --overcommit -n 4` and `sbatch --wait` of
// examples/slurm/sample.sbatch, both equal to the single-process digest,
// and `sbatch --wait` of examples/slurm/train.sbatch (4 ranks of
// `bulksample train`), which rank 0 alone reports.
// The test binary serves as bulksample (TestMain). It needs root and
// Debian's slurm-wlm and munge; without them it is skipped with the reason,
// except in CI, where it fails.
func TestSlurmJob(t *testing.T) {
	_, exe := mpirunTest(t) // srun launches exe as mpirun does
	why := ""
	if os.Geteuid() != 0 {
		why = "not root (slurmd and munged must be started as root)"
	}
	for _, c := range []string{"slurmctld", "slurmd", "srun", "sbatch", "munged", "mungekey"} {
		if _, err := exec.LookPath(c); err != nil && why == "" {
			why = c + " not found (Debian: slurm-wlm, munge; scripts/deps.sh installs them)"
		}
	}
	if why != "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI: the Slurm test cannot run: %s", why)
		}
		t.Skipf("Slurm test skipped: %s", why)
	}
	// The script ends itself after SLURM_TEST_SECONDS, stopping its daemons
	// and printing their logs. The context is the last resort: SIGTERM,
	// which the script's trap also turns into that cleanup (after the step
	// under way, each bounded), and SIGKILL 30 s later.
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "../../scripts/slurm-test.sh")
	cmd.Env = append(os.Environ(), "BULKSAMPLE="+exe, "BULKSAMPLE_TEST_MAIN=1", "SLURM_TEST_SECONDS=200")
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 30 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "slurm-test: PASS") {
		t.Fatalf("scripts/slurm-test.sh: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
