package main

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/gpu"
)

// TestTrainDevice: --device's usage errors, and --device cuda in a build
// without the cuda tag (exit 1 saying how to build; device_cuda_test.go
// checks a cuda build).
func TestTrainDevice(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--data", "cora", "--device", "tpu"}, `--device "tpu": want cpu or cuda`},
		{[]string{"--data", "cora", "--device", "cuda", "--blas", "gonum"}, "--blas applies to the CPU only"},
		{[]string{"--data", "cora", "--features-on", "host"}, "--features-on applies to --device cuda or emulator"},
		{[]string{"--data", "cora", "--device", "emulator", "--features-on", "gpu"}, `--features-on "gpu": want auto, device or host`},
	} {
		code, _, stderr := runCLI(t, "train", c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("train %v: exit %d, want 2 with %q:\n%s", c.args, code, c.want, stderr)
		}
	}
	c, err := parseTrainFlags(&env{stdout: &strings.Builder{}, stderr: &strings.Builder{}}, []string{"--data", "x.npz", "--device", "cuda"})
	if err != nil || !c.device.cuda() {
		t.Fatalf("--device cuda: %+v, %v", c.device, err)
	}
	if gpu.Built() {
		return
	}
	code, _, stderr := runCLI(t, "train", "--data", "synthetic:nodes=500", "--epochs", "1", "--device", "cuda")
	if code != 1 || !strings.Contains(stderr, "built without CUDA support") || !strings.Contains(stderr, "make build CUDA=1") {
		t.Errorf("train --device cuda without the cuda tag: exit %d, want 1 saying how to build:\n%s", code, stderr)
	}
}

// TestLocalGPU: the GPU of a process's local rank under each launcher, the
// only visible GPU when each rank sees one, and an error naming both counts
// when a node has more ranks than GPUs.
func TestLocalGPU(t *testing.T) {
	// env sets the launchers' local-rank variables (dist.LocalRank) to kv's
	// pairs, the others empty.
	env := func(kv ...string) func() {
		return func() {
			for _, k := range []string{"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID", "MV2_COMM_WORLD_LOCAL_RANK"} {
				t.Setenv(k, "")
			}
			for i := 0; i+1 < len(kv); i += 2 {
				t.Setenv(kv[i], kv[i+1])
			}
		}
	}
	gpus := func(n int) func() (int, error) { return func() (int, error) { return n, nil } }
	for _, c := range []struct {
		env     func()
		count   func() (int, error)
		ordinal int
		want    string // in the reason or the error
	}{
		{env(), gpus(4), 0, "the first GPU"},
		{env("OMPI_COMM_WORLD_LOCAL_RANK", "3"), gpus(4), 3, "local rank 3 (OMPI_COMM_WORLD_LOCAL_RANK) of 4 GPUs"},
		{env("SLURM_LOCALID", "2"), gpus(8), 2, "SLURM_LOCALID"},
		{env("MPI_LOCALRANKID", "1"), gpus(2), 1, "MPI_LOCALRANKID"},
		{env("SLURM_LOCALID", "5"), gpus(1), 0, "the one GPU it sees"},
		{env("OMPI_COMM_WORLD_LOCAL_RANK", "4", "SLURM_LOCALID", "0"), gpus(4), -1, "local rank 4 (OMPI_COMM_WORLD_LOCAL_RANK) but this node shows 4 GPUs"},
		{env("SLURM_LOCALID", "x"), gpus(4), -1, `SLURM_LOCALID="x" is not a local rank`},
		{env("SLURM_LOCALID", "1"), func() (int, error) { return 0, errors.New("no driver") }, -1, "no driver"},
	} {
		c.env()
		got, why, err := localGPU(c.count)
		if c.ordinal < 0 {
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("want an error with %q; got %d (%s), %v", c.want, got, why, err)
			}
			continue
		}
		if err != nil || got != c.ordinal || !strings.Contains(why, c.want) {
			t.Errorf("got %d (%q), %v; want %d with %q", got, why, err, c.ordinal, c.want)
		}
	}
}

