package gnn

import (
	"math"

	"github.com/bulksample/bulksample/spgemm"
)

// CrossEntropy computes the mean cross-entropy of the log-softmax of logits
// (n x classes, row-major) over the rows whose label is >= 0; rows labelled
// -1 (unlabelled) are ignored. It writes the gradient of that mean with
// respect to the logits into dLogits (same length; zero on ignored rows) and
// returns the loss, the number of labelled rows whose arg-max is their label,
// and the number of labelled rows. With no labelled row the loss is 0.
// Sums are accumulated in float64. It panics with a spgemm.ShapeError if the
// lengths do not conform and with a spgemm.IndexError for a label >= classes.
func CrossEntropy(dLogits, logits []float32, classes int, labels []int32) (loss float64, correct, labelled int) {
	n := len(labels)
	if classes <= 0 || len(logits) != n*classes || len(dLogits) != len(logits) {
		panic(spgemm.ShapeError{Op: "gnn.CrossEntropy", ARows: len(logits) / max(classes, 1), ACols: classes, BRows: n, BCols: len(dLogits) / max(classes, 1)})
	}
	for _, y := range labels {
		if y >= int32(classes) {
			panic(spgemm.IndexError{Op: "gnn.CrossEntropy label", Index: int(y), Len: classes})
		}
		if y >= 0 {
			labelled++
		}
	}
	clear(dLogits)
	if labelled == 0 {
		return 0, 0, 0
	}
	inv := 1 / float64(labelled)
	for r, y := range labels {
		if y < 0 {
			continue
		}
		z, d := logits[r*classes:(r+1)*classes], dLogits[r*classes:(r+1)*classes]
		best := argmax(z)
		if best == int(y) {
			correct++
		}
		zmax := float64(z[best])
		var sum float64
		for _, v := range z {
			sum += math.Exp(float64(v) - zmax)
		}
		logSum := zmax + math.Log(sum)
		loss += logSum - float64(z[y])
		for j, v := range z {
			d[j] = float32(math.Exp(float64(v)-logSum) * inv)
		}
		d[y] -= float32(inv)
	}
	return loss * inv, correct, labelled
}

// argmax returns the index of the largest value of z (the first on ties).
func argmax(z []float32) int {
	best := 0
	for j, v := range z {
		if v > z[best] {
			best = j
		}
	}
	return best
}
