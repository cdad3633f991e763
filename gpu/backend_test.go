package gpu

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/gnn/backendtest"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/sampling/samplingtest"
)

// newEmulatorBackend returns the backend on an emulator whose threads run
// in a permuted order and whose buffers are sized exactly (so that the
// AddressSanitizer run of make test names a kernel that overruns one).
func newEmulatorBackend(t *testing.T) *Backend {
	t.Helper()
	dev := NewEmulator(EmulatorOptions{Order: 4242, Exact: true})
	be, err := NewBackend(dev, BackendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := be.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		dev.Close()
	})
	return be
}

// TestBackendConformance runs gnn's backend conformance kit on the
// emulator: every operation against its float64 reference, the gradients
// of every model case against finite differences, and whole forward and
// backward passes and inference against the CPU backend.
func TestBackendConformance(t *testing.T) {
	be := newEmulatorBackend(t)
	t.Logf("backend: %s", be.Name())
	t.Run("ops", func(t *testing.T) { backendtest.Run(t, be) })
	if testing.Short() {
		return
	}
	t.Run("gradients", func(t *testing.T) { backendtest.CheckGradients(t, be) })
	t.Run("against-cpu", func(t *testing.T) { backendtest.CheckAgainst(t, be, gnn.NewCPU(gnn.CPUOptions{Threads: 2})) })
	if err := be.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestBackendExactOps checks the operations the backend promises bit for
// bit against the CPU backend: the element-wise passes (bias widths that
// are and are not multiples of 4 and 16, lengths that are not, which take
// the CPU's other code paths), dropout with its keyed masks in every form
// (in place with and without ReLU, with a bias, copied), the activation's
// gradient, arg-max, Adam over several steps, and column sums of up to 64
// rows (one chunk: the CPU's order).
func TestBackendExactOps(t *testing.T) { checkExactOps(t, newEmulatorBackend(t)) }

// checkExactOps is TestBackendExactOps on be (the emulator's, or a GPU's).
func checkExactOps(t *testing.T, be *Backend) {
	cpu := gnn.NewCPU(gnn.CPUOptions{Threads: 2})
	rng := rand.New(rand.NewPCG(5, 55))
	up := func(x []float32) gnn.Buf {
		b := be.Alloc(len(x))
		be.Upload(b, x)
		return b
	}
	down := func(b gnn.Buf) []float32 {
		x := make([]float32, b.Len())
		be.Download(x, b)
		return x
	}
	same := func(op string, got, want []float32) {
		t.Helper()
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%s: [%d] = %v (%#x); CPU %v (%#x)", op, i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
			}
		}
	}
	// values with exact zeros of both signs, for the sign rules of ReLU
	// and dropout.
	values := func(n int) []float32 {
		x := samplingtest.RandomFeatures(rng, n, 2)
		for i := 0; i < n; i += 7 {
			x[i] = 0
		}
		for i := 3; i < n; i += 11 {
			x[i] = float32(math.Copysign(0, -1))
		}
		return x
	}
	fused := func(be gnn.Backend) interface {
		BiasActivate(h, b gnn.Buf, mask gnn.DropoutMask, dropout bool)
		CopyDropout(dst, src gnn.Buf, mask gnn.DropoutMask)
		ReLUDropoutGradColSums(dh, h gnn.Buf, scale float32, sums gnn.Buf)
	} {
		return be.(interface {
			BiasActivate(h, b gnn.Buf, mask gnn.DropoutMask, dropout bool)
			CopyDropout(dst, src gnn.Buf, mask gnn.DropoutMask)
			ReLUDropoutGradColSums(dh, h gnn.Buf, scale float32, sums gnn.Buf)
		})
	}
	for _, f := range []int{1, 3, 4, 12, 16, 47, 64, 256} {
		for _, rows := range []int{1, 5, 64, 300} {
			n := rows * f
			x, y := values(n), values(n)
			bias := samplingtest.RandomFeatures(rng, f, 1)
			s := samplingtest.RandomFeatures(rng, rows, 1)
			s[0] = 0
			key := sampling.NewStream(uint64(f)).Row(2, rows, 1, 0)
			mask := gnn.DropoutMask{Key: key, Threshold: 32768, Scale: 2}
			name := func(op string) string { return op + " f=" + strconv.Itoa(f) + " rows=" + strconv.Itoa(rows) }

			h := slices.Clone(x)
			d := up(x)
			cpu.Add(gnn.HostBuf(h), gnn.HostBuf(y))
			be.Add(d, up(y))
			same(name("Add"), down(d), h)

			h, d = slices.Clone(x), up(x)
			cpu.AddRowScaled(gnn.HostBuf(h), gnn.HostBuf(s), gnn.HostBuf(y), f)
			be.AddRowScaled(d, up(s), up(y), f)
			same(name("AddRowScaled"), down(d), h)

			h, d = slices.Clone(x), up(x)
			cpu.AddBias(gnn.HostBuf(h), gnn.HostBuf(bias))
			be.AddBias(d, up(bias))
			same(name("AddBias"), down(d), h)

			h, d = slices.Clone(x), up(x)
			cpu.ReLU(gnn.HostBuf(h))
			be.ReLU(d)
			same(name("ReLU"), down(d), h)

			for _, relu := range []bool{false, true} {
				h, d = slices.Clone(x), up(x)
				cpu.Dropout(gnn.HostBuf(h), mask, relu)
				be.Dropout(d, mask, relu)
				same(name("Dropout relu="+map[bool]string{false: "no", true: "yes"}[relu]), down(d), h)
			}
			for _, drop := range []bool{false, true} {
				h, d = slices.Clone(x), up(x)
				fused(cpu).BiasActivate(gnn.HostBuf(h), gnn.HostBuf(bias), mask, drop)
				fused(be).BiasActivate(d, up(bias), mask, drop)
				same(name("BiasActivate"), down(d), h)
			}
			h, d = make([]float32, n), be.Alloc(n)
			fused(cpu).CopyDropout(gnn.HostBuf(h), gnn.HostBuf(x), mask)
			fused(be).CopyDropout(d, up(x), mask)
			same(name("CopyDropout"), down(d), h)

			h, d = slices.Clone(y), up(y)
			cpu.ReLUDropoutGrad(gnn.HostBuf(h), gnn.HostBuf(x), 2)
			be.ReLUDropoutGrad(d, up(x), 2)
			same(name("ReLUDropoutGrad"), down(d), h)

			got, want := make([]int32, rows), make([]int32, rows)
			cpu.ArgmaxRows(want, gnn.HostBuf(x), f)
			be.ArgmaxRows(got, up(x), f)
			if !slices.Equal(got, want) {
				t.Fatalf("%s: %v; CPU %v", name("ArgmaxRows"), got, want)
			}

			if rows <= 64 {
				sw, sd := make([]float32, f), be.Alloc(f)
				cpu.ColSums(gnn.HostBuf(sw), gnn.HostBuf(x))
				be.ColSums(sd, up(x))
				same(name("ColSums"), down(sd), sw)
				h, d = slices.Clone(y), up(y)
				sd = be.Alloc(f)
				fused(cpu).ReLUDropoutGradColSums(gnn.HostBuf(h), gnn.HostBuf(x), 2, gnn.HostBuf(sw))
				fused(be).ReLUDropoutGradColSums(d, up(x), 2, sd)
				same(name("ReLUDropoutGradColSums grad"), down(d), h)
				same(name("ReLUDropoutGradColSums sums"), down(sd), sw)
			}
		}
	}
	// Adam: three steps from the same state, with weight decay.
	const n = 1001
	p := samplingtest.RandomFeatures(rng, n, 1)
	pd, md, vd := up(p), be.Alloc(n), be.Alloc(n)
	m, v := make([]float32, n), make([]float32, n)
	for step := 1; step <= 3; step++ {
		g := samplingtest.RandomFeatures(rng, n, 1)
		c1, c2 := 1-math.Pow(0.9, float64(step)), 1-math.Pow(0.999, float64(step))
		s := gnn.AdamStep{Beta1: 0.9, Beta2: 0.999, WeightDecay: 5e-4, StepSize: float32(0.01 / c1), InvSqrtC2: float32(1 / math.Sqrt(c2)), Eps: 1e-8}
		cpu.Adam(gnn.HostBuf(p), gnn.HostBuf(g), gnn.HostBuf(m), gnn.HostBuf(v), s)
		be.Adam(pd, up(g), md, vd, s)
		same("Adam params step "+strconv.Itoa(step), down(pd), p)
		same("Adam m", down(md), m)
		same("Adam v", down(vd), v)
	}
	if err := be.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestBackendErrors checks the backend's error discipline: a device call
// that fails (an allocation past the emulator's memory) is kept, later
// operations do nothing, SoftmaxCrossEntropy returns a NaN loss, and a
// Buf of another backend is refused.
func TestBackendErrors(t *testing.T) {
	dev := NewEmulator(EmulatorOptions{MemoryBytes: 1 << 12})
	defer dev.Close()
	be, err := NewBackend(dev, BackendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := be.Alloc(100)
	be.Upload(a, make([]float32, 100))
	if err := be.Err(); err != nil {
		t.Fatalf("a small allocation failed: %v", err)
	}
	big := be.Alloc(1 << 20)
	if err := be.Err(); err == nil || !strings.Contains(err.Error(), "Alloc(1048576 values)") || !strings.Contains(err.Error(), "out of memory") {
		t.Fatalf("an allocation past the memory: Err() = %v", err)
	}
	be.ReLU(big)
	be.Add(a, a)
	loss, _, _ := be.SoftmaxCrossEntropy(be.Alloc(4), be.Alloc(4), 2, []int32{0, 1})
	if !math.IsNaN(loss) {
		t.Errorf("loss after an error: %v; want NaN", loss)
	}
	if be.Close() == nil {
		t.Error("Close after an error returned nil")
	}

	other := newEmulatorBackend(t)
	func() {
		defer func() {
			if p := recover(); p == nil || !strings.Contains(p.(string), "not this backend's") {
				t.Errorf("a Buf of another backend: panic %v", p)
			}
		}()
		b2 := newEmulatorBackend(t)
		b2.ReLU(other.Alloc(3))
	}()
}

// TestBackendQueue runs more operations than the queue holds between two
// results, and frees buffers as the model's growing buffers do, checking
// the values and that the freed memory is returned.
func TestBackendQueue(t *testing.T) {
	dev := NewEmulator(EmulatorOptions{Exact: true})
	defer dev.Close()
	be, err := NewBackend(dev, BackendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	one := be.Alloc(10)
	be.Upload(one, []float32{1, 1, 1, 1, 1, 1, 1, 1, 1, 1})
	acc := be.Alloc(10)
	for range 3*queueMax + 5 {
		be.Add(acc, one)
	}
	got := make([]float32, 10)
	be.Download(got, acc)
	if got[9] != 3*queueMax+5 {
		t.Fatalf("after %d adds: %v", 3*queueMax+5, got)
	}
	free0, _, _ := dev.MemoryInfo()
	tmp := be.Alloc(1000)
	be.Free(tmp.Slice(0, 10)) // a view of its start frees the allocation
	be.Download(got, acc)
	if free1, _, _ := dev.MemoryInfo(); free1 != free0 {
		t.Errorf("free memory %d after Alloc and Free; %d before", free1, free0)
	}
	if err := be.Close(); err != nil {
		t.Fatal(err)
	}
	if free, total, _ := dev.MemoryInfo(); free != total {
		t.Errorf("after Close %d of %d bytes free", free, total)
	}
}
