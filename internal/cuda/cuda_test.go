//go:build cuda

package cuda

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/bulksample/bulksample/internal/cuda/kernels"
)

// openGPU opens device 0, or skips (fails with BULKSAMPLE_REQUIRE_GPU=1).
func openGPU(t *testing.T) *Context {
	t.Helper()
	c, err := Open(0)
	if err != nil {
		if os.Getenv("BULKSAMPLE_REQUIRE_GPU") == "1" {
			t.Fatalf("BULKSAMPLE_REQUIRE_GPU=1 but: %v", err)
		}
		t.Skipf("no GPU: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	t.Logf("%v", c.Info())
	return c
}

// TestDriverBasics allocates, copies, launches a kernel of the PTX and
// checks the status names of a failing allocation.
func TestDriverBasics(t *testing.T) {
	c := openGPU(t)
	err := c.Do(func(th *Thread) error {
		mod, err := th.LoadModule(kernels.Image())
		if err != nil {
			return err
		}
		k := kernels.Table()["fill_i32"]
		f, err := mod.Function(k.Entry())
		if err != nil {
			return err
		}
		const n = 100003
		p, err := th.Alloc(4 * n)
		if err != nil {
			return err
		}
		defer th.Free(p)
		if err := th.Launch(f, 64, 256, []uint64{n, uint64(p), uint64(7)}); err != nil {
			return err
		}
		out := make([]int32, n)
		if err := th.CopyDtoH(unsafe.Pointer(&out[0]), p, 4*n); err != nil {
			return err
		}
		for i, v := range out {
			if v != 7 {
				return fmt.Errorf("element %d = %d, want 7", i, v)
			}
		}
		_, err = th.Alloc(1 << 50)
		if !IsOutOfMemory(err) || !strings.Contains(err.Error(), "CUDA_ERROR_OUT_OF_MEMORY") {
			return fmt.Errorf("a 1 PiB allocation: %v, want CUDA_ERROR_OUT_OF_MEMORY", err)
		}
		t.Logf("1 PiB: %v", err)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSgemm checks cuBLAS's Sgemm through SgemmRowMajor (for part 2's
// dense layers) against a float64 reference, with every transposition.
func TestSgemm(t *testing.T) {
	c := openGPU(t)
	rng := rand.New(rand.NewPCG(1, 2))
	const m, n, k = 37, 29, 53
	for _, ta := range []bool{false, true} {
		for _, tb := range []bool{false, true} {
			a, b := make([]float32, m*k), make([]float32, k*n)
			for i := range a {
				a[i] = float32(rng.NormFloat64())
			}
			for i := range b {
				b[i] = float32(rng.NormFloat64())
			}
			at := func(i, j int) float64 { // op(A)[i][j]
				if ta {
					return float64(a[j*m+i])
				}
				return float64(a[i*k+j])
			}
			bt := func(i, j int) float64 {
				if tb {
					return float64(b[j*k+i])
				}
				return float64(b[i*n+j])
			}
			lda, ldb := k, n
			if ta {
				lda = m
			}
			if tb {
				ldb = k
			}
			got := make([]float32, m*n)
			err := c.Do(func(th *Thread) error {
				bl, err := th.BLAS()
				if err != nil {
					return err
				}
				pa, _ := th.Alloc(int64(4 * len(a)))
				pb, _ := th.Alloc(int64(4 * len(b)))
				pc, _ := th.Alloc(int64(4 * len(got)))
				defer th.Free(pa)
				defer th.Free(pb)
				defer th.Free(pc)
				th.CopyHtoD(pa, unsafe.Pointer(&a[0]), int64(4*len(a)))
				th.CopyHtoD(pb, unsafe.Pointer(&b[0]), int64(4*len(b)))
				if err := bl.SgemmRowMajor(ta, tb, m, n, k, 1, pa, lda, pb, ldb, 0, pc, n); err != nil {
					return err
				}
				return th.CopyDtoH(unsafe.Pointer(&got[0]), pc, int64(4*len(got)))
			})
			if err != nil {
				t.Fatal(err)
			}
			for i := range m {
				for j := range n {
					want := 0.0
					for l := range k {
						want += at(i, l) * bt(l, j)
					}
					if math.Abs(float64(got[i*n+j])-want) > 1e-4*math.Sqrt(k)*(1+math.Abs(want)) {
						t.Fatalf("transA=%v transB=%v: C[%d][%d] = %v, want %v", ta, tb, i, j, got[i*n+j], want)
					}
				}
			}
		}
	}
}

// TestLibraries loads cuSPARSE and cuBLAS and reports which.
func TestLibraries(t *testing.T) {
	c := openGPU(t)
	err := c.Do(func(th *Thread) error {
		sp, err := th.Sparse()
		if err != nil {
			return err
		}
		bl, err := th.BLAS()
		if err != nil {
			return err
		}
		t.Logf("cuSPARSE %d from %s (%s; loaded after %v); cuBLAS %d from %s (loaded after %v)", sp.Version, sp.Path, sp.Features(), sp.Deps,
			bl.Version, bl.Path, bl.Deps)
		for f := FeatureSpMM; f <= FeatureSpGEMMReuse; f++ {
			if f != FeatureSpGEMMEstimate && !sp.Has(f) {
				return fmt.Errorf("cuSPARSE %d: %w", sp.Version, sp.Unavailable(f))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSpMM checks cuSPARSE's SpMM through the binding (part 2's
// aggregation, A·H and Aᵀ·G) against a float64 reference.
func TestSpMM(t *testing.T) {
	c := openGPU(t)
	rng := rand.New(rand.NewPCG(3, 4))
	const rows, cols, feat = 45, 38, 19
	var ptr = []int32{0}
	var ind []int32
	var val []float32
	for range rows {
		for j := range cols {
			if rng.IntN(4) == 0 {
				ind, val = append(ind, int32(j)), append(val, float32(rng.NormFloat64()))
			}
		}
		ptr = append(ptr, int32(len(ind)))
	}
	for _, trans := range []bool{false, true} {
		inner, outer := cols, rows // B is inner x feat, C outer x feat
		if trans {
			inner, outer = rows, cols
		}
		b := make([]float32, inner*feat)
		for i := range b {
			b[i] = float32(rng.NormFloat64())
		}
		got := make([]float32, outer*feat)
		err := c.Do(func(th *Thread) error {
			sp, err := th.Sparse()
			if err != nil {
				return err
			}
			var allocErr error
			var ptrs []DevicePtr
			defer func() {
				for _, d := range ptrs {
					th.Free(d)
				}
			}()
			alloc := func(p unsafe.Pointer, bytes int) DevicePtr {
				d, err := th.Alloc(int64(bytes))
				if err != nil {
					allocErr = errors.Join(allocErr, err)
					return 0
				}
				ptrs = append(ptrs, d)
				if p != nil {
					allocErr = errors.Join(allocErr, th.CopyHtoD(d, p, int64(bytes)))
				}
				return d
			}
			dp, di, dv := alloc(unsafe.Pointer(&ptr[0]), 4*len(ptr)), alloc(unsafe.Pointer(&ind[0]), 4*len(ind)), alloc(unsafe.Pointer(&val[0]), 4*len(val))
			db, dc := alloc(unsafe.Pointer(&b[0]), 4*len(b)), alloc(nil, 4*len(got))
			if allocErr != nil {
				return allocErr
			}
			a, err := sp.CreateCSR(rows, cols, int64(len(ind)), dp, di, dv)
			if err != nil {
				return err
			}
			defer sp.DestroySpMat(a)
			mb, err := sp.CreateDnMat(int64(inner), feat, feat, db)
			if err != nil {
				return err
			}
			defer sp.DestroyDnMat(mb)
			mc, err := sp.CreateDnMat(int64(outer), feat, feat, dc)
			if err != nil {
				return err
			}
			defer sp.DestroyDnMat(mc)
			size, err := sp.SpMMBufferSize(trans, 1, a, mb, 0, mc)
			if err != nil {
				return err
			}
			buf := alloc(nil, int(max(size, 1)))
			if allocErr != nil {
				return allocErr
			}
			if err := sp.SpMM(trans, 1, a, mb, 0, mc, buf); err != nil {
				return err
			}
			return th.CopyDtoH(unsafe.Pointer(&got[0]), dc, int64(4*len(got)))
		})
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float64, outer*feat)
		for i := range rows {
			for q := ptr[i]; q < ptr[i+1]; q++ {
				j := int(ind[q])
				for f := range feat {
					if trans {
						want[j*feat+f] += float64(val[q]) * float64(b[i*feat+f])
					} else {
						want[i*feat+f] += float64(val[q]) * float64(b[j*feat+f])
					}
				}
			}
		}
		for i := range want {
			if math.Abs(float64(got[i])-want[i]) > 1e-4*(1+math.Abs(want[i])) {
				t.Fatalf("transposed=%v: C[%d] = %v, want %v", trans, i, got[i], want[i])
			}
		}
	}
}

// TestStreamsAndMapped checks the calls of the sampler's stream and of the
// UVA gather on a GPU: a kernel on a non-blocking stream, issued from
// DoSide's thread, is waited for by the default stream through an event;
// a kernel writes mapped host memory at its device address, and a copy
// reads it back.
func TestStreamsAndMapped(t *testing.T) {
	c := openGPU(t)
	const n = 1 << 20
	var (
		st   Stream
		ev   Event
		f    Function
		p    DevicePtr
		host unsafe.Pointer
		hp   DevicePtr
	)
	err := c.Do(func(th *Thread) error {
		mod, err := th.LoadModule(kernels.Image())
		if err != nil {
			return err
		}
		if f, err = mod.Function(kernels.Table()["fill_i32"].Entry()); err != nil {
			return err
		}
		if st, err = th.NewStream(); err != nil {
			return err
		}
		if ev, err = th.NewSyncEvent(); err != nil {
			return err
		}
		if p, err = th.Alloc(4 * n); err != nil {
			return err
		}
		host, hp, err = th.AllocMapped(4 * n)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Do(func(th *Thread) error {
		return errors.Join(th.Free(p), th.FreeHost(host), th.DestroyEvent(ev), th.DestroyStream(st))
	})
	err = c.DoSide(func(th *Thread) error {
		if err := th.LaunchOn(st, f, 64, 256, []uint64{n, uint64(p), 9}); err != nil {
			return err
		}
		return th.RecordOn(st, ev)
	})
	if err != nil {
		t.Fatal(err)
	}
	err = c.Do(func(th *Thread) error {
		if err := th.WaitEvent(Stream{}, ev); err != nil {
			return err
		}
		out := make([]int32, n)
		if err := th.CopyDtoH(unsafe.Pointer(&out[0]), p, 4*n); err != nil {
			return err
		}
		if i := slices.IndexFunc(out, func(v int32) bool { return v != 9 }); i >= 0 {
			return fmt.Errorf("after waiting for the side stream's event, element %d = %d, want 9", i, out[i])
		}
		if err := th.Launch(f, 64, 256, []uint64{n, uint64(hp), 5}); err != nil {
			return err
		}
		if err := th.Synchronize(); err != nil {
			return err
		}
		mapped := unsafe.Slice((*int32)(host), n)
		if i := slices.IndexFunc(mapped, func(v int32) bool { return v != 5 }); i >= 0 {
			return fmt.Errorf("mapped host memory written by a kernel: element %d = %d, want 5", i, mapped[i])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
