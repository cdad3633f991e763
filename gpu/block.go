package gpu

// A device minibatch: views of a DeviceBulk's arrays for a GPU trainer, the
// device form of sampling.Bulk.Minibatch; and the feature matrix in device
// memory that a trainer gathers the minibatches' input rows from.

import (
	"context"
	"errors"
	"fmt"
	"unsafe"

	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/spgemm"
)

// Block is one block of a DeviceMinibatch, |Dst| x |Src| with the
// destinations a prefix of the sources, its arrays views of the bulk's
// (valid while the bulk is). It is a gnn.DeviceBlock, which the GNN
// backend (Backend.FormBlock) turns into a layer's operator without the
// block leaving the device.
type Block struct {
	rows, cols int
	nnz        int64
	// Indptr (rows+1 offsets from 0) into Indices (local source ids) and
	// Data; Src the global ids of the sources and Deg their graph degrees
	// (empty unless the sampler supplies degrees).
	Indptr  Array[int64]
	Indices Array[int32]
	Data    Array[float32]
	Src     Array[int32]
	Deg     Array[int32]
}

var _ gnn.DeviceBlock = (*Block)(nil)

// Rows returns the number of destinations.
func (b *Block) Rows() int { return b.rows }

// Cols returns the number of sources.
func (b *Block) Cols() int { return b.cols }

// NNZ returns the number of entries (sampled edges).
func (b *Block) NNZ() int64 { return b.nnz }

// DeviceMinibatch is one minibatch of a DeviceBulk on the device.
type DeviceMinibatch struct {
	Index  int          // global minibatch index
	Seeds  Array[int32] // the deduplicated seeds
	Blocks []*Block     // Blocks[0]'s rows are the seeds, as in sampling.Minibatch
}

// InputNodes returns the ids of the minibatch's input vertices: the
// sources of its last block, or its seeds when it has no block.
func (m *DeviceMinibatch) InputNodes() Array[int32] {
	if len(m.Blocks) == 0 {
		return m.Seeds
	}
	return m.Blocks[len(m.Blocks)-1].Src
}

// GNNBlocks returns the blocks as gnn's Input.Blocks.
func (m *DeviceMinibatch) GNNBlocks() []gnn.DeviceBlock {
	out := make([]gnn.DeviceBlock, len(m.Blocks))
	for l, b := range m.Blocks {
		out[l] = b
	}
	return out
}

// slice returns elements [lo, hi) of a.
func slice[T Elem](a Array[T], lo, hi int64) Array[T] {
	if lo < 0 || hi < lo || hi > a.n {
		panic(spgemm.IndexError{Op: "gpu.Array slice", Index: int(hi), Len: int(a.n)})
	}
	var z T
	if a.m.addr == 0 {
		return Array[T]{}
	}
	m := a.m.at(lo * int64(unsafe.Sizeof(z)))
	m.bytes = (hi - lo) * int64(unsafe.Sizeof(z))
	return Array[T]{m: m, n: hi - lo}
}

// Minibatch returns minibatch m (0 <= m < Len()) of the bulk as views of
// its arrays, as sampling.Bulk.Minibatch does on the host.
func (b *DeviceBulk) Minibatch(m int) DeviceMinibatch {
	if uint(m) >= uint(b.Len()) {
		panic(spgemm.IndexError{Op: "gpu.DeviceBulk.Minibatch", Index: m, Len: b.Len()})
	}
	mb := DeviceMinibatch{Index: b.First + m, Seeds: slice(b.Seeds, int64(b.SeedStart[m]), int64(b.SeedStart[m+1])),
		Blocks: make([]*Block, len(b.Layers))}
	for l := range b.Layers {
		la := &b.Layers[l]
		p0, p1 := int64(la.PtrStart[m]), int64(la.PtrStart[m+1])
		e0, e1 := la.EdgeStart[m], la.EdgeStart[m+1]
		s0, s1 := int64(la.SrcStart[m]), int64(la.SrcStart[m+1])
		blk := &Block{rows: int(p1 - p0 - 1), cols: int(s1 - s0), nnz: e1 - e0,
			Indptr: slice(la.Indptr, p0, p1), Indices: slice(la.Indices, e0, e1), Data: slice(la.Data, e0, e1),
			Src: slice(la.Src, s0, s1)}
		if la.Deg.n > 0 {
			blk.Deg = slice(la.Deg, s0, s1)
		}
		mb.Blocks[l] = blk
	}
	return mb
}

