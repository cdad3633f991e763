package sampling

// Distributed node-wise sampling (DESIGN.md section 4). Rows of A are
// split in p/c blocks over the process rows of a dist.Grid; a rank finds
// every block inside its process column. The sampler is the ordinary
// NodeWise reading A through DistRows, which fetches what a group of
// minibatches needs in exchange rounds on the column communicator:
//
//	header   one int64 record per pair: active, request count, epoch,
//	         layer, fanout, kind (a rank that has finished its own work
//	         still takes part, inactive, until every rank of the column is
//	         done)
//	pull     ids of the distinct rows; row lengths back; column ids back
//	         (and values when the sampler is weighted)
//	push     (vertex, minibatch) of every row to expand; pick counts back;
//	         picks back (and their values when weighted or with
//	         replacement), selected by the owner with RowPicker
//	degrees  (DegreeSource) the round of the fetch mode, but the owners
//	         answer a requester whose header kind is kindDegrees with the
//	         row lengths only: the lengths (pull) or pick counts (push) are
//	         the degrees, and no column id or pick follows
//
// Counts go first and payloads are exact (dist.Exchange); ranks may run
// different numbers of rounds (groups, short last bulks), which the active
// flag of the header reconciles: SampleBulk ends with Drain.

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/internal/par"
	"github.com/bulksample/bulksample/spgemm"
)

// FetchMode is how a distributed sampler gets the rows it samples.
type FetchMode int

const (
	// FetchPull brings the rows of A to the sampling rank (the paper's
	// 1.5D sparsity-aware product): deg words per row.
	FetchPull FetchMode = iota
	// FetchPush sends the rows to sample to their owners, which select
	// and return only the picks: about s words per row.
	FetchPush
)

// String returns "pull" or "push".
func (m FetchMode) String() string {
	switch m {
	case FetchPull:
		return "pull"
	case FetchPush:
		return "push"
	}
	return fmt.Sprintf("FetchMode(%d)", int(m))
}

// ParseFetchMode parses "pull" or "push".
func ParseFetchMode(s string) (FetchMode, error) {
	switch s {
	case "pull":
		return FetchPull, nil
	case "push":
		return FetchPush, nil
	}
	return 0, fmt.Errorf("sampling: fetch mode %q, want pull or push", s)
}

// headerLen is the number of int64 of one header record.
const headerLen = 6

// Kinds of request of a header record (its last field).
const (
	kindRows    = 0 // rows (pull) or picks (push)
	kindDegrees = 1 // row lengths only
)

// DistRows is the RowSource of a row-distributed adjacency (dist.Matrix):
// local rows are read in place, the others fetched from their owners in
// this rank's process column. It is a RowFetcher, PackedRows and a
// DegreeSource (NodeWiseOptions.Degrees, for GCN); with
// FetchPush, NewDistNodeWise samples through its PickFetcher face
// instead, and it serves picks rather than rows. Every rank of the grid must
// make the same kind of DistRows with the same sampler options, and call
// Drain after its own work of a bulk. It is used by one goroutine (the
// sampler's), apart from Row, RowSpan and Packed, which may be called
// concurrently between fetches.
type DistRows struct {
	m      *dist.Matrix
	col    dist.Comm
	mode   FetchMode
	values bool // pull: fetch values (weighted sampling)
	picker *RowPicker

	// The packed rows (pull): ind (and val when values) start with a copy
	// of the local block, read in place; the remote rows of the last
	// FetchRows follow at nLocal: the row of a remote gid v is
	// ind[nLocal+ptr[slot[v]] : nLocal+ptr[slot[v]+1]].
	nLocal  int64
	slot    []int32 // per global vertex, -1 when not fetched
	fetched []int32 // the vertices whose slot is set
	ptr     []int64
	ind     []int32
	val     []float32

	// The arrays of a round that are kept for the next one, so that a
	// warm sampler allocates none of them per bulk (a DistRows serves one
	// sampler, whose rounds are collective and never overlap): the
	// requested vertices and their order by owner (bucket), and the
	// requests, lengths and rows of a pull round.
	remote, at     []int32 // FetchRows, Degrees: the vertices other ranks own, their positions
	owner, order   []int
	byOwner, extra []int32
	asked, lens    []int32 // pullRound: the rows others ask for, their lengths
	gotLens        []int32 // pullRound: the lengths of the rows this rank asked for
	sendInd        []int32
	sendVal        []float32
}

