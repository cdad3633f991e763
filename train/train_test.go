package train_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/internal/option"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/sampling/distsample"
	"github.com/bulksample/bulksample/spgemm"
	"github.com/bulksample/bulksample/train"
)

// planted returns a small labelled graph with a random split, its
// features made non-negative (the bag-of-words kind that NormFeatures
// normalises; it refuses negative ones).
func planted(t testing.TB) *dataset.Dataset {
	t.Helper()
	ds, err := dataset.PlantedPartition(dataset.PlantedPartitionOptions{Nodes: 400, Classes: 3, Features: 6, AvgDegree: 6, Seed: 5, Split: "random:0.3,0.2,0.5"})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range ds.Features {
		ds.Features[i] = float32(math.Abs(float64(v)))
	}
	return ds
}

// options are the runs of these tests: 2 epochs of a small GraphSAGE (GCN
// with arch) without dropout, so that the data-parallel runs agree with one
// process to float tolerance.
func options(arch gnn.Arch, method string, fanouts ...int) train.Options {
	return train.Options{
		Sampler: sampling.SamplerOptions{Method: method, Fanouts: fanouts},
		Trainer: train.TrainerOptions{Model: train.ModelOptions{Arch: arch, Hidden: 8}, Plan: train.PlanOptions{BatchSize: 40, BulkSize: 3, Epochs: 2},
			Seed: 3, Runtime: train.RuntimeOptions{Threads: 1}},
	}
}

// TestNewEqualsHandAssembly: New trains exactly what the trainer built by
// hand from the same parts trains (the parameters' hash after two epochs),
// for GraphSAGE, GCN (whose node-wise blocks carry the graph's degrees), a
// LADIES sampler on the normalised matrix and the linear model, with the
// features normalised.
func TestNewEqualsHandAssembly(t *testing.T) {
	for _, tc := range []train.Options{
		options(gnn.SAGE, "", 4, 3),
		options(gnn.GCN, "", -1, 5),
		options(gnn.GCN, sampling.MethodLADIES, 60, 60),
		options(gnn.Linear, ""),
	} {
		tc.NormFeatures = true
		tc.Sampler.Normalize = tc.Sampler.Method == sampling.MethodLADIES
		name := fmt.Sprintf("%v/%s", tc.Trainer.Model.Arch, tc.Sampler.Method)
		ds := planted(t)
		job, err := train.New(ds, tc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := job.Trainer.Run(context.Background(), nil); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		hand := planted(t)
		if err := featurex.NormalizeRows(hand.Features, hand.NumFeatures); err != nil {
			t.Fatal(err)
		}
		var s sampling.Sampler = train.SeedsOnly{}
		if tc.Trainer.Model.Arch != gnn.Linear {
			so := tc.Sampler
			so.Seed, so.Threads, so.Degrees = tc.Trainer.Seed, 1, tc.Trainer.Model.Arch == gnn.GCN && so.Method == ""
			if s, err = sampling.NewSampler(hand.Adj, so); err != nil {
				t.Fatal(err)
			}
		}
		store, err := featurex.NewLocal(hand.Features, hand.NumFeatures, featurex.LocalOptions{})
		if err != nil {
			t.Fatal(err)
		}
		tr, err := train.NewTrainer(train.Data{Sampler: s, Features: store, Labels: hand.Labels, NumClasses: hand.NumClasses,
			Train: hand.Train, Valid: hand.Valid, Test: hand.Test, Evaluator: &train.FullNeighbour{Adj: hand.Adj, Features: hand.Features}}, tc.Trainer)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tr.Run(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		if got, want := job.Trainer.Model().ParamHash(), tr.Model().ParamHash(); got != want || !job.Info.Normalized {
			t.Errorf("%s: parameters %016x (normalised %v); by hand %016x", name, got, job.Info.Normalized, want)
		}
	}
}

// TestNewDataErrors: data that cannot be trained on are errors naming
// Options.Name: a *SplitError for a split without a set.
func TestNewDataErrors(t *testing.T) {
	ds := planted(t)
	ds.Valid = nil
	opt := options(gnn.SAGE, "", 3)
	opt.Name = "p.bsn"
	_, err := train.New(ds, opt)
	var se *train.SplitError
	if !errors.As(err, &se) || se.Valid != 0 || !strings.Contains(err.Error(), "p.bsn: the split has") {
		t.Errorf("no valid set: %v", err)
	}
	ds = planted(t)
	ds.Features, ds.NumFeatures = nil, 0
	if _, err := train.New(ds, opt); err == nil || !strings.Contains(err.Error(), "p.bsn has no node features") {
		t.Errorf("no features: %v", err)
	}
}

// TestOptionsValidate: a bad option is an *option.Error whose field is its
// path in Options.
func TestOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		edit  func(*train.Options)
		field string
		dist  bool
	}{
		{func(o *train.Options) { o.Trainer.Plan.Epochs = -1 }, "Trainer.Plan.Epochs", false},
		{func(o *train.Options) { o.Sampler.Fanouts = []int{3, 0} }, "Sampler.Fanouts[1]", false},
		{func(o *train.Options) { o.Sampler.Semibulk = 2 }, "Sampler.Semibulk", false},
		{func(o *train.Options) { o.Trainer.Model.Arch, o.Sampler.Method = gnn.Linear, sampling.MethodLADIES }, "Sampler.Method", false},
		{func(o *train.Options) { o.Dist.Fetch = distsample.FetchPush; o.Sampler.Method = sampling.MethodFastGCN }, "Dist.Fetch", true},
		{func(o *train.Options) { o.Dist.Replication = -2 }, "Dist.Replication", true},
		{func(o *train.Options) { o.Trainer.Model.Arch, o.Trainer.Model.GCNNorm = gnn.GCN, gnn.GCNBlockNorm }, "Dist.Eval", true},
		{func(o *train.Options) { o.NewSampler = sampling.NewSampler }, "NewSampler", true},
	} {
		opt := options(gnn.SAGE, "", 3)
		tc.edit(&opt)
		err := opt.Validate()
		if tc.dist {
			if err != nil {
				t.Errorf("%s: a single process refuses it: %v", tc.field, err)
			}
			err = opt.ValidateDist()
		}
		if f, _ := option.Field(err); f != tc.field {
			t.Errorf("err = %v (field %q); want field %s", err, f, tc.field)
		}
	}
}

