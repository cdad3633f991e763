package featurex

// The distributed feature store (docs/design.md section 4). Feature rows are
// split by the vertex blocks of a dist.Grid: block i (rows Grid.BlockRows(i))
// is held by the c ranks of process row i, so every process column holds one
// replica of every block and a rank finds every row inside its column. One
// exchange on the column communicator (q = p/c ranks, rank i serving block
// i) has three all-to-alls, all counted under dist.PhaseFeatures:
//
//	status  two int64 per pair: the number of ids this rank asks the
//	        other for, and whether this rank failed before the exchange
//	        (a bad id, a destination of the wrong length). A failure
//	        makes every rank of the column skip the payloads and return
//	        an error, rather than leave the others waiting.
//	ids     the distinct remote ids, ascending (hence grouped by owner in
//	        rank order), to their owners (int32)
//	rows    the owners' rows back, in the order asked (float32, f each)
//
// Rows of this rank's own block, and of the hot-vertex cache, never travel.
// Per exchange a rank sends 16·(q-1) bytes of status, 4 bytes per distinct
// remote id and 4·f bytes per row it serves.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"time"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/internal/hugemem"
	"github.com/bulksample/bulksample/internal/option"
	"github.com/bulksample/bulksample/internal/par"
	"github.com/bulksample/bulksample/spgemm"
)

// DistOptions configure a Dist store. The zero value of each field means
// its documented default; every rank of the grid must pass the same
// CacheBytes.
type DistOptions struct {
	// CacheBytes is the size, in bytes of feature values (4 per value), of
	// the hot-vertex cache that every rank keeps: the rows of the
	// floor(CacheBytes / (4·f)) vertices of highest Degrees (ties to the
	// lower id), replicated on every rank so that they never travel.
	// 0 (the default) means no cache.
	CacheBytes int64
	// Degrees ranks the vertices of this rank's block for the cache: one
	// value per row of the block, typically how many rows of A list the
	// vertex (ColumnCounts), which is how often a node-wise sampler can
	// reach it. Required when CacheBytes > 0; the c replicas of a block
	// must pass the same values.
	Degrees []int64
}

// Validate returns an *option.Error naming the first bad field, or nil.
func (o *DistOptions) Validate() error {
	if o.CacheBytes < 0 {
		return option.Errorf("featurex", "DistOptions", "CacheBytes", o.CacheBytes, "want >= 0 (0: no cache)")
	}
	if o.CacheBytes > 0 && o.Degrees == nil {
		return option.With(option.Errorf("featurex", "DistOptions", "Degrees", "nil", "required when CacheBytes > 0 (see ColumnCounts)"), "CacheBytes")
	}
	return nil
}

// GatherPhase is a step of a distributed gather, for DistStats.Time.
type GatherPhase int

const (
	GatherPack   GatherPhase = iota // classify ids, copy the local and cached rows; sort and deduplicate the remote ones
	GatherStatus                    // the status all-to-all: mostly waiting for the column's slowest rank
	GatherIDs                       // the id all-to-all
	GatherServe                     // the owner copies the rows asked of it; growing (and pre-faulting) the row buffers
	GatherRows                      // the row all-to-all
	GatherUnpack                    // copy the fetched rows into place (Bulk.Gather: every row)
	NumGatherPhases
)

// String returns the phase's name as reports print it.
func (p GatherPhase) String() string {
	switch p {
	case GatherPack:
		return "pack"
	case GatherStatus:
		return "status"
	case GatherIDs:
		return "ids"
	case GatherServe:
		return "serve"
	case GatherRows:
		return "rows"
	case GatherUnpack:
		return "unpack"
	}
	return fmt.Sprintf("GatherPhase(%d)", int(p))
}

