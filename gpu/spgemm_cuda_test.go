//go:build cuda

package gpu

// The cuSPARSE product's call sequence, checked without a GPU: the
// emulator's executor is wrapped so that a fake cuSPARSE (fakeSparse) sees
// every allocation, and the fake keeps the contract of NVIDIA's
// documentation and samples, reporting every breach: no CSR descriptor of
// a matrix with rows without row offsets (cuSPARSE 12.2 and later refuse
// it), reuse_nnz writes C's offsets into the array given at creation, every
// buffer is live and large enough when used, ALG2/ALG3's estimate buffer is
// freed before the next allocation, a failed try's buffers are freed before
// the next try, the reuse path's buffers 4 and 5 live while it computes,
// and nothing leaks. The fake computes C with spgemm.Mul on the emulator's
// memory (rows written in reverse, as cuSPARSE may leave them unsorted), so
// that each case also checks the result bit for bit.

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/bulksample/bulksample/internal/cuda"
	"github.com/bulksample/bulksample/spgemm"
	"github.com/bulksample/bulksample/spgemm/spgemmtest"
)

// fakeExec is the emulator's executor, reporting allocations to the fake.
type fakeExec struct {
	executor
	f *fakeSparse
}

func (e *fakeExec) alloc(bytes int64) (mem, error) {
	m, err := e.executor.alloc(bytes)
	if err == nil {
		e.f.allocated(m)
	}
	return m, err
}

func (e *fakeExec) free(m mem) error {
	e.f.freed(m)
	return e.executor.free(m)
}

// sparse returns the fake, which runs the stream's queued work before it
// touches memory: a library call runs in its stream's order.
func (e *fakeExec) sparse() (sparseLib, error) {
	s := e.executor.(*emuStream)
	e.f.settle = func() {
		if err := s.e.flush(s.st); err != nil {
			e.f.breach("the work queued before a cuSPARSE call failed: %v", err)
		}
	}
	return e.f, nil
}

// fakeMat is a CSR descriptor of the fake.
type fakeMat struct {
	rows, cols, nnz int64
	ptr, ind, val   cuda.DevicePtr
	created         cuda.DevicePtr // the offsets given at creation
}

// fakeDesc is a product descriptor of the fake.
type fakeDesc struct {
	failed     bool          // a call on it failed for want of resources
	bufs       map[int]int64 // allocations made while it was the newest: their ids and sizes
	c          *spgemm.CSR
	work, prod bool // workEstimation and compute (or reuse_nnz) ran
	r4, r5     cuda.DevicePtr
	r4id, r5id int // their allocations (an address may come back with another)
}

type fakeSparse struct {
	missing map[cuda.Feature]string // features the library lacks: the missing function
	fail    map[string]bool         // "alg1", "alg3 0.2", "reuse": INSUFFICIENT_RESOURCES
	live    map[uint64]mem          // the executor's live allocations
	ids     map[uint64]int          // their numbers, in the order allocated (an address may come back)
	next    int
	mats    map[*fakeMat]bool  // live descriptors
	descs   map[*fakeDesc]bool // live product descriptors
	newest  *fakeDesc          // the last product descriptor made
	failed  []*fakeDesc        // destroyed ones that failed
	est     uint64             // ALG2/ALG3's buffer 3, which must be freed before the next allocation
	log     []string           // the calls, in order
	errs    []string           // breaches of the contract
	settle  func()             // runs the work queued before the call
}

func newFakeSparse() *fakeSparse {
	return &fakeSparse{missing: map[cuda.Feature]string{}, fail: map[string]bool{}, live: map[uint64]mem{}, mats: map[*fakeMat]bool{},
		descs: map[*fakeDesc]bool{}, ids: map[uint64]int{}}
}

func (f *fakeSparse) breach(format string, args ...any) {
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}

func (f *fakeSparse) allocated(m mem) {
	if f.est != 0 {
		if _, ok := f.live[f.est]; ok {
			f.breach("an allocation of %d bytes while ALG2/ALG3's estimate buffer (buffer 3) is still allocated", m.bytes)
		}
		f.est = 0
	}
	f.live[m.addr] = m
	f.next++
	f.ids[m.addr] = f.next
	if f.newest != nil {
		f.newest.bufs[f.next] = m.bytes
	}
}

