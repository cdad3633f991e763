package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNetnsCluster runs scripts/netns-cluster.sh test: a cluster of two
// "nodes" on this machine (network namespaces joined by rate-limited veth
// pairs and a bridge), gen rmat written by both into one file, distributed
// sampling (pull and push, the single-process digest, its bytes seen on
// the links) and training over Open MPI's TCP transport. The test binary
// serves as bulksample (TestMain). It needs root, iproute2 and Open MPI;
// without them it is skipped with the reason, except in CI, where it fails.
func TestNetnsCluster(t *testing.T) {
	_, exe := mpirunTest(t)
	why := ""
	if os.Geteuid() != 0 {
		why = "not root (network namespaces, veth pairs and tc qdiscs need CAP_NET_ADMIN)"
	}
	for _, c := range []string{"ip", "tc"} {
		if _, err := exec.LookPath(c); err != nil && why == "" {
			why = c + " not found (Debian: iproute2)"
		}
	}
	skip := func(why string) {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI: the network-namespace cluster test cannot run: %s", why)
		}
		t.Skipf("network-namespace cluster test skipped: %s", why)
	}
	if why != "" {
		skip(why)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "../../scripts/netns-cluster.sh", "test")
	cmd.Env = append(os.Environ(), "BULKSAMPLE="+exe, "BULKSAMPLE_TEST_MAIN=1")
	// SIGTERM first: the script's trap removes its namespaces on the way
	// out (after the step under way, which it bounds); SIGKILL 30 s later.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 30 * time.Second
	out, err := cmd.CombinedOutput()
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) && ee.ExitCode() == 77 {
		skip(strings.TrimSpace(string(out)))
	}
	if err != nil || !strings.Contains(string(out), "netns-cluster: PASS") {
		t.Fatalf("scripts/netns-cluster.sh test: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
