package spgemm

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// buildStreamed runs both passes of a CSRBuilder over the entries cut into
// chunks of at most chunk entries.
func buildStreamed(t *testing.T, n int, src, dst []int32, vals []float32, o COOOptions, chunk, minPerThread int) *CSR {
	t.Helper()
	b, err := NewCSRBuilder(n, n, &o)
	if err != nil {
		t.Fatal(err)
	}
	b.minPerThread = minPerThread
	for lo := 0; lo < len(src); lo += chunk {
		hi := min(lo+chunk, len(src))
		if err := b.Count(src[lo:hi], dst[lo:hi]); err != nil {
			t.Fatal(err)
		}
	}
	for lo := 0; lo < len(src); lo += chunk {
		hi := min(lo+chunk, len(src))
		var v []float32
		if vals != nil {
			v = vals[lo:hi]
		}
		if err := b.Place(src[lo:hi], dst[lo:hi], v); err != nil {
			t.Fatal(err)
		}
	}
	c, err := b.CSR()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCSRBuilderSmall(t *testing.T) {
	// Path 0-1-2 given one way, plus 1->0 again and a self loop (as in
	// TestFromCOOSmall), in chunks of one entry.
	src, dst, vals := []int32{0, 1, 1, 2}, []int32{1, 2, 0, 2}, []float32{1, 2, 7, 4}
	tests := []struct {
		opt  COOOptions
		want *CSR
	}{
		{COOOptions{Symmetrize: true, Duplicates: KeepFirst},
			&CSR{Rows: 3, Cols: 3, Indptr: []int64{0, 1, 3, 5}, Indices: []int32{1, 0, 2, 1, 2}, Data: []float32{1, 1, 2, 2, 4}}},
		{COOOptions{Symmetrize: true},
			&CSR{Rows: 3, Cols: 3, Indptr: []int64{0, 1, 3, 5}, Indices: []int32{1, 0, 2, 1, 2}, Data: []float32{8, 8, 2, 2, 4}}},
		{COOOptions{Symmetrize: true, Duplicates: DropDuplicates, DropSelfLoops: true},
			&CSR{Rows: 3, Cols: 3, Indptr: []int64{0, 1, 3, 4}, Indices: []int32{1, 0, 2, 1}, Data: []float32{7, 7, 2, 2}}},
		{COOOptions{},
			&CSR{Rows: 3, Cols: 3, Indptr: []int64{0, 1, 3, 4}, Indices: []int32{1, 0, 2, 2}, Data: []float32{1, 7, 2, 4}}},
	}
	for _, tt := range tests {
		got := buildStreamed(t, 3, src, dst, vals, tt.opt, 1, cooMinPerThread)
		if !cooEqual(got, tt.want) {
			t.Errorf("%+v: got %+v\nwant %+v", tt.opt, got, tt.want)
		}
	}
	// No entries at all, and an empty matrix.
	for _, n := range []int{0, 4} {
		got := buildStreamed(t, n, nil, nil, nil, COOOptions{}, 1, 1)
		if err := got.Validate(); err != nil || got.NNZ() != 0 || got.Rows != n {
			t.Errorf("n=%d: %+v, %v", n, got, err)
		}
	}
}

// TestCSRBuilderMatchesFromCOO checks that the two-pass build gives FromCOO's
// bits for every option, chunk size and thread count, with the per-thread
// minimum lowered so that small chunks are placed in parallel.
func TestCSRBuilderMatchesFromCOO(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		n, m := 1+r.IntN(50), r.IntN(600)
		if seed == 4 {
			n, m = 6, 3000 // long rows, many duplicates
		}
		src, dst, vals := make([]int32, m), make([]int32, m), make([]float32, m)
		for k := range m {
			src[k], dst[k] = int32(r.IntN(n)), int32(r.IntN(n))
			vals[k] = r.Float32()*8 - 2
		}
		for _, pol := range []DuplicatePolicy{SumDuplicates, KeepFirst, DropDuplicates} {
			for _, sym := range []bool{false, true} {
				for _, loops := range []bool{false, true} {
					for _, weighted := range []bool{false, true} {
						v := vals
						if !weighted {
							v = nil
						}
						o := COOOptions{Duplicates: pol, Symmetrize: sym, DropSelfLoops: loops}
						want, err := FromCOO(n, n, src, dst, v, &o)
						if err != nil {
							t.Fatal(err)
						}
						for _, threads := range []int{1, 2, 5} {
							for _, chunk := range []int{1, 7, 1000} {
								o.Threads = threads
								got := buildStreamed(t, n, src, dst, v, o, chunk, 3)
								if err := got.Validate(); err != nil {
									t.Fatal(err)
								}
								if err := sameBits(got, want); err != nil {
									t.Fatalf("seed %d %+v weighted=%v chunk %d: %v", seed, o, weighted, chunk, err)
								}
							}
						}
					}
				}
			}
		}
	}
}

