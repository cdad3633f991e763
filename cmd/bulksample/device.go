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

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/gpu"
	"github.com/bulksample/bulksample/internal/procstat"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// deviceFlag is --device.
type deviceFlag struct{ name string }

func (d *deviceFlag) add(fs *flag.FlagSet) {
	fs.StringVar(&d.name, "device", "cpu", "where to compute: cpu, or cuda (the first NVIDIA GPU; needs a binary built with\n"+
		"`make build CUDA=1`, and samples bit for bit what the CPU samples)")
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
	return cpuOnly(c.baseline, "--baseline", c.nw.MaxBulkEdges != 0, "--max-bulk-edges", c.semibulk != 0, "--semibulk")
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

// sampleDeviceSummary is sample's --json object with --device cuda.
type sampleDeviceSummary struct {
	sampleSummary
	Device string `json:"device"`
}

// runSampleDevice is `bulksample sample --device cuda`: the sampler of
// package gpu, timed from the call to the end of its work on the device
// (the blocks stay there, as a GPU trainer uses them); --digest downloads
// them after the timing.
func runSampleDevice(ctx context.Context, e *env, c *sampleConfig) error {
	if err := e.startProfile(0, 1); err != nil {
		return err
	}
	dev, err := openDevice(e, "sample")
	if err != nil {
		return err
	}
	defer dev.Close()
	var meter procstat.Meter
	meter.Begin()
	t0 := time.Now()
	d, err := dataset.LoadContext(ctx, c.graph, &dataset.LoadOptions{Threads: c.nw.Threads, Progress: e.stderr})
	if err != nil {
		return err
	}
	loadSec := time.Since(t0).Seconds()
	if d.NumNodes() == 0 || d.Adj.NNZ() == 0 {
		return fmt.Errorf("%s: empty graph (%d vertices, %d edges): nothing to sample", c.graph, d.NumNodes(), d.Adj.NNZ())
	}
	meter.End("load")
	ep, err := c.epochPlan(d.Train, d.NumNodes())
	if err != nil {
		return err
	}
	type deviceSampler interface {
		SampleDevice(ctx context.Context, epoch, first int, seeds [][]int32) (*gpu.DeviceBulk, error)
		Download(b *gpu.DeviceBulk) (*sampling.Bulk, error)
		Close() error
	}
	var s deviceSampler
	name := "bulk (cuda)"
	if c.method == sampling.MethodNode {
		s, err = gpu.NewNodeWise(dev, d.Adj, c.nw)
	} else {
		name = c.method + " (cuda)"
		method := sampling.LADIES
		if c.method == sampling.MethodFastGCN {
			method = sampling.FastGCN
		}
		var a *spgemm.CSR
		if a, err = layerWiseMatrix(d.Adj, c.method, c.ladies, c.nw.Threads); err == nil {
			s, err = gpu.NewLayerWise(dev, a, sampling.LayerWiseOptions{Method: method, Budgets: c.nw.Fanouts, Replace: c.nw.Replace, Seed: c.nw.Seed})
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", c.graph, err)
	}
	defer s.Close()
	sum := sampleDeviceSummary{Device: dev.Name(), sampleSummary: sampleSummary{Graph: c.graph, Vertices: d.NumNodes(), Edges: d.Adj.NNZ(),
		Sampler: name, Frontier: c.nw.Frontier.String(), Fanouts: c.nw.Fanouts, Batch: c.plan.BatchSize, Bulk: c.plan.BulkSize,
		Minibatches: len(ep.Minibatches), Bulks: ep.NumBulks(), LoadSeconds: loadSec, Reps: c.reps}}
	if c.method == "ladies" {
		sum.LadiesMatrix = c.ladies
	}
	for _, mb := range ep.Minibatches {
		sum.Seeds += len(mb)
	}
	meter.End("setup")
	var dg *sampling.Digest
	if c.digest {
		dg = sampling.NewDigest()
	}
	for pass := range c.reps {
		var busy time.Duration
		var edges int64
		for i := range ep.NumBulks() {
			first, seeds := ep.Bulk(i)
			start := time.Now()
			b, err := s.SampleDevice(ctx, ep.Epoch, first, seeds)
			if err != nil {
				return fmt.Errorf("bulk %d (minibatches %d..%d): %w", i, first, first+len(seeds)-1, err)
			}
			busy += time.Since(start)
			edges += b.SampledEdges()
			if dg != nil && pass == 0 {
				hb, err := s.Download(b)
				if err != nil {
					return err
				}
				dg.AddBulk(hb)
			}
		}
		if pass > 0 && edges != sum.SampledEdges {
			return fmt.Errorf("pass %d sampled %d edges, the first %d: the sampler is not deterministic", pass+1, edges, sum.SampledEdges)
		}
		sum.SampledEdges = edges
		sum.PassSeconds = append(sum.PassSeconds, busy.Seconds())
	}
	meter.End("sample")
	f := summarizeReps(sum.PassSeconds)
	sum.Seconds, sum.Warm, sum.ColdSeconds = f.Seconds, f.Warm, f.Cold
	if f.Seconds > 0 {
		sum.SEPS = float64(sum.SampledEdges) / f.Seconds
	}
	if f.Cold > 0 {
		sum.ColdSEPS = float64(sum.SampledEdges) / f.Cold
	}
	if dg != nil {
		sum.Digest = dg.Sum()
	}
	sum.Phases = meter.Phases()
	fmt.Fprintf(e.stdout, "%s sampler on %s: %d minibatches (%d seeds) in %d bulks of %d; %d sampled edges per pass\n",
		name, dev.Name(), sum.Minibatches, sum.Seeds, sum.Bulks, c.plan.BulkSize, sum.SampledEdges)
	if sum.Warm {
		fmt.Fprintf(e.stdout, "warm: median of %d passes %.4fs: %.2fM SEPS; cold (first pass): %.4fs: %.2fM SEPS\n",
			c.reps-1, sum.Seconds, sum.SEPS/1e6, sum.ColdSeconds, sum.ColdSEPS/1e6)
	} else {
		fmt.Fprintf(e.stdout, "cold (one pass): %.4fs: %.2fM SEPS (--reps 3 adds warm passes, the steady state)\n", sum.Seconds, sum.SEPS/1e6)
	}
	if c.digest {
		fmt.Fprintf(e.stdout, "digest %s\n", sum.Digest)
	}
	if c.json {
		sum.PeakRSSBytes, sum.Version = procstat.PeakRSS(), version()
		return writeJSON(e.stdout, sum)
	}
	return nil
}

// spgemmDeviceSummary is spgemm's --json object with --device cuda.
type spgemmDeviceSummary struct {
	spgemmSummary
	Device string `json:"device"`
}

// runSpGEMMDevice is `bulksample spgemm --device cuda`: A and B uploaded
// once, each of --reps products timed on the device (C stays there;
// --reuse recomputes only its values after the first), --digest downloads
// the last.
func runSpGEMMDevice(ctx context.Context, e *env, fs *flag.FlagSet, job *spgemmJob, reuse bool) error {
	if err := e.startProfile(0, 1); err != nil {
		return err
	}
	dev, err := openDevice(e, "spgemm")
	if err != nil {
		return err
	}
	defer dev.Close()
	var meter procstat.Meter
	meter.Begin()
	start := time.Now()
	da, err := loadMatrix(ctx, e, job.a, job.opt.Threads)
	if err != nil {
		return err
	}
	defer da.Close()
	a, b := da.Adj, da.Adj
	if job.b != "" {
		db, err := loadMatrix(ctx, e, job.b, job.opt.Threads)
		if err != nil {
			return err
		}
		defer db.Close()
		b = db.Adj
	}
	s := spgemmDeviceSummary{Device: dev.Name(), spgemmSummary: spgemmSummary{A: job.a, B: job.b, SelectRows: job.selectRows,
		Products: job.reps, Reuse: reuse, LoadSeconds: time.Since(start).Seconds()}}
	if job.b == "" {
		s.B = job.a
	}
	if a.Cols != b.Rows {
		return fmt.Errorf("cannot multiply %s (%d x %d) by %s (%d x %d): inner dimensions differ", job.a, a.Rows, a.Cols, s.B, b.Rows, b.Cols)
	}
	if job.selectRows > 0 {
		if job.selectRows > a.Rows {
			return selectRowsError(fs, job.selectRows, a.Rows, job.a)
		}
		q, err := selectionMatrix(a.Rows, job.selectRows, job.seed)
		if err != nil {
			return err
		}
		a, b = q, a
	}
	s.productShape = shapeOf(a, b)
	s.Flops = spgemm.RowFlops(a, b, job.opt.Threads)[a.Rows]
	meter.End("load")
	pr, err := dev.NewProduct(a, b, gpu.ProductOptions{StructureOnly: job.opt.StructureOnly, Reuse: reuse})
	if err != nil {
		return err
	}
	defer pr.Close()
	meter.End("setup")
	times := make([]float64, 0, job.reps)
	for r := range job.reps {
		if err := ctx.Err(); err != nil {
			return err
		}
		t0 := time.Now()
		if err := pr.Run(); err != nil {
			return err
		}
		times = append(times, time.Since(t0).Seconds())
		s.NNZOut = pr.NNZ()
		fmt.Fprintf(e.stderr, "spgemm: product %d/%d: %.5f s (%s)\n", r+1, job.reps, times[r], pr.Method())
	}
	meter.End("multiply")
	s.Method = pr.Method()
	s.productTimes = timesOf(times, s.Flops)
	if job.digest {
		c, err := pr.Result()
		if err != nil {
			return err
		}
		dg := sampling.NewDigest()
		dg.AddRows(c)
		s.Digest = dg.Sum()
		meter.End("digest")
	}
	s.PeakRSSBytes, s.Version = procstat.PeakRSS(), version()
	s.Phases = meter.Phases()
	w := e.stdout
	fmt.Fprintf(w, "%s on %s: %s; %d flops (%s)\n", productName(job.selectRows), dev.Name(), s.describe(), s.Flops, s.Method)
	if s.Warm {
		fmt.Fprintf(w, "warm: median of %d products %.5f s (%.3f GFLOP/s), best %.5f s; cold (first product): %.5f s\n",
			job.reps-1, s.Seconds, s.GFlops, s.BestSeconds, s.ColdSeconds)
	} else {
		fmt.Fprintf(w, "cold (one product): %.5f s (%.3f GFLOP/s)\n", s.Seconds, s.GFlops)
	}
	if job.digest {
		fmt.Fprintf(w, "digest %s\n", s.Digest)
	}
	if job.json {
		return writeJSON(w, s)
	}
	return nil
}
