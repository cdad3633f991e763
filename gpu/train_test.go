package gpu

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/featurex/featurextest"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/train"
)

// trainRun trains GraphSAGE or GCN on ds through gnn's Trainer with be
// (nil: the CPU backend) for epochs epochs, checkpointing into dir (resuming
// from it when resume is set), and returns the final parameters and the
// result.
func trainRun(t *testing.T, ds *dataset.Dataset, arch gnn.Arch, be gnn.Backend, epochs int, dir string, resume bool) ([]float32, *train.Result) {
	return trainDropout(t, ds, arch, be, epochs, dir, resume, 0.5)
}

// trainDropout is trainRun with the given dropout.
func trainDropout(t *testing.T, ds *dataset.Dataset, arch gnn.Arch, be gnn.Backend, epochs int, dir string, resume bool, dropout float32) ([]float32, *train.Result) {
	t.Helper()
	s, err := sampling.NewNodeWise(ds.Adj, sampling.NodeWiseOptions{Fanouts: []int{5, 5}, Seed: 2, Degrees: true})
	if err != nil {
		t.Fatal(err)
	}
	store, err := featurex.NewLocal(ds.Features, ds.NumFeatures, featurex.LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	data := train.Data{Sampler: s, Features: store, Labels: ds.Labels, NumClasses: ds.NumClasses,
		Train: ds.Train, Valid: ds.Valid, Test: ds.Test, Evaluator: &train.FullNeighbour{Adj: ds.Adj, Features: ds.Features}}
	opt := train.TrainerOptions{Model: train.ModelOptions{Arch: arch, Hidden: 16, Dropout: dropout}, Optimizer: train.OptimizerOptions{WeightDecayFirstLayer: true, Adam: gnn.AdamOptions{WeightDecay: 5e-4}}, Plan: train.PlanOptions{BatchSize: 64, BulkSize: 2, Epochs: epochs}, Seed: 4, Runtime: train.RuntimeOptions{Backend: be}, Checkpoint: train.CheckpointOptions{Dir: dir, Resume: resume}}
	tr, err := train.NewTrainer(data, opt)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tr.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return append([]float32(nil), tr.Model().Params()...), res
}

// maxRelDiff returns the largest |a-b|/(1+|b|).
func maxRelDiff(a, b []float32) float64 {
	worst := 0.0
	for i := range b {
		worst = max(worst, math.Abs(float64(a[i])-float64(b[i]))/(1+math.Abs(float64(b[i]))))
	}
	return worst
}

// TestBackendTrainsLikeCPU trains through gnn's Trainer on the emulator and
// on the CPU (GraphSAGE and GCN, dropout, weight decay, full-neighbour
// evaluation): the losses and weights follow each other within float32
// rounding of the products' sums; and checkpoints move between the two: a
// run checkpointed on the device and resumed on the CPU, and one
// checkpointed on the CPU and resumed on the device, end where the
// uninterrupted run ends, within the same rounding.
func TestBackendTrainsLikeCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("trains on the emulator (slow)")
	}
	ds, err := dataset.PlantedPartition(dataset.PlantedPartitionOptions{Nodes: 1200, Classes: 3, Features: 12, Split: "random:0.3,0.2,0.5", Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, arch := range []gnn.Arch{gnn.SAGE, gnn.GCN} {
		t.Run(arch.String(), func(t *testing.T) {
			be := newEmulatorBackend(t)
			want, wantRes := trainRun(t, ds, arch, nil, 3, "", false)
			got, gotRes := trainRun(t, ds, arch, be, 3, "", false)
			for e := range wantRes.Epochs {
				g, w := gotRes.Epochs[e], wantRes.Epochs[e]
				t.Logf("epoch %d: loss %.6f (CPU %.6f), valid %.3f (CPU %.3f)", e, g.Loss, w.Loss, g.ValAcc, w.ValAcc)
				if math.Abs(g.Loss-w.Loss) > 1e-3*w.Loss {
					t.Errorf("epoch %d: loss %v; CPU %v", e, g.Loss, w.Loss)
				}
			}
			if d := maxRelDiff(got, want); d > 1e-3 {
				t.Errorf("weights after 3 epochs differ from the CPU's by %.3g", d)
			}

			// Device to CPU: 2 epochs on the device, the third on the CPU.
			dir := t.TempDir()
			trainRun(t, ds, arch, be, 2, dir, false)
			resumed, res := trainRun(t, ds, arch, nil, 3, dir, true)
			if res.ResumedFrom != 2 {
				t.Fatalf("the CPU run resumed from %d epochs; want 2", res.ResumedFrom)
			}
			if d := maxRelDiff(resumed, want); d > 1e-3 {
				t.Errorf("device checkpoint resumed on the CPU: weights differ from the uninterrupted run's by %.3g", d)
			}
			// CPU to device.
			dir = t.TempDir()
			trainRun(t, ds, arch, nil, 2, dir, false)
			resumed, res = trainRun(t, ds, arch, be, 3, filepath.Clean(dir), true)
			if res.ResumedFrom != 2 {
				t.Fatalf("the device run resumed from %d epochs; want 2", res.ResumedFrom)
			}
			if d := maxRelDiff(resumed, want); d > 1e-3 {
				t.Errorf("CPU checkpoint resumed on the device: weights differ from the uninterrupted run's by %.3g", d)
			}
			// The comparison can fail: one epoch fewer is far off.
			short, _ := trainRun(t, ds, arch, nil, 2, "", false)
			if d := maxRelDiff(short, want); d < 1e-2 {
				t.Errorf("2 and 3 epochs differ by only %.3g: the check above is too weak", d)
			}
		})
	}
}

// TestBackendDataParallel trains GraphSAGE data-parallel on two in-process
// ranks, each with its own device backend (on the emulator), through gnn's
// DataParallel reducer, whose all-reduce stages the gradients through host
// memory: the ranks keep equal weights (CheckReplicas), and without
// dropout (whose masks differ per part) they end where one process on the
// CPU ends, within float32 rounding.
func TestBackendDataParallel(t *testing.T) {
	if testing.Short() {
		t.Skip("trains on the emulator (slow)")
	}
	ds, err := dataset.PlantedPartition(dataset.PlantedPartitionOptions{Nodes: 800, Classes: 3, Features: 12, Split: "random:0.3,0.2,0.5", Seed: 6})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := trainDropout(t, ds, gnn.SAGE, nil, 2, "", false, 0)
	world, err := dist.NewInProcWorld(2, dist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	params := make([][]float32, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for r, c := range world {
		wg.Go(func() {
			errs[r] = func() error {
				be := newEmulatorBackend(t)
				s, err := sampling.NewNodeWise(ds.Adj, sampling.NodeWiseOptions{Fanouts: []int{5, 5}, Seed: 2, Degrees: true})
				if err != nil {
					return err
				}
				store, err := featurex.NewLocal(ds.Features, ds.NumFeatures, featurex.LocalOptions{})
				if err != nil {
					return err
				}
				data := train.Data{Sampler: s, Features: store, Labels: ds.Labels, NumClasses: ds.NumClasses, Train: ds.Train,
					Reducer: train.NewDataParallel(c)}
				tr, err := train.NewTrainer(data, train.TrainerOptions{Model: train.ModelOptions{Arch: gnn.SAGE, Hidden: 16}, Optimizer: train.OptimizerOptions{WeightDecayFirstLayer: true, Adam: gnn.AdamOptions{WeightDecay: 5e-4}}, Plan: train.PlanOptions{BatchSize: 64, BulkSize: 2, Epochs: 2}, Seed: 4, Runtime: train.RuntimeOptions{Backend: be}})
				if err != nil {
					return err
				}
				if _, err := tr.Run(context.Background(), nil); err != nil {
					return err
				}
				params[r] = append([]float32(nil), tr.Model().Params()...)
				return train.CheckReplicas(context.Background(), tr.Model(), c)
			}()
			if errs[r] != nil {
				c.Abort(errs[r])
			}
		})
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	if d := maxRelDiff(params[0], params[1]); d != 0 {
		t.Errorf("the ranks' weights differ by %.3g", d)
	}
	d := maxRelDiff(params[0], want)
	t.Logf("two device ranks against one CPU process: weights differ by %.3g", d)
	if d > 1e-3 {
		t.Errorf("two device ranks end %.3g from one CPU process's weights", d)
	}
}

// TestBackendPredictFreesItsBuffers: full-neighbour inference on a device
// backend frees the buffers it allocates (the layers' outputs for all
// vertices, the uploaded features), so that evaluating after every epoch
// does not grow the device's memory.
func TestBackendPredictFreesItsBuffers(t *testing.T) {
	ds, err := dataset.PlantedPartition(dataset.PlantedPartitionOptions{Nodes: 500, Classes: 3, Features: 12, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	for _, arch := range []gnn.Arch{gnn.SAGE, gnn.GCN} {
		be := newEmulatorBackend(t)
		m, err := gnn.NewModel(gnn.ModelOptions{Arch: arch, Layers: 3, Hidden: 8, InFeatures: ds.NumFeatures, Classes: ds.NumClasses, Backend: be})
		if err != nil {
			t.Fatal(err)
		}
		var free []int64
		for range 3 {
			if _, err := m.Predict(context.Background(), ds.Adj, ds.Features, 100); err != nil {
				t.Fatal(err)
			}
			be.Sync()
			f, _, _ := be.Device().MemoryInfo()
			free = append(free, f)
		}
		if free[1] != free[0] || free[2] != free[0] {
			t.Errorf("%v: free device memory after each of three inferences: %v; want it unchanged", arch, free)
		}
	}
}

// TestBackendErrorEndsTraining: a device call that fails during a step
// (here an allocation past the emulator's memory) ends gnn's Trainer.Run
// with the backend's error, naming the backend and the failing call,
// rather than training on with a NaN loss.
func TestBackendErrorEndsTraining(t *testing.T) {
	ds, err := dataset.PlantedPartition(dataset.PlantedPartitionOptions{Nodes: 600, Classes: 3, Features: 12, Split: "random:0.3,0.2,0.5", Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	dev := NewEmulator(EmulatorOptions{MemoryBytes: 256 << 10}) // the model fits, a step's activations do not
	defer dev.Close()
	be, err := NewBackend(dev, BackendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	s, err := sampling.NewNodeWise(ds.Adj, sampling.NodeWiseOptions{Fanouts: []int{5, 5}, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	store, err := featurex.NewLocal(ds.Features, ds.NumFeatures, featurex.LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := train.NewTrainer(train.Data{Sampler: s, Features: store, Labels: ds.Labels, NumClasses: ds.NumClasses, Train: ds.Train},
		train.TrainerOptions{Model: train.ModelOptions{Arch: gnn.SAGE, Hidden: 256}, Plan: train.PlanOptions{BatchSize: 64, Epochs: 1}, Runtime: train.RuntimeOptions{Backend: be}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = tr.Run(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "compute backend gpu kernels on host emulator") || !strings.Contains(err.Error(), "out of memory") {
		t.Fatalf("Run: %v; want the backend's out-of-memory error", err)
	}
	t.Logf("%v", err)
}

// TestFeaturesStore runs featurex's store conformance kit on Features (the
// host Gather), and trains through gnn's Trainer with the feature matrix
// in device memory (the trainer gathers on the device, BufGatherer) and,
// on the same backend, with the host store: the weights are equal bit for
// bit, the device gather being a copy of the same rows.
func TestFeaturesStore(t *testing.T) {
	dev := NewEmulator(EmulatorOptions{Exact: true})
	defer dev.Close()
	featurextest.Run(t, func(t *testing.T, x []float32, f int) featurex.Store {
		s, err := NewFeatures(dev, x, f)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
	ds, err := dataset.PlantedPartition(dataset.PlantedPartitionOptions{Nodes: 600, Classes: 3, Features: 12, Split: "random:0.3,0.2,0.5", Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	train := func(store featurex.Store, be gnn.Backend) []float32 {
		s, err := sampling.NewNodeWise(ds.Adj, sampling.NodeWiseOptions{Fanouts: []int{5, 5}, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		tr, err := train.NewTrainer(train.Data{Sampler: s, Features: store, Labels: ds.Labels, NumClasses: ds.NumClasses, Train: ds.Train},
			train.TrainerOptions{Model: train.ModelOptions{Arch: gnn.SAGE, Hidden: 16, Dropout: 0.5}, Plan: train.PlanOptions{BatchSize: 64, BulkSize: 2, Epochs: 2}, Seed: 4, Runtime: train.RuntimeOptions{Backend: be}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tr.Run(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		return append([]float32(nil), tr.Model().Params()...)
	}
	newBackend := func() *Backend {
		be, err := NewBackend(dev, BackendOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { be.Close() })
		return be
	}
	onDevice, err := NewFeatures(dev, ds.Features, ds.NumFeatures)
	if err != nil {
		t.Fatal(err)
	}
	defer onDevice.Close()
	host, err := featurex.NewLocal(ds.Features, ds.NumFeatures, featurex.LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	counting := &countingFeatures{Features: onDevice}
	got, want := train(counting, newBackend()), train(host, newBackend())
	if counting.onDevice == 0 || counting.onHost != 0 {
		t.Errorf("the trainer gathered %d times on the device and %d on the host; want every gather on the device", counting.onDevice, counting.onHost)
	}
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("parameter %d: %v with the features on the device, %v gathered on the host", i, got[i], want[i])
		}
	}
	// On the CPU backend the trainer gathers through the host Gather.
	cpu := train(onDevice, nil)
	if d := maxRelDiff(cpu, want); d > 1e-3 {
		t.Errorf("the CPU backend with Features as its store: weights %.3g from the device run's", d)
	}
}

// countingFeatures counts the gathers of a Features by where they run.
type countingFeatures struct {
	*Features
	onDevice, onHost int
}

func (c *countingFeatures) GatherBuf(ctx context.Context, be gnn.Backend, dst gnn.Buf, ids []int32) error {
	c.onDevice++
	return c.Features.GatherBuf(ctx, be, dst, ids)
}

func (c *countingFeatures) Gather(ctx context.Context, dst []float32, ids []int32) error {
	c.onHost++
	return c.Features.Gather(ctx, dst, ids)
}