func TestCSRBuilderErrors(t *testing.T) {
	src, dst := []int32{0, 1, 2}, []int32{1, 2, 0}
	tests := []struct {
		name string
		run  func(b *CSRBuilder) error
		want string
	}{
		{"id out of range names the global entry", func(b *CSRBuilder) error {
			if err := b.Count(src, dst); err != nil {
				return err
			}
			return b.Count([]int32{0, 3}, []int32{0, 0})
		}, "entry 4: row id 3 outside [0, 3)"},
		{"second pass adds to a row", func(b *CSRBuilder) error {
			b.Count(src, dst)
			return b.Place([]int32{0, 0, 2}, dst, nil)
		}, "entry 1: row 0 gets more entries than the first pass counted"},
		{"second pass shorter", func(b *CSRBuilder) error {
			b.Count(src, dst)
			b.Place(src[:2], dst[:2], nil)
			_, err := b.CSR()
			return err
		}, "the second pass gave 2 entries, the first 3"},
		{"second pass never run", func(b *CSRBuilder) error {
			b.Count(src, dst)
			_, err := b.CSR()
			return err
		}, "the second pass gave 0 entries, the first 3"},
		{"count after place", func(b *CSRBuilder) error {
			b.Count(src, dst)
			b.Place(src, dst, nil)
			return b.Count(src, dst)
		}, "Count after Place"},
		{"values length", func(b *CSRBuilder) error {
			b.Count(src, dst)
			return b.Place(src, dst, []float32{1})
		}, "3 entries but 1 values"},
		{"csr twice", func(b *CSRBuilder) error {
			b.CSR()
			_, err := b.CSR()
			return err
		}, "CSR called twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := NewCSRBuilder(3, 3, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = tt.run(b)
			if err == nil || !errors.Is(err, ErrCOO) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want ErrCOO containing %q", err, tt.want)
			}
		})
	}
	if _, err := NewCSRBuilder(2, 3, &COOOptions{Symmetrize: true}); err == nil {
		t.Error("Symmetrize of a 2 x 3 builder: no error")
	}
}

func ExampleCSRBuilder() {
	// Two passes over the same chunks: count, then place.
	chunks := [][2][]int32{{{0, 1}, {1, 2}}, {{2}, {0}}} // (row ids, column ids)
	b, err := NewCSRBuilder(3, 3, &COOOptions{Symmetrize: true, Duplicates: DropDuplicates})
	if err != nil {
		panic(err)
	}
	for _, c := range chunks {
		if err := b.Count(c[0], c[1]); err != nil {
			panic(err)
		}
	}
	for _, c := range chunks {
		if err := b.Place(c[0], c[1], nil); err != nil {
			panic(err)
		}
	}
	a, err := b.CSR()
	if err != nil {
		panic(err)
	}
	fmt.Println(a.Indptr, a.Indices)
	// Output: [0 2 4 6] [1 2 0 2 0 1]
}
