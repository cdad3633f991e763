package sampling

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/bulksample/bulksample/spgemm"
)

// lwDense returns m as a dense row-major matrix.
func lwDense(m *spgemm.CSR) [][]float32 {
	d := make([][]float32, m.Rows)
	for i := range d {
		d[i] = make([]float32, m.Cols)
		idx, val := m.Row(i)
		for p, j := range idx {
			d[i][j] = val[p]
		}
	}
	return d
}

// lwFromDense returns the CSR of a dense matrix (zeros not stored).
func lwFromDense(d [][]float32) *spgemm.CSR {
	m := &spgemm.CSR{Rows: len(d), Indptr: make([]int64, len(d)+1)}
	if len(d) > 0 {
		m.Cols = len(d[0])
	}
	for i, row := range d {
		for j, x := range row {
			if x != 0 {
				m.Indices = append(m.Indices, int32(j))
				m.Data = append(m.Data, x)
			}
		}
		m.Indptr[i+1] = int64(len(m.Indices))
	}
	return m
}

// lwRandomGraph returns an n x n matrix with about deg entries per row and
// values in {1, 2, 3} (weighted) or 1, from a fixed seed.
func lwRandomGraph(n, deg int, weighted bool, seed uint64) *spgemm.CSR {
	r := rand.New(rand.NewPCG(seed, 1))
	d := make([][]float32, n)
	for i := range d {
		d[i] = make([]float32, n)
		for range deg {
			x := float32(1)
			if weighted {
				x = float32(1 + r.IntN(3))
			}
			d[i][r.IntN(n)] = x
		}
	}
	return lwFromDense(d)
}

// lwBlocks returns block m of la as a CSR and its sources.
func lwBlock(la *LayerArrays, m int) (*spgemm.CSR, []int32) {
	b := (&Bulk{SeedStart: make([]int, len(la.PtrStart)), Layers: []LayerArrays{*la}}).Minibatch(m).Blocks[0]
	return &b.Adj, b.Src
}

func TestExtractSmall(t *testing.T) {
	a := lwFromDense([][]float32{
		{0, 1, 2, 0},
		{1, 0, 0, 3},
		{2, 0, 0, 4},
		{0, 3, 4, 0},
	})
	rows := [][]int32{{0, 1}, {3}, {}}
	cols := [][]int32{{2, 1}, {0, 3, 2}, {1}}
	want := [][][]float32{
		{{2, 1}, {0, 0}}, // A[[0 1], [2 1]]
		{{0, 0, 4}},      // A[[3], [0 3 2]]
		{},               // no rows
	}
	la := Extract(a, rows, cols, 0, 1)
	for m := range rows {
		b, src := lwBlock(la, m)
		if err := b.Validate(); err != nil {
			t.Fatalf("block %d: %v", m, err)
		}
		if got := lwDense(b); !reflect.DeepEqual(got, want[m]) && !(len(got) == 0 && len(want[m]) == 0) {
			t.Errorf("block %d = %v, want %v", m, got, want[m])
		}
		if !reflect.DeepEqual(src, cols[m]) {
			t.Errorf("block %d Src = %v, want %v", m, src, cols[m])
		}
	}
}

// lwRandomLists returns k row lists (repeats allowed) and k distinct column
// lists over [0, n).
func lwRandomLists(n, k int, seed uint64) (rows, cols [][]int32) {
	r := rand.New(rand.NewPCG(seed, 2))
	for range k {
		var rs []int32
		for range r.IntN(12) {
			rs = append(rs, int32(r.IntN(n)))
		}
		perm := r.Perm(n)[:r.IntN(n/2)]
		cs := make([]int32, len(perm))
		for j, v := range perm {
			cs[j] = int32(v)
		}
		rows, cols = append(rows, rs), append(cols, cs)
	}
	return rows, cols
}

// TestExtractInduced checks every block against the induced submatrix of
// the dense adjacency, for several chunk and thread counts, which must all
// give the same arrays.
func TestExtractInduced(t *testing.T) {
	const n, k = 60, 11
	for seed := uint64(1); seed <= 3; seed++ {
		a := lwRandomGraph(n, 6, true, seed)
		ad := lwDense(a)
		rows, cols := lwRandomLists(n, k, seed)
		ref := Extract(a, rows, cols, 1, 1)
		for m := range k {
			b, _ := lwBlock(ref, m)
			if err := b.Validate(); err != nil {
				t.Fatalf("seed %d block %d: %v", seed, m, err)
			}
			got := lwDense(b)
			for i, u := range rows[m] {
				for j, v := range cols[m] {
					if got[i][j] != ad[u][v] {
						t.Fatalf("seed %d block %d: (%d,%d) = %v, want A[%d,%d] = %v", seed, m, i, j, got[i][j], u, v, ad[u][v])
					}
				}
			}
		}
		for _, sb := range []int{0, 3, k, 2 * k} {
			for _, th := range []int{1, 2, 3} {
				if got := Extract(a, rows, cols, sb, th); !reflect.DeepEqual(got, ref) {
					t.Errorf("seed %d: semibulk %d threads %d differs from semibulk 1", seed, sb, th)
				}
			}
		}
	}
}

