package sampling

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"io"
	"math"
)

// Digest is a hash of sampled minibatches: every block (shape, row offsets,
// column ids, value bits, the source vertices and their graph degrees when
// the block carries them) and vertex list, in the order added. Two samplers
// agree on a sequence of minibatches exactly when their digests are equal,
// which makes the determinism of docs/design.md 3.3 checkable across bulk sizes,
// thread counts and implementations. The zero value is not ready: use
// NewDigest.
type Digest struct {
	h   hash.Hash
	w   io.Writer // where encoded bytes go: h, or a buffer (AppendBulkEncoding)
	buf []byte
}

// NewDigest returns an empty digest (SHA-256 of a canonical little-endian
// encoding).
func NewDigest() *Digest {
	h := sha256.New()
	return &Digest{h: h, w: h}
}

// AppendBulkEncoding appends to dst the bytes that AddBulk(b) hashes, so
// that a rank can send its minibatches' encoding to the rank that digests
// the whole run in order (AddEncoded).
func AppendBulkEncoding(dst []byte, b *Bulk) []byte {
	buf := bytes.NewBuffer(dst)
	WriteBulkEncoding(buf, b)
	return buf.Bytes()
}

// WriteBulkEncoding writes to w the bytes that AddBulk(b) hashes, those
// AppendBulkEncoding appends, in pieces of at most about 32 KiB as it
// encodes them, so that a caller can stream a bulk's encoding without holding it
// whole (distsample.GatherDigest). It ignores w's errors: a writer that
// can fail keeps its first error for its caller.
func WriteBulkEncoding(w io.Writer, b *Bulk) {
	d := &Digest{w: w}
	d.AddBulk(b)
}

// AddEncoded adds minibatches encoded by AppendBulkEncoding: the digest
// is the same as if their bulks had been added.
func (d *Digest) AddEncoded(p []byte) { d.h.Write(p) }

// AddBulk adds every minibatch of b in order.
func (d *Digest) AddBulk(b *Bulk) {
	for m := range b.Len() {
		mb := b.Minibatch(m)
		d.AddMinibatch(&mb)
	}
}

// AddMinibatch adds one minibatch: its index, seeds and blocks.
func (d *Digest) AddMinibatch(mb *Minibatch) {
	d.int64s(int64(mb.Index), int64(len(mb.Seeds)), int64(len(mb.Blocks)))
	d.int32s(mb.Seeds)
	for i := range mb.Blocks {
		blk := &mb.Blocks[i]
		d.int64s(int64(blk.Adj.Rows), int64(blk.Adj.Cols), int64(len(blk.Adj.Indptr)), int64(len(blk.Adj.Indices)), int64(len(blk.Src)))
		d.int64s(blk.Adj.Indptr...)
		d.int32s(blk.Adj.Indices)
		d.float32s(blk.Adj.Data)
		d.int32s(blk.Src)
		d.int32s(blk.Deg) // its length first: 0 for a block without degrees
	}
}

// Sum returns the hex digest of everything added so far.
func (d *Digest) Sum() string { return hex.EncodeToString(d.h.Sum(nil)) }

// flushAt is the buffer size at which encoded words are handed to the hash.
const flushAt = 1 << 15

func (d *Digest) flush(force bool) {
	if len(d.buf) >= flushAt || (force && len(d.buf) > 0) {
		d.w.Write(d.buf)
		d.buf = d.buf[:0]
	}
}

func (d *Digest) int64s(xs ...int64) {
	for _, x := range xs {
		d.buf = binary.LittleEndian.AppendUint64(d.buf, uint64(x))
		d.flush(false)
	}
	d.flush(true)
}

func (d *Digest) int32s(xs []int32) {
	d.buf = binary.LittleEndian.AppendUint64(d.buf, uint64(len(xs)))
	for _, x := range xs {
		d.buf = binary.LittleEndian.AppendUint32(d.buf, uint32(x))
		d.flush(false)
	}
	d.flush(true)
}

func (d *Digest) float32s(xs []float32) {
	d.buf = binary.LittleEndian.AppendUint64(d.buf, uint64(len(xs)))
	for _, x := range xs {
		d.buf = binary.LittleEndian.AppendUint32(d.buf, math.Float32bits(x))
		d.flush(false)
	}
	d.flush(true)
}
