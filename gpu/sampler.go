package gpu

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// base is what NodeWise and LayerWise share, embedded in both: the
// device, the graph's buffers and a call's (reused by the next), the calls
// around a sampler's pipeline (one at a time) and the pipeline's start,
// the seeds' deduplication.
type base struct {
	dev    *Device
	g      *graph
	name   string // for errors
	layers int    // of every bulk
	// layersOn samples the layers of db, a bulk of k > 0 minibatches whose
	// seeds are deduplicated (db.Seeds, db.SeedStart) at front (offsets
	// frontStart, rows in all), on p; it returns nil when ctx ends.
	layersOn func(ctx context.Context, p *pipe, epoch, first int, k int64, db *DeviceBulk, front, frontStart mem, rows int64) *DeviceBulk

	mu     sync.Mutex
	garena arena // the graph
	arena  arena // each call's buffers, reused by the next
	// held are the arenas of SampleOn's bulks, each in use from the call
	// that samples into it to the bulk's Release.
	held   [heldBulks]bulkSlot
	closed bool
	// The host's copy of a call's seeds, reused.
	dedup     *sampling.SeedDedup
	seeds     []int32
	seedStart []int64
	words     []uint64
}

// newBase uploads a (its values when values) to d, for a sampler of
// layers layers.
func newBase(d *Device, name string, layers int, a *spgemm.CSR, values bool) (*base, error) {
	b := &base{dev: d, name: name, layers: layers, garena: newArena(), arena: newArena(), dedup: sampling.NewSeedDedup(a.Rows)}
	for i := range b.held {
		b.held[i].arena = newArena()
	}
	g, err := d.uploadGraph(&b.garena, a, values, "the graph")
	if err != nil {
		_ = b.Close()
		return nil, err
	}
	b.g = g
	return b, nil
}

// NumLayers returns the number of layers of every bulk: of fanouts or of
// budgets.
func (b *base) NumLayers() int { return b.layers }

// Close frees the sampler's device memory; it is idempotent.
func (b *base) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	b.closed = true
	var evs []event
	for i := range b.held {
		evs = append(evs, b.held[i].takeEvents()...)
	}
	return b.dev.do(func(ex executor) error {
		err := errors.Join(b.arena.free(ex), b.garena.free(ex))
		for i := range b.held {
			err = errors.Join(err, b.held[i].arena.free(ex))
		}
		for _, ev := range evs {
			err = errors.Join(err, ex.destroyEvent(ev))
		}
		return err
	})
}

// SampleBulk samples the minibatches first..first+len(seeds)-1 of epoch
// on the device and returns them on the host (sampling.Sampler): what the
// CPU's sampler of the same options returns, bit for bit.
func (b *base) SampleBulk(ctx context.Context, epoch, first int, seeds [][]int32) (*sampling.Bulk, error) {
	var out *sampling.Bulk
	b.mu.Lock()
	defer b.mu.Unlock()
	err := b.sample(ctx, mainStream, &b.arena, epoch, first, seeds, nil, func(p *pipe, db *DeviceBulk) { out = p.downloadBulk(db) })
	return out, err
}

// SampleDevice samples like SampleBulk and leaves the blocks on the
// device; the bulk is valid until the sampler's next SampleBulk,
// SampleDevice or Download (SampleOn's bulks live apart, until their
// Release).
func (b *base) SampleDevice(ctx context.Context, epoch, first int, seeds [][]int32) (*DeviceBulk, error) {
	var out *DeviceBulk
	b.mu.Lock()
	defer b.mu.Unlock()
	err := b.sample(ctx, mainStream, &b.arena, epoch, first, seeds, nil, func(p *pipe, db *DeviceBulk) {
		out = db
		p.setErr(p.ex.sync())
	})
	return out, err
}

// Download copies a bulk of this sampler to the host, as a sampler on the
// CPU returns it.
func (b *base) Download(db *DeviceBulk) (*sampling.Bulk, error) {
	var out *sampling.Bulk
	err := b.dev.do(func(ex executor) error {
		p := b.dev.newPipe(ex, &b.arena)
		out = p.downloadBulk(db)
		return p.err
	})
	return out, err
}

// sample checks the seeds and, in one run of the device on stream st,
// calls before (when not nil), runs the pipeline with its buffers in a and
// hands its bulk to then. The caller holds b.mu.
func (b *base) sample(ctx context.Context, st stream, a *arena, epoch, first int, seeds [][]int32, before func(*pipe), then func(*pipe, *DeviceBulk)) error {
	if b.closed {
		return fmt.Errorf("gpu: %s is closed", b.name)
	}
	var err error
	if b.seeds, b.seedStart, err = hostSeeds(b.dedup, b.seeds, b.seedStart, first, seeds, b.g.n); err != nil {
		return err
	}
	return b.dev.doOn(st, func(ex executor) error {
		p := b.dev.newPipe(ex, a)
		if before != nil {
			before(p)
		}
		db := b.pipeline(ctx, p, epoch, first)
		if p.err == nil {
			then(p, db)
		}
		return p.err
	})
}