// DistStats are the counters of one rank's Dist store since it was made
// (or since ResetStats). Rows counts requested rows (positions of the id
// lists): LocalRows + CacheHits + RemoteRows = Rows.
type DistStats struct {
	Exchanges  int64 // collective exchanges: Gather calls and Bulk fetches
	Rows       int64 // rows requested
	LocalRows  int64 // read from this rank's block
	CacheHits  int64 // read from the hot-vertex cache
	SavedBytes int64 // feature bytes the cache kept off the network: 4f per hit (ids distinct, see Store)
	RemoteRows int64 // read from rows fetched from other ranks
	Fetched    int64 // distinct rows fetched from other ranks
	Served     int64 // rows this rank sent to others as their owner
	// CacheRows is the number of rows the cache holds, CacheBytes their
	// bytes.
	CacheRows, CacheBytes int64
	// Grows counts the exchange buffers (row and id arrays) replaced by
	// larger ones, and GrowBytes the bytes of the new arrays, which were
	// pre-faulted when made (see Dist's buffer policy): in steady state,
	// once the buffers hold the largest exchange, both stay put.
	Grows, GrowBytes int64
	// BufferBytes is the memory of the exchange buffers on huge-page
	// mappings that the store holds now, not a counter: the row buffers of
	// hugemem.MinBytes or more (the exchanges' and the Bulks' rows) and
	// the id arrays of idMapMin ids or more (see growIDs).
	BufferBytes int64
	// Time is the wall time spent in each phase of the gathers. The
	// three all-to-alls' times (status, ids, rows) include this rank's
	// wait for the column's slowest rank to arrive (the skew of the pack
	// and serve work before them; the status round is mostly that wait),
	// not only the transfer: splitting the two needs a synchronisation
	// more per round, which benchmarks/distbench's trace makes and the
	// store does not.
	Time [NumGatherPhases]time.Duration
}

// HitRate returns the fraction of the rows outside this rank's block that
// the cache served: CacheHits / (CacheHits + RemoteRows), 0 when there
// were none.
func (s DistStats) HitRate() float64 {
	if s.CacheHits+s.RemoteRows == 0 {
		return 0
	}
	return float64(s.CacheHits) / float64(s.CacheHits+s.RemoteRows)
}

// Add adds o to s (the Cache fields too: a sum over ranks).
func (s *DistStats) Add(o DistStats) {
	s.Exchanges += o.Exchanges
	s.Rows += o.Rows
	s.LocalRows += o.LocalRows
	s.CacheHits += o.CacheHits
	s.SavedBytes += o.SavedBytes
	s.RemoteRows += o.RemoteRows
	s.Fetched += o.Fetched
	s.Served += o.Served
	s.CacheRows += o.CacheRows
	s.CacheBytes += o.CacheBytes
	s.Grows += o.Grows
	s.GrowBytes += o.GrowBytes
	s.BufferBytes += o.BufferBytes
	for i := range s.Time {
		s.Time[i] += o.Time[i]
	}
}

// Dist is the distributed Store: the feature rows of this rank's vertex
// block, served to the other ranks of its process column, and the rows of
// other blocks fetched from their owners on each Gather (or once per bulk
// with a Bulk). Gather returns the same rows as a Local store of the whole
// features, for every (p, c) and cache size.
//
// # Collective calls
//
// Gather (and Bulk.Fetch) is collective on the process column: under MPI,
// every rank of the column must call it the same number of times, in the
// same order, whether or not it has rows to fetch (it may have to serve
// others'). A rank with nothing to read still takes part: call
// Gather(ctx, nil, nil), as a trainer's zero-weight step does. Ranks of
// other columns exchange among themselves; in a data-parallel run every
// rank makes the same number of calls anyway.
//
// The store exchanges on its own copy of the column communicator (Comm),
// so its calls never mix with other traffic on the grid's and may run on
// another goroutine than that traffic where dist.ConcurrentComms allows it
// (under MPI: the MPI_THREAD_MULTIPLE level), the store itself being used
// by one goroutine at a time.
//
// A bad id or a destination of the wrong length on one rank makes every
// rank of the column return an error from that call (no rank is left
// waiting). A cancelled context, or a failure of the transport, returns on
// the rank that saw it only: as with every dist call, the job must then be
// ended (dist.Fail).
type Dist struct {
	grid   *dist.Grid
	col    dist.Comm
	n, f   int
	lo, hi int32
	block  []float32 // (hi-lo) x f, this rank's rows

	// The hot-vertex cache: the rows of the vertices whose bit is set in
	// hot, in ascending id order; the row of id v is row
	// hotBefore[v/64] + popcount(hot[v/64] below bit v%64).
	hot       []uint64
	hotBefore []int32
	hotRows   []float32

	stats DistStats

	// Reused buffers of the gathers. The row buffers (got, reply, and the
	// rows a Bulk keeps) are the large ones: hundreds of MB per exchange
	// at scale. They live in arena, on transparent huge pages outside the
	// Go heap, and are kept from one exchange to the next, so that
	// steady-state exchanges write no fresh page (a first touch costs
	// 2-22 µs per 4 KiB page on our machines, docs/perf-notes.md, up to
	// 5 times the copy of the page) and the garbage collector never scans
	// or recycles them; Close releases them with the store.
	//
	// Capacity policy (growRows, growIDs): a buffer only grows, when an
	// exchange needs more than it holds, to that size and a quarter more
	// (so that the slightly larger exchanges that follow fit; the old
	// array is unmapped), and never shrinks before Close: it holds the
	// largest exchange seen so far, plus the quarter. A new array is
	// pre-faulted at once (hugemem.Populate), before the all-to-all that
	// fills it, so that its first touch is paid by this rank in the serve
	// or pack phase rather than inside the collective, where the column's
	// other ranks would wait for it and the transfer would look slower
	// than the network (DistStats.Grows counts these).
	//
	// The id arrays that travel (want, asked, a Bulk's ids) live in arena
	// too once they hold idMapMin ids or more (growIDs): at ogbn-products'
	// size they are 1-2 MB, below hugemem.MinBytes, and on the Go heap's
	// 4 KiB pages Open MPI's single-copy transport moved them at 1-2 GB/s
	// against 3-6 GB/s from huge pages (distbench --feature-diagnose runs
	// on our 2-core VM, issue 11).
	arena      *hugemem.Arena
	keys       []uint64 // remote (id << 32 | position), sorted
	want       []int32  // distinct remote ids, ascending (growIDs)
	got        []float32
	spare      []float32 // a row buffer a Bulk gave back (Bulk.Release), for the next Fetch
	spareIDs   []int32   // the ids and slots of a released Bulk, for the next NewBulk
	spareSlot  []int32
	status     [2][]int64
	sendCounts []int
	recvCounts []int
	rowSend    []int
	rowRecv    []int
	twos       []int
	asked      []int32 // the ids others ask of this rank (growIDs)
	reply      []float32
}