// NewDistRows returns the row source over m for a node-wise sampler with
// options opt (Seed, Weighted and Replace are used by the owners).
func NewDistRows(m *dist.Matrix, mode FetchMode, opt NodeWiseOptions) (*DistRows, error) {
	if m == nil || m.Grid == nil || m.Local == nil {
		return nil, errors.New("sampling: NewDistRows: nil matrix")
	}
	if mode != FetchPull && mode != FetchPush {
		return nil, fmt.Errorf("sampling: NewDistRows: fetch mode %d", int(mode))
	}
	return newDistRows(m, mode, opt, opt.Weighted), nil
}

// newDistRows is NewDistRows, fetching values when values is set.
func newDistRows(m *dist.Matrix, mode FetchMode, opt NodeWiseOptions, values bool) *DistRows {
	d := &DistRows{m: m, col: m.Grid.Col(), mode: mode, values: values, picker: NewRowPicker(opt)}
	d.slot = make([]int32, m.Grid.NumVertices())
	for i := range d.slot {
		d.slot[i] = -1
	}
	if mode == FetchPull {
		// A copy, so that fetched rows can follow the local ones in one
		// array (PackedRows) without copying the local ones every round.
		d.nLocal = m.Local.NNZ()
		d.ind = slices.Clone(m.Local.Indices[:d.nLocal])
		if values {
			d.val = slices.Clone(m.Local.Data[:d.nLocal])
		}
	}
	return d
}

// Mode returns the fetch mode.
func (d *DistRows) Mode() FetchMode { return d.mode }

// NumVertices returns n.
func (d *DistRows) NumVertices() int { return len(d.slot) }

// Row returns row v: a local row, or one fetched by the last FetchRows
// (pull). It panics if v is neither.
func (d *DistRows) Row(v int32) ([]int32, []float32) {
	s, deg := d.RowSpan(v)
	cols := d.ind[s : s+int64(deg)]
	if d.val == nil {
		return cols, nil
	}
	return cols, d.val[s : s+int64(deg)]
}

// RowSpan returns where row v, local or fetched, lies in Packed's arrays.
func (d *DistRows) RowSpan(v int32) (int64, int32) {
	if v >= d.m.Lo && v < d.m.Hi {
		ip := d.m.Local.Indptr[v-d.m.Lo:]
		return ip[0], int32(ip[1] - ip[0])
	}
	k := d.slot[v]
	if k < 0 {
		panic(fmt.Sprintf("sampling: DistRows: row %d is neither local nor fetched", v))
	}
	return d.nLocal + d.ptr[k], int32(d.ptr[k+1] - d.ptr[k])
}

// Packed returns the local and fetched rows' arrays (values nil unless
// fetched).
func (d *DistRows) Packed() ([]int32, []float32) { return d.ind, d.val }

// localRow returns row gid of this rank's block.
func (d *DistRows) localRow(gid int32) ([]int32, []float32, error) {
	if gid < d.m.Lo || gid >= d.m.Hi {
		return nil, nil, fmt.Errorf("sampling: rank %d holds rows [%d, %d) but was asked for row %d", d.m.Grid.Rank(), d.m.Lo, d.m.Hi, gid)
	}
	c, v := d.m.Local.Row(int(gid - d.m.Lo))
	return c, v, nil
}

