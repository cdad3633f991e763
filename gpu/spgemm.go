package gpu

// Sparse products on a device. A product whose A has at most one entry per
// row (a selection Q, the sampling shape Q·A) is a row gather by
// bulksample's kernels (gq_offsets, gq_fill: spgemm.Mul's gatherScaled, bit
// for bit; a warp per row of C). Any other product goes to cuSPARSE's SpGEMM (spgemm_cuda.go):
// CUDA 12's ALG1, then ALG2 and ALG3 (ALG3 in chunks, smaller and smaller)
// when ALG1 runs out of resources, or CUDA 11's default algorithm; with
// Reuse, the structure of C is computed once (cusparseSpGEMMreuse_*) and
// later runs recompute only the values.

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/bulksample/bulksample/spgemm"
)

// ProductOptions configure a Product.
type ProductOptions struct {
	// StructureOnly gives C's pattern with every value 1.
	StructureOnly bool
	// Reuse computes C's structure once and only its values in later runs
	// (cuSPARSE's SpGEMMreuse); a gather has nothing to reuse.
	Reuse bool
}

// Product is C = A·B with A and B on a device, computed by Run as many
// times as wanted (each Run recomputes C; with Reuse, only its values).
// Its methods are safe for concurrent use but run one at a time.
type Product struct {
	dev    *Device
	a, b   *spgemm.CSR
	opt    ProductOptions
	gather bool
	gnnz   int64 // a gather's entries of C

	mu    sync.Mutex
	arena arena
	// The operands on the device (gather: spgemm's layout; cuSPARSE: 32-bit
	// offsets, converted on upload).
	qptr, qind, qval, bptr, bind, bval mem
	sp                                 spProduct // cuSPARSE's state; nil for a gather
	c                                  devCSR    // the last result
	ran                                bool
	closed                             bool
}

// devCSR is a CSR matrix on the device: row offsets int64 (wide) or int32.
type devCSR struct {
	rows, cols              int
	nnz                     int64
	indptr, indices, values mem
	wide                    bool
	// sortRows: cuSPARSE gave unsorted rows, which Result sorts.
	sortRows bool
}

// spProduct is a cuSPARSE product (spgemm_cuda.go).
type spProduct interface {
	run(p *pipe) (devCSR, error)
	free(p *pipe) error
	method() string
}

// NewProduct uploads A and B to d for the product C = A·B. It panics with
// an spgemm.ShapeError if a.Cols != b.Rows, returns an error naming both
// sizes if they do not fit the device's memory, and ErrNoLibrary for a
// product that needs cuSPARSE on the emulator.
func (d *Device) NewProduct(a, b *spgemm.CSR, opt ProductOptions) (*Product, error) {
	if a.Cols != b.Rows {
		panic(spgemm.ShapeError{Op: "gpu.NewProduct", ARows: a.Rows, ACols: a.Cols, BRows: b.Rows, BCols: b.Cols})
	}
	// A gather also serves an empty B: every row of C is then empty.
	pr := &Product{dev: d, a: a, b: b, opt: opt, gather: atMostOnePerRow(a) || b.NNZ() == 0, arena: newArena()}
	bytes := int64(a.Rows+b.Rows+2)*8 + (a.NNZ()+b.NNZ())*8
	if err := d.checkFits(fmt.Sprintf("the operands (%d x %d with %d entries, %d x %d with %d)", a.Rows, a.Cols, a.NNZ(), b.Rows, b.Cols, b.NNZ()), bytes); err != nil {
		return nil, err
	}
	if !pr.gather && (a.NNZ() > math.MaxInt32 || b.NNZ() > math.MaxInt32) {
		return nil, fmt.Errorf("gpu: cuSPARSE's SpGEMM takes 32-bit indices: A has %d entries, B %d", a.NNZ(), b.NNZ())
	}
	err := d.do(func(ex executor) error {
		p := d.newPipe(ex, &pr.arena)
		if pr.gather {
			pr.gnnz = gatherNNZ(a, b)
			pr.qptr, pr.qind, pr.qval = put(p, "q.indptr", a.Indptr), put(p, "q.indices", a.Indices[:a.NNZ()]), put(p, "q.data", a.Data[:a.NNZ()])
			pr.bptr, pr.bind, pr.bval = put(p, "b.indptr", b.Indptr), put(p, "b.indices", b.Indices[:b.NNZ()]), put(p, "b.data", b.Data[:b.NNZ()])
			return p.err
		}
		ad := devCSR{rows: a.Rows, cols: a.Cols, nnz: a.NNZ(), indptr: put(p, "a.indptr", offsets32(a.Indptr)),
			indices: put(p, "a.indices", a.Indices[:a.NNZ()]), values: put(p, "a.data", a.Data[:a.NNZ()])}
		bd := devCSR{rows: b.Rows, cols: b.Cols, nnz: b.NNZ(), indptr: put(p, "b.indptr", offsets32(b.Indptr)),
			indices: put(p, "b.indices", b.Indices[:b.NNZ()]), values: put(p, "b.data", b.Data[:b.NNZ()])}
		if p.err != nil {
			return p.err
		}
		sp, err := newSpProduct(p, ad, bd, opt.Reuse)
		pr.sp = sp
		return errors.Join(err, p.err)
	})
	if err != nil {
		pr.Close()
		return nil, err
	}
	return pr, nil
}

// atMostOnePerRow reports whether every row of a has at most one entry.
func atMostOnePerRow(a *spgemm.CSR) bool {
	for i := range a.Rows {
		if a.Indptr[i+1]-a.Indptr[i] > 1 {
			return false
		}
	}
	return true
}

