package featurex

import (
	"math"

	"github.com/bulksample/bulksample/spgemm"
)

// Labels copies the labels of ids into dst: dst[r] = labels[ids[r]]. dst must
// have length len(ids). It panics with a spgemm.ShapeError if the lengths
// differ and with a spgemm.IndexError if an id is outside [0, len(labels)).
func Labels(dst []int32, labels []int32, ids []int32) {
	if len(dst) != len(ids) {
		panic(bufferError("Labels", len(ids), 1, len(dst)))
	}
	for r, id := range ids {
		if uint(id) >= uint(len(labels)) {
			panic(indexError("Labels", int(id), len(labels)))
		}
		dst[r] = labels[id]
	}
}

// NormalizeRows scales each row of the n x f row-major features in place so
// that its values sum to 1 (the row normalisation of bag-of-words features
// that the Planetoid protocol applies to Cora and CiteSeer); rows summing to
// 0 (all zero) are left unchanged. Sums are accumulated in float64
// (spgemm.NormalizeVec). It is meant for non-negative features: a row with a
// negative entry can sum to about 0 and be blown up, or change sign, so a
// negative, NaN or infinite entry anywhere makes it return a *RowError naming
// the first such entry, before any row is changed. It costs two passes over
// the features. It panics with a spgemm.ShapeError if f <= 0 or len(features) is
// not a multiple of f.
func NormalizeRows(features []float32, f int) error {
	if f <= 0 || len(features)%f != 0 {
		panic(bufferError("NormalizeRows", len(features)/max(f, 1), f, len(features)))
	}
	for i, v := range features {
		if !(v >= 0) || math.IsInf(float64(v), 1) {
			return &RowError{Op: "NormalizeRows", Row: i / f, Col: i % f, Value: v}
		}
	}
	for r := 0; r < len(features); r += f {
		spgemm.NormalizeVec(features[r : r+f])
	}
	return nil
}
