package gpu

// Bulks that stay on the device until their Release (gnn.DeviceSampler),
// for a trainer that samples the next bulk while the current one trains.

import (
	"context"
	"fmt"
	"sync"

	"github.com/bulksample/bulksample/gnn"
)

// heldBulks is how many of SampleOn's bulks a sampler holds at once: the
// one training and the one sampled beside it (package train's pipeline at
// depth 2, whose slots bound the bulks alive).
const heldBulks = 2

// bulkSlot is the device memory of one held bulk and the host's copy of
// its deduplicated seeds, reused by the bulks sampled into it, and the
// events that order its streams: ready, recorded on the side stream after
// a bulk's sampling, for the main stream to wait for before it reads the
// bulk; freed, recorded on the main stream at the bulk's Release, for the
// side stream to wait for before it samples the next bulk into the slot.
type bulkSlot struct {
	arena        arena
	inUse        bool
	seeds        []int32
	seedStart    []int64
	ready, freed event // nil until the slot's first bulk, and after the sampler's Close
	err          error // of the record at the last Release
	// evMu is held by a held bulk's use of the events and by their
	// destruction (Close), not by SampleOn, which sets them while no bulk
	// holds the slot.
	evMu sync.Mutex
}

// withEvent calls op (a record or a wait) on the event *ev on d's main
// stream; after the sampler's Close, which destroyed it, it does nothing.
func (s *bulkSlot) withEvent(d *Device, ev *event, op func(executor, event) error) error {
	s.evMu.Lock()
	defer s.evMu.Unlock()
	if *ev == nil {
		return nil
	}
	return d.do(func(ex executor) error { return op(ex, *ev) })
}

// takeEvents returns the slot's events, which a held bulk of the slot no
// longer uses; call it outside the device's run (a bulk's use of the
// events holds evMu around one).
func (s *bulkSlot) takeEvents() []event {
	s.evMu.Lock()
	defer s.evMu.Unlock()
	var evs []event
	for _, ev := range []event{s.ready, s.freed} {
		if ev != nil {
			evs = append(evs, ev)
		}
	}
	s.ready, s.freed = nil, nil
	return evs
}

// SampleOn samples like SampleDevice into be's memory (a *Backend on the
// sampler's device) and returns the bulk as a gnn.DeviceBulk, valid until
// its Release whatever the sampler does meanwhile, with the host's copy of
// its seeds (no download). At most two such bulks are held at once; a
// third is an error until one is released.
//
// It samples on a stream of its own, beside the backend's: it waits for
// no training step, and none waits for it but the first that reads the
// bulk (Minibatch makes the backend's stream wait for the bulk's event);
// the slot's next bulk waits, on the device, for the work the backend
// issued before the Release of the slot's last.
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
	if err := slot.err; err != nil {
		return nil, fmt.Errorf("gpu: %s.SampleOn of minibatches %d..: the release of the bulk before failed: %w", b.name, first, err)
	}
	var db *DeviceBulk
	err := b.sample(ctx, sideStream, &slot.arena, epoch, first, seeds, func(p *pipe) {
		if slot.ready == nil {
			slot.ready, p.err = p.ex.newEvent()
			if p.err == nil {
				slot.freed, p.err = p.ex.newEvent()
			}
		}
		if p.err == nil {
			p.setErr(p.ex.wait(slot.freed))
		}
	}, func(p *pipe, d *DeviceBulk) {
		db = d
		p.setErr(p.ex.record(slot.ready))
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
	b    *base
	slot *bulkSlot
	db   *DeviceBulk
	// waited: the main stream waits for the bulk's sampling (the first
	// Minibatch), with the wait's error.
	waited  sync.Once
	waitErr error
	release sync.Once
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
// and its input ids (an Array[int32]). The first call makes the device's
// main stream (the backend's) wait for the bulk's sampling: the work
// issued on it from then on reads the bulk sampled.
func (h *heldBulk) Minibatch(m int) (gnn.DeviceMinibatch, error) {
	h.waited.Do(func() {
		h.waitErr = h.slot.withEvent(h.b.dev, &h.slot.ready, executor.wait)
		if h.waitErr != nil {
			h.waitErr = fmt.Errorf("gpu: %s: waiting for the bulk of minibatches %d..: %w", h.b.name, h.db.First, h.waitErr)
		}
	})
	if h.waitErr != nil {
		return gnn.DeviceMinibatch{}, h.waitErr
	}
	dm := h.db.Minibatch(m)
	s := h.slot
	return gnn.DeviceMinibatch{Index: dm.Index, Seeds: s.seeds[s.seedStart[m]:s.seedStart[m+1]:s.seedStart[m+1]],
		Blocks: dm.GNNBlocks(), Inputs: dm.InputNodes()}, nil
}

// Release frees the bulk's slot for a later SampleOn; it is idempotent.
// The work that reads the bulk must have been issued to the device (a
// backend's Sync or download issues what it queued): the slot's next bulk
// waits for the main stream's work issued before Release, not after.
func (h *heldBulk) Release() {
	h.release.Do(func() {
		// The record is made without b.mu, which a SampleOn holds while
		// it samples: a Release waits for no sampling.
		err := h.slot.withEvent(h.b.dev, &h.slot.freed, executor.record)
		h.b.mu.Lock()
		defer h.b.mu.Unlock()
		h.slot.inUse = false
		h.slot.err = err
	})
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