// bucket orders vs by owner block (stable) and returns them with the
// count per block. The vertices, extra and order it returns are the
// DistRows' arrays, valid until its next call.
func (d *DistRows) bucket(vs []int32, extra []int32) ([]int32, []int32, []int, []int) {
	g := d.m.Grid
	q := g.Blocks()
	counts := make([]int, q)
	d.owner = par.Resize(d.owner, len(vs))
	owner := d.owner
	for i, v := range vs {
		b, _ := g.Locate(v)
		owner[i] = b
		counts[b]++
	}
	start := make([]int, q+1)
	for b := range q {
		start[b+1] = start[b] + counts[b]
	}
	pos := slices.Clone(start[:q])
	d.order, d.byOwner = par.Resize(d.order, len(vs)), par.Resize(d.byOwner, len(vs))
	order, outV := d.order, d.byOwner
	var outX []int32
	if extra != nil {
		d.extra = par.Resize(d.extra, len(vs))
		outX = d.extra
	}
	for i, v := range vs {
		b := owner[i]
		order[i] = pos[b]
		outV[pos[b]] = v
		if extra != nil {
			outX[pos[b]] = extra[i]
		}
		pos[b]++
	}
	return outV, outX, counts, order
}

// header runs the header exchange of a round and returns every rank's
// record to this one and whether any rank of the column is active.
func (d *DistRows) header(ctx context.Context, active bool, counts []int, epoch, layer, fanout, kind int) ([]int64, bool, error) {
	q := d.col.Size()
	send := make([]int64, headerLen*q)
	for r := range q {
		h := send[headerLen*r:]
		if active {
			h[0] = 1
		}
		if counts != nil {
			h[1] = int64(counts[r])
		}
		h[2], h[3], h[4], h[5] = int64(epoch), int64(layer), int64(fanout), int64(kind)
	}
	hl := make([]int, q)
	for r := range hl {
		hl[r] = headerLen
	}
	recv, err := dist.ExchangeWith(ctx, d.col, dist.PhaseSample, send, hl, hl)
	if err != nil {
		return nil, false, err
	}
	anyActive := false
	for r := range q {
		anyActive = anyActive || recv[headerLen*r] != 0
	}
	return recv, anyActive, nil
}

// FetchRows brings the rows of vertices (distinct) in: one pull round.
func (d *DistRows) FetchRows(ctx context.Context, vertices []int32) error {
	if d.mode != FetchPull {
		return fmt.Errorf("sampling: DistRows.FetchRows in %v mode", d.mode)
	}
	remote := d.remote[:0]
	for _, v := range vertices {
		if v < d.m.Lo || v >= d.m.Hi {
			remote = append(remote, v)
		}
	}
	d.remote = remote
	ids, _, counts, _ := d.bucket(remote, nil)
	hdr, _, err := d.header(ctx, true, counts, 0, 0, 0, kindRows)
	if err != nil {
		return err
	}
	_, err = d.pullRound(ctx, hdr, ids, counts, false)
	return err
}

// Degrees sets deg[i] to the length of row vertices[i] of A (DegreeSource):
// local rows are read in place, the others asked of their owners in one
// round of the fetch mode, answered with the lengths alone. It leaves the
// rows fetched by the last FetchRows in place. Every rank of the column
// must be in SampleBulk or Drain meanwhile, as for any round.
func (d *DistRows) Degrees(ctx context.Context, vertices []int32, deg []int32) error {
	if len(deg) != len(vertices) {
		return fmt.Errorf("sampling: DistRows.Degrees: %d degrees for %d vertices", len(deg), len(vertices))
	}
	n := int32(len(d.slot))
	remote, at := d.remote[:0], d.at[:0]
	defer func() { d.remote, d.at = remote, at }()
	for i, v := range vertices {
		switch {
		case v < 0 || v >= n:
			return fmt.Errorf("sampling: DistRows.Degrees: vertex %d outside [0, %d)", v, n)
		case v >= d.m.Lo && v < d.m.Hi:
			ip := d.m.Local.Indptr[v-d.m.Lo:]
			deg[i] = int32(ip[1] - ip[0])
		default:
			remote = append(remote, v)
			at = append(at, int32(i))
		}
	}
	ids, _, counts, order := d.bucket(remote, nil)
	hdr, _, err := d.header(ctx, true, counts, 0, 0, 0, kindDegrees)
	if err != nil {
		return err
	}
	var got []int32
	if d.mode == FetchPull {
		got, err = d.pullRound(ctx, hdr, ids, counts, true)
	} else {
		got, _, _, err = d.pushRound(ctx, hdr, ids, make([]int32, len(ids)), counts, true)
	}
	if err != nil {
		return err
	}
	for i, j := range order {
		deg[at[i]] = got[j]
	}
	return nil
}