// TestExtractHubRows: rows far longer than their minibatch's columns take
// the binary-search path; the blocks must still be the induced submatrices
// with sorted rows, for unsorted column lists and mixed row lengths.
func TestExtractHubRows(t *testing.T) {
	const n = 500
	r := rand.New(rand.NewPCG(8, 8))
	d := lwDense(lwRandomGraph(n, 3, true, 8))
	for u := range 4 { // hubs: rows 0..3 hold most columns
		for v := range n {
			if r.IntN(10) < 9 {
				d[u][v] = float32(1 + r.IntN(7))
			}
		}
	}
	a := lwFromDense(d)
	rows := [][]int32{{0, 7, 1, 9, 3}, {2, 2, 400}, {}, {3}}
	cols := [][]int32{{499, 3, 0, 250, 17}, {1, 0}, {5}, {}}
	la := Extract(a, rows, cols, 2, 2)
	hubPath := false
	for m := range rows {
		b, src := lwBlock(la, m)
		if err := b.Validate(); err != nil {
			t.Fatalf("block %d: %v", m, err)
		}
		if !reflect.DeepEqual(src, cols[m]) && len(cols[m]) > 0 {
			t.Errorf("block %d: sources %v, want %v", m, src, cols[m])
		}
		got := lwDense(b)
		for i, u := range rows[m] {
			if a.RowNNZ(int(u)) > hubFactor*len(cols[m]) {
				hubPath = true
			}
			for j, v := range cols[m] {
				if got[i][j] != d[u][v] {
					t.Fatalf("block %d: (%d,%d) = %v, want A[%d,%d] = %v", m, i, j, got[i][j], u, v, d[u][v])
				}
			}
		}
	}
	if !hubPath {
		t.Fatal("no row took the hub path: the test does not cover it")
	}
}

// TestExtractLiteralProducts checks the kernel against the matrix
// formulation: A_R = Q_R·A, then A_R·Q_C with an explicit Q_C holding one
// column per (minibatch, chosen vertex), keeping the diagonal blocks.
func TestExtractLiteralProducts(t *testing.T) {
	const n, k = 40, 5
	a := lwRandomGraph(n, 5, true, 7)
	rows, cols := lwRandomLists(n, k, 7)
	var allRows []int32
	var src, dst []int32
	width := 0
	for m := range k {
		allRows = append(allRows, rows[m]...)
		for j, v := range cols[m] {
			src, dst = append(src, v), append(dst, int32(width+j))
		}
		width += len(cols[m])
	}
	qr := &spgemm.CSR{Rows: len(allRows), Cols: n, Indptr: make([]int64, len(allRows)+1)}
	for r, u := range allRows {
		qr.Indices, qr.Data = append(qr.Indices, u), append(qr.Data, 1)
		qr.Indptr[r+1] = int64(r + 1)
	}
	qc, err := spgemm.FromCOO(n, width, src, dst, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	full := lwDense(spgemm.Mul(spgemm.Mul(qr, a, nil), qc, nil))
	la := Extract(a, rows, cols, 2, 2)
	r0, c0 := 0, 0
	for m := range k {
		b, _ := lwBlock(la, m)
		got := lwDense(b)
		for i := range rows[m] {
			want := full[r0+i][c0 : c0+len(cols[m])]
			if !reflect.DeepEqual(got[i], want) {
				t.Errorf("block %d row %d = %v, want %v", m, i, got[i], want)
			}
		}
		r0, c0 = r0+len(rows[m]), c0+len(cols[m])
	}
}

func TestExtractPanics(t *testing.T) {
	a := lwRandomGraph(5, 2, false, 1)
	cases := []struct {
		name       string
		rows, cols [][]int32
		want       any
	}{
		{"row out of range", [][]int32{{5}}, [][]int32{{0}}, spgemm.IndexError{}},
		{"negative column", [][]int32{{0}}, [][]int32{{-1}}, spgemm.IndexError{}},
		{"list lengths", [][]int32{{0}}, [][]int32{{0}, {1}}, spgemm.ShapeError{}},
		{"repeated column", [][]int32{{0}, {1}}, [][]int32{{1}, {2, 0, 2}}, spgemm.ArgError{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := spgemm.Maybe(func() { Extract(a, c.rows, c.cols, 1, 2) })
			if err == nil {
				t.Fatal("no panic")
			}
			target := reflect.New(reflect.TypeOf(c.want)).Interface()
			if !errors.As(err, target) {
				t.Errorf("panic %v, want a %T", err, c.want)
			}
		})
	}
}