// FormBlock makes a stand for the aggregation operator of the device block
// blk (a *Block) in SpMM and SpMMT, formed on the device as gnn's model
// forms a host block's (gnn.BlockFormer): rows normalised (SAGE), or GCN's
// operator with the block's graph degrees and its self-loop weights into
// self; a GCN block without degrees is used as given (self 0). The values
// equal the host's bit for bit (the kernels nn_row_norm, nn_gcn_norm). It
// panics for GCNBlockNorm, which has no device form, and for a block that
// is not a *Block.
func (b *Backend) FormBlock(a *spgemm.CSR, blk gnn.DeviceBlock, arch gnn.Arch, norm gnn.GCNNorm, self gnn.Buf) {
	db, ok := blk.(*Block)
	if !ok {
		panic(fmt.Sprintf("gpu: Backend.FormBlock: a %T is not a device block of package gpu", blk))
	}
	if arch == gnn.GCN && norm == gnn.GCNBlockNorm {
		panic("gpu: Backend.FormBlock: GCN's block normalisation (GCNBlockNorm) has no device form; use the graph's degrees")
	}
	*a = spgemm.CSR{Rows: db.rows, Cols: db.cols}
	if b.err != nil {
		return
	}
	h := b.heldFor(a)
	var sm mem
	gcn := arch == gnn.GCN
	if gcn {
		checkLen("FormBlock", self, db.rows)
		sm = b.memOf(self, "FormBlock")
	}
	rows, nnz := db.rows, db.nnz
	h.rows, h.cols, h.nnz, h.formed = db.rows, db.cols, db.nnz, true
	b.enqueue(func(p *pipe) {
		hp := &pipe{ex: p.ex, kt: p.kt, arena: &h.arena, exact: p.exact}
		ptr := hp.buf("indptr", int64(rows+1)*4)
		vals := hp.buf("data", max(nnz, 1)*4)
		h.a = devCSR{rows: rows, cols: db.cols, nnz: nnz, indptr: ptr, indices: db.Indices.m, values: vals}
		switch {
		case rows == 0:
			hp.launch("fill_i32", 1, ptr, int64(0))
		case gcn && db.Deg.n > 0:
			hp.launch("nn_gcn_norm", int64(rows), db.Indptr.m, db.Indices.m, db.Data.m, db.Deg.m, vals, sm, ptr)
		case gcn: // no degrees: the values as given, no self loops
			hp.launch("cvt_i64_i32", int64(rows+1), db.Indptr.m, ptr)
			hp.launch("nn_copy", nnz, vals, db.Data.m)
			hp.launch("fill_f32", int64(rows), sm, float64(0))
		default:
			hp.launch("nn_row_norm", int64(rows), db.Indptr.m, db.Data.m, vals, ptr)
		}
		p.setErr(hp.err)
	})
}

// Features is a feature matrix (n rows of f float32 values) that a GPU
// trainer gathers the input rows of its minibatches from with a kernel
// (Backend.GatherRows), so that features do not cross the bus per
// minibatch as copies: in device memory, uploaded once, or in page-locked
// host memory mapped into the device's address space, which the gather
// reads in place across the bus (FeaturesOptions.Placement: DGL's UVA
// gather, for features that do not fit the device). Close frees it.
type Features struct {
	dev   *Device
	buf   *Buffer[float32] // in device memory, or mapped host memory
	place Placement
	note  string // why the matrix is in host memory; "" in device memory
	n, f  int
}

// Placement says where Features keep the feature matrix.
type Placement int

