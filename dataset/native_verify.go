package dataset

// Verification of a native file in one parallel pass: the arrays are cut
// into pieces (the column ids at row boundaries, so that a piece's rows can
// be checked on their own), and each goroutine takes pieces in turn, faults
// a piece's pages in, computes its CRC-32C and checks its rows while the
// bytes are in cache. The pieces' checksums are then combined into each
// array's (crc32Combine), so the file format keeps one checksum per array.

import (
	"fmt"
	"hash/crc32"
	"slices"

	"github.com/bulksample/bulksample/internal/par"
)

// VerifyLevel says how much of a native file Load checks before using it.
type VerifyLevel int

const (
	// VerifyDefault is VerifyStructure.
	VerifyDefault VerifyLevel = iota
	// VerifyStructure checks the header, the array bounds, the CSR
	// structure (row offsets non-decreasing, column ids sorted, unique and
	// in range), the labels and the split ids: everything whose corruption
	// could make a kernel panic or silently misread the graph. It reads the
	// row offsets, column ids, labels and splits, but not the edge values
	// or the features, whose checksums it does not check.
	VerifyStructure
	// VerifyChecksums checks the structure and every array's CRC-32C, so
	// it also catches corrupted edge values and features. It reads the
	// whole file.
	VerifyChecksums
	// VerifyNone trusts the file: only the header and the array bounds are
	// checked, and nothing but the header is read (pages are read on first
	// use). Use it for files this program wrote and nobody modified.
	VerifyNone
)

func (v VerifyLevel) String() string {
	switch v {
	case VerifyDefault:
		return "default"
	case VerifyStructure:
		return "structure"
	case VerifyChecksums:
		return "checksums"
	case VerifyNone:
		return "none"
	}
	return fmt.Sprintf("VerifyLevel(%d)", int(v))
}

// nativePiece is a byte range of one array, and for indices the rows whose
// column ids it holds.
type nativePiece struct {
	array  int   // index into the header's arrays
	lo, hi int64 // byte range within the array
	rows   [2]int
	crc    uint32
	err    error
}

// nativePieceBytes is the size of a piece of an array other than the column
// ids: big enough to amortise the scheduling, small enough to balance the
// goroutines and to stay in L2 between the CRC and the checks.
const nativePieceBytes = 1 << 20

// verifyNative checks d, decoded in place from buf, at level (Structure or
// Checksums), on threads goroutines. populate, if non-nil, is called on each
// piece's bytes before they are read (to fault a mapping's pages in at once).
func verifyNative(name string, buf []byte, arrays []nativeArray, d *Dataset, level VerifyLevel, threads int, populate func([]byte)) error {
	sums := level == VerifyChecksums
	if err := d.Adj.ValidateOffsets(); err != nil {
		if sums { // a checksum mismatch says more; this path is rare, so serial
			for _, a := range arrays {
				b := buf[a.Offset : a.Offset+a.Count*dtypeSize(a.Dtype)]
				if err := checkArraySum(name, a, crc32.Checksum(b, castagnoli)); err != nil {
					return err
				}
			}
		}
		return fmt.Errorf("%s: %w: adjacency: %w", name, ErrFormat, err)
	}
	var pieces []nativePiece
	for i, a := range arrays {
		size := a.Count * dtypeSize(a.Dtype)
		switch {
		case a.Name == "indices":
			pieces = appendRowPieces(pieces, i, d.Adj.Indptr, 8*par.Threads(threads))
		case sums:
			for lo := int64(0); lo < size || lo == 0; lo += nativePieceBytes {
				pieces = append(pieces, nativePiece{array: i, lo: lo, hi: min(lo+nativePieceBytes, size)})
			}
		}
	}
	par.For(len(pieces), par.Threads(threads), func(_, k int) {
		p := &pieces[k]
		a := arrays[p.array]
		b := buf[a.Offset+p.lo : a.Offset+p.hi]
		if populate != nil {
			populate(b)
		}
		if sums {
			p.crc = crc32.Checksum(b, castagnoli)
		}
		if p.rows[1] > p.rows[0] {
			p.err = d.Adj.ValidateRows(p.rows[0], p.rows[1])
		}
	})
	if sums {
		// A checksum mismatch says more than the structure error it causes.
		for i, a := range arrays {
			var sum uint32
			for _, p := range pieces {
				if p.array == i {
					sum = crc32Combine(sum, p.crc, p.hi-p.lo)
				}
			}
			if err := checkArraySum(name, a, sum); err != nil {
				return err
			}
		}
	}
	for _, p := range pieces {
		if p.err != nil {
			return fmt.Errorf("%s: array %q: %w: adjacency: %w", name, arrays[p.array].Name, ErrFormat, p.err)
		}
	}
	if err := d.validateAttributes(); err != nil {
		return fmt.Errorf("%s: %w: %w", name, ErrFormat, err)
	}
	return nil
}

