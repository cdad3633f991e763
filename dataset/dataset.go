package dataset

import (
	"fmt"
	"runtime/debug"
	"slices"

	"github.com/bulksample/bulksample/internal/hugemem"
	"github.com/bulksample/bulksample/internal/par"
	"github.com/bulksample/bulksample/spgemm"
)

// Dataset is a graph with node features, labels and a train/valid/test split,
// as GNN training consumes it.
type Dataset struct {
	Name string

	// Adj is the n x n adjacency: row v lists the vertices v aggregates from
	// (its in-neighbours; symmetric for undirected graphs). Its values are the
	// edge weights, 1 for unweighted graphs.
	Adj *spgemm.CSR
	// Weighted reports whether Adj's values are meaningful edge weights.
	Weighted bool

	// Features is n x NumFeatures, row-major; nil when the dataset has none.
	Features    []float32
	NumFeatures int
	// SparseFeatures is the n x NumFeatures feature matrix in CSR when the
	// source stores features sparsely (bag-of-words, MUSAE's JSON); Features
	// is then nil. Values are the stored feature values (1 for binary).
	SparseFeatures *spgemm.CSR

	// Labels has one class id per vertex, -1 for unlabelled vertices; nil
	// when the dataset has no labels.
	Labels     []int32
	NumClasses int

	// Train, Valid and Test are vertex ids, each sorted ascending.
	Train, Valid, Test []int32

	// Relabel records the vertex relabelling the graph went through when
	// it was converted or generated (see Relabel); nil when its ids are
	// the source's.
	Relabel *Relabelling

	// release unmaps the file that a native load mapped; nil otherwise.
	release func() error
	// mem holds the large arrays that a loader or generator built, outside
	// the Go heap on huge pages (see settle); nil when there are none.
	mem *hugemem.Arena
}

// NumNodes returns the number of vertices.
func (d *Dataset) NumNodes() int {
	if d.Adj == nil {
		return 0
	}
	return d.Adj.Rows
}

// Close releases the memory of the arrays that Load or a generator gave d
// (the mapping of a native file, and the huge-page memory that other formats
// are loaded into); its arrays, and slices of them, must not be used
// afterwards. A Dataset that is never closed keeps that memory until the
// process exits. Closing twice does nothing.
func (d *Dataset) Close() error {
	err := d.mem.Release()
	d.mem = nil
	if d.release != nil {
		r := d.release
		d.release = nil
		if rerr := r(); err == nil {
			err = rerr
		}
	}
	return err
}

// Validate checks that d is consistent: a valid square adjacency, features
// of n x NumFeatures, one label per node in [-1, NumClasses), and split ids
// in range, sorted and unique. It returns an error naming the first problem.
// It costs O(n·f + nnz).
func (d *Dataset) Validate() error {
	if d.Adj == nil {
		return fmt.Errorf("dataset: no adjacency")
	}
	if err := d.Adj.Validate(); err != nil {
		return fmt.Errorf("adjacency: %w", err)
	}
	if err := d.validateAttributes(); err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	return nil
}

// validateAttributes is Validate without the O(nnz) check of Adj's rows,
// which must have passed ValidateOffsets. Its errors have no package prefix:
// Validate adds "dataset: ", the native reader "dataset: bad input: ".
func (d *Dataset) validateAttributes() error {
	n := d.Adj.Rows
	if d.Adj.Cols != n {
		return fmt.Errorf("adjacency is %d x %d, not square", n, d.Adj.Cols)
	}
	if sf := d.SparseFeatures; sf != nil {
		switch {
		case d.Features != nil:
			return fmt.Errorf("both dense (%d values) and sparse features", len(d.Features))
		case sf.Rows != n || sf.Cols != d.NumFeatures:
			return fmt.Errorf("sparse features are %d x %d for %d nodes x %d features", sf.Rows, sf.Cols, n, d.NumFeatures)
		}
		if err := sf.Validate(); err != nil {
			return fmt.Errorf("sparse features: %w", err)
		}
	} else if d.NumFeatures < 0 || int64(len(d.Features)) != int64(n)*int64(d.NumFeatures) {
		return fmt.Errorf("%d feature values for %d nodes x %d features", len(d.Features), n, d.NumFeatures)
	}
	if d.Labels != nil {
		if len(d.Labels) != n {
			return fmt.Errorf("%d labels for %d nodes", len(d.Labels), n)
		}
		for v, l := range d.Labels {
			if l < -1 || int(l) >= d.NumClasses {
				return fmt.Errorf("node %d: label %d outside [-1, %d)", v, l, d.NumClasses)
			}
		}
	}
	if d.Relabel != nil {
		if err := d.Relabel.validate(n); err != nil {
			return err
		}
	}
	for _, s := range []struct {
		name string
		ids  []int32
	}{{"train", d.Train}, {"valid", d.Valid}, {"test", d.Test}} {
		for i, v := range s.ids {
			if uint32(v) >= uint32(n) {
				return fmt.Errorf("%s split: entry %d: node %d outside [0, %d)", s.name, i, v, n)
			}
			if i > 0 && v <= s.ids[i-1] {
				return fmt.Errorf("%s split: not sorted and unique at entry %d", s.name, i)
			}
		}
	}
	return nil
}

