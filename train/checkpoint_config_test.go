package train

import (
	"bytes"
	"context"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/sampling"
)

// TestResumeNamesEveryDifference resumes a checkpoint with options that
// differ from the ones that wrote it: the error names every option that
// differs with both values, in both directions (an option only the
// checkpoint has, such as decayed-params, counts too).
func TestResumeNamesEveryDifference(t *testing.T) {
	ds := smallGraph(t, 300, 3, 6, 8, 0.8, 0.5, 4)
	sampler := nodeWise(t, ds, []int{4, 3}, 7)
	base := TrainerOptions{Model: ModelOptions{Arch: gnn.SAGE, Hidden: 8}, Optimizer: OptimizerOptions{Adam: gnn.AdamOptions{WeightDecay: 5e-4}}, Plan: PlanOptions{BatchSize: 64, BulkSize: 2, Epochs: 1}, Seed: 11}
	for _, tc := range []struct {
		name         string
		write, run   func(*TrainerOptions)
		want, forbid []string
	}{
		{"another model", nil, func(o *TrainerOptions) { o.Model.Arch = gnn.GCN },
			[]string{`model="sage"`, `model="gcn"`, `no gcn-norm`, `gcn-norm="graph"`}, nil},
		{"decay of every layer on a first-layer checkpoint", func(o *TrainerOptions) { o.Optimizer.Adam.DecayedParams = 8 * 8 }, nil,
			[]string{`decayed-params="64"`, `no decayed-params`}, []string{"hidden"}},
		{"two options", nil, func(o *TrainerOptions) { o.Model.Hidden, o.Seed = 16, 12 },
			[]string{`hidden="8", seed="11"; this run has hidden="16", seed="12"`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			opt := base
			opt.Checkpoint.Dir = dir
			if tc.write != nil {
				tc.write(&opt)
			}
			train(t, ds, sampler, opt)
			opt = base
			opt.Checkpoint.Dir, opt.Checkpoint.Resume, opt.Plan.Epochs = dir, true, 2
			if tc.run != nil {
				tc.run(&opt)
			}
			tr, err := NewTrainer(dataOf(t, ds, sampler), opt)
			if err != nil {
				t.Fatal(err)
			}
			_, err = tr.Run(context.Background(), nil)
			if err == nil {
				t.Fatal("resumed a checkpoint written with other options")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v; want it to contain %s", err, w)
				}
			}
			for _, f := range tc.forbid {
				if strings.Contains(err.Error(), f) {
					t.Errorf("err = %v; names %s, which did not change", err, f)
				}
			}
		})
	}
}

// TestResumeVersion3Checkpoint: a checkpoint of version 3, written before
// checkpoints recorded the split and the sampler's fingerprint, resumes
// without those keys; the same file claiming version 4 does not, and the
// error names what it lacks.
func TestResumeVersion3Checkpoint(t *testing.T) {
	ds := smallGraph(t, 300, 3, 6, 8, 0.8, 0.5, 4)
	sampler := nodeWise(t, ds, []int{4, 3}, 7)
	opt := TrainerOptions{Model: ModelOptions{Arch: gnn.SAGE, Hidden: 8}, Plan: PlanOptions{BatchSize: 64, BulkSize: 2, Epochs: 1}, Seed: 11, Checkpoint: CheckpointOptions{Dir: t.TempDir()}}
	train(t, ds, sampler, opt)
	ck := savedCheckpoint(t, opt.Checkpoint.Dir)
	if _, ok := ck.Config[splitKey]; !ok || ck.Config["fanout"] != "4,3" {
		t.Fatalf("version %d config %v: want the split and fanout recorded", ck.Version, ck.Config)
	}
	delete(ck.Config, splitKey)
	delete(ck.Config, "fanout")
	for _, tc := range []struct {
		version int
		want    string // "" for a resume that succeeds
	}{
		{3, ""},
		{4, "no split"},
	} {
		ck.Version = tc.version
		res, _, err := resumeWith(t, ds, sampler, opt, ck)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("version %d: %v", tc.version, err)
		case tc.want == "" && res.ResumedFrom != 1:
			t.Errorf("version %d: resumed from %d, want 1", tc.version, res.ResumedFrom)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("version %d: err %v; want one containing %q", tc.version, err, tc.want)
		}
	}
}

// TestResumeOlderVersions: a checkpoint of version 3 or 4 (gob with the
// float arrays inside) or 5 (the arrays raw after the gob, without the best
// epoch's parameters) resumes, and ends exactly where the same checkpoint
// as version 6 (BestParams raw too) does, with the same best parameters:
// an older checkpoint saved right after its best epoch has that epoch's
// weights as its parameters.
func TestResumeOlderVersions(t *testing.T) {
	ds := smallGraph(t, 300, 3, 6, 8, 0.8, 0.5, 4)
	sampler := nodeWise(t, ds, []int{4, 3}, 7)
	opt := TrainerOptions{Model: ModelOptions{Arch: gnn.SAGE, Hidden: 8}, Plan: PlanOptions{BatchSize: 64, BulkSize: 2, Epochs: 1}, Seed: 11, Checkpoint: CheckpointOptions{Dir: t.TempDir()}, Hooks: Hooks{Notes: io.Discard}}
	train(t, ds, sampler, opt)
	ck := savedCheckpoint(t, opt.Checkpoint.Dir)
	if ck.Version != 6 || !slices.Equal(ck.BestParams, ck.Params) {
		t.Fatalf("saved version %d with %d best parameters; want 6 with the parameters of its one epoch", ck.Version, len(ck.BestParams))
	}
	var params, best [][]float32
	for _, v := range []int{6, 5, 4, 3} {
		c := *ck
		c.Config = maps.Clone(ck.Config)
		c.Version = v
		if v < 6 {
			c.BestParams = nil // what older releases wrote
		}
		if v == 3 {
			delete(c.Config, splitKey) // version 3 did not record it
		}
		res, tr, err := resumeWith(t, ds, sampler, opt, &c)
		if err != nil || res.ResumedFrom != 1 {
			t.Fatalf("version %d: resumed from %v, %v; want 1", v, res, err)
		}
		params = append(params, slices.Clone(tr.Model().Params()))
		best = append(best, slices.Clone(tr.BestParams()))
	}
	for i := 1; i < len(params); i++ {
		if !slices.Equal(params[i], params[0]) {
			t.Errorf("resumed from version %d: parameters differ from version 6's", 6-i)
		}
		if len(best[i]) == 0 || !slices.Equal(best[i], best[0]) {
			t.Errorf("resumed from version %d: best parameters (%d values) differ from version 6's", 6-i, len(best[i]))
		}
	}
}

// resumeWith writes ck as the checkpoint of opt.Checkpoint.Dir, in the layout
// of its version, and runs opt resumed from it up to epoch 2.
func resumeWith(t *testing.T, ds *dataset.Dataset, s sampling.Sampler, opt TrainerOptions, ck *checkpoint) (*Result, *Trainer, error) {
	t.Helper()
	var out bytes.Buffer
	if err := encodeCheckpoint(&out, ck); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(opt.Checkpoint.Dir, CheckpointFile), out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	run := opt
	run.Checkpoint.Resume, run.Plan.Epochs = true, 2
	tr, err := NewTrainer(dataOf(t, ds, s), run)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tr.Run(context.Background(), nil)
	return res, tr, err
}

// savedCheckpoint reads and decodes the checkpoint of dir.
func savedCheckpoint(t *testing.T, dir string) *checkpoint {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, CheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	ck, err := decodeCheckpoint(b)
	if err != nil {
		t.Fatal(err)
	}
	return ck
}
