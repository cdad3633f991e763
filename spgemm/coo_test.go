package spgemm

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestFromCOOSmall(t *testing.T) {
	tests := []struct {
		name       string
		rows, cols int
		src, dst   []int32
		vals       []float32
		opt        COOOptions
		want       *CSR
	}{
		{
			name: "empty", rows: 0, cols: 0,
			want: &CSR{Indptr: []int64{0}, Indices: []int32{}, Data: []float32{}},
		},
		{
			name: "no entries", rows: 2, cols: 3,
			want: &CSR{Rows: 2, Cols: 3, Indptr: []int64{0, 0, 0}, Indices: []int32{}, Data: []float32{}},
		},
		{
			name: "unsorted ones", rows: 3, cols: 3,
			src: []int32{2, 0, 0, 1}, dst: []int32{0, 2, 1, 1},
			want: &CSR{Rows: 3, Cols: 3, Indptr: []int64{0, 2, 3, 4}, Indices: []int32{1, 2, 1, 0}, Data: []float32{1, 1, 1, 1}},
		},
		{
			name: "sum duplicates", rows: 2, cols: 2,
			src: []int32{0, 1, 0}, dst: []int32{1, 0, 1}, vals: []float32{2, 5, 3},
			want: &CSR{Rows: 2, Cols: 2, Indptr: []int64{0, 1, 2}, Indices: []int32{1, 0}, Data: []float32{5, 5}},
		},
		{
			name: "keep first", rows: 2, cols: 2,
			src: []int32{0, 1, 0}, dst: []int32{1, 0, 1}, vals: []float32{2, 5, 3},
			opt:  COOOptions{Duplicates: KeepFirst},
			want: &CSR{Rows: 2, Cols: 2, Indptr: []int64{0, 1, 2}, Indices: []int32{1, 0}, Data: []float32{2, 5}},
		},
		{
			name: "drop duplicates keeps max", rows: 2, cols: 2,
			src: []int32{0, 1, 0}, dst: []int32{1, 0, 1}, vals: []float32{2, 5, 3},
			opt:  COOOptions{Duplicates: DropDuplicates},
			want: &CSR{Rows: 2, Cols: 2, Indptr: []int64{0, 1, 2}, Indices: []int32{1, 0}, Data: []float32{3, 5}},
		},
		{
			// Path 0-1-2 given one way, plus 1->0 again and a self loop:
			// (1,0) first arrives as the reverse of entry 0, with value 1.
			name: "symmetrize keep first", rows: 3, cols: 3,
			src: []int32{0, 1, 1, 2}, dst: []int32{1, 2, 0, 2}, vals: []float32{1, 2, 7, 4},
			opt:  COOOptions{Symmetrize: true, Duplicates: KeepFirst},
			want: &CSR{Rows: 3, Cols: 3, Indptr: []int64{0, 1, 3, 5}, Indices: []int32{1, 0, 2, 1, 2}, Data: []float32{1, 1, 2, 2, 4}},
		},
		{
			name: "symmetrize sum, self loop not doubled", rows: 3, cols: 3,
			src: []int32{0, 1, 1, 2}, dst: []int32{1, 2, 0, 2}, vals: []float32{1, 2, 7, 4},
			opt:  COOOptions{Symmetrize: true},
			want: &CSR{Rows: 3, Cols: 3, Indptr: []int64{0, 1, 3, 5}, Indices: []int32{1, 0, 2, 1, 2}, Data: []float32{8, 8, 2, 2, 4}},
		},
		{
			name: "drop self loops", rows: 3, cols: 3,
			src: []int32{0, 1, 1, 2}, dst: []int32{1, 2, 0, 2},
			opt:  COOOptions{Symmetrize: true, Duplicates: DropDuplicates, DropSelfLoops: true},
			want: &CSR{Rows: 3, Cols: 3, Indptr: []int64{0, 1, 3, 4}, Indices: []int32{1, 0, 2, 1}, Data: []float32{1, 1, 1, 1}},
		},
		{
			name: "rectangular", rows: 1, cols: 4,
			src: []int32{0, 0}, dst: []int32{3, 0}, vals: []float32{-1, 0.5},
			want: &CSR{Rows: 1, Cols: 4, Indptr: []int64{0, 2}, Indices: []int32{0, 3}, Data: []float32{0.5, -1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FromCOO(tt.rows, tt.cols, tt.src, tt.dst, tt.vals, &tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if err := got.Validate(); err != nil {
				t.Fatal(err)
			}
			if !cooEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestFromCOOErrors(t *testing.T) {
	tests := []struct {
		name       string
		rows, cols int
		src, dst   []int32
		vals       []float32
		opt        COOOptions
		want       string
	}{
		{"row too big", 2, 2, []int32{0, 2}, []int32{0, 0}, nil, COOOptions{}, "entry 1: row id 2 outside [0, 2)"},
		{"negative column", 2, 2, []int32{0, 1}, []int32{0, -1}, nil, COOOptions{}, "entry 1: column id -1 outside [0, 2)"},
		{"length mismatch", 2, 2, []int32{0, 1}, []int32{0}, nil, COOOptions{}, "2 row ids but 1 column ids"},
		{"values mismatch", 2, 2, []int32{0}, []int32{0}, []float32{1, 2}, COOOptions{}, "1 entries but 2 values"},
		{"negative shape", -1, 2, nil, nil, nil, COOOptions{}, "negative shape"},
		{"symmetrize rectangular", 2, 3, nil, nil, nil, COOOptions{Symmetrize: true}, "square"},
		{"bad policy", 2, 2, nil, nil, nil, COOOptions{Duplicates: 9}, "unknown duplicate policy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FromCOO(tt.rows, tt.cols, tt.src, tt.dst, tt.vals, &tt.opt)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrCOO) {
				t.Errorf("error %v does not wrap ErrCOO", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

// TestFromCOORandom compares FromCOO with a map-based reference on seeded
// random inputs, for every option combination and several thread counts, with
// the per-thread minimum lowered so that small inputs run in parallel.
func TestFromCOORandom(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		n := 1 + r.IntN(60)
		m := r.IntN(400)
		switch seed {
		case 4:
			n, m = 20, 1500 // rows of 75 to 150 entries: pdqsort on packed keys
		case 5:
			n, m = 3000, 3000 // rows of ~1000 entries over 3000 columns: radix sort
		case 6:
			n, m = 5, 2000 // many duplicates per row: exercises the long-row sorts
		}
		src, dst, vals := make([]int32, m), make([]int32, m), make([]float32, m)
		for k := range m {
			src[k], dst[k] = int32(r.IntN(n)), int32(r.IntN(n))
			if seed == 5 {
				src[k] = int32(r.IntN(3)) // three long rows
			}
			vals[k] = float32(r.IntN(9)) - 2
		}
		for _, pol := range []DuplicatePolicy{SumDuplicates, KeepFirst, DropDuplicates} {
			for _, sym := range []bool{false, true} {
				for _, loops := range []bool{false, true} {
					o := COOOptions{Duplicates: pol, Symmetrize: sym, DropSelfLoops: loops}
					name := fmt.Sprintf("seed%d/%v/sym=%v/drop=%v", seed, pol, sym, loops)
					want := referenceCOO(n, src, dst, vals, o)
					for _, threads := range []int{1, 2, 3, 7} {
						o.Threads = threads
						// Blocks of ~8 entries: many blocks, some empty.
						got := fromCOO(n, n, src, dst, vals, o, 1, int64(4+threads))
						if err := got.Validate(); err != nil {
							t.Fatalf("%s threads %d: %v", name, threads, err)
						}
						if !cooEqual(got, want) {
							t.Fatalf("%s threads %d: got %+v\nwant %+v", name, threads, got, want)
						}
					}
				}
			}
		}
	}
}

// referenceCOO is the obviously right construction: a map per position.
func referenceCOO(n int, src, dst []int32, vals []float32, o COOOptions) *CSR {
	type pos struct{ r, c int32 }
	acc := map[pos]float64{}
	add := func(r, c int32, v float32) {
		p := pos{r, c}
		old, seen := acc[p]
		switch {
		case !seen:
			acc[p] = float64(v)
		case o.Duplicates == SumDuplicates:
			acc[p] = old + float64(v)
		case o.Duplicates == DropDuplicates:
			acc[p] = math.Max(old, float64(v))
		}
	}
	for k := range src {
		if o.DropSelfLoops && src[k] == dst[k] {
			continue
		}
		add(src[k], dst[k], vals[k])
		if o.Symmetrize && src[k] != dst[k] {
			add(dst[k], src[k], vals[k])
		}
	}
	keys := make([]pos, 0, len(acc))
	for p := range acc {
		keys = append(keys, p)
	}
	slices.SortFunc(keys, func(a, b pos) int {
		if a.r != b.r {
			return int(a.r - b.r)
		}
		return int(a.c - b.c)
	})
	c := &CSR{Rows: n, Cols: n, Indptr: make([]int64, n+1), Indices: []int32{}, Data: []float32{}}
	for _, p := range keys {
		c.Indptr[p.r+1]++
		c.Indices = append(c.Indices, p.c)
		c.Data = append(c.Data, float32(acc[p]))
	}
	for i := range n {
		c.Indptr[i+1] += c.Indptr[i]
	}
	return c
}

// TestFromCOOThreadsBitIdentical sums many float duplicates, whose rounding
// depends on the order, and checks that every thread count gives the same bits.
func TestFromCOOThreadsBitIdentical(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	const n, m = 50, 20000
	src, dst, vals := make([]int32, m), make([]int32, m), make([]float32, m)
	for k := range m {
		src[k], dst[k] = int32(r.IntN(n)), int32(r.IntN(n))
		vals[k] = r.Float32() * float32(math.Pow(10, float64(r.IntN(8))))
	}
	o := COOOptions{Symmetrize: true}
	want := fromCOO(n, n, src, dst, vals, o, 1, 1<<20)
	for _, threads := range []int{2, 3, 5, 16} {
		o.Threads = threads
		got := fromCOO(n, n, src, dst, vals, o, 1, int64(100*threads))
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("threads %d: result differs from 1 thread", threads)
		}
	}
}

func cooEqual(a, b *CSR) bool {
	return a.Rows == b.Rows && a.Cols == b.Cols && slices.Equal(a.Indptr, b.Indptr) &&
		slices.Equal(a.Indices, b.Indices) && slices.Equal(a.Data, b.Data)
}

func BenchmarkFromCOO(b *testing.B) {
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("n1M_m8M_sym/threads%d", threads), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 1))
			const n, m = 1 << 20, 8 << 20
			src, dst := make([]int32, m), make([]int32, m)
			for k := range m {
				src[k], dst[k] = int32(r.IntN(n)), int32(r.IntN(n))
			}
			opt := &COOOptions{Symmetrize: true, Duplicates: DropDuplicates, DropSelfLoops: true, Threads: threads}
			for b.Loop() {
				if _, err := FromCOO(n, n, src, dst, nil, opt); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(m)*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
		})
	}
}
