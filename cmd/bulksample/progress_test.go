package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/train"
)

// TestProgressRate: the epoch's bar counts the minibatches, and the -v
// progress lines show no rate after the first minibatch (which would be
// one minibatch over a few microseconds), and from the second on the rate
// of the minibatches after the first.
func TestProgressRate(t *testing.T) {
	var buf bytes.Buffer
	p := newEpochProgress(&buf, io.Discard, 3)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := t0
	p.now = func() time.Time { return clock }
	p.minibatch(0, 1, 100)
	if out := buf.String(); strings.Contains(out, "/s") || !strings.Contains(out, "epoch 1/3, minibatches [") || !strings.Contains(out, "/100 ") {
		t.Errorf("first tick %q; want the epoch's bar with the count and no rate", out)
	}
	p.done()
	clock = t0.Add(500 * time.Millisecond)
	if got, want := p.rate(2, 100), ", 2 minibatches/s, 49s left"; got != want {
		t.Errorf("after 2 of 100 minibatches, the second 0.5 s after the first: %q; want %q", got, want)
	}
	clock = t0.Add(2 * time.Second)
	if got, want := p.rate(11, 100), ", 5 minibatches/s, 18s left"; got != want {
		t.Errorf("after 11 of 100 minibatches in 2 s after the first: %q; want %q", got, want)
	}
}

// TestCurvePlots: --plot draws the loss and the accuracies in two panels
// sharing the epoch axis, the accuracies on [0, 1] whatever the loss.
func TestCurvePlots(t *testing.T) {
	res := &train.Result{}
	for e := range 5 {
		res.Epochs = append(res.Epochs, train.EpochStats{Epoch: e, Loss: 9 - float64(e), TrainAcc: 0.2 + 0.1*float64(e), ValAcc: 0.3, TestAcc: 0.25,
			Evaluated: e%2 == 0, Valid: gnn.Measures{Accuracy: 0.3}, Test: gnn.Measures{Accuracy: 0.25}})
	}
	loss, acc, err := curvePlots(res)
	if err != nil {
		t.Fatal(err)
	}
	if loss.Y.Min != 5 || loss.Y.Max != 9 {
		t.Errorf("loss panel's y axis [%g, %g]; want the loss's range [5, 9]", loss.Y.Min, loss.Y.Max)
	}
	if acc.Y.Min != 0 || acc.Y.Max != 1 {
		t.Errorf("accuracy panel's y axis [%g, %g]; want [0, 1]", acc.Y.Min, acc.Y.Max)
	}
	if loss.X.Min != 1 || loss.X.Max != 5 || acc.X.Min != loss.X.Min || acc.X.Max != loss.X.Max {
		t.Errorf("epoch axes [%g, %g] and [%g, %g]; want both [1, 5]", loss.X.Min, loss.X.Max, acc.X.Min, acc.X.Max)
	}
	// TestTrainCLI renders the two panels to a PNG through --plot.
}
