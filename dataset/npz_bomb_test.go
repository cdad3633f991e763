package dataset

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"
)

// countingReaderAt counts the bytes read through it.
type countingReaderAt struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// bombNPZ returns a scipy CSR .npz of a 3 x 3 matrix of 3 entries whose
// indices member, deflated, declares and inflates to inflated bytes of
// int32 zeros: about a thousandth of that in the archive.
func bombNPZ(t *testing.T, inflated int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	member := func(name, descr string, shape []int64, write func(io.Writer) error) {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name + ".npy", Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(npyHeaderBytes(descr, shape)); err != nil {
			t.Fatal(err)
		}
		if err := write(w); err != nil {
			t.Fatal(err)
		}
	}
	raw := func(b []byte) func(io.Writer) error {
		return func(w io.Writer) error { _, err := w.Write(b); return err }
	}
	member("indptr", "<i8", []int64{4}, raw(le[int64](0, 1, 2, 3)))
	member("data", "<f4", []int64{3}, raw(le[float32](1, 1, 1)))
	member("shape", "<i8", []int64{2}, raw(le[int64](3, 3)))
	member("format", "<U3", nil, raw(unicode0d("csr")))
	member("indices", "<i4", []int64{inflated / 4}, func(w io.Writer) error {
		zeros := make([]byte, 1<<20)
		for left := inflated; left > 0; left -= int64(len(zeros)) {
			if _, err := w.Write(zeros[:min(left, int64(len(zeros)))]); err != nil {
				return err
			}
		}
		return nil
	})
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestNPZBombRefusedFromHeaders: an .npz whose indices member inflates to
// 128 MiB from about 128 KB, next to a data member of 3 values, is refused
// from the members' headers, naming both arrays, after reading a few KB of
// the archive; the reader inflated the whole member first (the 1 MB
// file with a 1 GiB member: 1.04 GB peak, 6-12 s). A member whose zip size
// disagrees with its own .npy header is refused too.
func TestNPZBombRefusedFromHeaders(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: deflates 128 MiB")
	}
	b := bombNPZ(t, 128<<20)
	ra := &countingReaderAt{r: bytes.NewReader(b)}
	z, err := newNPZ("bomb.npz", ra, int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = readNPZDataset(context.Background(), z, 1)
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), `arrays "indices" (shape [33554432]) and "data" (shape [3]) must have as many elements`) {
		t.Errorf("err %v; want the indices and data members named", err)
	}
	if read := ra.n.Load(); read > 64<<10 {
		t.Errorf("read %d bytes of a %d-byte archive to refuse it; want only its directory and headers (under 64 KiB)", read, len(b))
	}
	t.Logf("archive %d bytes, %d read", len(b), ra.n.Load())
}

// TestNPZMemberSizeMustMatchHeader: a member whose zip directory declares
// more bytes than its .npy header's shape needs is refused when opened.
func TestNPZMemberSizeMustMatchHeader(t *testing.T) {
	extra := npzMember{descr: "<i4", shape: []int64{3}, data: append(le[int32](1, 0, 2), make([]byte, 4000)...)}
	b := buildNPZ(t, scipyMembers(npzMember{descr: "<i8", shape: []int64{4}, data: le[int64](0, 1, 1, 3)}, extra, npzMember{descr: "<f4", shape: []int64{3}, data: le[float32](2, 1, 3)}))
	z, err := newNPZ("m.npz", bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = readNPZDataset(context.Background(), z, 1)
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), `array "indices": dataset: bad input: the zip directory declares`) {
		t.Errorf("err %v; want the indices member's size refused", err)
	}
}

// zeroMember writes member name of z: a .npy header of descr and shape,
// then zeros for the elements, deflated (a thousandth of their size).
func zeroMember(t *testing.T, zw *zip.Writer, name, descr string, count int64, size int64) {
	t.Helper()
	w, err := zw.CreateHeader(&zip.FileHeader{Name: name + ".npy", Method: zip.Deflate})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(npyHeaderBytes(descr, []int64{count})); err != nil {
		t.Fatal(err)
	}
	zeros := make([]byte, 1<<20)
	for left := count * size; left > 0; left -= int64(len(zeros)) {
		if _, err := w.Write(zeros[:min(left, int64(len(zeros)))]); err != nil {
			t.Fatal(err)
		}
	}
}

// TestNPZAgreeingBombRefused: an .npz whose indices and data members agree
// with each other (16 Mi elements each, 128 MiB inflated, from about 130
// KB) beside an indptr that counts 4 entries is refused from indptr and
// the headers, having read what precedes the two members: indptr is read
// first. The reader
// inflated data before comparing (the 2.09 MB file: 1.04 GB, up
// to 18.8 s). The same for the features (attr_*) of a gnn-benchmark file.
func TestNPZAgreeingBombRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: deflates 2 x 64 MiB")
	}
	const big = 16 << 20
	for _, tc := range []struct {
		name, prefix string
		small        func(zw *zip.Writer, add func(name, descr string, shape []int64, raw []byte))
	}{
		{"scipy", "", func(zw *zip.Writer, add func(string, string, []int64, []byte)) {
			add("format", "<U3", nil, unicode0d("csr"))
		}},
		{"gnn-benchmark attr_", "attr_", func(zw *zip.Writer, add func(string, string, []int64, []byte)) {
			add("adj_indptr", "<i8", []int64{4}, le[int64](0, 1, 2, 3))
			add("adj_indices", "<i4", []int64{3}, le[int32](1, 2, 0))
			add("adj_data", "<f4", []int64{3}, le[float32](1, 1, 1))
			add("adj_shape", "<i8", []int64{2}, le[int64](3, 3))
		}},
	} {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		add := func(name, descr string, shape []int64, raw []byte) {
			w, err := zw.CreateHeader(&zip.FileHeader{Name: name + ".npy", Method: zip.Deflate})
			if err != nil {
				t.Fatal(err)
			}
			w.Write(npyHeaderBytes(descr, shape))
			w.Write(raw)
		}
		tc.small(zw, add)
		add(tc.prefix+"indptr", "<i8", []int64{4}, le[int64](0, 1, 2, 4))
		add(tc.prefix+"shape", "<i8", []int64{2}, le[int64](3, 3))
		zeroMember(t, zw, tc.prefix+"indices", "<i4", big, 4)
		zeroMember(t, zw, tc.prefix+"data", "<f4", big, 4)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		b := buf.Bytes()
		ra := &countingReaderAt{r: bytes.NewReader(b)}
		z, err := newNPZ("bomb.npz", ra, int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		_, err = readNPZDataset(context.Background(), z, 1)
		want := `array "` + tc.prefix + `indptr": dataset: bad input: indptr[-1] = 4, but "` + tc.prefix + `data" holds 16777216 values (its header): refused before reading it`
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v; want %q", tc.name, err, want)
		}
		if read := ra.n.Load(); read > 40<<10 {
			t.Errorf("%s: read %d bytes of a %d-byte archive to refuse it; want only its directory, headers and indptr (under 40 KiB)", tc.name, read, len(b))
		}
		t.Logf("%s: archive %d bytes, %d read", tc.name, len(b), ra.n.Load())
	}
}
