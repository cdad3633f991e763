package dataset

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/bulksample/bulksample/spgemm"
)

func TestRMATOptionsErrors(t *testing.T) {
	tests := []struct {
		opt  RMATOptions
		want string
	}{
		{RMATOptions{}, "Scale 0"},
		{RMATOptions{Scale: 31}, "Scale 31"},
		{RMATOptions{Scale: 4, EdgeFactor: -1}, "EdgeFactor -1"},
		{RMATOptions{Scale: 4, A: 0.7, B: 0.2, C: 0.2}, "A+B+C <= 1"},
		{RMATOptions{Scale: 4, Noise: 0.5}, "Noise 0.5"},
		{RMATOptions{Scale: 4, A: math.NaN(), B: 0.19, C: 0.19}, "A=NaN"},
		{RMATOptions{Scale: 4, A: 0.57, B: 0.19, C: math.Inf(1)}, "C=+Inf"},
		{RMATOptions{Scale: 4, A: 0.57, B: 0.19, C: 0.19, Noise: math.NaN()}, "Noise NaN"},
	}
	for _, tt := range tests {
		_, err := RMAT(tt.opt)
		if err == nil || !contains(err.Error(), tt.want) {
			t.Errorf("RMAT(%+v) error %v, want one containing %q", tt.opt, err, tt.want)
		}
	}
}

func TestRMATGraph(t *testing.T) {
	for _, noise := range []float64{0, 0.05} {
		t.Run(fmt.Sprintf("noise%g", noise), func(t *testing.T) {
			opt := RMATOptions{Scale: 10, Seed: 42, Noise: noise, Threads: 1}
			a, err := RMAT(opt)
			if err != nil {
				t.Fatal(err)
			}
			if err := a.Validate(); err != nil {
				t.Fatal(err)
			}
			if a.Rows != 1024 || a.Cols != 1024 {
				t.Fatalf("shape %d x %d", a.Rows, a.Cols)
			}
			// Symmetric, no self loops, values 1; at most 2·16·1024 entries
			// and, with R-MAT's skew, well above half of them kept.
			for i := range a.Rows {
				idx, val := a.Row(i)
				for p, j := range idx {
					if int(j) == i || val[p] != 1 {
						t.Fatalf("entry (%d, %d) = %v", i, j, val[p])
					}
					r, _ := a.Row(int(j))
					if _, ok := slices.BinarySearch(r, int32(i)); !ok {
						t.Fatalf("(%d, %d) has no reverse", i, j)
					}
				}
			}
			if nnz := a.NNZ(); nnz > 2*16*1024 || nnz < 16*1024 {
				t.Errorf("nnz %d outside [16384, 32768]", nnz)
			}
			for _, threads := range []int{2, 3, 8} {
				opt.Threads = threads
				b, err := RMAT(opt)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(a, b) {
					t.Fatalf("threads %d: graph differs from 1 thread", threads)
				}
			}
			opt.Seed = 43
			if c, _ := RMAT(opt); reflect.DeepEqual(a.Indices, c.Indices) {
				t.Error("seeds 42 and 43 give the same graph")
			}
		})
	}
}

// TestRMATQuadrantLaw checks with a chi-square test (p < 1e-6) that each
// level of the unpermuted edges picks quadrants with probabilities a, b, c, d.
func TestRMATQuadrantLaw(t *testing.T) {
	o, _ := RMATOptions{Scale: 6}.withDefaults()
	levels := rmatLevels(o)
	const m = 200_000
	counts := make([][4]float64, o.Scale)
	key := newKey(7, streamRMATEdge)
	for k := range m {
		u, v := rmatEdge(key, uint64(k), levels)
		for l := range o.Scale {
			q := (u>>l&1)<<1 | v>>l&1
			counts[l][q]++
		}
	}
	// The law on the 12-bit grid: a = 2335/4096 etc.; the table must agree.
	p := []float64{2335.0 / 4096, 778.0 / 4096, 778.0 / 4096, 205.0 / 4096}
	var tbl [4]float64
	for _, q := range levels[0] {
		tbl[q]++
	}
	for q := range 4 {
		if tbl[q]/4096 != p[q] {
			t.Fatalf("quadrant %d has %v of 4096 table entries, want %v", q, tbl[q], p[q]*4096)
		}
	}
	for l, c := range counts {
		chi := 0.0
		for q := range 4 {
			e := p[q] * m
			chi += (c[q] - e) * (c[q] - e) / e
		}
		// The 1 - 1e-6 quantile of chi-square with 3 degrees of freedom is 30.66.
		if chi > 30.66 {
			t.Errorf("level %d: counts %v, chi-square %.1f > 30.66", l, c, chi)
		}
	}
}

