//go:build cuda

package gpu

// The backend's checks that need a GPU (they skip without one, or fail
// with BULKSAMPLE_REQUIRE_GPU=1): the conformance kit with cuBLAS and
// cuSPARSE and with bulksample's own kernels, the exact operations bit for
// bit against the CPU, and the library products against the own kernels.

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/gnn/backendtest"
	"github.com/bulksample/bulksample/sampling/samplingtest"
	"github.com/bulksample/bulksample/spgemm"
	"github.com/bulksample/bulksample/train"
)

func newGPUBackend(t *testing.T, dev *Device, opt BackendOptions) *Backend {
	t.Helper()
	be, err := NewBackend(dev, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := be.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	t.Logf("backend: %s", be.Name())
	return be
}

// TestCUDABackendConformance runs gnn/backendtest on the GPU, with the
// libraries and with the own kernels, and the exact operations against the
// CPU bit for bit.
func TestCUDABackendConformance(t *testing.T) {
	dev := openGPU(t)
	cpu := gnn.NewCPU(gnn.CPUOptions{})
	for _, own := range []bool{false, true} {
		name := map[bool]string{false: "libraries", true: "own-kernels"}[own]
		t.Run(name, func(t *testing.T) {
			be := newGPUBackend(t, dev, BackendOptions{OwnKernels: own})
			t.Run("ops", func(t *testing.T) { backendtest.Run(t, be) })
			t.Run("exact", func(t *testing.T) { checkExactOps(t, be) })
			t.Run("gradients", func(t *testing.T) { backendtest.CheckGradients(t, be) })
			t.Run("against-cpu", func(t *testing.T) { backendtest.CheckAgainst(t, be, cpu) })
			if err := be.Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestCUDAProductsAgainstOwnKernels compares cuBLAS's Sgemm and
// cuSPARSE's SpMM (and its transpose) with the own kernels on operands of
// the shapes of a products-sized step (a block of 16,384 destinations and
// 140,000 sources with 10 entries a row, 256 columns), within float32
// rounding of sums of that length.
func TestCUDAProductsAgainstOwnKernels(t *testing.T) {
	dev := openGPU(t)
	lib := newGPUBackend(t, dev, BackendOptions{})
	own := newGPUBackend(t, dev, BackendOptions{OwnKernels: true})
	rng := rand.New(rand.NewPCG(8, 9))
	const rows, cols, f = 16384, 140000, 256
	a := spgemm.CSR{Rows: rows, Cols: cols, Indptr: make([]int64, rows+1)}
	for i := range rows {
		row := make([]int32, 0, 10)
		for len(row) < 10 {
			if j := int32(rng.IntN(cols)); !slices.Contains(row, j) {
				row = append(row, j)
			}
		}
		slices.Sort(row)
		a.Indices = append(a.Indices, row...)
		for range row {
			a.Data = append(a.Data, 0.25+rng.Float32())
		}
		a.Indptr[i+1] = int64(len(a.Indices))
	}
	x := samplingtest.RandomFeatures(rng, cols*f, 1)
	y := samplingtest.RandomFeatures(rng, rows*f, 1)
	w := samplingtest.RandomFeatures(rng, f*f, 1)
	run := func(be *Backend) (spmm, spmmt, gemm []float32) {
		up := func(v []float32) gnn.Buf { b := be.Alloc(len(v)); be.Upload(b, v); return b }
		s, st, g := be.Alloc(rows*f), be.Alloc(cols*f), be.Alloc(rows*f)
		be.Hold(&a)
		be.SpMM(s, &a, up(x), f)
		be.SpMMT(st, &a, up(y), f)
		be.Gemm(false, true, rows, f, f, 1, up(y), up(w), 0, g)
		spmm, spmmt, gemm = make([]float32, rows*f), make([]float32, cols*f), make([]float32, rows*f)
		be.Download(spmm, s)
		be.Download(spmmt, st)
		be.Download(gemm, g)
		if err := be.Err(); err != nil {
			t.Fatal(err)
		}
		return
	}
	l1, l2, l3 := run(lib)
	o1, o2, o3 := run(own)
	for _, c := range []struct {
		name      string
		got, want []float32
		tol       float64
	}{{"SpMM", l1, o1, 1e-5}, {"SpMMT", l2, o2, 1e-5}, {"Gemm", l3, o3, 1e-4}} {
		worst := 0.0
		for i := range c.want {
			d := math.Abs(float64(c.got[i]) - float64(c.want[i]))
			worst = max(worst, d/(1+math.Abs(float64(c.want[i]))))
		}
		t.Logf("%s: worst relative difference %.3g", c.name, worst)
		if worst > c.tol {
			t.Errorf("%s: libraries and own kernels differ by %.3g (relative), more than %g", c.name, worst, c.tol)
		}
	}
}

// TestCUDATrainDevicePathPlacement trains on the GPU's device path with
// the features in device memory and in mapped host memory (the UVA
// gather): the same run, to cuBLAS's and cuSPARSE's rounding, with the
// sampling on its own stream beside the training.
func TestCUDATrainDevicePathPlacement(t *testing.T) {
	dev := openGPU(t)
	var params [2][]float32
	var results [2]*train.Result
	for i, place := range []Placement{PlaceDevice, PlaceHost} {
		be := newGPUBackend(t, dev, BackendOptions{Features: FeaturesOptions{Placement: place}})
		params[i], results[i] = deviceRun{arch: gnn.SAGE, depth: 2, epochs: 3}.run(t, dev, be)
	}
	for e := range results[0].Epochs {
		d, h := results[0].Epochs[e].Loss, results[1].Epochs[e].Loss
		t.Logf("epoch %d: loss %.7f with the features in device memory, %.7f in host memory", e, d, h)
		if math.Abs(d-h) > 1e-4*math.Abs(d) {
			t.Errorf("epoch %d: loss %v in host memory, %v in device memory", e, h, d)
		}
	}
	if d := maxRelDiff(params[1], params[0]); d > 1e-3 {
		t.Errorf("parameters differ by %.3g", d)
	}
}
