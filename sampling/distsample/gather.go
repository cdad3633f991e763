package distsample

import (
	"context"
	"fmt"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/sampling"
)

// GatherDigest adds to d, on rank 0 of c, every rank's minibatches of a
// bulk in rank order (each rank passes its part b, possibly empty): the
// minibatches' global order when the ranks sample contiguous runs
// (dist.Grid.Minibatches), so that d ends with the single process's
// digest. Ranks other than 0 pass a nil d. It is collective on c.
//
// The encoding streams: rank 0 hashes its own part in place, and each other
// rank sends its encoding (sampling.AppendBulkEncoding's bytes) in messages
// of at most DigestChunkBytes, which rank 0 receives into one buffer and
// hashes, rank after rank; an empty message ends a rank's part. No rank
// holds more than a chunk of encoding, whatever the size of the bulk.
func GatherDigest(ctx context.Context, c dist.Comm, d *sampling.Digest, b *sampling.Bulk) error {
	return gatherDigest(ctx, c, d, b, DigestChunkBytes)
}

// DigestChunkBytes is the largest message of GatherDigest: 1 MiB, large
// enough that a message's latency is small beside its transfer, small
// beside any bulk worth distributing.
const DigestChunkBytes = 1 << 20

// digestTag is the tag of GatherDigest's messages.
const digestTag = 1

// gatherDigest is GatherDigest with messages of at most chunk bytes.
func gatherDigest(ctx context.Context, c dist.Comm, d *sampling.Digest, b *sampling.Bulk, chunk int) error {
	if c.Rank() != 0 {
		w := &chunkSender{ctx: ctx, c: c, buf: make([]byte, 0, chunk)}
		sampling.WriteBulkEncoding(w, b)
		if err := w.send(); err != nil { // what is left, then the end
			return err
		}
		return w.end()
	}
	d.AddBulk(b)
	buf := make([]byte, chunk)
	n := []int64{0}
	for r := 1; r < c.Size(); r++ {
		for {
			if err := c.Recv(ctx, dist.PhaseControl, r, digestTag, n); err != nil {
				return err
			}
			if n[0] == 0 {
				break
			}
			if n[0] < 0 || n[0] > int64(chunk) {
				return fmt.Errorf("distsample: GatherDigest: rank %d announced a message of %d bytes, want 1 to %d", r, n[0], chunk)
			}
			if err := c.Recv(ctx, dist.PhaseControl, r, digestTag, buf[:n[0]]); err != nil {
				return err
			}
			d.AddEncoded(buf[:n[0]])
		}
	}
	return nil
}

// chunkSender is the io.Writer of a rank's encoding in GatherDigest: it
// sends to rank 0 whenever its buffer is full, and keeps the first error
// (sampling.WriteBulkEncoding ignores its writer's errors), after which it
// sends nothing.
type chunkSender struct {
	ctx context.Context
	c   dist.Comm
	buf []byte
	err error
}

func (w *chunkSender) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 && w.err == nil {
		k := copy(w.buf[len(w.buf):cap(w.buf)], p)
		w.buf, p = w.buf[:len(w.buf)+k], p[k:]
		if len(w.buf) == cap(w.buf) {
			w.err = w.send()
		}
	}
	return n, w.err
}

// send sends the buffered bytes, if any, as one message: its length, then
// the bytes.
func (w *chunkSender) send() error {
	if w.err != nil || len(w.buf) == 0 {
		return w.err
	}
	if err := w.c.Send(w.ctx, dist.PhaseControl, 0, digestTag, []int64{int64(len(w.buf))}); err != nil {
		return err
	}
	if err := w.c.Send(w.ctx, dist.PhaseControl, 0, digestTag, w.buf); err != nil {
		return err
	}
	w.buf = w.buf[:0]
	return nil
}

// end sends the empty message that ends the rank's part.
func (w *chunkSender) end() error {
	return w.c.Send(w.ctx, dist.PhaseControl, 0, digestTag, []int64{0})
}

// GatherEncoded sends every rank's encoded part
// (sampling.AppendBulkEncoding, sampling.AppendRowsEncoding; possibly
// empty) to rank 0 of c, which adds them to d in rank order. Ranks other
// than 0 pass a nil d. It is collective on c.
func GatherEncoded(ctx context.Context, c dist.Comm, d *sampling.Digest, enc []byte) error {
	const tag = 1
	if c.Rank() != 0 {
		if err := c.Send(ctx, dist.PhaseControl, 0, tag, []int64{int64(len(enc))}); err != nil {
			return err
		}
		return c.Send(ctx, dist.PhaseControl, 0, tag, enc)
	}
	d.AddEncoded(enc)
	for r := 1; r < c.Size(); r++ {
		n := []int64{0}
		if err := c.Recv(ctx, dist.PhaseControl, r, tag, n); err != nil {
			return err
		}
		buf := make([]byte, n[0])
		if err := c.Recv(ctx, dist.PhaseControl, r, tag, buf); err != nil {
			return err
		}
		d.AddEncoded(buf)
	}
	return nil
}