// pipeline samples the bulk of the deduplicated seeds b.seeds (offsets
// b.seedStart) on p: their upload (one copy), then the sampler's layers.
func (b *base) pipeline(ctx context.Context, p *pipe, epoch, first int) *DeviceBulk {
	k := int64(len(b.seedStart) - 1)
	if k == 0 {
		return emptyBulk(first, b.layers)
	}
	var frontStart, front mem
	frontStart, front, b.words = p.putSeeds(b.words, b.seeds, b.seedStart)
	rows := b.seedStart[k]
	db := &DeviceBulk{First: first, Seeds: arrayOf[int32](front, rows), SeedStart: toInts(b.seedStart)}
	return b.layersOn(ctx, p, epoch, first, k, db, front, frontStart, rows)
}

// graph is an adjacency in device memory.
type graph struct {
	n                     int
	nnz                   int64
	indptr, indices, data mem
}

// uploadGraph copies a (its values when values) into the arena g.
func (d *Device) uploadGraph(g *arena, a *spgemm.CSR, values bool, what string) (*graph, error) {
	bytes := int64(a.Rows+1)*8 + a.NNZ()*4
	if values {
		bytes += a.NNZ() * 4
	}
	if err := d.checkFits(fmt.Sprintf("%s (%d vertices, %d edges)", what, a.Rows, a.NNZ()), bytes); err != nil {
		return nil, err
	}
	gr := &graph{n: a.Rows, nnz: a.NNZ()}
	err := d.do(func(ex executor) error {
		p := d.newPipe(ex, g)
		gr.indptr = put(p, "indptr", a.Indptr)
		gr.indices = put(p, "indices", a.Indices[:a.NNZ()])
		if values {
			gr.data = put(p, "data", a.Data[:a.NNZ()])
		} else {
			gr.data = p.buf("data", 4)
		}
		// Done before it returns: SampleOn's stream reads the graph with
		// no event after these copies.
		p.setErr(p.ex.syncStream())
		return p.err
	})
	if err != nil {
		return nil, fmt.Errorf("gpu: uploading %s: %w", what, err)
	}
	return gr, nil
}

// Sampler is a sampler on the device: a NodeWise or a LayerWise. Besides
// sampling.Sampler's SampleBulk (blocks on the host) it leaves a bulk on
// the device (SampleDevice, valid until the next call; SampleOn, a
// gnn.DeviceSampler's, valid until its Release), copies one to the host
// (Download), and frees its device memory (Close).
type Sampler interface {
	sampling.Sampler
	gnn.DeviceSampler
	SampleDevice(ctx context.Context, epoch, first int, seeds [][]int32) (*DeviceBulk, error)
	Download(b *DeviceBulk) (*sampling.Bulk, error)
	Close() error
}

var (
	_ Sampler = (*NodeWise)(nil)
	_ Sampler = (*LayerWise)(nil)
	// What the trainer asks of a sampler (the graph's size, the
	// checkpoint's fingerprint, GCN's degrees), as of the CPU's samplers:
	// a run sampled on the device writes the checkpoints a CPU-sampled run
	// writes, and either resumes the other's.
	_ sampling.Fingerprinter         = (*NodeWise)(nil)
	_ sampling.Fingerprinter         = (*LayerWise)(nil)
	_ sampling.DegreeProvider        = (*NodeWise)(nil)
	_ interface{ NumVertices() int } = (*LayerWise)(nil)
)

// NumVertices returns the number of vertices of the sampler's graph.
func (b *base) NumVertices() int { return b.g.n }

// Fingerprint returns what sampling.NodeWise's Fingerprint returns for the
// same options (sampling.Fingerprinter).
func (s *NodeWise) Fingerprint() sampling.Fingerprint { return s.opt.Fingerprint() }

// ProvidesDegrees reports whether the blocks carry the graph's degrees
// (NodeWiseOptions.Degrees; sampling.DegreeProvider).
func (s *NodeWise) ProvidesDegrees() bool { return s.opt.Degrees }

// Fingerprint returns what sampling.LayerWise's Fingerprint returns for the
// same options (sampling.Fingerprinter): the options as given, LADIES'
// matrix normalised or raw, the default budgets filled in.
func (s *LayerWise) Fingerprint() sampling.Fingerprint { return s.fingerprint }

// NewSampler is sampling.NewSampler on d: the device sampler of
// opt.Method over the n x n adjacency a, which samples what the CPU's
// sampler of the same options samples. It returns the error
// SamplerOptions.Validate or the sampler's constructor returns.
func NewSampler(d *Device, a *spgemm.CSR, opt sampling.SamplerOptions) (Sampler, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	// The constructors' nil pointers must not become non-nil interfaces.
	if opt.Method == "" || opt.Method == sampling.MethodNode {
		nw, err := NewNodeWise(d, a, opt.NodeWiseOptions())
		if err != nil {
			return nil, err
		}
		return nw, nil
	}
	lw, err := NewLayerWise(d, a, opt.LayerWiseOptions())
	if err != nil {
		return nil, err
	}
	return lw, nil
}