const (
	// PlaceAuto keeps the matrix in device memory when it fits the
	// device's free memory, else in mapped host memory (PlaceHost).
	PlaceAuto Placement = iota
	// PlaceDevice keeps it in device memory; a matrix that does not fit
	// is an error naming both sizes.
	PlaceDevice
	// PlaceHost keeps it in page-locked host memory mapped for the device
	// (cuMemHostAlloc): no device memory, and each gathered row is read
	// across the bus, about the host link's bandwidth (tens of GB/s)
	// instead of the device memory's (TB/s).
	PlaceHost
)

// String returns the placement's name: auto, device or host.
func (p Placement) String() string {
	switch p {
	case PlaceAuto:
		return "auto"
	case PlaceDevice:
		return "device"
	case PlaceHost:
		return "host"
	}
	return fmt.Sprintf("Placement(%d)", int(p))
}

// ParsePlacement returns the placement named auto, device or host.
func ParsePlacement(s string) (Placement, error) {
	for _, p := range []Placement{PlaceAuto, PlaceDevice, PlaceHost} {
		if s == p.String() {
			return p, nil
		}
	}
	return 0, fmt.Errorf("gpu: feature placement %q: want auto, device or host", s)
}

// FeaturesOptions configure NewFeaturesWith.
type FeaturesOptions struct {
	// Placement is where the matrix is kept; the zero value is PlaceAuto.
	Placement Placement
}

// NewFeatures uploads x (n x f, row-major) to d's memory: NewFeaturesWith
// with PlaceDevice. It returns an error naming both sizes when x does not
// fit the device's free memory.
func NewFeatures(d *Device, x []float32, f int) (*Features, error) {
	return NewFeaturesWith(d, x, f, FeaturesOptions{Placement: PlaceDevice})
}

// NewFeaturesWith keeps x (n x f, row-major) where opt.Placement says: in
// d's memory, or in page-locked host memory that d reads in place.
func NewFeaturesWith(d *Device, x []float32, f int, opt FeaturesOptions) (*Features, error) {
	if f <= 0 || len(x)%f != 0 {
		return nil, fmt.Errorf("gpu: NewFeatures: %d values are not rows of %d", len(x), f)
	}
	what := fmt.Sprintf("the feature matrix (%d x %d float32)", len(x)/f, f)
	s := &Features{dev: d, place: opt.Placement, n: len(x) / f, f: f}
	switch opt.Placement {
	case PlaceAuto, PlaceDevice:
		if err := d.checkFits(what, int64(len(x))*4); err != nil {
			if opt.Placement == PlaceDevice {
				return nil, err
			}
			s.place, s.note = PlaceHost, fmt.Sprintf("%s is in page-locked host memory, which the device reads in place (it does not fit: %v)", what, err)
		} else {
			s.place = PlaceDevice
		}
	case PlaceHost:
		s.note = fmt.Sprintf("%s is in page-locked host memory, which the device reads in place (placement host)", what)
	default:
		return nil, fmt.Errorf("gpu: NewFeatures: %v is not a placement", opt.Placement)
	}
	var err error
	if s.place == PlaceHost {
		s.buf, err = newMappedBuffer(d, x)
	} else if s.buf, err = NewBuffer[float32](d, int64(len(x))); err == nil {
		if err = s.buf.Upload(x); err != nil {
			s.buf.Free()
		}
	}
	if err != nil {
		return nil, fmt.Errorf("gpu: NewFeatures: %s: %w", what, err)
	}
	return s, nil
}

// Placement returns where the matrix is: PlaceDevice or PlaceHost.
func (s *Features) Placement() Placement { return s.place }

// PlacementNote says why the matrix is in host memory, and is "" when it
// is in device memory (for a trainer's notes).
func (s *Features) PlacementNote() string { return s.note }

// NumVertices returns the number of rows.
func (s *Features) NumVertices() int { return s.n }

// NumFeatures returns the width of a row.
func (s *Features) NumFeatures() int { return s.f }

// Close frees the matrix; it is idempotent.
func (s *Features) Close() error { return s.buf.Free() }

var (
	_ featurex.Store  = (*Features)(nil)
	_ gnn.BufGatherer = (*Features)(nil)
)