// lengthsOnly reports whether the requester of header record r asked for
// row lengths only.
func lengthsOnly(hdr []int64, r int) bool { return hdr[headerLen*r+5] == kindDegrees }

// pullRound is a pull round after the header: this rank asks for ids
// (ordered by owner, counts per owner) and serves the others. With
// lengths, this rank asks for the rows' lengths only, which it returns, and
// keeps the rows of the last FetchRows. The lengths it returns are the
// DistRows' array, valid until its next round.
func (d *DistRows) pullRound(ctx context.Context, hdr []int64, ids []int32, counts []int, lengths bool) ([]int32, error) {
	q := d.col.Size()
	rc := make([]int, q)
	for r := range q {
		rc[r] = int(hdr[headerLen*r+1])
	}
	d.asked = par.Resize(d.asked, sum(rc))
	asked := d.asked
	if err := d.col.Alltoallv(ctx, dist.PhaseSample, ids, counts, asked, rc); err != nil {
		return nil, err
	}
	// Serve: the lengths, then the rows, of what each rank asked for.
	d.lens = par.Resize(d.lens, len(asked))
	lens := d.lens
	colCounts := make([]int, q)
	o := 0
	for r := range q {
		for range rc[r] {
			c, _, err := d.localRow(asked[o])
			if err != nil {
				return nil, err
			}
			lens[o] = int32(len(c))
			if !lengthsOnly(hdr, r) {
				colCounts[r] += len(c)
			}
			o++
		}
	}
	d.gotLens = par.Resize(d.gotLens, sum(counts))
	gotLens := d.gotLens
	if err := d.col.Alltoallv(ctx, dist.PhaseSample, lens, rc, gotLens, counts); err != nil {
		return nil, err
	}
	cols := slices.Grow(d.sendInd[:0], sum(colCounts))
	var vals []float32
	if d.values {
		vals = slices.Grow(d.sendVal[:0], cap(cols))
	}
	o = 0
	for r := range q {
		for range rc[r] {
			if !lengthsOnly(hdr, r) {
				c, v, _ := d.localRow(asked[o])
				cols = append(cols, c...)
				if d.values {
					vals = append(vals, v...)
				}
			}
			o++
		}
	}
	recvCols := make([]int, q)
	o = 0
	for r := range q {
		for range counts[r] {
			if !lengths {
				recvCols[r] += int(gotLens[o])
			}
			o++
		}
	}
	// Receive the rows straight behind the local block.
	total := int64(sum(recvCols))
	d.ind = slices.Grow(d.ind[:d.nLocal], int(total))[:d.nLocal+total]
	d.sendInd, d.sendVal = cols, vals // for the next round (Alltoallv keeps no reference)
	if err := d.col.Alltoallv(ctx, dist.PhaseSample, cols, colCounts, d.ind[d.nLocal:], recvCols); err != nil {
		return nil, err
	}
	if d.values {
		d.val = slices.Grow(d.val[:d.nLocal], int(total))[:d.nLocal+total]
		if err := d.col.Alltoallv(ctx, dist.PhaseSample, vals, colCounts, d.val[d.nLocal:], recvCols); err != nil {
			return nil, err
		}
	}
	if lengths {
		return gotLens, nil
	}
	// Pack what came back, in the order asked.
	for _, v := range d.fetched {
		d.slot[v] = -1
	}
	d.fetched = append(d.fetched[:0], ids...)
	d.ptr = par.Resize(d.ptr, len(ids)+1)
	d.ptr[0] = 0
	for i, v := range ids {
		d.slot[v] = int32(i)
		d.ptr[i+1] = d.ptr[i] + int64(gotLens[i])
	}
	return gotLens, nil
}

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

