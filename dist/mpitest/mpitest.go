package mpitest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bulksample/bulksample/dist"
)

// Require returns the path of mpirun, or ends the test: skipped with the
// reason, or failed when CI is set.
func Require(t testing.TB) string {
	t.Helper()
	why := ""
	path, err := exec.LookPath("mpirun")
	switch {
	case !dist.MPIAvailable:
		why = "built without the mpi build tag (make build enables it when mpicc is present; scripts/deps.sh installs Open MPI)"
	case err != nil:
		why = "mpirun not found (Debian: openmpi-bin; scripts/deps.sh installs it when root)"
	}
	if why != "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI: the real-MPI test cannot run: %s", why)
		}
		t.Skipf("real-MPI test skipped: %s", why)
	}
	return path
}

// Command returns `mpirun --oversubscribe -np N prog args...` with the
// environment Open MPI needs to run as root and on a loopback-only
// machine, and with the child's launch variables unset from this process's
// environment so that it starts a fresh job.
func Command(ctx context.Context, mpirun string, np int, prog string, args ...string) *exec.Cmd {
	full := append([]string{"--oversubscribe", "--bind-to", "none", "-np", strconv.Itoa(np), prog}, args...)
	cmd := exec.CommandContext(ctx, mpirun, full...)
	cmd.Env = append(os.Environ(),
		"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
		// Loopback only, shared memory between ranks; no network probing.
		"OMPI_MCA_btl=self,vader", "OMPI_MCA_btl_tcp_if_include=lo", "OMPI_MCA_oob_tcp_if_include=lo",
		"OMPI_MCA_rmaps_base_oversubscribe=1", "PMIX_MCA_gds=hash")
	return cmd
}

// BuildCLI builds cmd/bulksample with the project's build tags
// (scripts/build-tags.sh, so with the mpi tag where Open MPI links) into a
// temporary folder and returns the binary's path; root is the module's
// root relative to the test's directory.
func BuildCLI(ctx context.Context, t testing.TB, root string) string {
	t.Helper()
	tags, err := exec.CommandContext(ctx, filepath.Join(root, "scripts", "build-tags.sh")).Output()
	if err != nil {
		t.Fatalf("scripts/build-tags.sh: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "bulksample")
	build := exec.CommandContext(ctx, "go", "build", "-tags", strings.TrimSpace(string(tags)), "-o", bin, "./"+filepath.Join(root, "cmd", "bulksample"))
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// childEnv names the role of a test binary that RunSelf started under
// mpirun.
const childEnv = "BULKSAMPLE_MPI_CHILD"

// IsChild reports whether this test binary is a rank that RunSelf started
// with role.
func IsChild(role string) bool { return os.Getenv(childEnv) == role }

// RunSelf runs the test binary's test (its name, a function of the
// binary) on np ranks under mpirun, each rank with IsChild(role) true, and
// fails t unless every rank passed it within timeout. The test calls it
// unless IsChild(role), and runs its ranks' part otherwise.
func RunSelf(t testing.TB, np int, test, role string, timeout time.Duration) {
	t.Helper()
	mpirun := Require(t)
	// A failing rank leaves the others waiting: the timeout ends them.
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := Command(ctx, mpirun, np, os.Args[0], "-test.run", "^"+test+"$", "-test.v")
	cmd.Env = append(cmd.Env, childEnv+"="+role)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mpirun -np %d %s: %v\n%s", np, test, err, out)
	}
	if n := strings.Count(string(out), "--- PASS: "+test+" ("); n != np {
		t.Fatalf("mpirun -np %d %s: %d ranks passed; want %d\n%s", np, test, n, np, out)
	}
}
