package spgemm

// Row and column extraction: the products Q·A and A·Q_C with selection
// matrices, computed without forming Q (docs/design.md 3.1 steps 2 and 4, 3.2
// step 4). Row extraction copies rows in parallel over ranges of equal output
// size. Column extraction counts the surviving entries of each row, scans the
// counts into offsets and relabels in a second pass, sorting a row only when
// the map did not keep it in order.

import (
	"fmt"
	"sync/atomic"

	"github.com/bulksample/bulksample/internal/par"
)

// GatherRows returns Q·A for the row selection Q = I[rows, :]: row r of the
// result is row rows[r] of a. Rows may repeat. It costs O(len(rows) + nnz of
// the result), shares no arrays with a, and panics with an IndexError if a
// row id is outside [0, a.Rows).
func GatherRows(a *CSR, rows []int32, threads int) *CSR {
	for _, i := range rows {
		if uint(i) >= uint(a.Rows) {
			panic(IndexError{Op: "GatherRows", Index: int(i), Len: a.Rows})
		}
	}
	g := &CSR{}
	gatherScaled(g, a, rows, nil, false, par.Threads(threads))
	return g
}

// ExtractColumns returns A·Q_C for the column map colMap (len a.Cols): entry
// (i, j) of a is kept as (i, colMap[j]) when colMap[j] >= 0 and dropped when
// colMap[j] < 0. The result has newCols columns and sorted rows, and shares no
// arrays with a. It costs O(a.Cols + a.Rows + nnz(a)), plus a sort of the rows
// whose order the map changes.
//
// It panics with a ShapeError if len(colMap) != a.Cols, with an IndexError if
// a value of colMap is >= newCols, and with an ArgError if colMap sends two
// entries of one row to the same column (colMap must be injective on the
// columns that a row uses).
func ExtractColumns(a *CSR, colMap []int32, newCols int, threads int) *CSR {
	if len(colMap) != a.Cols {
		panic(ShapeError{Op: "ExtractColumns", ARows: a.Rows, ACols: a.Cols, BRows: len(colMap), BCols: newCols})
	}
	for _, nc := range colMap {
		if int(nc) >= newCols {
			panic(IndexError{Op: "ExtractColumns", Index: int(nc), Len: newCols})
		}
	}
	threads = par.Threads(threads)
	e := &CSR{Rows: a.Rows, Cols: newCols, Indptr: make([]int64, a.Rows+1)}
	if a.Rows == 0 {
		return e
	}
	bounds := par.SplitWork(a.Indptr, threads*par.ChunksPerThread)
	chunks := len(bounds) - 1
	chunkNNZ := make([]int64, chunks+1)
	par.For(chunks, threads, func(_, ch int) {
		var total int64
		for i := bounds[ch]; i < bounds[ch+1]; i++ {
			n := int64(0)
			for _, j := range a.Indices[a.Indptr[i]:a.Indptr[i+1]] {
				if colMap[j] >= 0 {
					n++
				}
			}
			e.Indptr[i+1] = n
			total += n
		}
		chunkNNZ[ch+1] = total
	})
	for ch := range chunks {
		chunkNNZ[ch+1] += chunkNNZ[ch]
	}
	nnz := chunkNNZ[chunks]
	e.Indices, e.Data = make([]int32, nnz), make([]float32, nnz)
	var dupRow atomic.Int64 // 1 + the first row found with a repeated column
	par.For(chunks, threads, func(w, ch int) {
		off := chunkNNZ[ch]
		var buf []uint64
		for i := bounds[ch]; i < bounds[ch+1]; i++ {
			end := off + e.Indptr[i+1]
			idx, val := e.Indices[off:end:end], e.Data[off:end:end]
			n, sorted := 0, true
			lo, hi := a.Indptr[i], a.Indptr[i+1]
			for p, j := range a.Indices[lo:hi] {
				if nc := colMap[j]; nc >= 0 {
					if n > 0 && nc <= idx[n-1] {
						sorted = false
					}
					idx[n], val[n] = nc, a.Data[lo+int64(p)]
					n++
				}
			}
			if !sorted {
				buf = SortPairs(idx, val, buf)
				for t := 1; t < len(idx); t++ {
					if idx[t] == idx[t-1] {
						dupRow.CompareAndSwap(0, int64(i)+1)
						break
					}
				}
			}
			e.Indptr[i+1] = end
			off = end
		}
	})
	if r := dupRow.Load(); r != 0 {
		panic(ArgError{Op: "ExtractColumns", Msg: fmt.Sprintf("colMap sends two columns of row %d to the same new column", r-1)})
	}
	return e
}
