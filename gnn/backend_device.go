package gnn

import (
	"context"

	"github.com/bulksample/bulksample/spgemm"
)

// The optional capabilities of backends whose memory is not the host's (a
// GPU's, package gpu's Backend). The model and the trainer use them when a
// backend has them; the CPU backend has none, and nothing here changes
// what any backend computes.

// Freer is implemented by backends whose allocations are not reclaimed by
// the garbage collector: the model's buffers call Free on an allocation
// they outgrow (growBuf), so that a backend's memory is what its live
// buffers hold.
type Freer interface {
	// Free releases the allocation b starts at the beginning of; b must
	// not be used after.
	Free(b Buf)
}

// Holder is implemented by backends that copy the sparse operands of SpMM
// and SpMMT into their memory: Hold(a) copies a now, and SpMM and SpMMT of
// the same *spgemm.CSR use that copy until the next Hold(a) or Release(a),
// so that a block the forward and backward passes both multiply moves
// once per minibatch. The model holds a block after it formed its values
// (and the sparse input features after their dropout), and holds it again
// after every change.
type Holder interface {
	Hold(a *spgemm.CSR)
	Release(a *spgemm.CSR)
}

// ErrBackend is implemented by backends whose operations can fail (a device
// call): their operations return nothing, so a backend keeps its first
// error, does nothing after it, and reports it by Err. The trainer checks
// it after every step and ends the run with it.
type ErrBackend interface {
	Err() error
}

// freeBufs frees the allocations of bufs on a Freer backend (the local
// buffers of an inference, at its end); freeing one twice, or a host
// buffer, does nothing.
func freeBufs(be Backend, bufs ...*Buf) {
	f, ok := be.(Freer)
	if !ok {
		return
	}
	for _, b := range bufs {
		if b.dev != nil {
			f.Free(*b)
			*b = Buf{}
		}
	}
}

// Syncer is implemented by backends whose operations run asynchronously
// (a GPU's queue): Sync waits for the work issued so far and returns the
// backend's error. The trainer calls it at the end of the backward pass and
// of the update, so that each phase's time is its own work's.
type Syncer interface {
	Sync() error
}

// syncBackend waits for be's work when it is a Syncer and returns its
// error (ErrBackend's).
func syncBackend(be Backend) error {
	if s, ok := be.(Syncer); ok {
		return s.Sync()
	}
	return backendErr(be)
}

// hold holds a on m's backend when it is a Holder.
func (m *Model) hold(a *spgemm.CSR) {
	if h, ok := m.be.(Holder); ok {
		h.Hold(a)
	}
}

// backendErr returns the error of be when it reports errors.
func backendErr(be Backend) error {
	if e, ok := be.(ErrBackend); ok {
		return e.Err()
	}
	return nil
}

// DeviceBlock is a sampled block whose arrays are in a backend's memory (a
// GPU sampler's, package gpu's Block): only that backend reads them, through
// its FormBlock. Input.Blocks hands such blocks to the model.
type DeviceBlock interface {
	Rows() int // destinations
	Cols() int // sources (destinations first)
}

// BlockFormer is implemented by backends that form a layer's aggregation
// operator from a DeviceBlock in their own memory, as the model forms a
// host block's (Model.normalize): SAGE's rows normalised to sum to 1; GCN's
// Kipf and Welling operator with the graph degrees the block carries (its
// self-loop weights into self, one per destination), or, for a block
// without degrees, the values as given (a LADIES or FastGCN block) and self
// 0. GCNBlockNorm has no device form. FormBlock sets a's shape (no host
// arrays) and makes a stand for the operator in SpMM and SpMMT until the
// next Hold or FormBlock of a.
type BlockFormer interface {
	FormBlock(a *spgemm.CSR, blk DeviceBlock, arch Arch, norm GCNNorm, self Buf)
}

// formBlock sets l.adj and l.selfB to the operator of the device block db.
func (m *Model) formBlock(l *layer, db DeviceBlock) {
	bf, ok := m.be.(BlockFormer)
	if !ok {
		panic("gnn: Input.Blocks needs a backend that forms device blocks (a BlockFormer)")
	}
	l.self = l.self[:0]
	if m.opt.Arch == GCN {
		l.selfUp = growBuf(m.be, l.selfUp, db.Rows())
		l.selfB = l.selfUp
	} else {
		l.selfB = Buf{}
	}
	l.adj = spgemm.CSR{}
	bf.FormBlock(&l.adj, db, m.opt.Arch, m.opt.GCNNorm, l.selfB)
}

// BufGatherer is implemented by feature stores whose features are in a
// backend's memory (package gpu's Features): GatherBuf sets dst to the rows
// ids there, so that a minibatch's input rows never cross the bus. The
// train.Trainer gathers through it, on the training goroutine, when the model's
// backend is not host memory (and the store keeps no sparse copy); its
// loaders then only note the ids.
type BufGatherer interface {
	GatherBuf(ctx context.Context, be Backend, dst Buf, ids []int32) error
}

// DeviceSampler is implemented by a sampler (a sampling.Sampler) that can
// leave its bulks in a device backend's memory (package gpu's samplers):
// SampleOn samples the minibatches first..first+len(seeds)-1 of epoch, as
// the sampler's SampleBulk does, into be's memory and returns the bulk
// there, or an error when be is not a backend on the sampler's device.
// The bulk stays valid until its Release, also across later calls; a
// sampler may bound how many bulks are held at once (package gpu's: two, a
// sampling bulk and a training one) and then refuses with an error. The
// train.Trainer samples through it when its backend is a BlockFormer and
// its features an IDGatherer, so that a minibatch's blocks and input rows
// never cross the bus; SamplesOn reports whether SampleOn can sample into
// be's memory (a backend on the sampler's device).
type DeviceSampler interface {
	SamplesOn(be Backend) bool
	SampleOn(ctx context.Context, be Backend, epoch, first int, seeds [][]int32) (DeviceBulk, error)
}

// DeviceBulk is a bulk of minibatches in a device backend's memory (a
// DeviceSampler's).
type DeviceBulk interface {
	// Len returns the number of minibatches; First the global index of
	// the first.
	Len() int
	First() int
	// SampledEdges returns the entries of all blocks.
	SampledEdges() int64
	// Minibatch returns minibatch m (0 <= m < Len()), its arrays views
	// of the bulk's, valid until Release. The backend's work issued after
	// it reads the bulk as sampled (a sampler on a stream of its own
	// orders the two here); its error is the device's.
	Minibatch(m int) (DeviceMinibatch, error)
	// Release gives the bulk's memory back to its sampler; the bulk and
	// its minibatches must not be used after. It is idempotent.
	Release()
}

// DeviceMinibatch is one minibatch of a DeviceBulk: Seeds on the host (for
// the labels; sampling.Minibatch.Seeds), its blocks in the backend's
// memory as Input.Blocks takes them, and the ids of its input vertices
// (the sources of its last block) in that memory, for an IDGatherer.
type DeviceMinibatch struct {
	Index  int
	Seeds  []int32
	Blocks []DeviceBlock
	Inputs DeviceIDs
}

// DeviceIDs is an array of vertex ids in a backend's memory (package gpu's
// Array[int32]).
type DeviceIDs interface {
	Len() int64
}

// IDGatherer is implemented by feature stores in a backend's memory that
// gather rows by ids in that memory (package gpu's Features): GatherIDs
// sets dst (ids.Len() rows) to the rows ids, queued with be's work.
type IDGatherer interface {
	GatherIDs(ctx context.Context, be Backend, dst Buf, ids DeviceIDs) error
}