// GatherBuf sets dst, memory of be (a *Backend on the same device), to the
// rows ids (gnn.BufGatherer: the Trainer's gather with a device backend),
// queued with be's work.
func (s *Features) GatherBuf(ctx context.Context, be gnn.Backend, dst gnn.Buf, ids []int32) error {
	b, ok := be.(*Backend)
	if !ok || b.dev != s.dev {
		return fmt.Errorf("gpu: Features.GatherBuf into a %s: want a gpu.Backend on %s", be.Name(), s.dev.Name())
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return b.GatherRowsHost(dst, s, ids)
}

// Gather writes the rows ids into the host slice dst (featurex.Store: for
// a trainer on the CPU; a device backend gathers with GatherBuf). It
// gathers on the device and downloads the rows.
func (s *Features) Gather(ctx context.Context, dst []float32, ids []int32) error {
	if len(dst) != len(ids)*s.f {
		return spgemm.ShapeError{Pkg: "gpu", Op: "Features.Gather", ARows: len(ids), ACols: s.f, BRows: len(dst), BCols: 1}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for i, v := range ids {
		if uint32(v) >= uint32(s.n) {
			return fmt.Errorf("gpu: Features.Gather: ids[%d] = %d is not a vertex (n = %d)", i, v, s.n)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	tmp := newArena()
	return s.dev.do(func(ex executor) error {
		p := s.dev.newPipe(ex, &tmp)
		im := put(p, "ids", ids)
		out := p.buf("rows", int64(len(dst))*4)
		p.launch("nn_gather_rows", int64(len(dst)), s.buf.m, im, s.f, out)
		download(p, dst, out)
		return errors.Join(p.err, tmp.free(ex))
	})
}

// GatherRows sets dst to the rows ids of the device feature matrix x
// (ids in device memory, e.g. DeviceMinibatch.InputNodes), queued with the
// backend's work. The ids must be vertices of x (not checked on the
// device).
func (b *Backend) GatherRows(dst gnn.Buf, x *Features, ids Array[int32]) {
	n := int(ids.n) * x.f
	if dst.Len() != n {
		panic(spgemm.ShapeError{Op: "gpu.Backend.GatherRows", ARows: dst.Len() / max(x.f, 1), ACols: x.f, BRows: int(ids.n), BCols: x.f})
	}
	if n == 0 {
		return
	}
	dm, xm, im, f := b.memOf(dst, "GatherRows"), x.buf.m, ids.m, x.f
	b.enqueue(func(p *pipe) { p.launch("nn_gather_rows", int64(n), xm, im, f, dm) })
}

// GatherRowsHost is GatherRows for ids in host memory (checked against
// x's rows), which it copies to the device with the queued work.
func (b *Backend) GatherRowsHost(dst gnn.Buf, x *Features, ids []int32) error {
	n := len(ids) * x.f
	if dst.Len() != n {
		panic(spgemm.ShapeError{Op: "gpu.Backend.GatherRowsHost", ARows: dst.Len() / max(x.f, 1), ACols: x.f, BRows: len(ids), BCols: x.f})
	}
	for i, v := range ids {
		if uint32(v) >= uint32(x.n) {
			return fmt.Errorf("gpu: GatherRowsHost: ids[%d] = %d is not a row of the %d-row feature matrix", i, v, x.n)
		}
	}
	if n == 0 {
		return nil
	}
	dm, xm, f := b.memOf(dst, "GatherRowsHost"), x.buf.m, x.f
	c := append([]int32(nil), ids...)
	b.enqueue(func(p *pipe) {
		im := put(p, "gather.ids", c)
		p.launch("nn_gather_rows", int64(n), xm, im, f, dm)
	})
	return nil
}

// ResidentFeatures uploads the feature matrix x (rows of f values) to the
// backend's device and returns it as a store whose rows the trainer
// gathers there (train.ResidentFeatures: package train asks for it when a
// run's features are dense). The error names both sizes when x does not
// fit; close the store (its Close) to free it.
func (b *Backend) ResidentFeatures(x []float32, f int) (featurex.Store, error) {
	return NewFeaturesWith(b.dev, x, f, b.opt.Features)
}