var _ Store = (*Dist)(nil)

// NewDist returns the store of this rank of grid: block holds the features
// of the rank's vertex block (rows Grid.MyRows(), f values each, row-major;
// shared, not copied: the caller must not modify it while the store is in
// use). It is collective on grid's world: every rank must call it, with the
// same f and options. Close frees the communicator it makes. It builds the cache when opt.CacheBytes > 0, which
// costs one all-gather of the candidates' ids and degrees and one of their
// rows inside each process column (counted under dist.PhaseControl). It
// returns an error naming the rank and the field when an argument is bad
// on any rank.
func NewDist(ctx context.Context, grid *dist.Grid, block []float32, f int, opt DistOptions) (*Dist, error) {
	if grid == nil {
		return nil, errors.New("featurex: NewDist: nil grid")
	}
	lo, hi := grid.MyRows()
	var local error
	switch {
	case f <= 0:
		local = fmt.Errorf("%d features per vertex, want > 0", f)
	case int64(len(block)) != int64(hi-lo)*int64(f):
		local = fmt.Errorf("%d feature values for the %d rows [%d, %d) of its block x %d features", len(block), hi-lo, lo, hi, f)
	case opt.CacheBytes > 0 && len(opt.Degrees) != int(hi-lo):
		local = fmt.Errorf("DistOptions.Degrees has %d values for the %d rows of its block", len(opt.Degrees), hi-lo)
	default:
		local = opt.Validate()
	}
	// Every rank learns whether any failed and whether all agree on f and
	// CacheBytes: a disagreement would mismatch the collectives later.
	bad := int64(0)
	if local != nil {
		bad = 1
	}
	agree := []int64{bad, int64(f), -int64(f), opt.CacheBytes, -opt.CacheBytes}
	if err := grid.World().Allreduce(ctx, dist.PhaseControl, dist.OpMax, agree); err != nil {
		return nil, fmt.Errorf("featurex: NewDist: %w", err)
	}
	switch {
	case local != nil:
		return nil, fmt.Errorf("featurex: NewDist on rank %d: %w", grid.Rank(), local)
	case agree[0] != 0:
		return nil, fmt.Errorf("featurex: NewDist on rank %d: another rank failed", grid.Rank())
	case agree[1] != -agree[2]:
		return nil, fmt.Errorf("featurex: NewDist on rank %d: ranks disagree on the features per vertex (%d to %d)", grid.Rank(), -agree[2], agree[1])
	case agree[3] != -agree[4]:
		return nil, fmt.Errorf("featurex: NewDist on rank %d: ranks disagree on DistOptions.CacheBytes (%d to %d)", grid.Rank(), -agree[4], agree[3])
	}
	// Its own copy of the column communicator, so that the store's
	// exchanges never match another user's (the distributed sampler's
	// rounds on grid.Col()) and may run on another goroutine than theirs,
	// as a pipelined trainer does.
	col, err := grid.Col().Split(ctx, 0, grid.Col().Rank())
	if err != nil {
		return nil, fmt.Errorf("featurex: NewDist: %w", err)
	}
	q := col.Size()
	d := &Dist{grid: grid, col: col, n: grid.NumVertices(), f: f, lo: lo, hi: hi, block: block, arena: &hugemem.Arena{},
		sendCounts: make([]int, q), recvCounts: make([]int, q), rowSend: make([]int, q), rowRecv: make([]int, q), twos: make([]int, q),
		status: [2][]int64{make([]int64, 2*q), make([]int64, 2*q)}}
	for i := range d.twos {
		d.twos[i] = 2
	}
	if opt.CacheBytes > 0 {
		if err := d.buildCache(ctx, opt.CacheBytes, opt.Degrees); err != nil {
			col.Close()
			return nil, err
		}
	}
	return d, nil
}

