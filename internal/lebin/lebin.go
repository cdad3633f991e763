// Package lebin holds what the native dataset format (package dataset) and
// the training checkpoints (package gnn) share of their binary encoding:
// numeric arrays written as little-endian bytes (the slices' own bytes on a
// little-endian host, without a copy), and the CRC-32C (Castagnoli) that
// checks them.
package lebin

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"unsafe"
)

// Castagnoli is the CRC-32C table of the native format's and the
// checkpoints' checksums. It is never modified.
var Castagnoli = crc32.MakeTable(crc32.Castagnoli)

// NewCRC32C returns a CRC-32C (Castagnoli) hash.
func NewCRC32C() hash.Hash32 { return crc32.New(Castagnoli) }

// HostLittleEndian reports whether in-memory integers are little-endian,
// so that an array's own bytes are its little-endian encoding.
var HostLittleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// Elem is an element type of the arrays.
type Elem interface{ int32 | int64 | float32 }

// Write writes v's elements little-endian: v's own bytes on a
// little-endian host.
func Write[T Elem](w io.Writer, v []T) error {
	size := int(unsafe.Sizeof(*new(T)))
	if HostLittleEndian {
		_, err := w.Write(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*size))
		return err
	}
	bw := bufio.NewWriter(w)
	var b [8]byte
	for _, x := range v {
		switch x := any(x).(type) {
		case int32:
			binary.LittleEndian.PutUint32(b[:], uint32(x))
		case int64:
			binary.LittleEndian.PutUint64(b[:], uint64(x))
		case float32:
			binary.LittleEndian.PutUint32(b[:], math.Float32bits(x))
		}
		if _, err := bw.Write(b[:size]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ReadFloat32s decodes the little-endian float32 array b into a new slice.
// It returns an error if len(b) is not a multiple of 4.
func ReadFloat32s(b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("lebin: %d bytes are not whole float32s", len(b))
	}
	out := make([]float32, len(b)/4)
	if HostLittleEndian {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(out))), len(b)), b)
		return out, nil
	}
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out, nil
}
