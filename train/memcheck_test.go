package train

import (
	"strings"
	"testing"

	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/internal/procstat"
)

// TestHiddenBeyondMemory: a hidden width whose parameters cannot fit in the
// machine's memory is an error naming the field, not the runtime's fatal
// out-of-memory error (train --hidden 3000000 on Cora ended that way).
func TestHiddenBeyondMemory(t *testing.T) {
	total := procstat.TotalMemory()
	if total <= 0 {
		t.Skip("the machine's memory is unknown here (/proc/meminfo)")
	}
	huge := int(total / 4) // over a float32 per byte of memory in the first layer alone
	tests := []struct {
		name   string
		hidden int
		want   string // "" for success
	}{
		{"huge", huge, "ModelOptions.Hidden"},
		{"small", 8, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := gnn.NewModel(gnn.ModelOptions{Arch: gnn.SAGE, Layers: 2, Hidden: tt.hidden, InFeatures: 100, Classes: 3})
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("NewModel(Hidden %d): %v; want an error containing %q (or none)", tt.hidden, err, tt.want)
			}
		})
	}
	// The trainer, which adds Adam's moments, refuses it before building
	// the model.
	ds := smallGraph(t, 60, 3, 6, 8, 0.8, 0.5, 4)
	_, err := NewTrainer(dataOf(t, ds, nodeWise(t, ds, []int{4, 3}, 7)), TrainerOptions{Model: ModelOptions{Arch: gnn.SAGE, Hidden: huge}, Plan: PlanOptions{Epochs: 1}})
	if err == nil || !strings.Contains(err.Error(), "TrainerOptions.Model.Hidden") || !strings.Contains(err.Error(), "GiB") {
		t.Errorf("NewTrainer(Hidden %d): %v; want an error naming TrainerOptions.Model.Hidden and the memory", huge, err)
	}
}
