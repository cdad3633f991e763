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

// libraryRun trains arch on a fresh planted graph through train.New, the
// sampler the device's (on an emulator: dev non-nil, through
// Options.NewSampler) or the CPU's, the backend be (nil: the CPU's), for
// epochs epochs, checkpointing into dir (resuming when resume), and returns
// the final parameters and the result.
func libraryRun(t *testing.T, arch gnn.Arch, method string, dev *Device, be gnn.Backend, epochs int, dir string, resume bool) ([]float32, *train.Result) {
	t.Helper()
	ds, err := dataset.PlantedPartition(dataset.PlantedPartitionOptions{Nodes: 900, Classes: 3, Features: 12, Split: "random:0.3,0.2,0.5", Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	fanouts := []int{5, 5}
	if method != "" {
		fanouts = []int{200, 200}
	}
	opt := train.Options{Sampler: sampling.SamplerOptions{Method: method, Fanouts: fanouts},
		Trainer: train.TrainerOptions{Model: train.ModelOptions{Arch: arch, Hidden: 16, Dropout: 0.5},
			Optimizer: train.OptimizerOptions{WeightDecayFirstLayer: true, Adam: gnn.AdamOptions{WeightDecay: 5e-4}},
			Plan:      train.PlanOptions{BatchSize: 64, BulkSize: 2, Epochs: epochs}, Seed: 4,
			Runtime: train.RuntimeOptions{Backend: be, Threads: 2}, Checkpoint: train.CheckpointOptions{Dir: dir, Resume: resume}}}
	if dev != nil {
		opt.NewSampler = func(a *spgemm.CSR, so sampling.SamplerOptions) (sampling.Sampler, error) {
			return NewSampler(dev, a, so)
		}
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
	res, err := job.Trainer.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return append([]float32(nil), job.Trainer.Model().Params()...), res
}

// TestLibraryTrainsWithDeviceSampler: train.New with the device's sampler
// (Options.NewSampler, on the emulator) trains exactly what the CPU's
// sampler trains when the backend is the CPU's (sampling is bit for bit the
// CPU's, the rest is the same code): equal losses, accuracies and final
// parameters, for GraphSAGE, GCN (the blocks' degrees), LADIES and FastGCN;
// with the emulator's backend too, within the float32 rounding that
// TestBackendTrainsLikeCPU allows. A device-sampled run's checkpoints
// resume in a CPU-sampled run (the same sampler fingerprint), which ends
// exactly where the uninterrupted run ends.
func TestLibraryTrainsWithDeviceSampler(t *testing.T) {
	if testing.Short() {
		t.Skip("trains on the emulator (slow)")
	}
	dev := NewEmulator(EmulatorOptions{Order: 4242, Exact: true})
	defer dev.Close()
	for _, tc := range []struct {
		arch   gnn.Arch
		method string
	}{{gnn.SAGE, ""}, {gnn.GCN, ""}, {gnn.SAGE, sampling.MethodLADIES}, {gnn.GCN, sampling.MethodFastGCN}} {
		t.Run(fmt.Sprintf("%v/%s", tc.arch, tc.method), func(t *testing.T) {
			want, wantRes := libraryRun(t, tc.arch, tc.method, nil, nil, 3, "", false)
			got, gotRes := libraryRun(t, tc.arch, tc.method, dev, nil, 3, "", false)
			for e := range wantRes.Epochs {
				g, w := gotRes.Epochs[e], wantRes.Epochs[e]
				if g.Loss != w.Loss || g.TrainAcc != w.TrainAcc || g.ValAcc != w.ValAcc || g.TestAcc != w.TestAcc {
					t.Errorf("epoch %d: device sampler %+v; CPU sampler %+v", e, g, w)
				}
			}
			if d := maxRelDiff(got, want); d != 0 {
				t.Errorf("the device-sampled run's parameters differ from the CPU-sampled run's by %.3g; want equal", d)
			}
			if tc.method == "" {
				be := newEmulatorBackend(t)
				onDevice, res := libraryRun(t, tc.arch, tc.method, dev, be, 3, "", false)
				for e := range wantRes.Epochs {
					if g, w := res.Epochs[e].Loss, wantRes.Epochs[e].Loss; g-w > 1e-3*w || w-g > 1e-3*w {
						t.Errorf("epoch %d on the device: loss %v; CPU %v", e, g, w)
					}
				}
				if d := maxRelDiff(onDevice, want); d > 1e-3 {
					t.Errorf("sampled and trained on the device: parameters differ from the CPU's by %.3g", d)
				}
			}
			dir := t.TempDir()
			libraryRun(t, tc.arch, tc.method, dev, nil, 2, dir, false)
			resumed, res := libraryRun(t, tc.arch, tc.method, nil, nil, 3, dir, true)
			if res.ResumedFrom != 2 {
				t.Fatalf("the CPU-sampled run resumed from %d epochs; want 2", res.ResumedFrom)
			}
			if d := maxRelDiff(resumed, want); d != 0 {
				t.Errorf("device-sampled checkpoint resumed with the CPU's sampler: parameters differ from the uninterrupted run's by %.3g", d)
			}
		})
	}
}
