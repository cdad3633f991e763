package spgemm

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// selectionMatrix returns Q = I[rows, :] with cols columns.
func selectionMatrix(rows []int32, cols int) *CSR {
	q := &CSR{Rows: len(rows), Cols: cols, Indptr: make([]int64, len(rows)+1)}
	for r, i := range rows {
		q.Indices = append(q.Indices, i)
		q.Data = append(q.Data, 1)
		q.Indptr[r+1] = int64(r + 1)
	}
	return q
}

// columnMatrix returns Q_C (cols x newCols) with a 1 at (j, colMap[j]).
func columnMatrix(colMap []int32, newCols int) *CSR {
	q := &CSR{Rows: len(colMap), Cols: newCols, Indptr: make([]int64, len(colMap)+1)}
	for j, nc := range colMap {
		if nc >= 0 {
			q.Indices = append(q.Indices, nc)
			q.Data = append(q.Data, 1)
		}
		q.Indptr[j+1] = int64(len(q.Indices))
	}
	return q
}

func TestGatherRows(t *testing.T) {
	a := csrFromRows(3, [][]float32{{1, 0, 2}, {0, 0, 0}, {0, 3, 0}})
	want := csrFromRows(3, [][]float32{{0, 3, 0}, {1, 0, 2}, {0, 3, 0}, {0, 0, 0}})
	if err := sameBits(GatherRows(a, []int32{2, 0, 2, 1}, 2), want); err != nil {
		t.Errorf("hand checked: %v", err)
	}
	rng := rand.New(rand.NewPCG(13, 14))
	for ci, tc := range mulCases() {
		a := randomMatrix(rng, tc.m, tc.k, tc.densA, tc.kindA, false)
		rows := make([]int32, 0, 2*tc.m)
		for range 2 * tc.m {
			rows = append(rows, int32(rng.IntN(tc.m)))
		}
		// Equal to the general product with the explicit selection matrix.
		want := mulReference(selectionMatrix(rows, a.Rows), a, nil)
		for _, threads := range []int{1, 2, 8} {
			got := GatherRows(a, rows, threads)
			if err := got.Validate(); err != nil {
				t.Fatalf("%d %s: %v", ci, tc.label, err)
			}
			if err := sameBits(got, want); err != nil {
				t.Fatalf("%d %s, %d threads: %v", ci, tc.label, threads, err)
			}
		}
	}
	checkPanic(t, func() { GatherRows(a, []int32{0, 3}, 1) }, IndexError{Op: "GatherRows", Index: 3, Len: 3})
	checkPanic(t, func() { GatherRows(a, []int32{-1}, 1) }, IndexError{Op: "GatherRows", Index: -1, Len: 3})
}

func TestExtractColumns(t *testing.T) {
	a := csrFromRows(4, [][]float32{{1, 0, 2, 3}, {0, 4, 0, 0}})
	// Keep columns 3, 0 and 1 as 0, 2 and 1: row 0 comes out reordered.
	got := ExtractColumns(a, []int32{2, 1, -1, 0}, 3, 1)
	want := csrFromRows(3, [][]float32{{3, 0, 1}, {0, 4, 0}})
	if err := sameBits(got, want); err != nil {
		t.Errorf("hand checked: %v", err)
	}
	rng := rand.New(rand.NewPCG(15, 16))
	for ci, tc := range mulCases() {
		a := randomMatrix(rng, tc.m, tc.k, tc.densA, tc.kindA, false)
		for _, order := range []string{"monotone", "shuffled"} {
			// Keep about two thirds of the columns.
			colMap := make([]int32, a.Cols)
			perm := rng.Perm(a.Cols)
			newCols := 0
			for j := range colMap {
				colMap[j] = -1
				if rng.IntN(3) > 0 {
					colMap[j] = int32(newCols)
					newCols++
				}
			}
			if order == "shuffled" {
				for j := range colMap {
					if colMap[j] >= 0 {
						colMap[j] = int32(perm[colMap[j]] % max(newCols, 1))
					}
				}
				// Make it injective again: relabel by first appearance.
				seen := map[int32]int32{}
				for j, nc := range colMap {
					if nc < 0 {
						continue
					}
					if _, ok := seen[nc]; !ok {
						seen[nc] = int32(len(seen))
					}
					colMap[j] = seen[nc]
				}
				// Columns that collided are dropped.
				used := map[int32]bool{}
				for j, nc := range colMap {
					if nc >= 0 && used[nc] {
						colMap[j] = -1
					}
					if nc >= 0 {
						used[nc] = true
					}
				}
			}
			want := mulReference(a, columnMatrix(colMap, newCols), nil)
			if err := sameBits(extractColumnsReference(a, colMap, newCols, 1), want); err != nil {
				t.Fatalf("%d %s %s: the two references disagree: %v", ci, tc.label, order, err)
			}
			for _, threads := range []int{1, 2, 8} {
				name := fmt.Sprintf("%d %s %s, %d threads", ci, tc.label, order, threads)
				got := ExtractColumns(a, colMap, newCols, threads)
				if err := got.Validate(); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if err := sameBits(got, want); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			}
		}
	}
	checkPanic(t, func() { ExtractColumns(a, []int32{0, 1}, 2, 1) },
		ShapeError{Op: "ExtractColumns", ARows: 2, ACols: 4, BRows: 2, BCols: 2})
	checkPanic(t, func() { ExtractColumns(a, []int32{0, 1, 2, 3}, 3, 1) },
		IndexError{Op: "ExtractColumns", Index: 3, Len: 3})
	checkPanic(t, func() { ExtractColumns(a, []int32{1, 0, 1, -1}, 2, 2) },
		ArgError{Op: "ExtractColumns", Msg: "colMap sends two columns of row 0 to the same new column"})
}