// checkArraySum compares the CRC-32C sum of array a with the recorded one.
func checkArraySum(name string, a nativeArray, sum uint32) error {
	if sum != a.CRC32C {
		return fmt.Errorf("%s: array %q: %w: checksum mismatch (CRC-32C %08x, recorded %08x): the file is corrupt",
			name, a.Name, ErrFormat, sum, a.CRC32C)
	}
	return nil
}

// appendRowPieces cuts the column ids (array i) at row boundaries into
// about parts pieces of equal entry counts (a row longer than a piece is a
// piece of its own), given the checked row offsets.
func appendRowPieces(pieces []nativePiece, i int, indptr []int64, parts int) []nativePiece {
	rows := len(indptr) - 1
	nnz := indptr[rows]
	start, lo := len(pieces), 0
	for w := 1; w <= parts; w++ {
		hi := rows
		if w < parts {
			hi, _ = slices.BinarySearch(indptr, nnz*int64(w)/int64(parts))
			hi = min(max(hi, lo), rows)
		}
		if hi > lo || w == parts && len(pieces) == start {
			pieces = append(pieces, nativePiece{array: i, lo: indptr[lo] * 4, hi: indptr[hi] * 4, rows: [2]int{lo, hi}})
		}
		lo = hi
	}
	return pieces
}

// crc32Combine returns the CRC-32C of the concatenation A·B given crcA =
// CRC(A), crcB = CRC(B) and len(B). The CRC register after A, advanced over
// len(B) zero bytes, XOR crcB is the CRC of A·B (the conditioning of the
// standard CRC cancels out); advancing over zeros is multiplication by a
// 32 x 32 matrix over GF(2), raised to the power 8·len(B) by squaring.
func crc32Combine(crcA, crcB uint32, lenB int64) uint32 {
	if lenB <= 0 {
		return crcA ^ crcB
	}
	// odd is the operator for one zero bit: shift right, and XOR the
	// (reflected) polynomial when the bit shifted out is 1.
	var odd, even [32]uint32
	odd[0] = crc32.Castagnoli
	for n := 1; n < 32; n++ {
		odd[n] = 1 << (n - 1)
	}
	gf2Square(&even, &odd) // 2 zero bits
	gf2Square(&odd, &even) // 4 zero bits
	// Apply the operator for each set bit of lenB (in bytes), squaring it
	// from one zero byte upwards.
	for {
		gf2Square(&even, &odd)
		if lenB&1 != 0 {
			crcA = gf2Times(&even, crcA)
		}
		if lenB >>= 1; lenB == 0 {
			break
		}
		gf2Square(&odd, &even)
		if lenB&1 != 0 {
			crcA = gf2Times(&odd, crcA)
		}
		if lenB >>= 1; lenB == 0 {
			break
		}
	}
	return crcA ^ crcB
}

// gf2Times multiplies the GF(2) matrix mat (column n = the image of bit n)
// by vec.
func gf2Times(mat *[32]uint32, vec uint32) uint32 {
	var sum uint32
	for n := 0; vec != 0; n, vec = n+1, vec>>1 {
		if vec&1 != 0 {
			sum ^= mat[n]
		}
	}
	return sum
}

// gf2Square sets sq to mat·mat.
func gf2Square(sq, mat *[32]uint32) {
	for n := range 32 {
		sq[n] = gf2Times(mat, mat[n])
	}
}
