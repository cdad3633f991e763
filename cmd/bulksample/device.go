package main

// --device cpu|cuda of `bulksample spgemm` and `bulksample sample`: the
// products and samplers of package gpu on an NVIDIA GPU. A binary built
// without the cuda tag, or a machine without a GPU, makes --device cuda
// exit 1 with the reason (how to build it; or the driver's error).

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/bulksample/bulksample/gpu"
	"github.com/bulksample/bulksample/internal/procstat"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// deviceFlag is --device.
type deviceFlag struct {
	name string
	// features is train's --features-on: where a GPU keeps the features.
	features string
	place    gpu.Placement
}

func (d *deviceFlag) add(fs *flag.FlagSet) {
	fs.StringVar(&d.name, "device", "cpu", "where to compute: cpu, or cuda (the first NVIDIA GPU, in a binary with CUDA support, which\n"+
		"bulksample --version lists; it samples bit for bit what the CPU samples)")
}

// validate returns a usage error for a value other than cpu or cuda, or
// for cuda in a distributed run or with any of the CPU-only flags that
// were set (cpuOnly).
func (d *deviceFlag) validate(fs *flag.FlagSet, distributed bool, cpuOnly ...string) error {
	switch {
	case d.name != "cpu" && d.name != "cuda":
		return usageError(fs, "--device %q: want cpu or cuda", d.name)
	case d.cuda() && distributed:
		return usageError(fs, "--device cuda: one process only (distributed runs sample on the CPU)")
	case d.cuda() && len(cpuOnly) > 0:
		return usageError(fs, "--device cuda: %s applies to the CPU only", strings.Join(cpuOnly, ", "))
	}
	return nil
}

// cpuOnly returns the flags of pairs (set, name) that are set.
func cpuOnly(pairs ...any) []string {
	var out []string
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i].(bool) {
			out = append(out, pairs[i+1].(string))
		}
	}
	return out
}

// cpuOnlyFlags returns the sample flags set that the device sampler does
// not have (it samples a bulk in one group, on the device's threads).
func (c *sampleConfig) cpuOnlyFlags() []string {
	return cpuOnly(c.baseline, "--baseline", c.sampler.MaxBulkEdges != 0, "--max-bulk-edges", c.sampler.Semibulk != 0, "--semibulk")
}

func (d *deviceFlag) cuda() bool { return d.name == "cuda" }

// openDevice opens the first GPU, reporting it on stderr.
func openDevice(e *env, command string) (*gpu.Device, error) {
	dev, err := gpu.Open(0)
	if err != nil {
		return nil, fmt.Errorf("--device cuda: %w", err)
	}
	fmt.Fprintf(e.stderr, "%s: device %s\n", command, dev.Name())
	return dev, nil
}

// deviceStep returns the step of the device sampler of --method over the
// adjacency a (gpu.NewSampler, which samples what the CPU's sampler of
// the same options samples), and what frees its device memory. The step
// leaves each bulk on the device, as a GPU trainer uses it; the digest
// downloads it after the timing.
func (c *sampleConfig) deviceStep(dev *gpu.Device, a *spgemm.CSR) (bulkStep, func(), error) {
	s, err := gpu.NewSampler(dev, a, c.sampler)
	if err != nil {
		return nil, nil, err
	}
	step := func(ctx context.Context, epoch, first int, seeds [][]int32) (sampledBulk, error) {
		b, err := s.SampleDevice(ctx, epoch, first, seeds)
		if err != nil {
			return sampledBulk{}, err
		}
		return sampledBulk{edges: b.SampledEdges(), host: func() (*sampling.Bulk, error) { return s.Download(b) }}, nil
	}
	return step, func() { s.Close() }, nil
}

// deviceProducts is products on dev (--device cuda): A and B uploaded
// once, each of --reps products timed on the device (C stays there;
// --reuse recomputes only its values after the first). It returns the
// last C, downloaded for --digest only (nil otherwise), the download
// counted in phase "digest".
func (job *spgemmJob) deviceProducts(ctx context.Context, e *env, dev *gpu.Device, a, b *spgemm.CSR, meter *procstat.Meter, s *spgemmSummary) (*spgemm.CSR, error) {
	pr, err := dev.NewProduct(a, b, gpu.ProductOptions{StructureOnly: job.opt.StructureOnly, Reuse: job.reuse})
	if err != nil {
		return nil, err
	}
	defer pr.Close()
	meter.End("setup")
	times := make([]float64, 0, job.reps)
	for r := range job.reps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		t0 := time.Now()
		if err := pr.Run(); err != nil {
			return nil, err
		}
		times = append(times, time.Since(t0).Seconds())
		s.NNZOut = pr.NNZ()
		fmt.Fprintf(e.stderr, "spgemm: product %d/%d: %.5f s (%s)\n", r+1, job.reps, times[r], pr.Method())
	}
	meter.End("multiply")
	s.Method, s.productTimes = pr.Method(), timesOf(times, s.Flops)
	if !job.digest {
		return nil, nil
	}
	c, err := pr.Result()
	meter.End("digest")
	return c, err
}
