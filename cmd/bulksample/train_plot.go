package main

import (
	"context"
	"fmt"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/bulksample/bulksample/internal/atomicfile"
	"github.com/bulksample/bulksample/train"
)

// plotCurves writes the training curves to a PNG file: the training loss
// in the upper panel and the train, valid and test accuracies in the lower
// one, over the same epoch axis. (On one axis the loss, often near 2 to 10,
// flattened the accuracies in [0, 1].)
func plotCurves(path string, res *train.Result) error {
	loss, acc, err := curvePlots(res)
	if err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	img := vgimg.New(8*vg.Inch, 7*vg.Inch)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadX: vg.Millimeter, PadY: 4 * vg.Millimeter,
		PadTop: 2 * vg.Millimeter, PadBottom: 2 * vg.Millimeter, PadLeft: 2 * vg.Millimeter, PadRight: 4 * vg.Millimeter}
	canvases := plot.Align([][]*plot.Plot{{loss}, {acc}}, tiles, dc)
	loss.Draw(canvases[0][0])
	acc.Draw(canvases[1][0])
	// Through a temporary file, so that a failed write keeps the previous plot.
	err = atomicfile.Write(context.Background(), path, func(w io.Writer) error {
		_, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(w)
		return err
	})
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	return nil
}

// curvePlots returns the two panels of plotCurves: the loss per epoch, and
// on a fixed [0, 1] axis the minibatches' training accuracy per epoch and
// the metric that ranks the epochs (res.Metric) on the valid and test sets
// per evaluated epoch (--eval-every). Both span the same epochs.
func curvePlots(res *train.Result) (loss, acc *plot.Plot, err error) {
	series := func(f func(train.EpochStats) float64) plotter.XYs {
		xy := make(plotter.XYs, len(res.Epochs))
		for i, st := range res.Epochs {
			xy[i].X, xy[i].Y = float64(st.Epoch+1), f(st)
		}
		return xy
	}
	evaluated := func(f func(train.EpochStats) float64) plotter.XYs {
		var xy plotter.XYs
		for _, st := range res.Epochs {
			if y := f(st); st.Evaluated && !math.IsNaN(y) {
				xy = append(xy, plotter.XY{X: float64(st.Epoch + 1), Y: y})
			}
		}
		return xy
	}
	loss = plot.New()
	loss.Title.Text = "bulksample train"
	loss.Y.Label.Text = "training loss"
	loss.Legend.Top = true // the loss falls: the upper right stays clear
	line, points, err := plotter.NewLinePoints(series(func(s train.EpochStats) float64 { return s.Loss }))
	if err != nil {
		return nil, nil, err
	}
	// Black, so that it is not taken for the train accuracy (plotutil's
	// first colour) below.
	line.Color, points.Color, points.Shape = color.Black, color.Black, draw.CircleGlyph{}
	loss.Add(line, points)
	loss.Legend.Add("training loss", line, points)
	acc = plot.New()
	acc.X.Label.Text = "epoch"
	m := res.Metric.For(0) // MetricAuto (a Result not from a run) reads as accuracy
	acc.Y.Label.Text = m.Title()
	acc.Legend.Top = false // the accuracies rise: the lower right stays clear
	curves := []any{"train accuracy (minibatches)", series(func(s train.EpochStats) float64 { return s.TrainAcc })}
	for _, c := range []struct {
		name string
		f    func(train.EpochStats) float64
	}{
		{"valid " + m.Title(), func(s train.EpochStats) float64 { return s.Valid.Value(m) }},
		{"test " + m.Title(), func(s train.EpochStats) float64 { return s.Test.Value(m) }},
	} {
		if xy := evaluated(c.f); len(xy) > 0 {
			curves = append(curves, c.name, xy)
		}
	}
	if err := plotutil.AddLinePoints(acc, curves...); err != nil {
		return nil, nil, err
	}
	acc.Y.Min, acc.Y.Max = 0, 1
	// One epoch axis for both panels.
	lo, hi := min(loss.X.Min, acc.X.Min), max(loss.X.Max, acc.X.Max)
	loss.X.Min, loss.X.Max, acc.X.Min, acc.X.Max = lo, hi, lo, hi
	return loss, acc, nil
}
