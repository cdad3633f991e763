package sampling

import (
	"github.com/bulksample/bulksample/internal/par"
	"github.com/bulksample/bulksample/spgemm"
)

// SelectPerMinibatch draws the columns of layer-wise sampling (docs/design.md 3.2
// step 3) from a probability matrix p with one row per minibatch, such as
// Q·(A∘A) for LADIES (QPerMinibatch builds Q). Row m draws from keys[m],
// which layer-wise samplers take as stream.Row(epoch, g, layer, -1) for
// global minibatch g: vertex -1 marks the minibatch-level row and cannot
// collide with a vertex's row.
//
// It is SelectPerRow with opt.Weighted forced on (uniform selection is p
// with equal values): min(s, positive entries) distinct columns by
// successive sampling proportional to p's values via exponential keys at
// the column id, or, with opt.Replace, s draws by inverse transform. An
// entry drawn c times has value c·p[m][v]; every other selected entry keeps
// its value. Rows are spread over GOMAXPROCS goroutines; the result does not
// depend on their number. It panics like SelectPerRow.
func SelectPerMinibatch(p *spgemm.CSR, keys []RowKey, s int, opt SelectOptions) *spgemm.CSR {
	return selectPerMinibatch(p, keys, s, opt.Replace, 0)
}

// selectPerMinibatch is SelectPerMinibatch on threads goroutines.
func selectPerMinibatch(p *spgemm.CSR, keys []RowKey, s int, replace bool, threads int) *spgemm.CSR {
	if len(keys) != p.Rows {
		panic(spgemm.ShapeError{Op: "SelectPerMinibatch keys", ARows: p.Rows, ACols: p.Cols, BRows: len(keys), BCols: 1})
	}
	opt := SelectOptions{Weighted: true, Replace: replace}
	parts := make([]*spgemm.CSR, p.Rows)
	(*par.Team)(nil).ForRanges(p.Rows, threads, func(lo, hi int) {
		for m := lo; m < hi; m++ {
			parts[m] = selectPerRow(p.SliceRows(m, m+1, nil), keys[m:m+1], s, opt, true)
		}
	})
	return stackRows(parts, p.Cols)
}

// stackRows stacks matrices of cols columns vertically.
func stackRows(parts []*spgemm.CSR, cols int) *spgemm.CSR {
	out := &spgemm.CSR{Cols: cols, Indptr: []int64{0}}
	for _, r := range parts {
		base := int64(len(out.Indices))
		for i := 0; i < r.Rows; i++ {
			out.Indptr = append(out.Indptr, base+r.Indptr[i+1])
		}
		out.Indices = append(out.Indices, r.Indices...)
		out.Data = append(out.Data, r.Data...)
		out.Rows += r.Rows
	}
	return out
}