// Comm returns the store's communicator: a copy of the grid's process
// column, on which every exchange of the store is counted (under
// dist.PhaseFeatures; the cache's setup under dist.PhaseControl). A run
// summary adds it to the grid's: dist.ReduceStats(ctx, c, append(grid.Comms(), store.Comm())...).
func (d *Dist) Comm() dist.Comm { return d.col }

// Close frees the store's communicator and its buffers (the rows of its
// Bulks too); it is idempotent. The store and its Bulks must not be used
// afterwards.
func (d *Dist) Close() error {
	d.got, d.reply, d.spare = nil, nil, nil
	d.want, d.asked, d.spareIDs = nil, nil, nil
	aerr := d.arena.Release()
	if err := d.col.Close(); err != nil {
		return err
	}
	if aerr != nil {
		return fmt.Errorf("featurex: Close: %w", aerr)
	}
	return nil
}

// NumVertices returns the number of vertices n of the whole graph.
func (d *Dist) NumVertices() int { return d.n }

// NumFeatures returns f.
func (d *Dist) NumFeatures() int { return d.f }

// Grid returns the grid the store is distributed over.
func (d *Dist) Grid() *dist.Grid { return d.grid }

// Stats returns this rank's counters.
func (d *Dist) Stats() DistStats {
	s := d.stats
	s.BufferBytes = d.arena.Bytes()
	return s
}

// ResetStats zeroes the counters other than the cache's size.
func (d *Dist) ResetStats() {
	d.stats = DistStats{CacheRows: d.stats.CacheRows, CacheBytes: d.stats.CacheBytes}
}

// InCache reports whether the hot-vertex cache holds the row of v (every
// rank's cache holds the same rows). It panics if v is outside [0, n).
func (d *Dist) InCache(v int32) bool {
	if uint(v) >= uint(d.n) {
		panic(indexError("InCache", int(v), d.n))
	}
	return d.cached(v) >= 0
}

// cached returns the row of v in the cache, or -1.
func (d *Dist) cached(v int32) int {
	if d.hot == nil {
		return -1
	}
	w, b := v>>6, uint(v&63)
	word := d.hot[w]
	if word&(1<<b) == 0 {
		return -1
	}
	return int(d.hotBefore[w]) + bits.OnesCount64(word&(1<<b-1))
}

// row returns the feature row of v if it is local or cached (and counts
// it), else nil.
func (d *Dist) row(v int32) []float32 {
	f := d.f
	if v >= d.lo && v < d.hi {
		d.stats.LocalRows++
		i := int(v-d.lo) * f
		return d.block[i : i+f]
	}
	if c := d.cached(v); c >= 0 {
		d.stats.CacheHits++
		d.stats.SavedBytes += int64(4 * f)
		return d.hotRows[c*f : (c+1)*f]
	}
	return nil
}

// check returns the error of a gather of ids into a dst of length dstLen
// (a spgemm.ShapeError or one naming the first id out of range).
func (d *Dist) check(op string, dstLen int, ids []int32) error {
	if dstLen != len(ids)*d.f {
		return bufferError(op, len(ids), d.f, dstLen)
	}
	for r, id := range ids {
		if uint(id) >= uint(d.n) {
			return fmt.Errorf("featurex: %s: ids[%d] = %d is not a vertex of the feature store (n = %d)", op, r, id, d.n)
		}
	}
	return nil
}

