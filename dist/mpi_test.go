package dist_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/dist/commtest"
	"github.com/bulksample/bulksample/internal/mpitest"
)

// TestMPIConformance runs the Comm conformance suite on real MPI ranks: the
// test binary starts itself under `mpirun -np 3`, and each rank runs the
// suite on its MPI world (with a MaxCount of 5, so large counts are split).
func TestMPIConformance(t *testing.T) {
	if os.Getenv("BULKSAMPLE_MPI_CHILD") == "conformance" {
		c, err := dist.NewMPIWorld(dist.Options{MaxCount: 5})
		if err != nil {
			t.Fatal(err)
		}
		if c.Size() != 3 || dist.LaunchedSize() != 3 {
			t.Fatalf("MPI world of %d ranks (launcher says %d); want 3", c.Size(), dist.LaunchedSize())
		}
		commtest.Run(t, []dist.Comm{c}, 5)
		if err := c.Close(); err != nil {
			t.Error(err)
		}
		return
	}
	mpirun := mpitest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := mpitest.Command(ctx, mpirun, 3, os.Args[0], "-test.run", "^TestMPIConformance$", "-test.v")
	cmd.Env = append(cmd.Env, "BULKSAMPLE_MPI_CHILD=conformance")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mpirun -np 3 of the conformance suite: %v\n%s", err, out)
	}
	if n := strings.Count(string(out), "--- PASS: TestMPIConformance ("); n != 3 {
		t.Fatalf("mpirun -np 3: %d ranks passed; want 3\n%s", n, out)
	}
}

// TestMPIConcurrentComms: on real MPI ranks (mpirun -np 2), MPI grants
// MPI_THREAD_MULTIPLE (Debian's Open MPI 4.1 does), so that ConcurrentComms
// is true, and two communicators called from two goroutines at once give
// every sum right: the trainer's pipeline relies on both.
func TestMPIConcurrentComms(t *testing.T) {
	if os.Getenv("BULKSAMPLE_MPI_CHILD") == "concurrent" {
		c, err := dist.NewMPIWorld(dist.Options{})
		if err != nil {
			t.Fatal(err)
		}
		concurrentAllreduces(t, c, 500)
		if err := c.Close(); err != nil {
			t.Error(err)
		}
		return
	}
	mpirun := mpitest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := mpitest.Command(ctx, mpirun, 2, os.Args[0], "-test.run", "^TestMPIConcurrentComms$", "-test.v")
	cmd.Env = append(cmd.Env, "BULKSAMPLE_MPI_CHILD=concurrent")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mpirun -np 2: %v\n%s", err, out)
	}
	if n := strings.Count(string(out), "--- PASS: TestMPIConcurrentComms ("); n != 2 {
		t.Fatalf("mpirun -np 2: %d ranks passed; want 2\n%s", n, out)
	}
}