func (f *fakeSparse) freed(m mem) {
	if _, ok := f.live[m.addr]; !ok && m.addr != 0 {
		f.breach("free of %#x, not a live allocation", m.addr)
	}
	delete(f.live, m.addr)
	delete(f.ids, m.addr)
}

// same breaches unless the allocation id is still live at p.
func (f *fakeSparse) same(p cuda.DevicePtr, id int, what string) {
	if got, ok := f.ids[uint64(p)]; !ok || got != id {
		f.breach("%s: freed since it was given", what)
	}
}

// host returns the live allocation at p, holding at least bytes, breaching
// (with what) when there is none.
func (f *fakeSparse) host(p cuda.DevicePtr, bytes int64, what string) (mem, bool) {
	if f.settle != nil {
		f.settle()
	}
	m, ok := f.live[uint64(p)]
	switch {
	case p == 0:
		f.breach("%s: NULL", what)
	case !ok:
		f.breach("%s: %#x is not a live allocation", what, p)
	case m.bytes < bytes:
		f.breach("%s: %d bytes, %d needed", what, m.bytes, bytes)
	default:
		return m, true
	}
	return mem{}, false
}

func status(call string, code int, name string) error {
	return &cuda.Error{Lib: "cusparse", Call: call, Code: code, Name: name}
}

func (f *fakeSparse) Has(ft cuda.Feature) bool { return f.Unavailable(ft) == nil }

func (f *fakeSparse) Unavailable(ft cuda.Feature) error {
	if sym, ok := f.missing[ft]; ok {
		return fmt.Errorf("fake: lacks %s, so %v is unavailable: %w", sym, ft, cuda.ErrUnavailable)
	}
	return nil
}

func (f *fakeSparse) CreateCSR(rows, cols, nnz int64, indptr, indices, data cuda.DevicePtr) (spMat, error) {
	f.log = append(f.log, "CreateCSR")
	if rows > 0 && indptr == 0 {
		f.breach("cusparseCreateCsr(%d x %d) with NULL row offsets", rows, cols)
		return nil, status("cusparseCreateCsr", 3, "CUSPARSE_STATUS_INVALID_VALUE")
	}
	f.host(indptr, (rows+1)*4, "cusparseCreateCsr's row offsets")
	if nnz > 0 {
		f.host(indices, nnz*4, "cusparseCreateCsr's column indices")
		f.host(data, nnz*4, "cusparseCreateCsr's values")
	}
	m := &fakeMat{rows: rows, cols: cols, nnz: nnz, ptr: indptr, ind: indices, val: data, created: indptr}
	f.mats[m] = true
	return m, nil
}

func (f *fakeSparse) mat(m spMat, call string) *fakeMat {
	fm, ok := m.(*fakeMat)
	if !ok || !f.mats[fm] {
		f.breach("%s: a descriptor that is not live", call)
		return &fakeMat{}
	}
	return fm
}

func (f *fakeSparse) desc(d spDesc, call string) *fakeDesc {
	fd, ok := d.(*fakeDesc)
	if !ok || !f.descs[fd] {
		f.breach("%s: a product descriptor that is not live", call)
		return &fakeDesc{}
	}
	return fd
}

func (f *fakeSparse) DestroySpMat(m spMat) error {
	delete(f.mats, f.mat(m, "cusparseDestroySpMat"))
	return nil
}

func (f *fakeSparse) Size(m spMat) (int64, int64, int64, error) {
	fm := f.mat(m, "cusparseSpMatGetSize")
	return fm.rows, fm.cols, fm.nnz, nil
}

func (f *fakeSparse) SetPointers(m spMat, indptr, indices, data cuda.DevicePtr) error {
	fm := f.mat(m, "cusparseCsrSetPointers")
	f.host(indptr, (fm.rows+1)*4, "cusparseCsrSetPointers' row offsets")
	f.host(indices, fm.nnz*4, "cusparseCsrSetPointers' column indices")
	f.host(data, fm.nnz*4, "cusparseCsrSetPointers' values")
	fm.ptr, fm.ind, fm.val = indptr, indices, data
	return nil
}

func (f *fakeSparse) NewSpGEMM() (spDesc, error) {
	f.log = append(f.log, "NewSpGEMM")
	for _, d := range f.failed {
		for _, id := range f.ids {
			if bytes, ok := d.bufs[id]; ok {
				f.breach("a try starts while a buffer of %d bytes of the failed one is still allocated", bytes)
			}
		}
	}
	f.failed = nil
	d := &fakeDesc{bufs: map[int]int64{}}
	f.descs[d], f.newest = true, d
	return d, nil
}