// Gather writes the feature rows of ids into dst (see Store). It is
// collective on the process column (see Dist): a rank with no rows to read
// calls it with nil dst and ids. The distinct ids outside this rank's block
// and the cache are fetched from their owners in one exchange.
func (d *Dist) Gather(ctx context.Context, dst []float32, ids []int32) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("featurex: gather: %w", err)
	}
	t0 := time.Now()
	local := d.check("gather", len(dst), ids)
	d.keys = d.keys[:0]
	d.want = d.want[:0]
	if local == nil {
		f := d.f
		d.stats.Rows += int64(len(ids))
		for r, v := range ids {
			if src := d.row(v); src != nil {
				copy(dst[r*f:(r+1)*f], src)
			} else {
				d.keys = append(d.keys, uint64(v)<<32|uint64(r))
			}
		}
		slices.Sort(d.keys)
		d.want = d.growIDs(d.want, len(d.keys))[:0] // room for every key: the appends below stay in it
		for i, k := range d.keys {
			if v := int32(k >> 32); i == 0 || v != d.want[len(d.want)-1] {
				d.want = append(d.want, v)
			}
		}
	}
	t1 := time.Now()
	d.stats.Time[GatherPack] += t1.Sub(t0)
	rows, err := d.exchange(ctx, "gather", d.want, local)
	if err != nil {
		return err
	}
	t2 := time.Now()
	f, j := d.f, -1
	d.stats.RemoteRows += int64(len(d.keys))
	for i, k := range d.keys {
		if i == 0 || k>>32 != d.keys[i-1]>>32 {
			j++
		}
		r := int(uint32(k))
		copy(dst[r*f:(r+1)*f], rows[j*f:(j+1)*f])
	}
	d.stats.Time[GatherUnpack] += time.Since(t2)
	return nil
}

// exchange fetches the rows of want (distinct ids outside this rank's
// block, ascending) from their owners and serves the others' requests; it
// returns the rows in want's order (valid until the next exchange). A
// non-nil local error is this rank's failure before the exchange: it is
// announced to the column, and every rank returns an error.
func (d *Dist) exchange(ctx context.Context, op string, want []int32, local error) ([]float32, error) {
	t0 := time.Now()
	col, q, f := d.col, len(d.sendCounts), d.f
	clear(d.sendCounts)
	if local == nil {
		b, bhi := 0, int32(0)
		for _, v := range want {
			for v >= bhi {
				_, bhi = d.grid.BlockRows(b)
				b++
			}
			d.sendCounts[b-1]++
		}
	}
	failed := int64(0)
	if local != nil {
		failed = 1
	}
	st, rt := d.status[0], d.status[1]
	for i := range q {
		st[2*i], st[2*i+1] = int64(d.sendCounts[i]), failed
	}
	if err := col.Alltoallv(ctx, dist.PhaseFeatures, st, d.twos, rt, d.twos); err != nil {
		return nil, fmt.Errorf("featurex: %s: %w", op, err)
	}
	ts := time.Now()
	d.stats.Time[GatherStatus] += ts.Sub(t0)
	if local != nil {
		return nil, local
	}
	total := 0
	for i := range q {
		if rt[2*i+1] != 0 {
			return nil, fmt.Errorf("featurex: %s on rank %d: rank %d of its process column failed; rows not exchanged",
				op, d.grid.Rank(), d.grid.RankAt(i, d.grid.ProcCol()))
		}
		d.recvCounts[i] = int(rt[2*i])
		total += d.recvCounts[i]
	}
	d.stats.Exchanges++
	d.stats.Fetched += int64(len(want))
	d.stats.Served += int64(total)
	d.asked = d.growIDs(d.asked, total)
	if err := col.Alltoallv(ctx, dist.PhaseFeatures, want, d.sendCounts, d.asked, d.recvCounts); err != nil {
		return nil, fmt.Errorf("featurex: %s: %w", op, err)
	}
	t1 := time.Now()
	d.stats.Time[GatherIDs] += t1.Sub(ts)
	d.reply = d.growRows(d.reply, total*f)
	for i, v := range d.asked {
		if v < d.lo || v >= d.hi {
			// Requesters send only ids of this block: a corrupt message.
			return nil, fmt.Errorf("featurex: %s on rank %d: asked for vertex %d outside its block [%d, %d)", op, d.grid.Rank(), v, d.lo, d.hi)
		}
		s := int(v-d.lo) * f
		copy(d.reply[i*f:(i+1)*f], d.block[s:s+f])
	}
	for i := range q {
		d.rowSend[i], d.rowRecv[i] = d.recvCounts[i]*f, d.sendCounts[i]*f
	}
	d.got = d.growRows(d.got, len(want)*f)
	t2 := time.Now()
	d.stats.Time[GatherServe] += t2.Sub(t1)
	if err := col.Alltoallv(ctx, dist.PhaseFeatures, d.reply, d.rowSend, d.got, d.rowRecv); err != nil {
		return nil, fmt.Errorf("featurex: %s: %w", op, err)
	}
	d.stats.Time[GatherRows] += time.Since(t2)
	return d.got, nil
}

