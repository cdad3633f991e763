package featurex

import (
	"runtime"
	"sync"

	"github.com/bulksample/bulksample/spgemm"
)

// minParallelFloats is the copy size under which Gather stays on one
// goroutine: below about 64 KiB the cost of starting goroutines exceeds the
// copy itself.
const minParallelFloats = 16 << 10

// Gather copies the feature rows of ids into dst: row r of dst (length f) is
// row ids[r] of features, an n x f row-major array. dst must have length
// len(ids)*f; it is overwritten. The copy is split into contiguous ranges of
// ids over up to GOMAXPROCS goroutines when it is large.
//
// Gather panics with a ShapeError if f < 0, len(features) is not a multiple
// of f or len(dst) != len(ids)*f, and with an IndexError if an id is outside
// [0, n).
func Gather(dst []float32, features []float32, f int, ids []int32) {
	if f < 0 || len(dst) != len(ids)*f || (f > 0 && len(features)%f != 0) {
		panic(spgemm.ShapeError{Op: "featurex.Gather", ARows: len(features) / max(f, 1), ACols: f, BRows: len(ids), BCols: len(dst) / max(f, 1)})
	}
	if f == 0 {
		return
	}
	n := len(features) / f
	for _, id := range ids {
		if uint(id) >= uint(n) {
			panic(spgemm.IndexError{Op: "featurex.Gather", Index: int(id), Len: n})
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(dst)/minParallelFloats)
	if workers <= 1 {
		// A direct call, so that the serial path allocates nothing (a
		// closure shared with the goroutines below would escape).
		gatherRows(dst, features, f, ids, 0, len(ids))
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*len(ids)/workers, (w+1)*len(ids)/workers
		wg.Go(func() { gatherRows(dst, features, f, ids, lo, hi) })
	}
	wg.Wait()
}

// gatherRows copies the feature rows of ids[lo:hi] into rows lo..hi-1 of
// dst.
func gatherRows(dst, features []float32, f int, ids []int32, lo, hi int) {
	for r := lo; r < hi; r++ {
		src := int(ids[r]) * f
		copy(dst[r*f:(r+1)*f], features[src:src+f])
	}
}

// Labels copies the labels of ids into dst: dst[r] = labels[ids[r]]. dst must
// have length len(ids). It panics with a ShapeError if the lengths differ and
// with an IndexError if an id is outside [0, len(labels)).
func Labels(dst []int32, labels []int32, ids []int32) {
	if len(dst) != len(ids) {
		panic(spgemm.ShapeError{Op: "featurex.Labels", ARows: len(labels), ACols: 1, BRows: len(ids), BCols: len(dst)})
	}
	for r, id := range ids {
		if uint(id) >= uint(len(labels)) {
			panic(spgemm.IndexError{Op: "featurex.Labels", Index: int(id), Len: len(labels)})
		}
		dst[r] = labels[id]
	}
}

// NormalizeRows scales each row of the n x f row-major features in place so
// that its values sum to 1 (the row normalisation of bag-of-words features
// that the Planetoid protocol applies to Cora and CiteSeer); rows summing to
// 0 are left unchanged. Sums are accumulated in float64. It panics with a
// ShapeError if f <= 0 or len(features) is not a multiple of f.
func NormalizeRows(features []float32, f int) {
	if f <= 0 || len(features)%f != 0 {
		panic(spgemm.ShapeError{Op: "featurex.NormalizeRows", ARows: len(features) / max(f, 1), ACols: f, BRows: len(features), BCols: f})
	}
	for r := 0; r < len(features); r += f {
		row := features[r : r+f]
		var s float64
		for _, v := range row {
			s += float64(v)
		}
		if s == 0 {
			continue
		}
		for j, v := range row {
			row[j] = float32(float64(v) / s)
		}
	}
}