// parallelParts runs fn concurrently over at most t contiguous parts
// [lo, hi) of [0, n), n = len(offsets)-1, cut where the non-decreasing
// offsets (a CSR's indptr) reach equal shares of offsets[n], so that a
// heavy range does not keep one goroutine busy alone (par.Do); it returns
// when every part is done.
func parallelParts(offsets []int64, t int, fn func(lo, hi int)) {
	n := len(offsets) - 1
	total := offsets[n] - offsets[0]
	bound := func(w int) int {
		if w >= t {
			return n
		}
		hi, _ := slices.BinarySearch(offsets, offsets[0]+total*int64(w)/int64(t))
		return min(hi, n)
	}
	par.Do(t, func(w int) {
		if lo, hi := bound(w), max(bound(w+1), bound(w)); hi > lo {
			fn(lo, hi)
		}
	})
}

// settle moves d's large arrays (the adjacency's, the features, labels and
// split) that live on the Go heap into huge-page memory that d owns, so
// that kernels read them as fast as a native file's mapping whatever format
// they came from (see package hugemem for why). Arrays still in a native
// file's mapping must not be moved: adjOnly moves only the adjacency.
//
// The heap copies left behind are garbage: the heap is collected and its
// free memory returned to the system at once, so that the collector paces
// itself on the small heap that remains (as after a native load) instead of
// on the graph, and the process holds the graph once.
func (d *Dataset) settle(threads int, adjOnly bool) {
	mem := d.mem
	if mem == nil {
		mem = new(hugemem.Arena)
	}
	before := mem.Bytes()
	threads = par.Threads(threads)
	if d.Adj != nil {
		a := *d.Adj // a fresh CSR: others may hold the old one
		a.Indptr = hugemem.Move(mem, a.Indptr, threads)
		a.Indices = hugemem.Move(mem, a.Indices, threads)
		a.Data = hugemem.Move(mem, a.Data, threads)
		d.Adj = &a
	}
	if !adjOnly {
		d.Features = hugemem.Move(mem, d.Features, threads)
		d.Labels = hugemem.Move(mem, d.Labels, threads)
		d.Train = hugemem.Move(mem, d.Train, threads)
		d.Valid = hugemem.Move(mem, d.Valid, threads)
		d.Test = hugemem.Move(mem, d.Test, threads)
	}
	if mem.Bytes() > before {
		d.mem = mem
		debug.FreeOSMemory()
	}
}

// freeReplaced gives back to mem the arrays of old, a matrix built in mem,
// that its replacement m does not share.
func freeReplaced(mem *hugemem.Arena, old, m *spgemm.CSR) {
	if mem == nil {
		return
	}
	if !sameArray(old.Indptr, m.Indptr) {
		hugemem.Free(mem, old.Indptr)
	}
	if !sameArray(old.Indices, m.Indices) {
		hugemem.Free(mem, old.Indices)
	}
	if !sameArray(old.Data, m.Data) {
		hugemem.Free(mem, old.Data)
	}
}

// sameArray reports whether x and y start at the same element.
func sameArray[T any](x, y []T) bool {
	return cap(x) > 0 && cap(y) > 0 && &x[:1][0] == &y[:1][0]
}