// idMapMin is the smallest id array, in ids, that growIDs places on a
// huge-page mapping: 256 KiB. Below it the 2 MiB mapping would be mostly
// waste for an array that moves in well under a millisecond anyway.
const idMapMin = 64 << 10

// growIDs returns s resized to n ids, its contents not kept: s's array
// when large enough; for n < idMapMin a new Go heap array; otherwise an
// array of d's arena of at least hugemem.MinBytes (so that it is mapped on
// huge pages, rather than left on the heap for being under MinBytes) and a
// quarter larger than n, s's own unmapped if the arena held it.
//
// A new array is pre-faulted (see the buffer policy at Dist's fields).
func (d *Dist) growIDs(s []int32, n int) []int32 {
	if cap(s) >= n {
		return s[:n]
	}
	if n < idMapMin {
		s = par.Resize(s, n)
	} else {
		s = hugemem.Grow(d.arena, s, max(n, hugemem.MinBytes/4))[:n]
	}
	d.grown(hugemem.Populate(s))
	return s
}

// growRows returns s resized to n values: s's array when large enough,
// else a new one of d's arena (a quarter larger, so that the slightly
// larger exchanges that follow fit), s's own unmapped, pre-faulted (see
// the buffer policy at Dist's fields). Its contents are not kept: the
// callers overwrite every value.
func (d *Dist) growRows(s []float32, n int) []float32 {
	if cap(s) >= n {
		return s[:n]
	}
	s = hugemem.Grow(d.arena, s, n)
	d.grown(hugemem.Populate(s))
	return s
}

// grown counts a buffer replaced by a larger one of bytes bytes.
func (d *Dist) grown(bytes int64) {
	d.stats.Grows++
	d.stats.GrowBytes += bytes
}

// buildCache keeps on every rank the rows of the k = budget / (4f)
// vertices of highest degree (ties to the lower id): each column's ranks
// all-gather their block's k best candidates, every rank picks the same k
// of them, and the owners all-gather those rows.
func (d *Dist) buildCache(ctx context.Context, budget int64, degrees []int64) error {
	k := int(min(budget/(4*int64(d.f)), int64(d.n)))
	if k == 0 {
		return nil
	}
	better := func(a, b int32, da, db int64) int {
		if c := cmp.Compare(db, da); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	}
	cand := make([]int32, d.hi-d.lo)
	for i := range cand {
		cand[i] = d.lo + int32(i)
	}
	slices.SortFunc(cand, func(a, b int32) int { return better(a, b, degrees[a-d.lo], degrees[b-d.lo]) })
	cand = cand[:min(k, len(cand))]
	candDeg := make([]int64, len(cand))
	for i, v := range cand {
		candDeg[i] = degrees[v-d.lo]
	}
	ids, _, err := dist.Allgather(ctx, d.col, dist.PhaseControl, cand)
	if err != nil {
		return fmt.Errorf("featurex: NewDist: cache candidates: %w", err)
	}
	degs, _, err := dist.Allgather(ctx, d.col, dist.PhaseControl, candDeg)
	if err != nil {
		return fmt.Errorf("featurex: NewDist: cache candidates: %w", err)
	}
	if len(ids) != len(degs) {
		return fmt.Errorf("featurex: NewDist on rank %d: %d cache candidates with %d degrees", d.grid.Rank(), len(ids), len(degs))
	}
	order := make([]int, len(ids))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return better(ids[a], ids[b], degs[a], degs[b]) })
	hot := make([]int32, 0, k)
	for _, i := range order[:min(k, len(order))] {
		hot = append(hot, ids[i])
	}
	slices.Sort(hot)
	// This rank's rows of the hot set, in ascending order; concatenated in
	// column rank (block) order they are the whole set's rows in order.
	var mine []float32
	for _, v := range hot {
		if v >= d.lo && v < d.hi {
			s := int(v-d.lo) * d.f
			mine = append(mine, d.block[s:s+d.f]...)
		}
	}
	rows, _, err := dist.Allgather(ctx, d.col, dist.PhaseControl, mine)
	if err != nil {
		return fmt.Errorf("featurex: NewDist: cache rows: %w", err)
	}
	if len(rows) != len(hot)*d.f {
		return fmt.Errorf("featurex: NewDist on rank %d: %d cached values for %d rows of %d", d.grid.Rank(), len(rows), len(hot), d.f)
	}
	d.hot = make([]uint64, (d.n+63)/64)
	d.hotBefore = make([]int32, len(d.hot))
	for _, v := range hot {
		d.hot[v>>6] |= 1 << uint(v&63)
	}
	s := int32(0)
	for w, word := range d.hot {
		d.hotBefore[w] = s
		s += int32(bits.OnesCount64(word))
	}
	d.hotRows = rows
	d.stats.CacheRows = int64(len(hot))
	d.stats.CacheBytes = int64(len(rows)) * 4
	return nil
}