func TestRMATPermutation(t *testing.T) {
	p := randomPermutation(1000, 5, streamRMATPerm)
	s := slices.Clone(p)
	slices.Sort(s)
	for i, v := range s {
		if int(v) != i {
			t.Fatalf("not a permutation: sorted[%d] = %d", i, v)
		}
	}
	fixed := 0
	for i, v := range p {
		if int(v) == i {
			fixed++
		}
	}
	if fixed > 10 { // expected 1 fixed point; 10 has probability < 1e-7
		t.Errorf("%d fixed points", fixed)
	}
}

func BenchmarkRMAT(b *testing.B) {
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("scale18/threads%d", threads), func(b *testing.B) {
			opt := RMATOptions{Scale: 18, Seed: 1, Threads: threads}
			for b.Loop() {
				if _, err := RMAT(opt); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(16<<18)*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
		})
		b.Run(fmt.Sprintf("scale18_edgesonly/threads%d", threads), func(b *testing.B) {
			opt := RMATOptions{Scale: 18, Seed: 1, Threads: threads}
			for b.Loop() {
				rmatEdges(opt)
			}
			b.ReportMetric(float64(16<<18)*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
		})
	}
}

// rmatReference builds RMAT's graph as RMAT did before rmatBlock: the edge
// list through spgemm.FromCOO.
func rmatReference(t testing.TB, opt RMATOptions) *spgemm.CSR {
	t.Helper()
	src, dst := rmatEdges(opt)
	n := 1 << opt.Scale
	a, err := spgemm.FromCOO(n, n, src, dst, nil, &spgemm.COOOptions{
		Symmetrize: true, Duplicates: spgemm.DropDuplicates, DropSelfLoops: true, Threads: opt.Threads,
	})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestRMATBlockMatchesFromCOO: the row-block builder gives the graph the
// edge list and FromCOO gave, for any thread count, and any cut into
// blocks gives its rows.
func TestRMATBlockMatchesFromCOO(t *testing.T) {
	for _, opt := range []RMATOptions{
		{Scale: 10, Seed: 1}, {Scale: 12, EdgeFactor: 8, Seed: 3}, {Scale: 11, Seed: 2, Noise: 0.05},
		{Scale: 9, Seed: 5, A: 0.45, B: 0.15, C: 0.15}, {Scale: 1, Seed: 1}, {Scale: 3, EdgeFactor: 1, Seed: 9},
	} {
		want := rmatReference(t, opt)
		for _, threads := range []int{1, 3} {
			opt.Threads = threads
			got, err := RMAT(opt)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%+v: RMAT differs from the FromCOO reference (nnz %d, want %d)", opt, got.NNZ(), want.NNZ())
			}
		}
		o, _ := opt.withDefaults()
		n := 1 << o.Scale
		perm := randomPermutation(n, o.Seed, streamRMATPerm)
		for _, parts := range []int{2, 3, 7} {
			for i := range parts {
				lo, hi := i*n/parts, (i+1)*n/parts
				b, err := rmatBlock(context.Background(), o, perm, lo, hi, nil)
				if err != nil {
					t.Fatal(err)
				}
				for r := lo; r < hi; r++ {
					g := b.indices[b.indptr[r-lo]:b.indptr[r-lo+1]]
					w, _ := want.Row(r)
					if !slices.Equal(g, w) {
						t.Fatalf("%+v: block %d of %d, row %d: %v; want %v", opt, i, parts, r, g, w)
					}
				}
			}
		}
	}
}

// TestRMATOwner: rmatOwner names, for every row, the rank whose equal cut
// [⌊r·n/p⌋, ⌊(r+1)·n/p⌋) holds it, for ranks that divide n and ranks
// that do not, and more ranks than rows (empty blocks).
func TestRMATOwner(t *testing.T) {
	for _, n := range []int{1, 2, 16, 1000, 1024} {
		for _, p := range []int{1, 2, 3, 5, 7, 16, 64} {
			for r := range p {
				lo, hi := r*n/p, (r+1)*n/p
				for v := lo; v < hi; v++ {
					if got := rmatOwner(int32(v), n, p); got != r {
						t.Fatalf("n %d, p %d: rmatOwner(%d) = %d, want %d (its block [%d, %d))", n, p, v, got, r, lo, hi)
					}
				}
			}
		}
	}
}
