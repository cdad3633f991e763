package main

// --device cpu|cuda of `bulksample train`: the model's operations on the
// CPU backend or, with cuda, on package gpu's backend (cuBLAS, cuSPARSE
// and bulksample's kernels) on the GPU of the process's local rank. The
// sampler stays the CPU's (the pipeline overlaps it with the steps) and
// each minibatch's blocks cross to the device once; on one process, dense
// features that fit go to the device's memory once, and each minibatch's
// rows are gathered there.

import (
	"flag"
	"fmt"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/gpu"
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
	fs.StringVar(&d.name, "device", "cpu", "where the model computes: cpu, or cuda (an NVIDIA GPU: the one of the process's local rank under\n"+
		"mpirun or srun, else the first, in a binary with CUDA support, which bulksample --version lists)")
}

// trainBackend returns the compute backend of --device (nil for cpu: the
// trainer's CPU backend) and the function that releases it.
func (c *trainConfig) trainBackend(e *env) (gnn.Backend, func(), error) {
	if !c.device.cuda() {
		return nil, func() {}, nil
	}
	ordinal, why, err := localGPU(gpu.DeviceCount)
	if err != nil {
		if !gpu.Built() {
			err = fmt.Errorf("--device cuda: %w", gpu.ErrNotBuilt)
		}
		return nil, nil, err
	}
	dev, err := gpu.Open(ordinal)
	if err != nil {
		return nil, nil, fmt.Errorf("--device cuda: %w", err)
	}
	be, err := gpu.NewBackend(dev, gpu.BackendOptions{Threads: c.opt.Trainer.Runtime.Threads})
	if err != nil {
		dev.Close()
		return nil, nil, fmt.Errorf("--device cuda: %w", err)
	}
	fmt.Fprintf(e.stderr, "train: device %s (%s)\n", be.Name(), why)
	return be, func() {
		if err := be.Close(); err != nil {
			fmt.Fprintf(e.stderr, "train: releasing the GPU: %v\n", err)
		}
		dev.Close()
	}, nil
}