func (f *fakeSparse) DestroySpGEMM(d spDesc) error {
	fd := f.desc(d, "cusparseSpGEMM_destroyDescr")
	delete(f.descs, fd)
	if fd.failed {
		f.failed = append(f.failed, fd)
	}
	if f.newest == fd {
		f.newest = nil
	}
	return nil
}

// csr reads the matrix of descriptor m from the emulator's memory.
func (f *fakeSparse) csr(m *fakeMat, what string) *spgemm.CSR {
	pm, ok1 := f.host(m.ptr, (m.rows+1)*4, what+"'s row offsets")
	im, ok2 := f.host(m.ind, m.nnz*4, what+"'s column indices")
	vm, ok3 := f.host(m.val, m.nnz*4, what+"'s values")
	if !ok1 || !ok2 || !ok3 {
		return &spgemm.CSR{Rows: int(m.rows), Cols: int(m.cols), Indptr: make([]int64, m.rows+1)}
	}
	a := &spgemm.CSR{Rows: int(m.rows), Cols: int(m.cols), Indptr: make([]int64, m.rows+1)}
	for i, v := range unsafe.Slice((*int32)(pm.host), m.rows+1) {
		a.Indptr[i] = int64(v)
	}
	a.Indices = slices.Clone(unsafe.Slice((*int32)(im.host), m.nnz))
	a.Data = slices.Clone(unsafe.Slice((*float32)(vm.host), m.nnz))
	return a
}

// write writes c's rows, each in reverse, into the arrays of m: offsets
// into ptr (when given), indices and values when asked.
func (f *fakeSparse) write(c *spgemm.CSR, ptr cuda.DevicePtr, m *fakeMat, indices, values bool) {
	if ptr != 0 {
		if pm, ok := f.host(ptr, int64(c.Rows+1)*4, "C's row offsets"); ok {
			out := unsafe.Slice((*int32)(pm.host), c.Rows+1)
			for i, v := range c.Indptr {
				out[i] = int32(v)
			}
		}
	}
	nnz := c.NNZ()
	if indices {
		if im, ok := f.host(m.ind, nnz*4, "C's column indices"); ok {
			out := unsafe.Slice((*int32)(im.host), nnz)
			for i := range c.Rows {
				lo, hi := c.Indptr[i], c.Indptr[i+1]
				for k := lo; k < hi; k++ {
					out[lo+hi-1-k] = c.Indices[k]
				}
			}
		}
	}
	if values {
		if vm, ok := f.host(m.val, nnz*4, "C's values"); ok {
			out := unsafe.Slice((*float32)(vm.host), nnz)
			for i := range c.Rows {
				lo, hi := c.Indptr[i], c.Indptr[i+1]
				for k := lo; k < hi; k++ {
					out[lo+hi-1-k] = c.Data[k]
				}
			}
		}
	}
}

// buffer answers a call's buffer protocol: with buf 0 it returns size;
// with buf, it checks that it is live and holds size bytes.
func (f *fakeSparse) buffer(call string, size int64, buf cuda.DevicePtr, want int64) int64 {
	if buf != 0 {
		f.host(buf, want, call+"'s buffer")
	}
	return want
}

func (f *fakeSparse) failing(key, call string, d *fakeDesc) error {
	if f.fail[key] {
		d.failed = true
		return status(call, 11, "CUSPARSE_STATUS_INSUFFICIENT_RESOURCES")
	}
	return nil
}

func algKey(alg cuda.SpGEMMAlg, chunk float32) string {
	if alg == cuda.SpGEMMAlg3 {
		return fmt.Sprintf("%v %g", alg, chunk)
	}
	return alg.String()
}

func (f *fakeSparse) WorkEstimation(alg cuda.SpGEMMAlg, a, b, c spMat, d spDesc, size int64, buf cuda.DevicePtr) (int64, error) {
	f.log = append(f.log, "workEstimation "+alg.String())
	fd := f.desc(d, "cusparseSpGEMM_workEstimation")
	fa := f.mat(a, "workEstimation A")
	if buf != 0 {
		fd.work = true
	}
	return f.buffer("cusparseSpGEMM_workEstimation", size, buf, 256+fa.nnz*8), nil
}

