package gpu

import (
	"context"
	"fmt"
	"testing"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
	"github.com/bulksample/bulksample/train"
)

// hostNode and hostLayer are the device's samplers without the device path
// (gnn.DeviceSampler.SamplesOn false): the trainer then downloads each
// bulk and uploads its blocks and input ids, the host round trip.
type (
	hostNode  struct{ *NodeWise }
	hostLayer struct{ *LayerWise }
)

func (hostNode) SamplesOn(gnn.Backend) bool  { return false }
func (hostLayer) SamplesOn(gnn.Backend) bool { return false }

// deviceRun is one run of TestTrainDevicePath on the emulator dev with
// its backend be: the device path unless host, at depth; epochs epochs,
// checkpointing into dir (resuming when resume). step, when set, is
// called after each minibatch.
type deviceRun struct {
	arch          gnn.Arch
	method        string
	host          bool
	depth, epochs int
	bulk          int
	dir           string
	resume        bool
	step          func(epoch, done int)
}

func (r deviceRun) run(t *testing.T, dev *Device, be *Backend) ([]float32, *train.Result) {
	t.Helper()
	ds, err := dataset.PlantedPartition(dataset.PlantedPartitionOptions{Nodes: 900, Classes: 3, Features: 12, Split: "random:0.3,0.2,0.5", Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	fanouts := []int{5, 5}
	if r.method != "" {
		fanouts = []int{200, 200}
	}
	bulk := r.bulk
	if bulk == 0 {
		bulk = 2
	}
	opt := train.Options{Sampler: sampling.SamplerOptions{Method: r.method, Fanouts: fanouts},
		Trainer: train.TrainerOptions{Model: train.ModelOptions{Arch: r.arch, Hidden: 16, Dropout: 0.5},
			Optimizer: train.OptimizerOptions{WeightDecayFirstLayer: true, Adam: gnn.AdamOptions{WeightDecay: 5e-4}},
			Plan:      train.PlanOptions{BatchSize: 64, BulkSize: bulk, Epochs: r.epochs}, Seed: 4,
			Runtime:    train.RuntimeOptions{Backend: be, Threads: 2, PipelineDepth: r.depth},
			Checkpoint: train.CheckpointOptions{Dir: r.dir, Resume: r.resume}}}
	if r.step != nil {
		opt.Trainer.Hooks.OnMinibatch = func(epoch, done, _ int) { r.step(epoch, done) }
	}
	opt.NewSampler = func(a *spgemm.CSR, so sampling.SamplerOptions) (sampling.Sampler, error) {
		s, err := NewSampler(dev, a, so)
		if err != nil || !r.host {
			return s, err
		}
		if nw, ok := s.(*NodeWise); ok {
			return hostNode{nw}, nil
		}
		return hostLayer{s.(*LayerWise)}, nil
	}
	job, err := train.New(ds, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := job.Close(); err != nil {
			t.Errorf("Job.Close: %v", err)
		}
	}()
	if got := job.Trainer.DevicePath(); got == r.host {
		t.Fatalf("Trainer.DevicePath() = %v; want %v", got, !r.host)
	}
	res, err := job.Trainer.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return append([]float32(nil), job.Trainer.Model().Params()...), res
}

// sameRuns reports the epochs and parameters in which two runs differ.
func sameRuns(t *testing.T, what string, got, want []float32, gotRes, wantRes *train.Result) {
	t.Helper()
	if len(gotRes.Epochs) != len(wantRes.Epochs) {
		t.Fatalf("%s: %d epochs; want %d", what, len(gotRes.Epochs), len(wantRes.Epochs))
	}
	for e := range wantRes.Epochs {
		g, w := gotRes.Epochs[e], wantRes.Epochs[e]
		if g.Loss != w.Loss || g.TrainAcc != w.TrainAcc || g.ValAcc != w.ValAcc || g.TestAcc != w.TestAcc || g.SampledEdges != w.SampledEdges {
			t.Errorf("%s: epoch %d: loss %v, accuracies %v %v %v, %d edges; want %v, %v %v %v, %d", what, e,
				g.Loss, g.TrainAcc, g.ValAcc, g.TestAcc, g.SampledEdges, w.Loss, w.TrainAcc, w.ValAcc, w.TestAcc, w.SampledEdges)
		}
	}
	if d := maxRelDiff(got, want); d != 0 {
		t.Errorf("%s: parameters differ by %.3g; want equal", what, d)
	}
}

// TestTrainDevicePath: on the emulator, the trainer's device path (bulks
// sampled into the backend's memory, blocks formed and input rows gathered
// there: gnn.DeviceSampler, gnn.BlockFormer, gnn.IDGatherer) trains bit for
// bit what the host round trip (the same sampler, backend and resident
// features, each bulk downloaded and its blocks and ids uploaded) trains:
// losses, accuracies and parameters, for GraphSAGE, GCN (the graph's
// degrees), LADIES and FastGCN, at PipelineDepth 1 and 2; and a run
// checkpointed on one path and resumed on the other ends where the
// uninterrupted run ends.
func TestTrainDevicePath(t *testing.T) {
	if testing.Short() {
		t.Skip("trains on the emulator (slow)")
	}
	dev := NewEmulator(EmulatorOptions{Order: 4242, Exact: true})
	defer dev.Close()
	be, err := NewBackend(dev, BackendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	// The same with the features in host memory the device reads in place.
	uva, err := NewBackend(dev, BackendOptions{Features: FeaturesOptions{Placement: PlaceHost}})
	if err != nil {
		t.Fatal(err)
	}
	defer uva.Close()
	for _, tc := range []struct {
		arch   gnn.Arch
		method string
	}{{gnn.SAGE, ""}, {gnn.GCN, ""}, {gnn.SAGE, sampling.MethodLADIES}, {gnn.GCN, sampling.MethodFastGCN}} {
		t.Run(fmt.Sprintf("%v/%s", tc.arch, tc.method), func(t *testing.T) {
			var want []float32
			var wantRes *train.Result
			for _, depth := range []int{1, 2} {
				r := deviceRun{arch: tc.arch, method: tc.method, depth: depth, epochs: 3}
				host := r
				host.host = true
				hp, hres := host.run(t, dev, be)
				dp, dres := r.run(t, dev, be)
				sameRuns(t, fmt.Sprintf("depth %d: device path against the host round trip", depth), dp, hp, dres, hres)
				if want == nil {
					want, wantRes = hp, hres
				} else {
					sameRuns(t, "depth 2 against depth 1", hp, want, hres, wantRes)
				}
			}
			before := dev.Costs().HostAllocs
			up, ures := deviceRun{arch: tc.arch, method: tc.method, depth: 2, epochs: 3}.run(t, dev, uva)
			if dev.Costs().HostAllocs == before {
				t.Error("a backend of PlaceHost kept the features in device memory")
			}
			sameRuns(t, "features in host memory against device memory", up, want, ures, wantRes)
			for _, first := range []bool{false, true} {
				dir := t.TempDir()
				deviceRun{arch: tc.arch, method: tc.method, host: first, depth: 2, epochs: 2, dir: dir}.run(t, dev, be)
				got, res := deviceRun{arch: tc.arch, method: tc.method, host: !first, depth: 2, epochs: 3, dir: dir, resume: true}.run(t, dev, be)
				if res.ResumedFrom != 2 {
					t.Fatalf("resumed from %d epochs; want 2", res.ResumedFrom)
				}
				if d := maxRelDiff(got, want); d != 0 {
					t.Errorf("checkpointed on the host path %v, resumed on the other: parameters differ from the uninterrupted run's by %.3g", first, d)
				}
			}
		})
	}
}

// stepCosts trains r (PipelineDepth 1, each epoch one bulk) and returns
// the device's costs of each warm step of its last epoch: the steps after
// the bulk's first, between two minibatches' ends, which sample nothing
// and evaluate nothing, once the first epochs have grown every buffer.
func stepCosts(t *testing.T, r deviceRun, dev *Device, be *Backend) []Costs {
	t.Helper()
	var out []Costs
	var last Costs
	r.step = func(epoch, done int) {
		c := dev.Costs()
		if epoch == r.epochs-1 && done > 1 {
			out = append(out, c.Sub(last))
		} else if epoch == r.epochs-1 {
			d := c.Sub(last)
			t.Logf("host %v: the bulk's first step (with its sampling and the previous epoch's evaluation): %d launches, %d uploads (%d B), %d downloads (%d B), %d allocs",
				r.host, d.Launches+d.UncountedLaunches, d.Uploads, d.UploadBytes, d.Downloads, d.DownloadBytes, d.Allocs)
		}
		last = c
	}
	r.run(t, dev, be)
	return out
}

// TestTrainDevicePathCosts: a warm training step on the device path copies
// no block and no feature row to the device, nor downloads any: its only
// uploads are the seeds' labels (4 bytes a seed, for the loss) and the
// optimiser's few scalars, which the host round trip makes too; and it
// allocates nothing on the device. The host round trip uploads each
// block and the input ids.
func TestTrainDevicePathCosts(t *testing.T) {
	if testing.Short() {
		t.Skip("trains on the emulator (slow)")
	}
	// Not Exact: an exact emulator sizes every buffer to each call.
	dev := NewEmulator(EmulatorOptions{Order: 4242})
	defer dev.Close()
	be, err := NewBackend(dev, BackendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	for _, tc := range []struct {
		arch   gnn.Arch
		method string
	}{{gnn.SAGE, ""}, {gnn.GCN, ""}, {gnn.GCN, sampling.MethodLADIES}} {
		t.Run(fmt.Sprintf("%v/%s", tc.arch, tc.method), func(t *testing.T) {
			r := deviceRun{arch: tc.arch, method: tc.method, depth: 1, epochs: 5, bulk: 8}
			h := r
			h.host = true
			dc, hc := stepCosts(t, r, dev, be), stepCosts(t, h, dev, be)
			if len(dc) == 0 || len(dc) != len(hc) {
				t.Fatalf("%d warm steps on the device path, %d on the host's; want as many, > 0", len(dc), len(hc))
			}
			for i, c := range dc {
				t.Logf("warm step %d: device path %d launches (%d uncounted), %d uploads (%d B), %d downloads (%d B), %d allocs, %d stream syncs, %d event waits; host round trip %d launches (%d uncounted), %d uploads (%d B), %d downloads (%d B), %d allocs",
					i, c.Launches, c.UncountedLaunches, c.Uploads, c.UploadBytes, c.Downloads, c.DownloadBytes, c.Allocs, c.StreamSyncs, c.EventWaits,
					hc[i].Launches, hc[i].UncountedLaunches, hc[i].Uploads, hc[i].UploadBytes, hc[i].Downloads, hc[i].DownloadBytes, hc[i].Allocs)
				// The labels of at most a batch of 64 seeds, int32; the
				// loss rows (float64) and hits (int32) come back.
				if c.Uploads > 1 || c.UploadBytes > 64*4 || c.DownloadBytes > 64*12 || c.Allocs != 0 {
					t.Errorf("warm step %d on the device path: %d uploads (%d B), %d B downloaded, %d allocations; want at most the labels up (1, <= %d B), the loss and hits down (<= %d B), none",
						i, c.Uploads, c.UploadBytes, c.DownloadBytes, c.Allocs, 64*4, 64*12)
				}
				// The step waits for its own stream, not for the sampling of
				// the next bulk beside it.
				if c.Syncs != 0 || c.StreamSyncs == 0 {
					t.Errorf("warm step %d on the device path: %d device syncs, %d stream syncs; want none, some", i, c.Syncs, c.StreamSyncs)
				}
				if hc[i].UploadBytes <= c.UploadBytes {
					t.Errorf("warm step %d: the host round trip uploads %d B, the device path %d; want more (the blocks and ids)", i, hc[i].UploadBytes, c.UploadBytes)
				}
			}
		})
	}
}

// TestTrainDevicePathStopReleases: an epoch the context stops inside a bulk
// (at PipelineDepth 1 and 2) leaves no bulk held: the sampler holds its
// two bulks for the next run.
func TestTrainDevicePathStopReleases(t *testing.T) {
	dev := NewEmulator(EmulatorOptions{Order: 4242})
	defer dev.Close()
	be, err := NewBackend(dev, BackendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	ds, err := dataset.PlantedPartition(dataset.PlantedPartitionOptions{Nodes: 600, Classes: 3, Features: 8, Split: "random:0.5,0.2,0.3", Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, depth := range []int{1, 2} {
		var s Sampler
		ctx, cancel := context.WithCancel(context.Background())
		opt := train.Options{Sampler: sampling.SamplerOptions{Fanouts: []int{4, 4}},
			Trainer: train.TrainerOptions{Model: train.ModelOptions{Arch: gnn.SAGE, Hidden: 8},
				Plan: train.PlanOptions{BatchSize: 32, BulkSize: 3, Epochs: 2}, Seed: 4,
				Runtime: train.RuntimeOptions{Backend: be, PipelineDepth: depth, NoEval: true},
				Hooks: train.Hooks{OnMinibatch: func(_, done, _ int) {
					if done == 4 {
						cancel()
					}
				}}}}
		opt.NewSampler = func(a *spgemm.CSR, so sampling.SamplerOptions) (sampling.Sampler, error) {
			var err error
			s, err = NewSampler(dev, a, so)
			return s, err
		}
		job, err := train.New(ds, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !job.Trainer.DevicePath() {
			t.Fatal("not on the device path")
		}
		if _, err := job.Trainer.Run(ctx, nil); err == nil {
			t.Fatalf("depth %d: the cancelled run returned no error", depth)
		}
		cancel()
		for i := range 2 {
			b, err := s.SampleOn(context.Background(), be, 0, 0, [][]int32{{1, 2}})
			if err != nil {
				t.Fatalf("depth %d: bulk %d after the stopped run: %v", depth, i, err)
			}
			defer b.Release()
		}
		if err := job.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
