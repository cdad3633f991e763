package dist_test

import (
	"testing"
	"time"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/dist/commtest"
	"github.com/bulksample/bulksample/dist/mpitest"
)

// TestMPIConformance runs the Comm conformance suite on real MPI ranks: the
// test binary starts itself under `mpirun -np 3`, and each rank runs the
// suite on its MPI world (with a MaxCount of 5, so large counts are split).
func TestMPIConformance(t *testing.T) {
	if mpitest.IsChild("conformance") {
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
	mpitest.RunSelf(t, 3, "TestMPIConformance", "conformance", 2*time.Minute)
}

// TestMPIConcurrentComms: on real MPI ranks (mpirun -np 2), MPI grants
// MPI_THREAD_MULTIPLE (Debian's Open MPI 4.1 does), so that ConcurrentComms
// is true, and two communicators called from two goroutines at once give
// every sum right: the trainer's pipeline relies on both.
func TestMPIConcurrentComms(t *testing.T) {
	if mpitest.IsChild("concurrent") {
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
	mpitest.RunSelf(t, 2, "TestMPIConcurrentComms", "concurrent", 2*time.Minute)
}