func (f *fakeSparse) EstimateMemory(alg cuda.SpGEMMAlg, a, b, c spMat, d spDesc, chunk float32, size3 int64, buf3 cuda.DevicePtr) (int64, int64, error) {
	f.log = append(f.log, "estimateMemory "+algKey(alg, chunk))
	fd := f.desc(d, "cusparseSpGEMM_estimateMemory")
	if alg != cuda.SpGEMMAlg2 && alg != cuda.SpGEMMAlg3 || !fd.work {
		f.breach("cusparseSpGEMM_estimateMemory(%v) before workEstimation or for another algorithm", alg)
	}
	fa := f.mat(a, "estimateMemory A")
	s3 := f.buffer("cusparseSpGEMM_estimateMemory", size3, buf3, 4096+fa.nnz*16)
	if buf3 == 0 {
		return s3, 0, nil
	}
	if err := f.failing(algKey(alg, chunk), "cusparseSpGEMM_estimateMemory", fd); err != nil {
		return 0, 0, err
	}
	f.est = uint64(buf3)
	return s3, 1024 + int64(float32(fa.nnz*32)*chunk), nil
}

func (f *fakeSparse) Compute(alg cuda.SpGEMMAlg, a, b, c spMat, d spDesc, size int64, buf cuda.DevicePtr) (int64, error) {
	f.log = append(f.log, "compute "+alg.String())
	fd := f.desc(d, "cusparseSpGEMM_compute")
	fa, fb, fc := f.mat(a, "compute A"), f.mat(b, "compute B"), f.mat(c, "compute C")
	if !fd.work {
		f.breach("cusparseSpGEMM_compute before workEstimation")
	}
	if buf == 0 {
		if err := f.failing(alg.String(), "cusparseSpGEMM_compute", fd); err != nil {
			return 0, err
		}
		return 2048 + fa.nnz*24, nil
	}
	f.host(buf, size, "cusparseSpGEMM_compute's buffer")
	fd.c = spgemm.Mul(f.csr(fa, "A"), f.csr(fb, "B"), nil)
	fd.prod = true
	fc.nnz = fd.c.NNZ()
	return size, nil
}

func (f *fakeSparse) Copy(alg cuda.SpGEMMAlg, a, b, c spMat, d spDesc) error {
	f.log = append(f.log, "copy "+alg.String())
	fd, fc := f.desc(d, "cusparseSpGEMM_copy"), f.mat(c, "copy C")
	if !fd.prod {
		f.breach("cusparseSpGEMM_copy before compute")
		return status("cusparseSpGEMM_copy", 3, "CUSPARSE_STATUS_INVALID_VALUE")
	}
	f.write(fd.c, fc.ptr, fc, true, true)
	return nil
}

func (f *fakeSparse) ReuseWorkEstimation(a, b, c spMat, d spDesc, size int64, buf cuda.DevicePtr) (int64, error) {
	f.log = append(f.log, "reuse_workEstimation")
	fd, fa := f.desc(d, "cusparseSpGEMMreuse_workEstimation"), f.mat(a, "reuse A")
	if buf != 0 {
		fd.work = true
	}
	return f.buffer("cusparseSpGEMMreuse_workEstimation", size, buf, 256+fa.nnz*8), nil
}

func (f *fakeSparse) ReuseNNZ(a, b, c spMat, d spDesc, sizes [3]int64, bufs [3]cuda.DevicePtr) ([3]int64, error) {
	f.log = append(f.log, "reuse_nnz")
	fd := f.desc(d, "cusparseSpGEMMreuse_nnz")
	fa, fb, fc := f.mat(a, "reuse A"), f.mat(b, "reuse B"), f.mat(c, "reuse C")
	want := [3]int64{512 + fa.nnz*4, 512 + fa.nnz*8, 512 + fb.nnz*4}
	if bufs[0] == 0 {
		return want, nil
	}
	if !fd.work {
		f.breach("cusparseSpGEMMreuse_nnz before reuse_workEstimation")
	}
	for i, b := range bufs {
		f.host(b, want[i], fmt.Sprintf("cusparseSpGEMMreuse_nnz's buffer %d", i+2))
	}
	if err := f.failing("reuse", "cusparseSpGEMMreuse_nnz", fd); err != nil {
		return want, err
	}
	if fc.created == 0 {
		f.breach("cusparseSpGEMMreuse_nnz: C was created without row offsets, where it writes them")
		return want, status("cusparseSpGEMMreuse_nnz", 3, "CUSPARSE_STATUS_INVALID_VALUE")
	}
	fd.c = spgemm.Mul(f.csr(fa, "A"), f.csr(fb, "B"), nil)
	fd.prod, fd.r4, fd.r4id = true, bufs[2], f.ids[uint64(bufs[2])]
	fc.nnz = fd.c.NNZ()
	f.write(fd.c, fc.created, fc, false, false)
	return want, nil
}