// pushSource is the push face of a DistRows: a PickFetcher, whose rows are
// never read where they are sampled.
type pushSource struct{ d *DistRows }

func (p pushSource) NumVertices() int { return p.d.NumVertices() }
func (p pushSource) Row(v int32) ([]int32, []float32) {
	panic("sampling: a push source selects at the owners; its rows are not read")
}
func (p pushSource) FetchPicks(ctx context.Context, req *PickRequest) error {
	return p.d.fetchPicks(ctx, req)
}
func (p pushSource) Degrees(ctx context.Context, vertices []int32, deg []int32) error {
	return p.d.Degrees(ctx, vertices, deg)
}

var (
	_ DegreeSource = (*DistRows)(nil)
	_ DegreeSource = pushSource{}
)

// fetchPicks has the owners of req's rows select them: one push round.
func (d *DistRows) fetchPicks(ctx context.Context, req *PickRequest) error {
	if d.mode != FetchPush {
		return fmt.Errorf("sampling: DistRows: push request in %v mode", d.mode)
	}
	vs, mbs, counts, order := d.bucket(req.Vertex, req.Minibatch)
	hdr, _, err := d.header(ctx, true, counts, req.Epoch, req.Layer, req.Fanout, kindRows)
	if err != nil {
		return err
	}
	cnt, picks, vals, err := d.pushRound(ctx, hdr, vs, mbs, counts, false)
	if err != nil {
		return err
	}
	// Back from owner order to request order.
	start := make([]int64, len(cnt)+1)
	for i, c := range cnt {
		start[i+1] = start[i] + int64(c)
	}
	req.Count = make([]int32, len(req.Vertex))
	req.Picks = make([]int32, 0, len(picks))
	if vals != nil {
		req.Values = make([]float32, 0, len(vals))
	}
	for i, j := range order {
		req.Count[i] = cnt[j]
		req.Picks = append(req.Picks, picks[start[j]:start[j+1]]...)
		if vals != nil {
			req.Values = append(req.Values, vals[start[j]:start[j+1]]...)
		}
	}
	return nil
}

// pushRound is a push round after the header: this rank asks for the rows
// (vs, mbs), ordered by owner with counts per owner, and serves the others
// with the epoch, layer and fanout of their headers. With lengths, this
// rank asks for the rows' lengths only, which come back as cnt.
func (d *DistRows) pushRound(ctx context.Context, hdr []int64, vs, mbs []int32, counts []int, lengths bool) (cnt, picks []int32, vals []float32, err error) {
	q := d.col.Size()
	rc := make([]int, q)
	for r := range q {
		rc[r] = int(hdr[headerLen*r+1])
	}
	// Rows travel as (vertex, minibatch) pairs.
	pairs := make([]int32, 0, 2*len(vs))
	for i, v := range vs {
		pairs = append(pairs, v, mbs[i])
	}
	twice := func(c []int) []int {
		out := make([]int, len(c))
		for i, x := range c {
			out[i] = 2 * x
		}
		return out
	}
	asked, err := dist.ExchangeWith(ctx, d.col, dist.PhaseSample, pairs, twice(counts), twice(rc))
	if err != nil {
		return nil, nil, nil, err
	}
	var sc []int32
	var sp []int32
	var sv []float32
	pickCounts := make([]int, q)
	o := 0
	for r := range q {
		h := hdr[headerLen*r:]
		epoch, layer, fanout := int(h[2]), int(h[3]), int(h[4])
		for range rc[r] {
			v, mb := asked[2*o], asked[2*o+1]
			c, w, err := d.localRow(v)
			if err != nil {
				return nil, nil, nil, err
			}
			if lengthsOnly(hdr, r) {
				sc = append(sc, int32(len(c)))
				o++
				continue
			}
			var n int
			sp, sv, n = d.picker.Pick(epoch, int(mb), layer, v, c, w, fanout, sp, sv)
			sc = append(sc, int32(n))
			pickCounts[r] += n
			o++
		}
	}
	if cnt, err = dist.ExchangeWith(ctx, d.col, dist.PhaseSample, sc, rc, counts); err != nil {
		return nil, nil, nil, err
	}
	recvPicks := make([]int, q)
	o = 0
	for r := range q {
		for range counts[r] {
			if !lengths {
				recvPicks[r] += int(cnt[o])
			}
			o++
		}
	}
	if picks, err = dist.ExchangeWith(ctx, d.col, dist.PhaseSample, sp, pickCounts, recvPicks); err != nil {
		return nil, nil, nil, err
	}
	if d.picker.HasValues() {
		if vals, err = dist.ExchangeWith(ctx, d.col, dist.PhaseSample, sv, pickCounts, recvPicks); err != nil {
			return nil, nil, nil, err
		}
	}
	return cnt, picks, vals, nil
}

