//go:build cgo

package kernels

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// cbuf is C memory of n elements of T for a test's kernel parameters.
type cbuf[T any] struct {
	p unsafe.Pointer
	s []T
}

func newCBuf[T any](t *testing.T, n int) cbuf[T] {
	t.Helper()
	var z T
	p, err := Alloc(int64(max(n, 1)) * int64(unsafe.Sizeof(z)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { Free(p) })
	return cbuf[T]{p: p, s: unsafe.Slice((*T)(p), max(n, 1))[:n]}
}

func (b cbuf[T]) addr() uint64 { return uint64(uintptr(b.p)) }

func kernelNamed(t *testing.T, name string) Kernel {
	t.Helper()
	k, ok := Table()[name]
	if !ok {
		t.Fatalf("no kernel %s", name)
	}
	return k
}

// lookBack is the control and status words of a look-back kernel (zero).
type lookBack struct {
	ctl    cbuf[uint64]
	status cbuf[uint64]
}

func newLookBack(t *testing.T, tiles int) lookBack {
	return lookBack{ctl: newCBuf[uint64](t, 2), status: newCBuf[uint64](t, tiles)}
}

// checkClean fails unless the launch left its words zero for the next.
func (lb lookBack) checkClean(t *testing.T) {
	t.Helper()
	for i, w := range append(append([]uint64(nil), lb.ctl.s...), lb.status.s...) {
		if w != 0 {
			t.Fatalf("word %d of the look-back is %#x after the launch; want 0", i, w)
		}
	}
}

// TestBlockScan runs the single-pass scan kernel (block scans and
// decoupled look-back) on int32 and int64 inputs of lengths around the
// tile size, on several grids, with the blocks in turn and interleaved at
// random, twice on the same words (the last block resets them): the
// prefix sums equal Go's, and the launch reports its traffic.
func TestBlockScan(t *testing.T) {
	k := kernelNamed(t, "scan")
	if k.Threads != 256 || !k.Counted {
		t.Fatalf("scan: %+v; want a counted block kernel of 256 threads", k)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	ns, grids, seeds := []int{0, 1, 2, 255, 256, 257, 1000, 4096, 9999}, []int64{1, 2, 3, 8}, []uint64{0, 1, 77}
	if testing.Short() { // (the AddressSanitizer run)
		ns, grids, seeds = []int{0, 1, 257, 4096}, []int64{1, 3}, []uint64{0, 77}
	}
	for _, n := range ns {
		for _, wide := range []bool{false, true} {
			for _, grid := range grids {
				for _, seed := range seeds {
					t.Run(fmt.Sprintf("n%d/wide=%v/grid%d/seed%d", n, wide, grid, seed), func(t *testing.T) {
						tiles := max((n+255)/256, 1)
						lb := newLookBack(t, tiles)
						in32, in64 := newCBuf[int32](t, n), newCBuf[int64](t, n)
						want := make([]int64, n+1)
						for i := range n {
							x := rng.Int64N(1 << 20)
							in32.s[i], in64.s[i] = int32(x), x
							want[i+1] = want[i] + x
						}
						in := in32.addr()
						if wide {
							in = in64.addr()
						}
						out := newCBuf[int64](t, n+1)
						for rep := range 2 {
							clear(out.s)
							tr, err := RunHostBlocks(k, []uint64{uint64(tiles), in, b2u(wide), uint64(n), out.addr(), lb.ctl.addr(), lb.status.addr()}, grid, seed+uint64(rep))
							if err != nil {
								t.Fatal(err)
							}
							for i := range want {
								if out.s[i] != want[i] {
									t.Fatalf("run %d: out[%d] = %d, want %d", rep, i, out.s[i], want[i])
								}
							}
							lb.checkClean(t)
							if tr.Read <= 0 || tr.Write < int64(8*(n+1)) {
								t.Errorf("traffic %+v for %d values", tr, n)
							}
						}
					})
				}
			}
		}
	}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// TestBlockEmulatorChecks: the emulator reports a barrier that not every
// thread of a block reaches, and a launch whose blocks all wait without
// end; interleaved blocks whose look-back waits still finish.
func TestBlockEmulatorChecks(t *testing.T) {
	k := kernelNamed(t, "bktest")
	const tiles = 20
	for _, seed := range []uint64{0, 5} {
		lb := newLookBack(t, tiles)
		out := newCBuf[int64](t, tiles)
		if _, err := RunHostBlocks(k, []uint64{tiles, 0, out.addr(), lb.ctl.addr(), lb.status.addr()}, 4, seed); err != nil {
			t.Fatal(err)
		}
		for i, v := range out.s {
			if v != int64(i)+1 {
				t.Fatalf("seed %d: out[%d] = %d, want %d", seed, i, v, i+1)
			}
		}
		lb.checkClean(t)

		_, err := RunHostBlocks(k, []uint64{tiles, 1, out.addr(), lb.ctl.addr(), lb.status.addr()}, 4, seed)
		if !errors.Is(err, ErrDivergence) {
			t.Errorf("seed %d: a divergent barrier: %v; want ErrDivergence", seed, err)
		}
	}
	// Tickets from 5 on: tile 5 looks back at tile 4, which no block takes.
	lb := newLookBack(t, tiles)
	lb.ctl.s[0] = 5
	out := newCBuf[int64](t, tiles)
	if _, err := RunHostBlocks(k, []uint64{tiles, 0, out.addr(), lb.ctl.addr(), lb.status.addr()}, 2, 3); !errors.Is(err, ErrDeadlock) {
		t.Errorf("a look-back at a tile nobody takes: %v; want ErrDeadlock", err)
	}
	if _, err := RunHost(k, []uint64{1, 0, 0, 0, 0}, 1, 1, 0); err == nil {
		t.Error("RunHost ran a block kernel")
	}
}