func (f *fakeSparse) ReuseCopy(a, b, c spMat, d spDesc, size int64, buf cuda.DevicePtr) (int64, error) {
	f.log = append(f.log, "reuse_copy")
	fd, fc := f.desc(d, "cusparseSpGEMMreuse_copy"), f.mat(c, "reuse C")
	want := 256 + fc.nnz*4
	if buf == 0 {
		return want, nil
	}
	if !fd.prod {
		f.breach("cusparseSpGEMMreuse_copy before reuse_nnz")
	}
	f.host(buf, want, "cusparseSpGEMMreuse_copy's buffer 5")
	f.same(fd.r4, fd.r4id, "cusparseSpGEMMreuse_copy's buffer 4")
	fd.r5, fd.r5id = buf, f.ids[uint64(buf)]
	f.write(fd.c, 0, fc, true, false)
	return want, nil
}

func (f *fakeSparse) ReuseCompute(a, b, c spMat, d spDesc) error {
	f.log = append(f.log, "reuse_compute")
	fd := f.desc(d, "cusparseSpGEMMreuse_compute")
	fa, fb, fc := f.mat(a, "reuse A"), f.mat(b, "reuse B"), f.mat(c, "reuse C")
	if fd.r5 == 0 {
		f.breach("cusparseSpGEMMreuse_compute before reuse_copy")
		return status("cusparseSpGEMMreuse_compute", 3, "CUSPARSE_STATUS_INVALID_VALUE")
	}
	f.same(fd.r4, fd.r4id, "cusparseSpGEMMreuse_compute's buffer 4")
	f.same(fd.r5, fd.r5id, "cusparseSpGEMMreuse_compute's buffer 5")
	f.write(spgemm.Mul(f.csr(fa, "A"), f.csr(fb, "B"), nil), 0, fc, false, true)
	return nil
}

// withFakeSparse returns an emulator whose executor has the fake cuSPARSE.
func withFakeSparse(f *fakeSparse) *Device {
	d := NewEmulator(EmulatorOptions{})
	inner := d.run
	d.run = func(st stream, fn func(executor) error) error {
		return inner(st, func(ex executor) error { return fn(&fakeExec{executor: ex, f: f}) })
	}
	return d
}

// randomCSR returns a rows x cols matrix of about density·cols entries a
// row, values small integers (so that every sum is exact).
func randomCSR(rng *rand.Rand, rows, cols int, density float64) *spgemm.CSR {
	a := &spgemm.CSR{Rows: rows, Cols: cols, Indptr: make([]int64, rows+1)}
	for i := range rows {
		for j := range cols {
			if rng.Float64() < density {
				a.Indices = append(a.Indices, int32(j))
				a.Data = append(a.Data, float32(1+rng.IntN(4)))
			}
		}
		a.Indptr[i+1] = int64(len(a.Indices))
	}
	return a
}

