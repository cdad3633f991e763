package option

import (
	"fmt"
	"testing"
)

func TestError(t *testing.T) {
	err := Errorf("gnn", "TrainOptions", "Plan.Epochs", -2, "want > 0 (or 0 for %d)", 10)
	if want := "gnn: TrainOptions.Plan.Epochs = -2, want > 0 (or 0 for 10)"; err.Error() != want {
		t.Errorf("message %q; want %q", err, want)
	}
	wrapped := fmt.Errorf("run: %w", err)
	if f, e := Field(wrapped); f != "Plan.Epochs" || e == nil || e.Value != -2 {
		t.Errorf("Field = %q, %v", f, e)
	}
	if f, e := Field(fmt.Errorf("plain")); f != "" || e != nil {
		t.Errorf("Field of a plain error = %q, %v", f, e)
	}
	if f, _ := Field(Prefixed(wrapped, "Train")); f != "Train.Plan.Epochs" {
		t.Errorf("Prefixed: field %q", f)
	}
	with := Prefixed(With(err, "Model.Arch"), "Train")
	if _, e := Field(with); e == nil || len(e.WithPaths) != 1 || e.WithPaths[0] != "Train.Model.Arch" || e.Error() != err.Error() {
		t.Errorf("With, Prefixed: %+v", e)
	}
}