// Drain serves the other ranks of the column until every one of them has
// finished its own rounds. Call it after this rank's work of a bulk.
func (d *DistRows) Drain(ctx context.Context) error {
	for {
		hdr, active, err := d.header(ctx, false, nil, 0, 0, 0, kindRows)
		if err != nil || !active {
			return err
		}
		none := make([]int, d.col.Size())
		if d.mode == FetchPull {
			_, err = d.pullRound(ctx, hdr, nil, none, false)
		} else {
			_, _, _, err = d.pushRound(ctx, hdr, nil, nil, none, false)
		}
		if err != nil {
			return err
		}
	}
}

// DistNodeWise is the node-wise sampler of a row-distributed graph: the
// ordinary NodeWise reading A through a DistRows. SampleBulk is collective
// over the grid: every rank calls it once per bulk with its own run of the
// bulk's minibatches (dist.Grid.Minibatches), possibly none, and gets the
// same sample for them as a single-process NodeWise with the same options.
type DistNodeWise struct {
	nw   *NodeWise
	rows *DistRows
}

var _ Sampler = (*DistNodeWise)(nil)

// NewDistNodeWise returns the distributed node-wise sampler over m.
func NewDistNodeWise(m *dist.Matrix, mode FetchMode, opt NodeWiseOptions) (*DistNodeWise, error) {
	rows, err := NewDistRows(m, mode, opt)
	if err != nil {
		return nil, err
	}
	if opt.Weighted {
		for p, v := range m.Local.Data {
			if !(v >= 0) || v > maxFinite32 {
				return nil, fmt.Errorf("sampling: NewDistNodeWise: Weighted, but edge weight data[%d] = %v of rank %d's block; want finite and >= 0", p, v, m.Grid.Rank())
			}
		}
	}
	var src RowSource = rows
	if mode == FetchPush {
		src = pushSource{rows}
	}
	// The weights were checked on the local block above: each rank checks
	// its own, and no rank reads the others' rows up front.
	nw, err := newNodeWise(src, opt)
	if err != nil {
		return nil, err
	}
	return &DistNodeWise{nw: nw, rows: rows}, nil
}

const maxFinite32 = 3.4028234663852886e38

// NumLayers returns the number of fanouts.
func (s *DistNodeWise) NumLayers() int { return s.nw.NumLayers() }

// Comm returns the communicator the sampler calls: the grid's process column.
func (s *DistNodeWise) Comm() dist.Comm { return s.rows.col }