// TestCusparseCallSequence runs cuSPARSE products on the fake through
// Product, in every path: ALG1; ALG3 after ALG1, ALG2 and ALG3's first
// chunk run out of resources; CUDA 11's default algorithm; the reuse path;
// the reuse path out of resources (one-shot runs); a library without reuse;
// a library without SpGEMM; every algorithm out of resources.
func TestCusparseCallSequence(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 1))
	a, b := randomCSR(rng, 70, 50, 0.12), randomCSR(rng, 50, 60, 0.1)
	want := spgemm.Mul(a, b, nil)
	allAlgs := map[string]bool{"alg1": true, "alg2": true}
	for c := float32(0.2); c >= 0.2/64; c /= 2 {
		allAlgs[algKey(cuda.SpGEMMAlg3, c)] = true
	}
	for _, c := range []struct {
		name    string
		reuse   bool
		missing map[cuda.Feature]string
		fail    map[string]bool
		method  string // the Method after the runs (a prefix)
		err     string // NewProduct's or Run's error, when it must fail
	}{
		{name: "alg1", method: "cusparse alg1"},
		{name: "alg3 after the others ran out", fail: map[string]bool{"alg1": true, "alg2": true, "alg3 0.2": true},
			method: "cusparse alg3 (chunk fraction 0.1)"},
		{name: "CUDA 11", missing: map[cuda.Feature]string{cuda.FeatureSpGEMMEstimate: "cusparseSpGEMM_estimateMemory"}, method: "cusparse default"},
		{name: "reuse", reuse: true, method: "cusparse reuse"},
		{name: "reuse out of resources", reuse: true, fail: map[string]bool{"reuse": true}, method: "cusparse alg1 (without reuse: cusparse: cusparseSpGEMMreuse_nnz"},
		{name: "no reuse", reuse: true, missing: map[cuda.Feature]string{cuda.FeatureSpGEMMReuse: "cusparseSpGEMMreuse_copy"},
			method: "cusparse alg1 (without reuse: fake: lacks cusparseSpGEMMreuse_copy"},
		{name: "no SpGEMM", missing: map[cuda.Feature]string{cuda.FeatureSpGEMM: "cusparseSpGEMM_copy"}, err: "cusparseSpGEMM_copy"},
		{name: "all out of resources", fail: allAlgs, err: "CUSPARSE_STATUS_INSUFFICIENT_RESOURCES"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeSparse()
			if c.missing != nil {
				f.missing = c.missing
			}
			if c.fail != nil {
				f.fail = c.fail
			}
			dev := withFakeSparse(f)
			defer func() {
				for _, e := range f.errs {
					t.Errorf("contract: %s", e)
				}
				if len(f.live) != 0 || len(f.mats) != 0 || len(f.descs) != 0 {
					t.Errorf("after Close: %d allocations, %d descriptors and %d product descriptors live", len(f.live), len(f.mats), len(f.descs))
				}
				if t.Failed() {
					t.Logf("calls: %s", strings.Join(f.log, ", "))
				}
			}()
			pr, err := dev.NewProduct(a, b, ProductOptions{Reuse: c.reuse})
			if err != nil {
				if c.err == "" || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("NewProduct: %v", err)
				}
				return
			}
			defer func() {
				if err := pr.Close(); err != nil {
					t.Error(err)
				}
			}()
			for run := range 3 {
				first := len(f.log)
				err := pr.Run()
				if c.err != "" {
					if err == nil || !strings.Contains(err.Error(), c.err) {
						t.Fatalf("run %d: %v, want an error with %s", run, err, c.err)
					}
					return
				}
				if err != nil {
					t.Fatalf("run %d: %v", run, err)
				}
				got, err := pr.Result()
				if err != nil {
					t.Fatal(err)
				}
				if err := got.Validate(); err != nil {
					t.Fatalf("run %d: %v", run, err)
				}
				if err := spgemmtest.SameBits(got, want); err != nil {
					t.Fatalf("run %d (%s): %v", run, pr.Method(), err)
				}
				calls := strings.Join(f.log[first:], ", ")
				switch {
				case run > 0 && c.method == "cusparse reuse" && calls != "reuse_compute":
					t.Errorf("run %d of the reuse path called %s, want reuse_compute only", run, calls)
				case run > 0 && strings.Contains(c.method, "alg3") && strings.Contains(calls, "alg1"):
					t.Errorf("run %d tried ALG1 again (%s): a later run starts from the algorithm that succeeded", run, calls)
				}
			}
			if !strings.HasPrefix(pr.Method(), c.method) {
				t.Errorf("Method %q, want %q...", pr.Method(), c.method)
			}
		})
	}
}

// TestCusparseFakeCatchesNullOffsets checks the check itself: the fake
// refuses what cuSPARSE 12.2 and later refuse.
func TestCusparseFakeCatchesNullOffsets(t *testing.T) {
	f := newFakeSparse()
	_, err := f.CreateCSR(3, 3, 0, 0, 0, 0)
	var e *cuda.Error
	if !errors.As(err, &e) || e.Name != "CUSPARSE_STATUS_INVALID_VALUE" || len(f.errs) != 1 {
		t.Fatalf("CreateCSR with NULL offsets: %v, breaches %v", err, f.errs)
	}
}