// runDist runs opt on p in-process ranks with replication c, each rank's
// data from src(rank), and returns rank 0's result and parameter hash
// after checking that every rank's parameters are rank 0's.
func runDist(t *testing.T, p int, opt train.Options, src func(r int) train.Source) (*train.Result, uint64, []train.DistInfo) {
	t.Helper()
	var res *train.Result
	var hash uint64
	infos := make([]train.DistInfo, p)
	var mu sync.Mutex
	err := dist.RunInProc(context.Background(), p, dist.Options{}, func(ctx context.Context, w dist.Comm) error {
		j, err := train.NewDist(ctx, w, src(w.Rank()), opt)
		if err != nil {
			return err
		}
		defer j.Close()
		r, err := j.Trainer.Run(ctx, nil)
		if err != nil {
			return err
		}
		if err := j.CheckReplicas(ctx); err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		infos[w.Rank()] = j.Dist
		if w.Rank() == 0 {
			res, hash = r, j.Trainer.Model().ParamHash()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return res, hash, infos
}

// TestNewDistSources: the ranks train the same parameters, bit for bit,
// whether each reads its blocks of a native file (Path, block-only), of a
// scipy .npz, gets them from a dataset every rank holds (Whole) or from
// blocks it loaded itself (Blocks), and on a Replicated layout; GCN with
// the graph's degrees and LADIES alike; the evaluation gathered on rank 0
// gives the distributed one's accuracies.
func TestNewDistSources(t *testing.T) {
	ds := planted(t)
	dir := t.TempDir()
	native, npz := filepath.Join(dir, "p.bsn"), filepath.Join(dir, "p.npz")
	for _, p := range []string{native, npz} {
		if err := dataset.Save(p, ds); err != nil {
			t.Fatal(err)
		}
	}
	for _, base := range []train.Options{options(gnn.SAGE, "", 4, 3), options(gnn.GCN, sampling.MethodLADIES, 50, 50)} {
		base.Sampler.Normalize = base.Sampler.Method == sampling.MethodLADIES
		base.NormFeatures = true
		for _, pc := range [][2]int{{2, 1}, {4, 2}} {
			opt := base
			opt.Dist.Replication = pc[1]
			name := fmt.Sprintf("%v %s p=%d c=%d", opt.Trainer.Model.Arch, opt.Sampler.Method, pc[0], pc[1])
			want, wantHash, infos := runDist(t, pc[0], opt, func(int) train.Source { return train.Path(native, nil) })
			wantFetch := "auto" // node-wise: pull or push per layer
			if opt.Sampler.Method == sampling.MethodLADIES {
				wantFetch = "pull"
			}
			if !infos[0].BlockOnly || !infos[0].FeaturesDistributed || infos[0].Fetch != wantFetch {
				t.Errorf("%s, native file: %+v; want block-only, distributed features, %s", name, infos[0], wantFetch)
			}
			check := func(what string, o train.Options, src func(r int) train.Source) {
				got, hash, _ := runDist(t, pc[0], o, src)
				if hash != wantHash || got.TestAcc != want.TestAcc || got.BestValAcc != want.BestValAcc {
					t.Errorf("%s, %s: parameters %016x, test %.4f, valid %.4f; native blocks: %016x, %.4f, %.4f",
						name, what, hash, got.TestAcc, got.BestValAcc, wantHash, want.TestAcc, want.BestValAcc)
				}
			}
			check("scipy .npz", opt, func(int) train.Source { return train.Path(npz, nil) })
			check("whole dataset", opt, func(int) train.Source { return train.Whole(planted(t)) })
			shared := planted(t) // one dataset for every in-process rank
			check("one shared dataset", opt, func(int) train.Source { return train.Whole(shared) })
			check("blocks", opt, func(r int) train.Source { return blocksOf(t, native, pc[0], opt.Dist.Replication, r) })
			rep := opt
			rep.Dist.Layout = distsample.Replicated
			check("replicated", rep, func(int) train.Source { return train.Path(native, nil) })
			gathered := opt
			gathered.Dist.Eval = train.EvalGathered
			check("gathered evaluation", gathered, func(int) train.Source { return train.Path(native, nil) })
		}
	}
}

// blocksOf loads rank r's blocks of path for p ranks with replication c,
// as a library user would: the rows of the grid's MyRows.
func blocksOf(t *testing.T, path string, p, c, r int) train.Source {
	t.Helper()
	rows := func(n int) (int, int) {
		blocks := p / c
		return dist.BlockRange(n, blocks, r/c)
	}
	ctx := context.Background()
	g, _, err := dataset.LoadRowBlock(ctx, path, rows, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := dataset.LoadFeatureBlock(ctx, path, rows)
	if err != nil {
		t.Fatal(err)
	}
	l, _, err := dataset.LoadLabelBlock(ctx, path, rows, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close(); f.Close() })
	return train.Blocks(g, f, l)
}

// TestNewDistOtherData: a rank given other data of the same shape (another
// split) ends the job with an error naming what differs from rank 0's.
func TestNewDistOtherData(t *testing.T) {
	opt := options(gnn.SAGE, "", 3)
	err := dist.RunInProc(context.Background(), 2, dist.Options{}, func(ctx context.Context, w dist.Comm) error {
		ds := planted(t)
		if w.Rank() == 1 {
			ds.Train = ds.Train[1:]
		}
		j, err := train.NewDist(ctx, w, train.Whole(ds), opt)
		if err == nil {
			j.Close()
		}
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "rank 1: ") || !strings.Contains(err.Error(), "differs from rank 0's: split ") {
		t.Errorf("another split on rank 1: %v", err)
	}
}

// closingSampler is a sampler of Options.NewSampler that counts its calls
// and its Close.
type closingSampler struct {
	sampling.Sampler
	opt    sampling.SamplerOptions
	calls  int
	closed int
}

func (c *closingSampler) Close() error { c.closed++; return nil }

// TestNewSamplerHook: New builds the sampler with Options.NewSampler, from
// the options it gives sampling.NewSampler (the run's seed and threads,
// GCN's degrees), and Job.Close closes it; a run sampled by a wrapper of
// the CPU's sampler trains what the default run trains; the hook's error
// names the data.
func TestNewSamplerHook(t *testing.T) {
	opt := options(gnn.GCN, "", 4, 3)
	job, err := train.New(planted(t), opt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := job.Trainer.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	cs := &closingSampler{}
	opt.NewSampler = func(a *spgemm.CSR, so sampling.SamplerOptions) (sampling.Sampler, error) {
		s, err := sampling.NewSampler(a, so)
		cs.Sampler, cs.opt = s, so
		cs.calls++
		return cs, err
	}
	hooked, err := train.New(planted(t), opt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hooked.Trainer.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if got, want := hooked.Trainer.Model().ParamHash(), job.Trainer.Model().ParamHash(); got != want {
		t.Errorf("hooked sampler: parameters %016x; default %016x", got, want)
	}
	if cs.calls != 1 || cs.opt.Seed != opt.Trainer.Seed || cs.opt.Threads != 1 || !cs.opt.Degrees {
		t.Errorf("the hook was called %d times with %+v; want once with the run's seed, threads and degrees", cs.calls, cs.opt)
	}
	if err := hooked.Close(); err != nil || cs.closed != 1 {
		t.Errorf("Job.Close: %v, the sampler closed %d times; want once", err, cs.closed)
	}
	opt.Name = "p.bsn"
	opt.NewSampler = func(*spgemm.CSR, sampling.SamplerOptions) (sampling.Sampler, error) {
		return nil, errors.New("no device")
	}
	if _, err := train.New(planted(t), opt); err == nil || !strings.Contains(err.Error(), "p.bsn: no device") {
		t.Errorf("the hook's error: %v", err)
	}
}
