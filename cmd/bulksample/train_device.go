package main

// --device cpu|cuda|emulator of `bulksample train`. cuda: the model's
// operations on package gpu's backend (cuBLAS, cuSPARSE and bulksample's
// kernels) on the GPU of the process's local rank and, on one process, the
// minibatches sampled there too (gpu.NewSampler through
// train.Options.NewSampler: bit for bit the CPU sampler's bulks); dense
// features that fit go to the device's memory once, and then the bulks
// never leave it (the trainer's device path, train.Trainer.DevicePath:
// blocks formed and each minibatch's rows gathered there, the header's
// "bulks kept in its memory"); otherwise each bulk is downloaded and its
// blocks cross to the device once. A distributed run
// samples on the CPU (the distributed samplers), only its model on the
// GPU. emulator, for tests: the same backend, sampler and features on
// package gpu's host emulator (gpu.NewEmulator), which runs the GPU's
// kernels on the CPU, slowly, in any build.

import (
	"flag"
	"fmt"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/gpu"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// localGPU returns the CUDA device ordinal of this process and why: the
// first GPU without a launcher's local rank (dist.LocalRank); with one, the
// GPU of that index, or the only GPU when the launcher
// (CUDA_VISIBLE_DEVICES) shows each process one. More local ranks than
// GPUs is an error naming both, rather than ranks silently sharing a GPU.
func localGPU(count func() (int, error)) (int, string, error) {
	r, name, err := dist.LocalRank()
	if err != nil {
		return 0, "", fmt.Errorf("--device cuda: %w", err)
	}
	if name == "" {
		return 0, "the first GPU", nil
	}
	n, err := count()
	if err != nil {
		return 0, "", fmt.Errorf("--device cuda: %w", err)
	}
	switch {
	case n == 1:
		return 0, fmt.Sprintf("local rank %d (%s), the one GPU it sees", r, name), nil
	case r < n:
		return r, fmt.Sprintf("local rank %d (%s) of %d GPUs", r, name, n), nil
	}
	return 0, "", fmt.Errorf("--device cuda: local rank %d (%s) but this node shows %d GPUs: start at most %d ranks per node, or give each rank its GPU with CUDA_VISIBLE_DEVICES", r, name, n, n)
}

// addTrain adds --device to train's flags.
func (d *deviceFlag) addTrain(fs *flag.FlagSet) {
	fs.StringVar(&d.name, "device", "cpu", "where the model computes and samples: cpu; cuda (an NVIDIA GPU: the one of the process's local rank\n"+
		"under mpirun or srun, else the first, in a binary with CUDA support, which bulksample --version lists; one process\n"+
		"samples there too, bit for bit as the CPU, a distributed run on the CPU); or emulator, for tests: the host emulator\n"+
		"runs the GPU's kernels and backend on the CPU, slowly, in any build")
	fs.StringVar(&d.features, "features-on", "auto", "with --device cuda or emulator, where the dense features are kept: device (its memory),\n"+
		"host (page-locked host memory the GPU reads in place, across the bus: for features that do not fit), or auto\n"+
		"(the device's memory when they fit, else host)")
}

// validateTrain checks --features-on against --device.
func (d *deviceFlag) validateTrain(fs *flag.FlagSet) error {
	p, err := gpu.ParsePlacement(d.features)
	if err != nil {
		return usageError(fs, "--features-on %q: want auto, device or host", d.features)
	}
	if isSet(fs, "features-on") && !d.gpuBackend() {
		return usageError(fs, "--features-on applies to --device cuda or emulator")
	}
	d.place = p
	return nil
}

// emulator reports whether --device is emulator.
func (d *deviceFlag) emulator() bool { return d.name == "emulator" }

// gpuBackend reports whether --device computes on package gpu's backend:
// on a GPU (cuda) or on the host emulator.
func (d *deviceFlag) gpuBackend() bool { return d.cuda() || d.emulator() }

// trainDevice is what --device gives a run.
type trainDevice struct {
	// backend is the compute backend; nil for cpu (the trainer's CPU
	// backend).
	backend gnn.Backend
	// newSampler is train.Options.NewSampler: the device's sampler on one
	// process; nil (the CPU's sampler) for cpu and distributed runs.
	newSampler func(*spgemm.CSR, sampling.SamplerOptions) (sampling.Sampler, error)
	// sampling says where the minibatches are sampled, for the header.
	sampling string
	// release frees the backend and closes the device.
	release func()
}

// trainDevice opens --device for a run (distributed: a rank of one, which
// samples on the CPU), reporting a device on stderr.
func (c *trainConfig) trainDevice(e *env, distributed bool) (*trainDevice, error) {
	td := &trainDevice{sampling: "the CPU", release: func() {}}
	if !c.device.gpuBackend() {
		return td, nil
	}
	dev, why, err := c.openTrainDevice()
	if err != nil {
		return nil, err
	}
	flag := "--device " + c.device.name
	be, err := gpu.NewBackend(dev, gpu.BackendOptions{Threads: c.opt.Trainer.Runtime.Threads,
		Features: gpu.FeaturesOptions{Placement: c.device.place}})
	if err != nil {
		dev.Close()
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	fmt.Fprintf(e.stderr, "train: device %s (%s)\n", be.Name(), why)
	td.backend = be
	td.release = func() {
		if err := be.Close(); err != nil {
			fmt.Fprintf(e.stderr, "train: releasing the device: %v\n", err)
		}
		dev.Close()
	}
	if !distributed {
		td.sampling = "the host emulator"
		if c.device.cuda() {
			td.sampling = "the GPU"
		}
		td.newSampler = func(a *spgemm.CSR, opt sampling.SamplerOptions) (sampling.Sampler, error) {
			s, err := gpu.NewSampler(dev, a, opt)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", flag, err)
			}
			return s, nil
		}
	}
	return td, nil
}

// openTrainDevice opens the GPU of this process's local rank (cuda) or a
// host emulator, and says which.
func (c *trainConfig) openTrainDevice() (*gpu.Device, string, error) {
	if c.device.emulator() {
		return gpu.NewEmulator(gpu.EmulatorOptions{MemoryBytes: emulatorMemory}), "the GPU's kernels on the CPU, for tests", nil
	}
	ordinal, why, err := localGPU(gpu.DeviceCount)
	if err != nil {
		if !gpu.Built() {
			err = fmt.Errorf("--device cuda: %w", gpu.ErrNotBuilt)
		}
		return nil, "", err
	}
	dev, err := gpu.Open(ordinal)
	if err != nil {
		return nil, "", fmt.Errorf("--device cuda: %w", err)
	}
	return dev, why, nil
}

// emulatorMemory is the device memory --device emulator allows: enough
// for the graphs and features a test trains on, with the host's memory the
// real bound (the emulator allocates it as a run asks).
const emulatorMemory = 8 << 30
