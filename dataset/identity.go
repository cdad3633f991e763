package dataset

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// identityEnds is how much of each end of a file without checksums of its
// own Identity reads.
const identityEnds = 64 << 10

// Identity returns figures that tell the dataset at path (a file, or an OGB
// folder) from a copy with other contents, without reading it whole: one
// line per figure, "name value", in an order that depends only on the
// contents, so that two copies compare line by line. The ranks of a
// distributed job that each load their own block of rows compare theirs
// with rank 0's: a stale copy on one node with rank 0's vertex count went
// undetected.
//
// Every file gives its size, then what it records of its own contents: a
// native file its header's CRC-32C (the header records every array's
// length and CRC-32C, so any array that differs changes it) with the
// vertex and edge counts; a zip (.npz) each member's size and CRC-32 from
// its central directory; a gzip file its trailer's CRC-32 and length of
// the uncompressed data. Other files (edge lists, Matrix Market) give the
// CRC-32C of their first and last 64 KiB, which a change of the same size
// in between escapes. A folder (OGB, DGL CSVDataset, MUSAE) gives the lines
// of each of its Inputs (for an OGB folder the files under raw/ and split/,
// which the loaders read), each led by its path in the folder; a Planetoid
// dataset the lines of its eight files, each led by its name.
func Identity(path string) ([]string, error) {
	files, kind, err := inputs(path)
	if err != nil {
		return nil, err
	}
	switch kind {
	case inputPlanetoid:
		return planetoidIdentity(files)
	case inputFile:
		return fileIdentity(path, "")
	}
	var lines []string
	for _, p := range files {
		rel, err := filepath.Rel(path, p)
		if err != nil {
			return nil, fmt.Errorf("identity of %s: %w", path, err)
		}
		l, err := fileIdentity(p, filepath.ToSlash(rel)+": ")
		if err != nil {
			return nil, fmt.Errorf("identity of %s: %w", path, err)
		}
		lines = append(lines, l...)
	}
	return lines, nil
}

// fileIdentity returns Identity's lines of one regular file, each led by
// prefix.
func fileIdentity(path, prefix string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	lines := []string{fmt.Sprintf("%ssize %d B", prefix, size)}
	head := make([]byte, min(size, identityEnds))
	if _, err := io.ReadFull(f, head); err != nil {
		return nil, fmt.Errorf("identity of %s: %w", path, err)
	}
	switch {
	case bytes.HasPrefix(head, []byte(nativeMagic)) && len(head) >= nativePrefixLen:
		crc, hlen := nativePrefixFields(head)
		lines = append(lines, fmt.Sprintf("%snative header CRC-32C %08x", prefix, crc))
		// The counts, for a message that says more than two checksums;
		// a header that does not decode is the loader's to report.
		hdr := make([]byte, min(hlen, maxNativeHeader))
		var h nativeHeader
		if _, err := f.ReadAt(hdr, nativePrefixLen); err == nil && json.Unmarshal(hdr, &h) == nil {
			lines = append(lines, fmt.Sprintf("%svertices %d", prefix, h.Nodes), fmt.Sprintf("%sedges %d", prefix, h.Edges))
		}
	case bytes.HasPrefix(head, []byte("PK\x03\x04")) || bytes.HasPrefix(head, []byte("PK\x05\x06")):
		z, err := zip.NewReader(f, size)
		if err != nil {
			return nil, fmt.Errorf("identity of %s: %w", path, err)
		}
		for _, m := range z.File {
			lines = append(lines, fmt.Sprintf("%smember %s: %d B, CRC-32 %08x", prefix, m.Name, m.UncompressedSize64, m.CRC32))
		}
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}) && size >= 18:
		var tail [8]byte
		if _, err := f.ReadAt(tail[:], size-8); err != nil {
			return nil, fmt.Errorf("identity of %s: %w", path, err)
		}
		lines = append(lines, fmt.Sprintf("%sgzip CRC-32 %08x of %d B (mod 2^32)", prefix,
			binary.LittleEndian.Uint32(tail[:4]), binary.LittleEndian.Uint32(tail[4:])))
	default:
		tail := make([]byte, min(size, identityEnds))
		if _, err := f.ReadAt(tail, size-int64(len(tail))); err != nil {
			return nil, fmt.Errorf("identity of %s: %w", path, err)
		}
		c := crc32.Update(crc32.Checksum(head, castagnoli), castagnoli, tail)
		lines = append(lines, fmt.Sprintf("%sCRC-32C of the first and last %d KiB %08x", prefix, identityEnds>>10, c))
	}
	return slices.Clip(lines), nil
}
