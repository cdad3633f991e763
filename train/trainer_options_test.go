package train

import (
	"math"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/internal/option"
)

// TestTrainerOptionsValidate: the zero value (every default) is valid, and
// each invalid group field is refused by an *option.Error whose path names
// it within TrainerOptions (Optimizer.Adam.Beta1 for the nested AdamOptions),
// with the value in the message.
func TestTrainerOptionsValidate(t *testing.T) {
	var zero TrainerOptions
	if err := zero.Validate(); err != nil {
		t.Fatalf("zero TrainerOptions: %v", err)
	}
	for _, c := range []struct {
		set   func(o *TrainerOptions)
		path  string
		value string
	}{
		{func(o *TrainerOptions) { o.Model.Arch = gnn.Linear + 1 }, "Model.Arch", "3"},
		{func(o *TrainerOptions) { o.Model.Hidden = -1 }, "Model.Hidden", "-1"},
		{func(o *TrainerOptions) { o.Model.Dropout = 1 }, "Model.Dropout", "1"},
		{func(o *TrainerOptions) { o.Model.Dropout = float32(math.NaN()) }, "Model.Dropout", "NaN"},
		{func(o *TrainerOptions) { o.Model.GCNNorm = gnn.GCNBlockNorm + 1 }, "Model.GCNNorm", ""},
		{func(o *TrainerOptions) { o.Optimizer.Adam.LR = math.Inf(1) }, "Optimizer.Adam.LR", "+Inf"},
		{func(o *TrainerOptions) { o.Optimizer.Adam.WeightDecay = -0.5 }, "Optimizer.Adam.WeightDecay", "-0.5"},
		{func(o *TrainerOptions) { o.Optimizer.Adam.Beta1 = 1.5 }, "Optimizer.Adam.Beta1", "1.5"},
		{func(o *TrainerOptions) { o.Optimizer.Adam.Eps = -1 }, "Optimizer.Adam.Eps", "-1"},
		{func(o *TrainerOptions) { o.Plan.BatchSize = -1 }, "Plan.BatchSize", "-1"},
		{func(o *TrainerOptions) { o.Plan.BulkSize = -2 }, "Plan.BulkSize", "-2"},
		{func(o *TrainerOptions) { o.Plan.Epochs = -3 }, "Plan.Epochs", "-3"},
		{func(o *TrainerOptions) { o.Runtime.Threads = -1 }, "Runtime.Threads", "-1"},
		{func(o *TrainerOptions) { o.Runtime.PipelineDepth = 3 }, "Runtime.PipelineDepth", "3"},
		{func(o *TrainerOptions) { o.Checkpoint.Resume = true }, "Checkpoint.Resume", "true"},
	} {
		var o TrainerOptions
		c.set(&o)
		err := o.Validate()
		path, e := option.Field(err)
		if e == nil || path != c.path {
			t.Errorf("want field %s refused; got %q (%v)", c.path, path, err)
			continue
		}
		// The package whose options hold the field: Adam's are gnn's.
		pkg := "train: "
		if strings.HasPrefix(c.path, "Optimizer.Adam.") && !strings.Contains(err.Error(), "TrainerOptions") {
			pkg = "gnn: "
		}
		if !strings.Contains(err.Error(), pkg) || !strings.Contains(err.Error(), c.value) {
			t.Errorf("%s: %q does not name the package and the value %q", c.path, err, c.value)
		}
	}
}
