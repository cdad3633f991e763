package gpu

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/sampling/samplingtest"
	"github.com/bulksample/bulksample/spgemm"
	"github.com/bulksample/bulksample/spgemm/spgemmtest"
)

// TestGatherEqualsCPU checks the row-gather product on the emulator against
// spgemm.Mul bit for bit: selections Q·A (one entry per row, distinct and
// repeated rows, values 1 and not), rows of Q without an entry, and
// structure-only.
func TestGatherEqualsCPU(t *testing.T) {
	a := samplingtest.RandomGraph(1500, 20, true, 21)
	rows, err := sampling.RandomRows(1500, 300, 4)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(8, 9))
	q := sampling.QPerEntry([][]int32{rows}, 1500)
	scaled := &spgemm.CSR{Rows: q.Rows, Cols: q.Cols, Indptr: append([]int64(nil), q.Indptr...), Indices: append([]int32(nil), q.Indices...), Data: make([]float32, q.NNZ())}
	for i := range scaled.Data {
		scaled.Data[i] = float32(rng.NormFloat64())
	}
	sparse := &spgemm.CSR{Rows: 50, Cols: 1500, Indptr: make([]int64, 51)} // every third row empty, repeats
	for i := range 50 {
		if i%3 != 0 {
			sparse.Indices = append(sparse.Indices, int32(rng.IntN(40)))
			sparse.Data = append(sparse.Data, -2)
		}
		sparse.Indptr[i+1] = int64(len(sparse.Indices))
	}
	dev := NewEmulator(EmulatorOptions{Order: 3, Exact: true})
	for name, qq := range map[string]*spgemm.CSR{"selection": q, "scaled": scaled, "sparse": sparse} {
		for _, structure := range []bool{false, true} {
			want := spgemm.Mul(qq, a, &spgemm.MulOptions{StructureOnly: structure, Threads: 1})
			got, err := dev.Mul(qq, a, &spgemm.MulOptions{StructureOnly: structure})
			if err != nil {
				t.Fatal(err)
			}
			if err := spgemmtest.Equal(got, spgemmtest.DenseOf(want), 0); err != nil {
				t.Fatalf("%s structure=%v: %v", name, structure, err)
			}
			for i := range got.Data {
				if math.Float32bits(got.Data[i]) != math.Float32bits(want.Data[i]) {
					t.Fatalf("%s structure=%v: value %d = %v, want %v", name, structure, i, got.Data[i], want.Data[i])
				}
			}
		}
	}
	// A product that needs cuSPARSE is refused on the emulator.
	if _, err := dev.Mul(a, a, nil); !errors.Is(err, ErrNoLibrary) {
		t.Fatalf("A·A on the emulator: %v, want ErrNoLibrary", err)
	}
}

// TestTooLargeNamesBothSizes checks the error for a graph that does not
// fit the device's memory.
func TestTooLargeNamesBothSizes(t *testing.T) {
	a := samplingtest.RandomGraph(3000, 30, false, 1)
	dev := NewEmulator(EmulatorOptions{MemoryBytes: 100 << 10, Exact: true})
	_, err := NewNodeWise(dev, a, sampling.NodeWiseOptions{Fanouts: []int{5}})
	if err == nil {
		t.Fatal("a graph larger than the device's memory was accepted")
	}
	want := []string{"needs", "bytes", "free of", "3000 vertices"}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Fatalf("error %q does not say %q", err, w)
		}
	}
}