// SampleBulk samples minibatches first..first+len(seeds)-1 of epoch, this
// rank's share of a bulk, serving the other ranks of its column meanwhile.
func (s *DistNodeWise) SampleBulk(ctx context.Context, epoch, first int, seeds [][]int32) (*Bulk, error) {
	b, err := s.nw.SampleBulk(ctx, epoch, first, seeds)
	if err != nil {
		return nil, err
	}
	if err := s.rows.Drain(ctx); err != nil {
		return nil, err
	}
	return b, nil
}

// DistLayerWise is the layer-wise sampler (LADIES, FastGCN) of a
// row-distributed graph: the ordinary LayerWise reading A through a pull
// DistRows, which brings in the frontier rows of the rank's minibatches at
// every layer (with their values: LADIES squares them, extraction keeps
// them). FastGCN's column norms 1ᵀ·(A∘A) are computed once at construction
// by passing the partial sums along the blocks of each process column in
// block order (so that they equal the single-process sums bit for bit) and
// broadcasting the result. SampleBulk is collective, as DistNodeWise's.
type DistLayerWise struct {
	lw   *LayerWise
	rows *DistRows
}

var _ Sampler = (*DistLayerWise)(nil)

// blockRows is the RowSource of a rank's own block, in global row ids.
type blockRows struct{ m *dist.Matrix }

func (b blockRows) NumVertices() int { return b.m.Grid.NumVertices() }
func (b blockRows) Row(v int32) ([]int32, []float32) {
	return b.m.Local.Row(int(v - b.m.Lo))
}

// NewDistLayerWise returns the distributed layer-wise sampler over m. It is
// collective over m's grid.
func NewDistLayerWise(ctx context.Context, m *dist.Matrix, opt LayerWiseOptions) (*DistLayerWise, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if m == nil || m.Grid == nil || m.Local == nil {
		return nil, errors.New("sampling: NewDistLayerWise: nil matrix")
	}
	rows := newDistRows(m, FetchPull, NodeWiseOptions{}, true)
	var fg *spgemm.CSR
	var err error
	if opt.Method == FastGCN {
		if fg, err = distColumnSquares(ctx, m); err != nil {
			return nil, err
		}
	}
	lw, err := NewLayerWiseFrom(rows, opt, fg)
	if err != nil {
		return nil, err
	}
	return &DistLayerWise{lw: lw, rows: rows}, nil
}

// distColumnSquares computes 1ᵀ·(A∘A) over the blocks of this rank's
// process column with dist.Chain: block i adds its rows to the sums of
// blocks 0..i-1 and passes them on; the last block broadcasts the result.
func distColumnSquares(ctx context.Context, m *dist.Matrix) (*spgemm.CSR, error) {
	n := m.Grid.NumVertices()
	acc := make([]float32, n)
	mark := make([]byte, n) // touched columns, as bytes on the wire
	err := dist.Chain(ctx, m.Grid.Col(), dist.PhaseSample, []any{acc, mark}, func() error {
		touched := make([]bool, n)
		for i, b := range mark {
			touched[i] = b != 0
		}
		AddColumnSquares(blockRows{m}, int(m.Lo), int(m.Hi), acc, touched)
		for i, t := range touched {
			if t {
				mark[i] = 1
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	touched := make([]bool, n)
	for i, b := range mark {
		touched[i] = b != 0
	}
	return ColumnSquaresRow(acc, touched), nil
}

// NumLayers returns the number of layers.
func (s *DistLayerWise) NumLayers() int { return s.lw.NumLayers() }

// Comm returns the communicator the sampler calls: the grid's process column.
func (s *DistLayerWise) Comm() dist.Comm { return s.rows.col }

// SampleBulk samples this rank's minibatches first..first+len(seeds)-1 of
// epoch, serving the other ranks of its column meanwhile.
func (s *DistLayerWise) SampleBulk(ctx context.Context, epoch, first int, seeds [][]int32) (*Bulk, error) {
	b, err := s.lw.SampleBulk(ctx, epoch, first, seeds)
	if err != nil {
		return nil, err
	}
	if err := s.rows.Drain(ctx); err != nil {
		return nil, err
	}
	return b, nil
}