// ColumnCounts returns, for each row of this rank's block of the
// row-distributed adjacency block (Grid.MyRows() rows, n columns, global
// column ids), how many rows of the whole matrix list that vertex: the
// number of vertices whose node-wise sampling can reach it (its degree, for
// an undirected graph). It is the DistOptions.Degrees of the hot-vertex
// cache. It is collective on grid's process column: each rank counts the
// columns of its block (an n-long int32 array) and sends each block's part
// to its owner, 4n bytes per rank, counted under dist.PhaseControl.
func ColumnCounts(ctx context.Context, grid *dist.Grid, block *spgemm.CSR) ([]int64, error) {
	lo, hi := grid.MyRows()
	n := grid.NumVertices()
	if block == nil || block.Rows != int(hi-lo) || block.Cols != n {
		r, c := -1, -1
		if block != nil {
			r, c = block.Rows, block.Cols
		}
		return nil, fmt.Errorf("featurex: ColumnCounts on rank %d: block is %d x %d; want %d x %d", grid.Rank(), r, c, hi-lo, n)
	}
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("featurex: ColumnCounts: %d vertices exceed int32 ids", n)
	}
	counts := make([]int32, n)
	for _, v := range block.Indices[:block.NNZ()] {
		if uint(v) >= uint(n) {
			return nil, fmt.Errorf("featurex: ColumnCounts on rank %d: column id %d outside [0, %d)", grid.Rank(), v, n)
		}
		counts[v]++ // at most n rows list v: no overflow
	}
	col := grid.Col()
	q := col.Size()
	sendCounts, recvCounts := make([]int, q), make([]int, q)
	for i := range q {
		l, h := grid.BlockRows(i)
		sendCounts[i] = int(h - l)
		recvCounts[i] = int(hi - lo)
	}
	recv, err := dist.ExchangeWith(ctx, col, dist.PhaseControl, counts, sendCounts, recvCounts)
	if err != nil {
		return nil, fmt.Errorf("featurex: ColumnCounts: %w", err)
	}
	out := make([]int64, hi-lo)
	for i := range q {
		for r, c := range recv[i*int(hi-lo) : (i+1)*int(hi-lo)] {
			out[r] += int64(c)
		}
	}
	return out, nil
}

// Bulk serves the minibatches of one bulk from rows fetched in a single
// exchange: Fetch, collective, fetches the union of the bulk's remote rows
// (fewer, larger messages than one exchange per minibatch, and a row two
// minibatches share travels once); Gather then reads local, cached and
// fetched rows without any communication. A Bulk belongs to one Dist and
// shares its buffers: use one of them at a time.
type Bulk struct {
	d    *Dist
	ids  []int32   // fetched ids, ascending
	rows []float32 // their rows
	// slot[v] is the row of fetched vertex v in rows, -1 for others: one
	// int32 per vertex of the graph, allocated by the first Fetch (as the
	// distributed sampler's row slots are), so that a gather finds a row
	// in O(1) rather than by a search of ids.
	slot []int32
}

var _ Store = (*Bulk)(nil)

// NewBulk returns a Bulk over d with nothing fetched. Its first Fetch
// allocates 4 bytes per vertex of the graph (the slots of fetched rows).
func (d *Dist) NewBulk() *Bulk {
	b := &Bulk{d: d, ids: d.spareIDs, slot: d.spareSlot}
	d.spareIDs, d.spareSlot = nil, nil
	return b
}

// NumVertices returns n.
func (b *Bulk) NumVertices() int { return b.d.n }

// NumFeatures returns f.
func (b *Bulk) NumFeatures() int { return b.d.f }

