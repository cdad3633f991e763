package gnn

import (
	"math"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/option"
)

// TestTrainOptionsValidate: the zero value (every default) is valid, and
// each invalid group field is refused by an *option.Error whose path names
// it within TrainOptions (Optimizer.Adam.Beta1 for the nested AdamOptions),
// with the value in the message.
func TestTrainOptionsValidate(t *testing.T) {
	var zero TrainOptions
	if err := zero.Validate(); err != nil {
		t.Fatalf("zero TrainOptions: %v", err)
	}
	for _, c := range []struct {
		set   func(o *TrainOptions)
		path  string
		value string
	}{
		{func(o *TrainOptions) { o.Model.Arch = Linear + 1 }, "Model.Arch", "3"},
		{func(o *TrainOptions) { o.Model.Hidden = -1 }, "Model.Hidden", "-1"},
		{func(o *TrainOptions) { o.Model.Dropout = 1 }, "Model.Dropout", "1"},
		{func(o *TrainOptions) { o.Model.Dropout = float32(math.NaN()) }, "Model.Dropout", "NaN"},
		{func(o *TrainOptions) { o.Model.GCNNorm = GCNBlockNorm + 1 }, "Model.GCNNorm", ""},
		{func(o *TrainOptions) { o.Optimizer.Adam.LR = math.Inf(1) }, "Optimizer.Adam.LR", "+Inf"},
		{func(o *TrainOptions) { o.Optimizer.Adam.WeightDecay = -0.5 }, "Optimizer.Adam.WeightDecay", "-0.5"},
		{func(o *TrainOptions) { o.Optimizer.Adam.Beta1 = 1.5 }, "Optimizer.Adam.Beta1", "1.5"},
		{func(o *TrainOptions) { o.Optimizer.Adam.Eps = -1 }, "Optimizer.Adam.Eps", "-1"},
		{func(o *TrainOptions) { o.Plan.BatchSize = -1 }, "Plan.BatchSize", "-1"},
		{func(o *TrainOptions) { o.Plan.BulkSize = -2 }, "Plan.BulkSize", "-2"},
		{func(o *TrainOptions) { o.Plan.Epochs = -3 }, "Plan.Epochs", "-3"},
		{func(o *TrainOptions) { o.Runtime.Threads = -1 }, "Runtime.Threads", "-1"},
		{func(o *TrainOptions) { o.Runtime.PipelineDepth = 3 }, "Runtime.PipelineDepth", "3"},
		{func(o *TrainOptions) { o.Checkpoint.Resume = true }, "Checkpoint.Resume", "true"},
	} {
		var o TrainOptions
		c.set(&o)
		err := o.Validate()
		path, e := option.Field(err)
		if e == nil || path != c.path {
			t.Errorf("want field %s refused; got %q (%v)", c.path, path, err)
			continue
		}
		if !strings.Contains(err.Error(), "gnn: ") || !strings.Contains(err.Error(), c.value) {
			t.Errorf("%s: %q does not name the package and the value %q", c.path, err, c.value)
		}
	}
}