// offsets32 converts row offsets (at most MaxInt32) to int32.
func offsets32(ptr []int64) []int32 {
	out := make([]int32, len(ptr))
	for i, v := range ptr {
		out[i] = int32(v)
	}
	return out
}

// Method names what computes the product: "gather" or "cusparse <alg>"
// (after the first Run, the algorithm that succeeded).
func (pr *Product) Method() string {
	if pr.gather {
		return "gather"
	}
	return pr.sp.method()
}

// Run computes C on the device and waits for it.
func (pr *Product) Run() error {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if pr.closed {
		return errors.New("gpu: Product is closed")
	}
	return pr.dev.do(func(ex executor) error {
		p := pr.dev.newPipe(ex, &pr.arena)
		if pr.gather {
			pr.c = p.gatherRows(pr.a.Rows, pr.b.Cols, pr.gnnz, pr.qptr, pr.qind, pr.qval, pr.bptr, pr.bind, pr.bval, pr.opt.StructureOnly)
		} else {
			c, err := pr.sp.run(p)
			if err != nil {
				return err
			}
			if pr.opt.StructureOnly {
				p.launch("fill_f32", c.nnz, c.values, 1.0)
			}
			pr.c = c
		}
		p.setErr(ex.sync())
		pr.ran = p.err == nil
		return p.err
	})
}

// NNZ returns the entries of the last C.
func (pr *Product) NNZ() int64 { return pr.c.nnz }

// Result downloads the last C (Run first).
func (pr *Product) Result() (*spgemm.CSR, error) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if !pr.ran {
		return nil, errors.New("gpu: Product.Result before a successful Run")
	}
	c := pr.c
	out := &spgemm.CSR{Rows: c.rows, Cols: c.cols, Indptr: make([]int64, c.rows+1), Indices: make([]int32, c.nnz), Data: make([]float32, c.nnz)}
	err := pr.dev.do(func(ex executor) error {
		p := pr.dev.newPipe(ex, &pr.arena)
		if c.wide {
			download(p, out.Indptr, c.indptr)
		} else {
			ptr := make([]int32, c.rows+1)
			download(p, ptr, c.indptr)
			for i, v := range ptr {
				out.Indptr[i] = int64(v)
			}
		}
		download(p, out.Indices, c.indices)
		download(p, out.Data, c.values)
		return p.err
	})
	if err != nil {
		return nil, err
	}
	if c.sortRows {
		var buf []uint64
		for i := range out.Rows {
			lo, hi := out.Indptr[i], out.Indptr[i+1]
			if !slices.IsSorted(out.Indices[lo:hi]) {
				buf = spgemm.SortPairs(out.Indices[lo:hi], out.Data[lo:hi], buf)
			}
		}
	}
	return out, nil
}

// Close frees the product's device memory; it is idempotent.
func (pr *Product) Close() error {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if pr.closed {
		return nil
	}
	pr.closed = true
	return pr.dev.do(func(ex executor) error {
		p := pr.dev.newPipe(ex, &pr.arena)
		var err error
		if pr.sp != nil {
			err = pr.sp.free(p)
		}
		return errors.Join(err, pr.arena.free(ex))
	})
}

// Mul returns C = A·B computed on the device (one Product run). It
// supports opt.StructureOnly; opt.Threads and Accumulator do not apply,
// and a mask or Add is an error.
func (d *Device) Mul(a, b *spgemm.CSR, opt *spgemm.MulOptions) (*spgemm.CSR, error) {
	var po ProductOptions
	if opt != nil {
		if opt.Mask != nil || opt.ComplementMask || opt.Add != nil {
			return nil, errors.New("gpu: Mul: masks and Add are not supported on the device")
		}
		po.StructureOnly = opt.StructureOnly
	}
	pr, err := d.NewProduct(a, b, po)
	if err != nil {
		return nil, err
	}
	defer pr.Close()
	if err := pr.Run(); err != nil {
		return nil, err
	}
	return pr.Result()
}

// gatherRows is the gather product of nnz entries: C's row i is row k_i
// of B times q_i (Q's one entry in row i, if any), in two launches (C's
// offsets by a single-pass scan; a warp per row copying it) and no copy
// back.
func (p *pipe) gatherRows(rows, cols int, nnz int64, qptr, qind, qval, bptr, bind, bval mem, structure bool) devCSR {
	n := int64(rows)
	coff := p.buf("c.indptr", (n+1)*8)
	ind, val := p.buf("c.indices", nnz*4), p.buf("c.data", nnz*4)
	fill := max((n+gatherRows-1)/gatherRows, 1)
	ctl, status := p.lookBack(max(tiles(n), fill))
	p.launch("gq_offsets", tiles(n), n, qptr, qind, bptr, coff, ctl, status)
	p.launch("gq_fill", fill, n, qptr, qind, qval, bptr, bind, bval, coff, structure, ind, val, ctl)
	return devCSR{rows: rows, cols: cols, nnz: nnz, indptr: coff, indices: ind, values: val, wide: true}
}

// gatherRows is BS_GQ_ROWS: the rows of C a block of gq_fill copies, a
// warp each.
const gatherRows = blockThreads / 32

// gatherNNZ returns the entries of C = Q·B for a Q with at most one entry
// per row.
func gatherNNZ(q, b *spgemm.CSR) int64 {
	var n int64
	for i := range q.Rows {
		if lo := q.Indptr[i]; q.Indptr[i+1] > lo {
			k := q.Indices[lo]
			n += b.Indptr[k+1] - b.Indptr[k]
		}
	}
	return n
}
