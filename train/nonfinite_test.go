package train

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/gnn"
)

// TestNonFiniteLossStops: a run whose loss turns NaN or infinite stops
// after that epoch with an error naming it, and the checkpoint keeps the
// last finite epoch. Before, NaN features trained on with a NaN loss and
// chance accuracy, and the command exited 0.
func TestNonFiniteLossStops(t *testing.T) {
	tests := []struct {
		name   string
		poison func(features []float32)
		want   string // "" for a finite run
	}{
		{"finite", func([]float32) {}, ""},
		{"NaN features", func(x []float32) {
			for i := 0; i < len(x); i += 7 {
				x[i] = float32(math.NaN())
			}
		}, "epoch 1: the training loss is NaN"},
		{"infinite features", func(x []float32) {
			for i := 0; i < len(x); i += 7 {
				x[i] = float32(math.Inf(1))
			}
		}, "epoch 1: the training loss is NaN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := smallGraph(t, 120, 3, 6, 8, 0.8, 0.5, 4)
			ds.Features = slices.Clone(ds.Features)
			tt.poison(ds.Features)
			dir := t.TempDir()
			opt := TrainerOptions{Model: ModelOptions{Arch: gnn.SAGE, Hidden: 8}, Plan: PlanOptions{BatchSize: 16, BulkSize: 2, Epochs: 3}, Seed: 1, Checkpoint: CheckpointOptions{Dir: dir}}
			tr, err := NewTrainer(dataOf(t, ds, nodeWise(t, ds, []int{4, 3}, 7)), opt)
			if err != nil {
				t.Fatal(err)
			}
			seen := 0
			res, err := tr.Run(context.Background(), func(EpochStats) { seen++ })
			if tt.want == "" {
				if err != nil || len(res.Epochs) != 3 {
					t.Fatalf("finite run: %v after %d epochs", err, len(res.Epochs))
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v; want one containing %q", err, tt.want)
			}
			if seen != 1 || len(res.Epochs) != 1 {
				t.Errorf("reported %d epochs, result has %d; want the failing epoch, once", seen, len(res.Epochs))
			}
			if _, err := os.Stat(filepath.Join(dir, CheckpointFile)); err == nil {
				t.Error("the non-finite epoch was checkpointed")
			}
		})
	}
}
