package gpu

import (
	"fmt"
	"sync"
	"unsafe"
)

// Buffer is n elements of device memory that the caller owns (the
// samplers' arrays are owned by the samplers): weights, activations or
// features of a GPU trainer, or a copy of a bulk's array. Free releases it;
// a Buffer is not freed by the garbage collector.
type Buffer[T Elem] struct {
	d      *Device
	m      mem
	n      int64
	mapped bool // page-locked host memory mapped for the device (newMappedBuffer)
	mu     sync.Mutex
	free   bool
}

// NewBuffer allocates n elements of device memory, whose contents are
// undefined until written.
func NewBuffer[T Elem](d *Device, n int64) (*Buffer[T], error) {
	var z T
	b := &Buffer[T]{d: d, n: n}
	err := d.do(func(ex executor) error {
		m, err := ex.alloc(max(n, 1) * int64(unsafe.Sizeof(z)))
		b.m = m
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("gpu: NewBuffer of %d elements: %w", n, err)
	}
	return b, nil
}

// newMappedBuffer returns a copy of src in page-locked host memory mapped
// into d's address space (executor.allocMapped), which kernels read in
// place. It is written here only, before any work reads it.
func newMappedBuffer[T Elem](d *Device, src []T) (*Buffer[T], error) {
	var z T
	b := &Buffer[T]{d: d, n: int64(len(src)), mapped: true}
	err := d.do(func(ex executor) error {
		m, err := ex.allocMapped(max(b.n, 1) * int64(unsafe.Sizeof(z)))
		if err != nil {
			return err
		}
		copy(unsafe.Slice((*T)(m.host), len(src)), src)
		b.m = m
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("gpu: %d elements of mapped host memory: %w", b.n, err)
	}
	return b, nil
}

// Array returns the buffer as an Array (its address and length).
func (b *Buffer[T]) Array() Array[T] { return Array[T]{m: b.m, n: b.n} }

// Len returns the number of elements.
func (b *Buffer[T]) Len() int64 { return b.n }

// Upload copies src to the buffer's first len(src) elements.
func (b *Buffer[T]) Upload(src []T) error {
	if int64(len(src)) > b.n {
		return fmt.Errorf("gpu: Upload of %d elements into a buffer of %d", len(src), b.n)
	}
	return b.d.do(func(ex executor) error {
		p := &pipe{ex: ex}
		upload(p, b.m, src)
		return p.err
	})
}

// Download copies the buffer's first len(dst) elements to dst.
func (b *Buffer[T]) Download(dst []T) error {
	if int64(len(dst)) > b.n {
		return fmt.Errorf("gpu: Download of %d elements from a buffer of %d", len(dst), b.n)
	}
	return b.d.do(func(ex executor) error {
		p := &pipe{ex: ex}
		download(p, dst, b.m)
		return p.err
	})
}

// Free releases the buffer; it is idempotent.
func (b *Buffer[T]) Free() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.free {
		return nil
	}
	b.free = true
	return b.d.do(func(ex executor) error {
		if b.mapped {
			return ex.freeMapped(b.m)
		}
		return ex.free(b.m)
	})
}
