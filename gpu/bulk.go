package gpu

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/bulksample/bulksample/sampling"
)

// Elem is the element type of a device array.
type Elem interface{ ~int32 | ~int64 | ~float32 }

// Array is an array of n elements in device memory, owned by the sampler
// or product that returned it (valid until that one's next call or Close).
type Array[T Elem] struct {
	m mem
	n int64
}

// Len returns the number of elements.
func (a Array[T]) Len() int64 { return a.n }

// Ptr returns the device address of the first element (a CUdeviceptr; on
// the emulator, a host address).
func (a Array[T]) Ptr() uint64 { return a.m.addr }

func arrayOf[T Elem](m mem, n int64) Array[T] { return Array[T]{m: m, n: n} }

// DeviceBulk is a bulk sampled on a device and left there: the layout of
// sampling.Bulk (see sampling.LayerArrays), with the arrays in device
// memory and their offsets (small) on the host. It is valid until the
// sampler's next call or Close.
type DeviceBulk struct {
	First     int
	Seeds     Array[int32] // every minibatch's deduplicated seeds, back to back
	SeedStart []int        // len k+1
	Layers    []DeviceLayer
}

// DeviceLayer is one layer of a DeviceBulk: minibatch m's row offsets are
// Indptr[PtrStart[m] : PtrStart[m+1]] (from 0), its entries
// Indices/Data[EdgeStart[m] : EdgeStart[m+1]], its sources
// Src[SrcStart[m] : SrcStart[m+1]], and Deg (when the sampler supplies
// degrees; else empty) is parallel to Src.
type DeviceLayer struct {
	Indptr    Array[int64]
	Indices   Array[int32]
	Data      Array[float32]
	Src       Array[int32]
	Deg       Array[int32]
	PtrStart  []int
	EdgeStart []int64
	SrcStart  []int
}

// Len returns the number of minibatches k.
func (b *DeviceBulk) Len() int { return len(b.SeedStart) - 1 }

// SampledEdges returns the entries of all blocks (SEPS' numerator).
func (b *DeviceBulk) SampledEdges() int64 {
	var n int64
	for _, la := range b.Layers {
		n += la.Indices.n
	}
	return n
}

// download copies b into a sampling.Bulk.
func (p *pipe) downloadBulk(b *DeviceBulk) *sampling.Bulk {
	out := &sampling.Bulk{First: b.First, SeedStart: append([]int(nil), b.SeedStart...), Layers: make([]sampling.LayerArrays, len(b.Layers))}
	out.Seeds = make([]int32, b.Seeds.n)
	download(p, out.Seeds, b.Seeds.m)
	for l, dl := range b.Layers {
		la := &out.Layers[l]
		la.Indptr = make([]int64, dl.Indptr.n)
		la.Indices = make([]int32, dl.Indices.n)
		la.Data = make([]float32, dl.Data.n)
		la.Src = make([]int32, dl.Src.n)
		download(p, la.Indptr, dl.Indptr.m)
		download(p, la.Indices, dl.Indices.m)
		download(p, la.Data, dl.Data.m)
		download(p, la.Src, dl.Src.m)
		if dl.Deg.m.addr != 0 {
			la.Deg = make([]int32, dl.Deg.n)
			download(p, la.Deg, dl.Deg.m)
		}
		la.PtrStart = append([]int(nil), dl.PtrStart...)
		la.EdgeStart = append([]int64(nil), dl.EdgeStart...)
		la.SrcStart = append([]int(nil), dl.SrcStart...)
	}
	return out
}

// hostSeeds returns each minibatch's seeds without repeats, first
// occurrences in order (sampling.SeedDedup: what the CPU's samplers
// keep), back to back in all (reused) with their offsets, or the error
// sampling's samplers return for a seed outside [0, n).
func hostSeeds(dd *sampling.SeedDedup, all []int32, start []int64, first int, seeds [][]int32, n int) ([]int32, []int64, error) {
	total := 0
	for m, s := range seeds {
		for i, v := range s {
			if uint32(v) >= uint32(n) {
				return nil, nil, fmt.Errorf("gpu: minibatch %d seed %d: vertex %d outside [0, %d)", first+m, i, v, n)
			}
		}
		total += len(s)
	}
	if total > math.MaxInt32 {
		return nil, nil, fmt.Errorf("gpu: %d seeds in one bulk, at most %d", total, math.MaxInt32)
	}
	all, start = all[:0], append(start[:0], 0)
	for _, s := range seeds {
		all = dd.AppendDistinct(all, s)
		start = append(start, int64(len(all)))
	}
	return all, start, nil
}

// putSeeds uploads the offsets start (k+1) and the seeds all in one copy,
// into the buffer "seeds", and returns where each is.
func (p *pipe) putSeeds(words []uint64, all []int32, start []int64) (frontStart, front mem, _ []uint64) {
	k1 := len(start)
	words = append(words[:0], make([]uint64, k1+(len(all)+1)/2)...)
	for i, v := range start {
		words[i] = uint64(v)
	}
	if len(all) > 0 {
		copy(unsafe.Slice((*int32)(unsafe.Pointer(&words[k1])), len(all)), all)
	}
	m := p.buf("seeds", int64(len(words))*8)
	upload(p, m, words)
	return m, m.at(int64(k1) * 8), words
}

// toInts converts offsets to int.
func toInts(s []int64) []int {
	out := make([]int, len(s))
	for i, v := range s {
		out[i] = int(v)
	}
	return out
}

// emptyBulk is the bulk of no minibatches.
func emptyBulk(first, layers int) *DeviceBulk {
	b := &DeviceBulk{First: first, SeedStart: []int{0}, Layers: make([]DeviceLayer, layers)}
	for l := range b.Layers {
		b.Layers[l] = DeviceLayer{PtrStart: []int{0}, EdgeStart: []int64{0}, SrcStart: []int{0}}
	}
	return b
}

// CopyToHost copies the first len(dst) elements of a, an array on d (a
// sampler's, or a Block's), into dst.
func CopyToHost[T Elem](d *Device, dst []T, a Array[T]) error {
	if int64(len(dst)) > a.n {
		return fmt.Errorf("gpu: CopyToHost of %d elements from an array of %d", len(dst), a.n)
	}
	return d.do(func(ex executor) error {
		p := &pipe{ex: ex}
		download(p, dst, a.m)
		return p.err
	})
}