// Fetch replaces the fetched rows by those of every id of lists that is
// neither in this rank's block nor cached, in one exchange. It is
// collective on the process column like Dist.Gather: a rank with nothing
// to fetch calls Fetch(ctx) with no lists. It returns an error naming an
// id out of range (on every rank of the column: see Dist).
func (b *Bulk) Fetch(ctx context.Context, lists ...[]int32) error {
	d := b.d
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("featurex: bulk fetch: %w", err)
	}
	t0 := time.Now()
	var local error
	bound := 0
	for _, ids := range lists {
		bound += len(ids)
	}
	// The ids this Fetch replaces are dead too (see the rows below): the
	// ids are gathered into the larger of their array and the store's.
	for _, v := range b.ids {
		b.slot[v] = -1
	}
	b.ids = b.ids[:0]
	if cap(b.ids) > cap(d.want) {
		b.ids, d.want = d.want[:0], b.ids
	}
	// Room for every id of the lists, so that the appends below stay in
	// the array growIDs placed.
	want := d.growIDs(d.want, bound)[:0]
	for i, ids := range lists {
		if err := d.check("bulk fetch", len(ids)*d.f, ids); err != nil {
			local = fmt.Errorf("list %d: %w", i, err)
			break
		}
		for _, v := range ids {
			if (v < d.lo || v >= d.hi) && d.cached(v) < 0 {
				want = append(want, v)
			}
		}
	}
	if local != nil {
		want = want[:0]
	}
	slices.Sort(want)
	want = slices.Compact(want)
	d.want = want
	d.stats.Time[GatherPack] += time.Since(t0)
	// The rows this Fetch replaces are dead: their buffer (or, for a
	// Bulk that had none, the Dist's spare) and the store's receive
	// buffer are two arrays, and the exchange receives into the larger,
	// so that a Bulk's fetches reuse one buffer, grown only when the
	// largest fetch so far does not fit, however many Bulks and
	// Releases come in between.
	old := b.rows
	b.rows = nil
	if cap(old) == 0 {
		old, d.spare = d.spare, nil
	}
	if cap(old) > cap(d.got) {
		old, d.got = d.got, old
	}
	rows, err := d.exchange(ctx, "bulk fetch", want, local)
	if err != nil {
		b.rows = old[:0]
		return err
	}
	if b.slot == nil {
		b.slot = make([]int32, d.n)
		for i := range b.slot {
			b.slot[i] = -1
		}
	}
	for i, v := range want {
		b.slot[v] = int32(i)
	}
	// Keep the exchange's buffers and give it the other ones: no copy.
	b.ids, d.want = want, b.ids
	b.rows, d.got = rows, old[:0]
	return nil
}

// Release gives the Bulk's fetched rows back to its Dist, which reuses
// their buffer in the next Fetch of any of its Bulks, and empties the
// Bulk. Call it when done with a
// Bulk: one dropped without Release keeps its rows' memory until the
// Dist's Close, and the next Bulk's fetches start on fresh pages. The
// Bulk may be used again.
func (b *Bulk) Release() {
	d := b.d
	for _, v := range b.ids {
		b.slot[v] = -1
	}
	b.ids = b.ids[:0]
	if cap(b.rows) > cap(d.spare) {
		b.rows, d.spare = d.spare, b.rows[:0]
	}
	// The smaller of the two: not worth keeping.
	_ = hugemem.Free(d.arena, b.rows)
	b.rows = nil
	// The ids' array and the slots (all -1 again) go to the next NewBulk.
	if b.slot != nil && d.spareSlot == nil {
		d.spareIDs, d.spareSlot = b.ids, b.slot
		b.ids, b.slot = nil, nil
	}
}

// Gather writes the rows of ids into dst (see Store) from this rank's
// block, the cache and the rows of the last Fetch; it communicates with no
// one, so ranks may call it any number of times. An id that is none of
// those is an error naming it.
func (b *Bulk) Gather(ctx context.Context, dst []float32, ids []int32) error {
	d := b.d
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("featurex: bulk gather: %w", err)
	}
	if err := d.check("bulk gather", len(dst), ids); err != nil {
		return err
	}
	t0 := time.Now()
	f := d.f
	d.stats.Rows += int64(len(ids))
	for r, v := range ids {
		src := d.row(v)
		if src == nil {
			i := int32(-1)
			if b.slot != nil {
				i = b.slot[v]
			}
			if i < 0 {
				return fmt.Errorf("featurex: bulk gather on rank %d: ids[%d] = %d was not fetched by Bulk.Fetch", d.grid.Rank(), r, v)
			}
			d.stats.RemoteRows++
			src = b.rows[int(i)*f : int(i+1)*f]
		}
		copy(dst[r*f:(r+1)*f], src)
	}
	d.stats.Time[GatherUnpack] += time.Since(t0)
	return nil
}
