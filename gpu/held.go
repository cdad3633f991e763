package gpu

// Bulks that stay on the device until their Release (gnn.DeviceSampler),
// for a trainer that samples the next bulk while the current one trains.

import (
	"context"
	"fmt"

	"github.com/bulksample/bulksample/gnn"
)

// heldBulks is how many of SampleOn's bulks a sampler holds at once: the
// one training and the one sampled beside it (package train's pipeline at
// depth 2, whose slots bound the bulks alive).
const heldBulks = 2

// bulkSlot is the device memory of one held bulk and the host's copy of
// its deduplicated seeds, reused by the bulks sampled into it.
type bulkSlot struct {
	arena     arena
	inUse     bool
	seeds     []int32
	seedStart []int64
}

// SampleOn samples like SampleDevice into be's memory (a *Backend on the
// sampler's device) and returns the bulk as a gnn.DeviceBulk, valid until
// its Release whatever the sampler does meanwhile, with the host's copy of
// its seeds (no download). At most two such bulks are held at once; a
// third is an error until one is released.
func (b *base) SampleOn(ctx context.Context, be gnn.Backend, epoch, first int, seeds [][]int32) (gnn.DeviceBulk, error) {
	if !b.SamplesOn(be) {
		return nil, fmt.Errorf("gpu: %s.SampleOn into a %s: want a gpu.Backend on %s", b.name, be.Name(), b.dev.Name())
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	var slot *bulkSlot
	for i := range b.held {
		if !b.held[i].inUse {
			slot = &b.held[i]
			break
		}
	}
	if slot == nil {
		return nil, fmt.Errorf("gpu: %s.SampleOn of minibatches %d..: %d bulks are held; release one (gnn.DeviceBulk.Release) first", b.name, first, heldBulks)
	}
	var db *DeviceBulk
	err := b.sample(ctx, &slot.arena, epoch, first, seeds, func(p *pipe, d *DeviceBulk) {
		db = d
		p.setErr(p.ex.sync())
	})
	if err != nil {
		return nil, err
	}
	slot.inUse = true
	slot.seeds = append(slot.seeds[:0], b.seeds...)
	slot.seedStart = append(slot.seedStart[:0], b.seedStart...)
	return &heldBulk{b: b, slot: slot, db: db}, nil
}

// SamplesOn reports whether be is a *Backend on the sampler's device, into
// whose memory SampleOn samples (gnn.DeviceSampler).
func (b *base) SamplesOn(be gnn.Backend) bool {
	gb, ok := be.(*Backend)
	return ok && gb.dev == b.dev
}

// heldBulk is a bulk of SampleOn in its slot.
type heldBulk struct {
	b        *base
	slot     *bulkSlot
	db       *DeviceBulk
	released bool // under b.mu
}

var (
	_ gnn.DeviceSampler = (*NodeWise)(nil)
	_ gnn.DeviceSampler = (*LayerWise)(nil)
	_ gnn.IDGatherer    = (*Features)(nil)
	_ gnn.DeviceIDs     = Array[int32]{}
)

func (h *heldBulk) Len() int            { return h.db.Len() }
func (h *heldBulk) First() int          { return h.db.First }
func (h *heldBulk) SampledEdges() int64 { return h.db.SampledEdges() }

// Minibatch returns minibatch m with its host seeds, its blocks (*Block)
// and its input ids (an Array[int32]).
func (h *heldBulk) Minibatch(m int) gnn.DeviceMinibatch {
	dm := h.db.Minibatch(m)
	s := h.slot
	return gnn.DeviceMinibatch{Index: dm.Index, Seeds: s.seeds[s.seedStart[m]:s.seedStart[m+1]:s.seedStart[m+1]],
		Blocks: dm.GNNBlocks(), Inputs: dm.InputNodes()}
}

// Release frees the bulk's slot for a later SampleOn; it is idempotent.
func (h *heldBulk) Release() {
	h.b.mu.Lock()
	defer h.b.mu.Unlock()
	if !h.released {
		h.released = true
		h.slot.inUse = false
	}
}

// GatherIDs sets dst, memory of be (a *Backend on the same device), to the
// rows ids, an Array[int32] on the device (gnn.DeviceMinibatch.Inputs),
// with Backend.GatherRows: the gather of a trainer whose bulks stay on the
// device (gnn.IDGatherer).
func (s *Features) GatherIDs(ctx context.Context, be gnn.Backend, dst gnn.Buf, ids gnn.DeviceIDs) error {
	b, ok := be.(*Backend)
	if !ok || b.dev != s.dev {
		return fmt.Errorf("gpu: Features.GatherIDs into a %s: want a gpu.Backend on %s", be.Name(), s.dev.Name())
	}
	a, ok := ids.(Array[int32])
	if !ok {
		return fmt.Errorf("gpu: Features.GatherIDs of a %T: want a gpu.Array[int32]", ids)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	b.GatherRows(dst, s, a)
	return nil
}