// TestTrainDeviceEmulator: `train --device emulator` samples and trains
// through package gpu's sampler and backend on the host emulator (any
// build): it exits 0, says so in the header, and its epochs' losses are
// the CPU's within float32 rounding of the backend's sums (the sampling is
// bit for bit the CPU's; the backend's products are not). Its header and
// summary name the emulator's backend as what runs the dense operations,
// not the CPU's BLAS, which runs none of them. Its CPU-only flags are
// refused.
func TestTrainDeviceEmulator(t *testing.T) {
	args := []string{"--data", "synthetic:nodes=1000,seed=2", "--split", "random:0.5,0.2,0.3", "--model", "gcn",
		"--epochs", "3", "--hidden", "16", "--fanout", "5,5", "--batch", "64", "--json"}
	var sums [2]trainSummary
	for i, device := range []string{"cpu", "emulator"} {
		code, stdout, stderr := runCLI(t, "train", append(args, "--device", device)...)
		if code != 0 {
			t.Fatalf("train --device %s: exit %d:\n%s", device, code, stderr)
		}
		// The emulator's run takes the trainer's device path: its bulks
		// never leave the device's memory.
		if want := map[string]string{"cpu": "sampling on the CPU,", "emulator": "sampling on the host emulator (bulks kept in its memory)"}[device]; !strings.Contains(stderr, want) {
			t.Errorf("train --device %s: the header does not say %q:\n%s", device, want, stderr)
		}
		sums[i] = lastJSON[trainSummary](t, stdout)
		header := headerLine(stderr)
		blas := header[strings.LastIndex(header, ", BLAS ")+len(", BLAS "):]
		switch device {
		case "cpu":
			if blas != gnn.BLAS || sums[i].BLAS != gnn.BLAS {
				t.Errorf("train --device cpu: header's BLAS %q, summary's %q; want %q:\n%s", blas, sums[i].BLAS, gnn.BLAS, header)
			}
		case "emulator":
			if !strings.HasPrefix(blas, "gpu kernels on host emulator") || strings.Contains(header, gnn.BLAS) || sums[i].BLAS != blas {
				t.Errorf("train --device emulator: header's BLAS %q, summary's %q; want the emulator's backend, not %s:\n%s", blas, sums[i].BLAS, gnn.BLAS, header)
			}
		}
	}
	// The emulator's run with the features in host memory the device
	// reads in place: the same run, bit for bit, and a note saying so.
	code, stdout, stderr := runCLI(t, "train", append(args, "--device", "emulator", "--features-on", "host")...)
	if code != 0 || !strings.Contains(stderr, "page-locked host memory, which the device reads in place") || !strings.Contains(stderr, "bulks kept in its memory") {
		t.Errorf("train --device emulator --features-on host: exit %d; want 0, a note on the features' placement and the device path:\n%s", code, stderr)
	} else if h := lastJSON[trainSummary](t, stdout); len(h.Epochs) != len(sums[1].Epochs) || h.Epochs[len(h.Epochs)-1].Loss != sums[1].Epochs[len(h.Epochs)-1].Loss {
		t.Errorf("--features-on host: epochs %v; want the losses of the run with the features in device memory, %v", h.Epochs, sums[1].Epochs)
	}
	cpu, emu := sums[0], sums[1]
	if len(emu.Epochs) != 3 || len(cpu.Epochs) != 3 {
		t.Fatalf("epochs: CPU %d, emulator %d; want 3", len(cpu.Epochs), len(emu.Epochs))
	}
	for e := range cpu.Epochs {
		g, w := emu.Epochs[e].Loss, cpu.Epochs[e].Loss
		t.Logf("epoch %d: loss %.9f on the emulator, %.9f on the CPU", e+1, g, w)
		if math.Abs(g-w) > 1e-3*math.Abs(w) {
			t.Errorf("epoch %d: loss %v on the emulator; CPU %v", e+1, g, w)
		}
	}
	for _, args := range [][]string{{"--blas", "gonum"}, {"--residual"}, {"--method", "walk"}} {
		args = append([]string{"--data", "cora", "--device", "emulator"}, args...)
		code, _, stderr := runCLI(t, "train", args...)
		if code != 2 || !strings.Contains(stderr, "--") {
			t.Errorf("train %v: exit %d, want 2:\n%s", args, code, stderr)
		}
	}
}

// headerLine returns train's header line from its standard error, or ""
// if it printed none.
func headerLine(stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "training ") {
			return l
		}
	}
	return ""
}
