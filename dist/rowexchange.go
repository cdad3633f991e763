package dist

// The row exchange of a row-distributed matrix (docs/design.md section 4):
// a rank fetches rows of A by global id from the ranks that own them inside
// its process column, the 1.5D layout's one communicator where every block
// has a replica. A round of the exchange is collective on the column and
// runs the same calls on every rank, whatever each rank asks for:
//
//	header   one record of headerLen int64 per pair of ranks: active,
//	         request count, three arguments, kind (a rank that has finished
//	         its own work still takes part, inactive, until every rank of
//	         the column is done: Drain)
//	ids      the requested global ids, or (id, argument) pairs for the
//	         kinds of a RowService (Handle)
//	lengths  one int32 back per id: the row's length, or the number of
//	         items the service answered
//	items    the answers back to back: column ids (KindRows), nothing
//	         (KindDegrees), or a service's items
//	values   float32 back, beside the items, when an active rank of the
//	         round asked for a kind that carries values
//
// Counts go first and payloads are exact (Exchange); no value marks an
// empty slot. Ranks may run different numbers of rounds (groups of a bulk,
// short last bulks), which the active flag of the header reconciles: every
// rank calls Drain after its own rounds, serving the others until every
// rank of the column is done.
//
// The owner answers a round's requests on RowExchangeOptions.Threads
// goroutines, in chunks of serveGrain ids handed out in order: each chunk's
// answer is written where its place in the request order puts it, so that
// the answers are the same for any thread count. Every array of a round
// (requests, answers, counts, the fetched rows) is kept for the next one:
// a warm exchange touches no fresh memory (docs/perf-notes.md).

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/bulksample/bulksample/internal/option"
	"github.com/bulksample/bulksample/internal/par"
)

// headerLen is the number of int64 of one header record: active, count,
// three arguments, kind.
const headerLen = 6

// serveGrain is the number of requested ids a serving goroutine takes at a
// time: large enough that handing them out costs nothing, small enough
// that the rows of a few hubs do not leave the other goroutines idle.
const serveGrain = 256

// Kinds of request of a RowExchange round. Kinds from KindUser on are
// answered by the RowService registered for them (Handle).
const (
	// KindRows asks for whole rows (pull): column ids, and values when
	// the exchange fetches them (RowExchangeOptions.Values).
	KindRows = 0
	// KindDegrees asks for row lengths only.
	KindDegrees = 1
	// KindUser is the first kind a RowService may take.
	KindUser = 2
	// maxKinds bounds the kinds a RowExchange serves.
	maxKinds = 16
)

// A RowService answers one kind of request of a RowExchange on the rank
// that owns the rows: for example the picks of a push sampler
// (distsample.DistRows), which selects at the owner and returns only what it
// selected. Every rank of the column must register the same services.
type RowService interface {
	// Serve answers the requests (gids[i], idArgs[i]) of one chunk of a
	// round whose arguments are args: every gid is a row of this rank's
	// block of m (row gids[i] - m.Lo of m.Local). It sets counts[i] to the
	// number of items of request i, appends those items to items (and,
	// when Values, one value each to vals), request after request, and
	// returns the grown slices. Serving a chunk at once lets a service
	// read its rows' lengths first and their entries after, many loads in
	// flight rather than one row at a time. w is the serving goroutine, in
	// [0, RowExchange.Threads()): calls with different w run at the same
	// time, calls with the same w never do, so that per-goroutine scratch
	// space indexed by w needs no lock.
	Serve(w int, args [3]int64, m *Matrix, gids, idArgs []int32, counts []int32, items []int32, vals []float32) ([]int32, []float32)
	// Values reports whether the answers carry a value per item.
	Values() bool
}

// RowExchangeOptions configure NewRowExchange. The zero value means the
// defaults.
type RowExchangeOptions struct {
	// Values fetches the rows' values beside their column ids (a weighted
	// sampler, a product); default column ids only.
	Values bool
	// Phase is the phase the exchange's traffic is counted under; default
	// PhaseSample.
	Phase Phase
	// Threads is the number of goroutines that answer the requests of a
	// round; 0 means GOMAXPROCS.
	Threads int
}

// Validate returns an *option.Error naming the first bad field, or nil.
func (o *RowExchangeOptions) Validate() error {
	switch {
	case o.Phase >= NumPhases:
		return option.Errorf("dist", "RowExchangeOptions", "Phase", int(o.Phase), "want < %d", NumPhases)
	case o.Threads < 0:
		return option.Errorf("dist", "RowExchangeOptions", "Threads", o.Threads, "want >= 0 (0: GOMAXPROCS)")
	}
	return nil
}

// RoundStats are a rank's figures of some rounds of its RowExchange: the
// rounds themselves, the ids it asked for and the items it got back, the
// bytes it sent to the other ranks (requests and answers alike), and the
// wall time of its parts. Wait is the time in the header and length
// all-to-alls, which carry a few bytes per rank: mostly the wait for the
// column's slowest rank (at the header, its work before the round; at the
// lengths, its serving). Transfer is the time in the id, item and value
// all-to-alls, Serve the time this rank answered the others' requests.
type RoundStats struct {
	Rounds    int64
	IDs       int64 // ids this rank asked for
	Items     int64 // items it received: column ids or a service's answers
	Served    int64 // ids it answered for the ranks of its column
	BytesSent int64
	Wait      time.Duration
	Transfer  time.Duration
	Serve     time.Duration
}

// Seconds returns the rounds' wall time: Wait, Transfer and Serve.
func (s RoundStats) Seconds() float64 { return (s.Wait + s.Transfer + s.Serve).Seconds() }

// Add adds o to s.
func (s *RoundStats) Add(o RoundStats) {
	s.Rounds += o.Rounds
	s.IDs += o.IDs
	s.Items += o.Items
	s.Served += o.Served
	s.BytesSent += o.BytesSent
	s.Wait += o.Wait
	s.Transfer += o.Transfer
	s.Serve += o.Serve
}

// ExchangeStats are a rank's figures of its RowExchange, by what the
// rounds were for: its own pulls of whole rows (Fetch), of degrees
// (Degrees) and service calls (Call, a push sampler's picks), and the
// rounds it took part in from Drain, after its own work, until every rank
// of its column was done: Drain's Wait is the time this rank was idle,
// waiting for the others' work.
type ExchangeStats struct {
	Rows, Degrees, Service, Drain RoundStats
}

// Add adds o to s.
func (s *ExchangeStats) Add(o ExchangeStats) {
	s.Rows.Add(o.Rows)
	s.Degrees.Add(o.Degrees)
	s.Service.Add(o.Service)
	s.Drain.Add(o.Drain)
}

// Total returns the sum of every kind's figures, Drain included.
func (s ExchangeStats) Total() RoundStats {
	t := s.Rows
	t.Add(s.Degrees)
	t.Add(s.Service)
	t.Add(s.Drain)
	return t
}

// RowExchange fetches rows of a row-distributed Matrix by global id from
// their owners in this rank's process column, and serves the other ranks'
// requests for the rows of its own block. The rows of the last Fetch and
// the local block are readable together (Row, RowSpan, Packed), as a CSR's
// rows are.
//
// Every rank of the grid must make its RowExchange with the same options
// and register the same services, and the ranks of a column must call the
// exchange's rounds (Fetch, Degrees, Call) collectively, each followed by
// Drain once the rank's own rounds of a unit of work are done. A
// RowExchange is used by one goroutine at a time, apart from Row, RowSpan
// and Packed, which may be called concurrently between rounds.
type RowExchange struct {
	m        *Matrix
	col      Comm
	ph       Phase
	values   bool
	threads  int
	grain    int // serveGrain; tests lower it
	bgrain   int // bucketGrain; tests lower it
	services [maxKinds]RowService
	stats    ExchangeStats

	// The rows of the last Fetch, packed: the row of a fetched gid v is
	// ind[ptr[slot[v]] : ptr[slot[v]+1]] (val alike). Local rows are read
	// in place from the block; RowSpan places the fetched rows after it,
	// at base = len(m.Local.Indices).
	base    int64
	slot    []int32 // per global row, -1 when not fetched; made by the first Fetch
	fetched []int32 // the rows whose slot is set
	ptr     []int64
	ind     []int32
	val     []float32

	// The arrays of a round kept for the next one, so that a warm
	// exchange allocates none of them per round (rounds are collective
	// and never overlap): the requested rows and their order by owner,
	// the header, and the requests, lengths and answers of a round.
	remote, at       []int32
	owner, order     []int32
	counts, pos      []int
	byOwner          []int32 // the requests in owner order: ids, or (id, argument) pairs
	hdrSend, hdrRecv []int64
	hdrCounts        []int
	sc, rc, answered []int
	recvItemCounts   []int
	valueCounts      []int
	recvValueCounts  []int
	asked, lens      []int32
	gotLens          []int32
	sendItems        []int32
	sendVals         []float32
	itemCounts       []int // per requester: the items this rank answered
	recvItems        []int32
	recvVals         []float32
	callStart        []int64
	partOut          []int64 // CallInto: where each part's answers start
	chunks           []serveChunk
	work             []serveScratch // per serving goroutine
}

// serveChunk is serveGrain requested ids of one requester, answered by one
// goroutine: its ids' positions, where its answer lies in the goroutine's
// scratch (services) and where it goes in the answers.
type serveChunk struct {
	r          int   // requester (rank in the column)
	lo, hi     int   // ids [lo, hi) of the round's requests
	word       int   // where id lo's words start in asked
	w          int   // the goroutine that answered it
	wOff, wVal int   // its items and values in that goroutine's scratch
	n          int   // its items
	out, vout  int64 // where its items and values start in the answers
	kind, wide int
	args       [3]int64
}

// serveScratch is one serving goroutine's answers to the chunks it took,
// and a chunk's ids and arguments for a service.
type serveScratch struct {
	items     []int32
	vals      []float32
	gids, arg []int32
}

// NewRowExchange returns the row exchange of m. Its rows are read in
// place: it copies nothing of m's block, which must not change while the
// exchange is in use.
func NewRowExchange(m *Matrix, opt RowExchangeOptions) (*RowExchange, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if m == nil || m.Grid == nil || m.Local == nil {
		return nil, errors.New("dist: NewRowExchange: nil matrix")
	}
	x := &RowExchange{m: m, col: m.Grid.Col(), ph: opt.Phase, values: opt.Values, threads: par.Threads(opt.Threads), grain: serveGrain, bgrain: bucketGrain}
	if opt.Phase == 0 {
		x.ph = PhaseSample
	}
	x.base = int64(len(m.Local.Indices))
	x.work = make([]serveScratch, x.threads)
	return x, nil
}

// Handle registers s to answer requests of kind (KindUser <= kind < 16)
// made with Call. Every rank of the grid must register the same services
// before the first round.
func (x *RowExchange) Handle(kind int, s RowService) error {
	if kind < KindUser || kind >= maxKinds {
		return fmt.Errorf("dist: RowExchange.Handle: kind %d, want %d to %d", kind, KindUser, maxKinds-1)
	}
	x.services[kind] = s
	return nil
}

// Matrix returns the distributed matrix the exchange serves.
func (x *RowExchange) Matrix() *Matrix { return x.m }

// Comm returns the communicator of the rounds: the grid's process column.
func (x *RowExchange) Comm() Comm { return x.col }

// Values reports whether fetched rows carry their values.
func (x *RowExchange) Values() bool { return x.values }

// Threads returns the number of goroutines that serve a round: the w of
// RowService.Serve is below it.
func (x *RowExchange) Threads() int { return x.threads }

// NumVertices returns the number of rows of the whole matrix.
func (x *RowExchange) NumVertices() int { return x.m.Grid.NumVertices() }

// Stats returns this rank's figures of the exchange so far.
func (x *RowExchange) Stats() ExchangeStats { return x.stats }

// Row returns row gid: a local row, or one fetched by the last Fetch; the
// values are nil unless the exchange fetches them. It panics if gid is
// neither.
func (x *RowExchange) Row(gid int32) ([]int32, []float32) {
	s, deg := x.RowSpan(gid)
	ind, val, base := x.Packed()
	if s < base {
		return x.m.Local.Indices[s : s+int64(deg)], sub(x.localVals(), s, deg)
	}
	return ind[s-base : s-base+int64(deg)], sub(val, s-base, deg)
}

// sub returns v[s:s+n], or nil for a nil v.
func sub(v []float32, s int64, n int32) []float32 {
	if v == nil {
		return nil
	}
	return v[s : s+int64(n)]
}

// localVals returns the values of the local block when the exchange
// fetches values, else nil.
func (x *RowExchange) localVals() []float32 {
	if !x.values {
		return nil
	}
	return x.m.Local.Data
}

// RowSpan returns where row gid, local or fetched, lies, and its length: a
// start below the base of Packed is in the local block's arrays
// (Matrix().Local's Indices and Data), one at or above it in Packed's at
// start - base. It panics if gid is neither local nor fetched.
func (x *RowExchange) RowSpan(gid int32) (int64, int32) {
	if gid >= x.m.Lo && gid < x.m.Hi {
		ip := x.m.Local.Indptr[gid-x.m.Lo:]
		return ip[0], int32(ip[1] - ip[0])
	}
	k := int32(-1)
	if x.slot != nil {
		k = x.slot[gid]
	}
	if k < 0 {
		panic(fmt.Sprintf("dist: RowExchange: row %d is neither local nor fetched", gid))
	}
	return x.base + x.ptr[k], int32(x.ptr[k+1] - x.ptr[k])
}

// Packed returns the fetched rows' arrays (values nil unless the exchange
// fetches them) and their base: the spans of RowSpan at or above base lie
// in them at start - base, those below it in the local block's. They may
// move with each Fetch.
func (x *RowExchange) Packed() ([]int32, []float32, int64) { return x.ind, x.val, x.base }

// local returns row gid of this rank's block, or an error naming the rank
// when it is not one of them (a peer asked the wrong owner).
func (x *RowExchange) local(gid int32) ([]int32, []float32, error) {
	if gid < x.m.Lo || gid >= x.m.Hi {
		return nil, nil, fmt.Errorf("dist: rank %d holds rows [%d, %d) but was asked for row %d", x.m.Grid.Rank(), x.m.Lo, x.m.Hi, gid)
	}
	c, v := x.m.Local.Row(int(gid - x.m.Lo))
	return c, v, nil
}

// bucketGrain is the fewest ids a goroutine of bucket or CallInto takes:
// below it the goroutines cost more than the work.
const bucketGrain = 1 << 15

// parts returns how many goroutines share n ids of bucket or CallInto.
func (x *RowExchange) parts(n int) int { return max(1, min(x.threads, n/x.bgrain)) }

// bucket orders vs by owner block, stably, and returns the words to send
// (the ids, or with extra the pairs (id, extra[i])), the count of ids per
// block and each id's position in owner order. It is a counting sort over
// parts contiguous ranges of vs (see parts), each counting its ids per
// block and then placing them after the earlier ranges' ids of the same
// block. The slices it returns are the exchange's, valid until its next
// call.
func (x *RowExchange) bucket(vs []int32, extra []int32) ([]int32, []int, []int32) {
	g := x.m.Grid
	q := g.Blocks()
	n := len(vs)
	np := x.parts(n)
	x.counts, x.pos = par.Resize(x.counts, q), par.Resize(x.pos, np*q)
	counts, pos := x.counts, x.pos
	clear(pos)
	x.owner = par.Resize(x.owner, n)
	par.Ranges(n, np, 1, func(part, lo, hi int) {
		c := pos[part*q : (part+1)*q]
		for i, v := range vs[lo:hi] {
			b, _ := g.Locate(v)
			x.owner[lo+i] = int32(b)
			c[b]++
		}
	})
	// pos[part*q+b]: where the part's first id of block b goes.
	at := 0
	for b := range q {
		counts[b] = 0
		for part := range np {
			c := pos[part*q+b]
			pos[part*q+b] = at
			at += c
			counts[b] += c
		}
	}
	w := 1
	if extra != nil {
		w = 2
	}
	x.order, x.byOwner = par.Resize(x.order, n), par.Resize(x.byOwner, w*n)
	par.Ranges(n, np, 1, func(part, lo, hi int) {
		at := pos[part*q : (part+1)*q]
		for i := lo; i < hi; i++ {
			b := x.owner[i]
			x.order[i] = int32(at[b])
			if extra != nil {
				x.byOwner[2*at[b]], x.byOwner[2*at[b]+1] = vs[i], extra[i]
			} else {
				x.byOwner[at[b]] = vs[i]
			}
			at[b]++
		}
	})
	return x.byOwner, counts, x.order
}

// checkIDs returns an error naming the first id outside [0, n).
func (x *RowExchange) checkIDs(call string, gids []int32) error {
	n := int32(x.NumVertices())
	for i, v := range gids {
		if v < 0 || v >= n {
			return fmt.Errorf("dist: RowExchange.%s on rank %d: id[%d] = %d outside [0, %d)", call, x.m.Grid.Rank(), i, v, n)
		}
	}
	return nil
}

// Fetch brings in the rows gids (distinct) for Row, RowSpan and Packed,
// replacing the rows of the previous Fetch; local rows are read in place.
// It is one round: collective on the column.
func (x *RowExchange) Fetch(ctx context.Context, gids []int32) error {
	if err := x.checkIDs("Fetch", gids); err != nil {
		return err
	}
	remote := x.remote[:0]
	for _, v := range gids {
		if v < x.m.Lo || v >= x.m.Hi {
			remote = append(remote, v)
		}
	}
	x.remote = remote
	ids, counts, _ := x.bucket(remote, nil)
	r, err := x.round(ctx, true, KindRows, [3]int64{}, ids, counts)
	if err != nil {
		return err
	}
	// Index what came back, in the order asked.
	if x.slot == nil {
		x.slot = make([]int32, x.NumVertices())
		for i := range x.slot {
			x.slot[i] = -1
		}
	}
	for _, v := range x.fetched {
		x.slot[v] = -1
	}
	x.fetched = append(x.fetched[:0], ids...)
	x.ptr = par.Resize(x.ptr, len(ids)+1)
	x.ptr[0] = 0
	for i, v := range ids {
		x.slot[v] = int32(i)
		x.ptr[i+1] = x.ptr[i] + int64(r.lens[i])
	}
	return nil
}

// Degrees sets deg[i] to the length of row gids[i]: local rows are read in
// place, the others asked of their owners, which answer with the lengths
// alone. It keeps the rows of the last Fetch. It is one round: collective
// on the column.
func (x *RowExchange) Degrees(ctx context.Context, gids []int32, deg []int32) error {
	if len(deg) != len(gids) {
		return fmt.Errorf("dist: RowExchange.Degrees: %d degrees for %d ids", len(deg), len(gids))
	}
	if err := x.checkIDs("Degrees", gids); err != nil {
		return err
	}
	remote, at := x.remote[:0], x.at[:0]
	for i, v := range gids {
		if v >= x.m.Lo && v < x.m.Hi {
			ip := x.m.Local.Indptr[v-x.m.Lo:]
			deg[i] = int32(ip[1] - ip[0])
		} else {
			remote = append(remote, v)
			at = append(at, int32(i))
		}
	}
	x.remote, x.at = remote, at
	ids, counts, order := x.bucket(remote, nil)
	r, err := x.round(ctx, true, KindDegrees, [3]int64{}, ids, counts)
	if err != nil {
		return err
	}
	for i, j := range order {
		deg[at[i]] = r.lens[j]
	}
	return nil
}

// CallResult is what a Call brings back, in the order of its ids: the
// number of items each id's owner answered (Count), the items back to back
// (Items) and, when the service answers with values, one per item
// (Values).
type CallResult struct {
	Count  []int32
	Items  []int32
	Values []float32
}

// Call asks the owners of gids (any order, repeats allowed) for the answers
// of the service registered for kind, each id with its argument
// idArgs[i], in a round with arguments args. The result's slices are the
// caller's to keep. It is one round: collective on the column.
func (x *RowExchange) Call(ctx context.Context, kind int, args [3]int64, gids, idArgs []int32) (*CallResult, error) {
	res := new(CallResult)
	if err := x.CallInto(ctx, res, kind, args, gids, idArgs); err != nil {
		return nil, err
	}
	return res, nil
}

// CallInto is Call with the result written into dst, whose slices are
// reused when large enough (a caller that keeps one CallResult for its
// rounds touches no fresh memory once they are grown).
func (x *RowExchange) CallInto(ctx context.Context, dst *CallResult, kind int, args [3]int64, gids, idArgs []int32) error {
	dst.Count, dst.Items, dst.Values = dst.Count[:0], dst.Items[:0], dst.Values[:0]
	return x.CallAppend(ctx, dst, kind, args, gids, idArgs)
}

// CallAppend is Call with the result appended to dst's slices (grown as
// append grows them), so that a caller may cut a large call into rounds
// of bounded memory and still get its answers back to back. dst.Values
// stays nil in a call whose service answers without values.
func (x *RowExchange) CallAppend(ctx context.Context, dst *CallResult, kind int, args [3]int64, gids, idArgs []int32) error {
	if kind < KindUser || kind >= maxKinds || x.services[kind] == nil {
		return fmt.Errorf("dist: RowExchange.Call: no service for kind %d", kind)
	}
	if len(idArgs) != len(gids) {
		return fmt.Errorf("dist: RowExchange.Call: %d arguments for %d ids", len(idArgs), len(gids))
	}
	if err := x.checkIDs("Call", gids); err != nil {
		return err
	}
	pairs, counts, order := x.bucket(gids, idArgs)
	r, err := x.round(ctx, true, kind, args, pairs, counts)
	if err != nil {
		return err
	}
	// Back from owner order to request order: where each answer starts
	// in the round's items (owner order), then the answers copied in
	// parts of the requests, each part's start in dst the sum of the
	// earlier parts' answers.
	x.callStart = par.Resize(x.callStart, len(r.lens)+1)
	start := x.callStart
	start[0] = 0
	for i, c := range r.lens {
		start[i+1] = start[i] + int64(c)
	}
	n0, i0 := len(dst.Count), int64(len(dst.Items))
	dst.Count = grow(dst.Count, len(gids))
	dst.Items = grow(dst.Items, len(r.items))
	if r.vals != nil {
		dst.Values = grow(dst.Values, len(r.vals))
	} else {
		dst.Values = nil
	}
	count, items := dst.Count[n0:], dst.Items[i0:]
	var vals []float32
	if r.vals != nil {
		vals = dst.Values[i0:]
	}
	np := x.parts(len(r.items))
	x.partOut = par.Resize(x.partOut, np+1)
	clear(x.partOut) // an empty part's stays 0
	par.Ranges(len(order), np, 1, func(part, lo, hi int) {
		var n int64
		for i, j := range order[lo:hi] {
			count[lo+i] = r.lens[j]
			n += int64(r.lens[j])
		}
		x.partOut[part+1] = n
	})
	x.partOut[0] = 0
	for part := range np {
		x.partOut[part+1] += x.partOut[part]
	}
	par.Ranges(len(order), np, 1, func(part, lo, hi int) {
		o := x.partOut[part]
		for _, j := range order[lo:hi] {
			o += int64(copy(items[o:], r.items[start[j]:start[j+1]]))
			if r.vals != nil {
				copy(vals[o-(start[j+1]-start[j]):], r.vals[start[j]:start[j+1]])
			}
		}
	})
	return nil
}

// grow returns s extended by n elements (their values undefined), its
// first len(s) kept: in place when its capacity allows, else moved to an
// array of append's growth.
func grow[T any](s []T, n int) []T {
	return slices.Grow(s, n)[:len(s)+n]
}

// Drain serves the other ranks of the column until every one of them has
// finished its own rounds. Call it after this rank's rounds of a unit of
// work (a bulk, a product).
func (x *RowExchange) Drain(ctx context.Context) error {
	x.counts = par.Resize(x.counts, x.col.Size())
	clear(x.counts)
	for {
		r, err := x.round(ctx, false, KindRows, [3]int64{}, nil, x.counts)
		if err != nil || !r.active {
			return err
		}
	}
}

// roundResult is what one round brought this rank: the lengths (or counts)
// of its ids, in owner order, and the items and values behind them. For
// KindRows the items are in the fetched rows' arrays (ind, val).
type roundResult struct {
	active bool // some rank of the column was active
	lens   []int32
	items  []int32
	vals   []float32
}

// kindValues reports whether answers of kind carry values.
func (x *RowExchange) kindValues(kind int) bool {
	switch {
	case kind == KindRows:
		return x.values
	case kind >= KindUser && kind < maxKinds && x.services[kind] != nil:
		return x.services[kind].Values()
	}
	return false
}

// kindWidth returns the int32 words of one requested id of kind: the id,
// and its argument for a service's kinds.
func kindWidth(kind int) int {
	if kind >= KindUser {
		return 2
	}
	return 1
}

// statsOf returns the figures a round of this rank counts into: those of
// its kind when it is active, else Drain's.
func (x *RowExchange) statsOf(active bool, kind int) *RoundStats {
	switch {
	case !active:
		return &x.stats.Drain
	case kind == KindRows:
		return &x.stats.Rows
	case kind == KindDegrees:
		return &x.stats.Degrees
	}
	return &x.stats.Service
}

// sent returns the bytes of counts[r] elements of size bytes sent to every
// rank r of the column but this one.
func (x *RowExchange) sent(counts []int, size int) int64 {
	me, n := x.col.Rank(), 0
	for r, c := range counts {
		if r != me {
			n += c
		}
	}
	return int64(n) * int64(size)
}

// alltoallv is the column's Alltoallv, its time and bytes added to st
// (to Wait when wait is set, else to Transfer).
func alltoallv[T int32 | int64 | float32](ctx context.Context, x *RowExchange, st *RoundStats, wait bool, send []T, sc []int, recv []T, rc []int) error {
	t := time.Now()
	err := x.col.Alltoallv(ctx, x.ph, send, sc, recv, rc)
	d := time.Since(t)
	if wait {
		st.Wait += d
	} else {
		st.Transfer += d
	}
	var zero T
	st.BytesSent += x.sent(sc, int(unsafe.Sizeof(zero)))
	return err
}

// round runs one round: the header, then, when any rank of the column is
// active, the request and its answers. req holds this rank's requests of
// kind, ordered by owner with counts ids per owner: the ids, or for a
// service's kinds the pairs (id, argument). When no rank is active it
// returns after the header with active false.
func (x *RowExchange) round(ctx context.Context, active bool, kind int, args [3]int64, req []int32, counts []int) (roundResult, error) {
	st := x.statsOf(active, kind)
	st.Rounds++
	hdr, res, valuesRound, err := x.header(ctx, st, active, kind, args, counts)
	if err != nil || !res.active {
		return res, err
	}
	// The requests from every rank.
	q := x.col.Size()
	w := kindWidth(kind)
	x.sc, x.rc, x.answered = par.Resize(x.sc, q), par.Resize(x.rc, q), par.Resize(x.answered, q)
	sc, rc := x.sc, x.rc
	for r := range q {
		sc[r] = w * counts[r]
		rc[r] = kindWidth(int(hdr[headerLen*r+5])) * int(hdr[headerLen*r+1])
		x.answered[r] = int(hdr[headerLen*r+1]) // ids this rank answers per requester
	}
	x.asked = par.Resize(x.asked, sumInts(rc))
	if err := alltoallv(ctx, x, st, false, req, sc, x.asked, rc); err != nil {
		return roundResult{}, err
	}
	// Serve: each request's answer length, then its items (and values).
	t := time.Now()
	err = x.serve(hdr)
	st.Serve += time.Since(t)
	st.Served += int64(sumInts(x.answered))
	if err != nil {
		return roundResult{}, err
	}
	x.gotLens = par.Resize(x.gotLens, sumInts(counts))
	if err := alltoallv(ctx, x, st, true, x.lens, x.answered, x.gotLens, counts); err != nil {
		return roundResult{}, err
	}
	res.lens = x.gotLens
	st.IDs += int64(len(req) / w)
	err = x.answers(ctx, st, hdr, kind, counts, valuesRound, &res)
	st.Items += int64(len(res.items))
	return res, err
}

// header runs the header exchange of a round and returns every rank's
// record to this one, whether any rank of the column is active, and
// whether the round carries values (an active rank asked for a kind that
// has them: every rank sees every record, so they all agree).
func (x *RowExchange) header(ctx context.Context, st *RoundStats, active bool, kind int, args [3]int64, counts []int) ([]int64, roundResult, bool, error) {
	q := x.col.Size()
	x.hdrSend, x.hdrRecv = par.Resize(x.hdrSend, headerLen*q), par.Resize(x.hdrRecv, headerLen*q)
	x.hdrCounts = par.Resize(x.hdrCounts, q)
	send := x.hdrSend
	for r := range q {
		h := send[headerLen*r:]
		h[0] = 0
		if active {
			h[0] = 1
		}
		h[1] = int64(counts[r])
		h[2], h[3], h[4], h[5] = args[0], args[1], args[2], int64(kind)
		x.hdrCounts[r] = headerLen
	}
	hdr := x.hdrRecv
	if err := alltoallv(ctx, x, st, true, send, x.hdrCounts, hdr, x.hdrCounts); err != nil {
		return nil, roundResult{}, false, err
	}
	var res roundResult
	valuesRound := false
	for r := range q {
		h := hdr[headerLen*r:]
		k := int(h[5])
		if h[1] < 0 || k < 0 || k >= maxKinds || (k >= KindUser && x.services[k] == nil) {
			return nil, roundResult{}, false, fmt.Errorf("dist: RowExchange on rank %d: rank %d asked for %d rows of kind %d, which this rank does not serve", x.m.Grid.Rank(), r, h[1], k)
		}
		if h[0] != 0 {
			res.active = true
			valuesRound = valuesRound || x.kindValues(k)
		}
	}
	return hdr, res, valuesRound, nil
}

// answers receives the items (and, in a round that carries them, the
// values) of this rank's requests, counts[r] of them from rank r whose
// lengths are res.lens, and sends its own answers (serve's): the rows of
// KindRows land in the fetched rows' arrays, the others in res.
func (x *RowExchange) answers(ctx context.Context, st *RoundStats, hdr []int64, kind int, counts []int, valuesRound bool, res *roundResult) error {
	q := len(counts)
	x.recvItemCounts = par.Resize(x.recvItemCounts, q)
	recvItems := x.recvItemCounts
	clear(recvItems)
	o := 0
	for r := range q {
		for range counts[r] {
			if kind != KindDegrees {
				recvItems[r] += int(res.lens[o])
			}
			o++
		}
	}
	total := sumInts(recvItems)
	var items []int32
	if kind == KindRows {
		x.ind = par.Resize(x.ind, total)
		items = x.ind
	} else {
		x.recvItems = par.Resize(x.recvItems, total)
		items = x.recvItems
	}
	if err := alltoallv(ctx, x, st, false, x.sendItems, x.itemCounts, items, recvItems); err != nil {
		return err
	}
	res.items = items
	if !valuesRound {
		return nil
	}
	x.valueCounts, x.recvValueCounts = par.Resize(x.valueCounts, q), par.Resize(x.recvValueCounts, q)
	valueCounts, recvValues := x.valueCounts, x.recvValueCounts
	clear(recvValues)
	for r := range q {
		valueCounts[r] = 0
		if x.kindValues(int(hdr[headerLen*r+5])) {
			valueCounts[r] = x.itemCounts[r]
		}
	}
	var vals []float32
	switch {
	case kind == KindRows && x.values:
		x.val = par.Resize(x.val, total)
		vals, recvValues = x.val, recvItems
	case x.kindValues(kind):
		x.recvVals = par.Resize(x.recvVals, total)
		vals, recvValues = x.recvVals, recvItems
	}
	if err := alltoallv(ctx, x, st, false, x.sendVals, valueCounts, vals, recvValues); err != nil {
		return err
	}
	if kind != KindRows {
		res.vals = vals
	}
	return nil
}

// serve answers the requests of a round (x.asked, from every rank, the
// kinds and arguments in hdr): the length of each answer in x.lens, its
// items in x.sendItems and, for the kinds that carry them, values in
// x.sendVals, with the items per requester in x.itemCounts. The ids are
// answered in chunks on x.threads goroutines (see the file's comment):
// first every chunk's lengths (and a service's items, into its
// goroutine's scratch), then, at offsets from their sums, every chunk's
// items in place.
func (x *RowExchange) serve(hdr []int64) error {
	q := x.col.Size()
	x.chunks = x.chunks[:0]
	n, word := 0, 0
	for r := range q {
		h := hdr[headerLen*r:]
		kind, cnt := int(h[5]), int(h[1])
		w := kindWidth(kind)
		for lo := 0; lo < cnt; lo += x.grain {
			hi := min(lo+x.grain, cnt)
			x.chunks = append(x.chunks, serveChunk{r: r, lo: n + lo, hi: n + hi, word: word + lo*w, kind: kind, wide: w, args: [3]int64{h[2], h[3], h[4]}})
		}
		n += cnt
		word += cnt * w
	}
	x.lens = par.Resize(x.lens, n)
	x.itemCounts = par.Resize(x.itemCounts, q)
	for w := range x.work {
		x.work[w].items, x.work[w].vals = x.work[w].items[:0], x.work[w].vals[:0]
	}
	var failed atomic.Pointer[error]
	par.For(len(x.chunks), x.threads, func(w, c int) {
		if err := x.serveLengths(w, &x.chunks[c]); err != nil {
			failed.CompareAndSwap(nil, &err)
		}
	})
	if e := failed.Load(); e != nil {
		return *e
	}
	// The answers' places: items back to back in request order, values
	// likewise for the requesters whose kind carries them.
	clear(x.itemCounts)
	var items, vals int64
	for c := range x.chunks {
		ch := &x.chunks[c]
		ch.out, ch.vout = items, vals
		items += int64(ch.n)
		if x.kindValues(ch.kind) {
			vals += int64(ch.n)
		}
		x.itemCounts[ch.r] += ch.n
	}
	x.sendItems = par.Resize(x.sendItems, int(items))
	x.sendVals = par.Resize(x.sendVals, int(vals))
	par.For(len(x.chunks), x.threads, func(_, c int) { x.serveItems(&x.chunks[c]) })
	return nil
}

// serveLengths sets the answer lengths of chunk ch on goroutine w, and
// writes a service's answers into w's scratch.
func (x *RowExchange) serveLengths(w int, ch *serveChunk) error {
	sc := &x.work[w]
	ch.w, ch.wOff, ch.wVal = w, len(sc.items), len(sc.vals)
	a := ch.word
	lo, hi := x.m.Lo, x.m.Hi
	for i := ch.lo; i < ch.hi; i++ {
		if gid := x.asked[a]; gid < lo || gid >= hi {
			_, _, err := x.local(gid)
			return fmt.Errorf("%w (asked by rank %d of its column)", err, ch.r)
		}
		a += ch.wide
	}
	ip := x.m.Local.Indptr
	n := 0
	switch ch.kind {
	case KindRows, KindDegrees:
		for i := ch.lo; i < ch.hi; i++ {
			r := x.asked[ch.word+i-ch.lo] - lo
			x.lens[i] = int32(ip[r+1] - ip[r])
			n += int(x.lens[i])
		}
		if ch.kind == KindDegrees {
			n = 0
		}
	default:
		sc.gids, sc.arg = par.Resize(sc.gids, ch.hi-ch.lo), par.Resize(sc.arg, ch.hi-ch.lo)
		for i := range ch.hi - ch.lo {
			sc.gids[i], sc.arg[i] = x.asked[ch.word+2*i], x.asked[ch.word+2*i+1]
		}
		counts := x.lens[ch.lo:ch.hi]
		sc.items, sc.vals = x.services[ch.kind].Serve(w, ch.args, x.m, sc.gids, sc.arg, counts, sc.items, sc.vals)
		for _, k := range counts {
			n += int(k)
		}
		if len(sc.items)-ch.wOff != n || x.kindValues(ch.kind) && len(sc.vals)-ch.wVal != n {
			return fmt.Errorf("dist: rank %d: the service of kind %d answered %d items and %d values for counts summing to %d", x.m.Grid.Rank(), ch.kind, len(sc.items)-ch.wOff, len(sc.vals)-ch.wVal, n)
		}
	}
	ch.n = n
	return nil
}

// serveItems writes the items (and values) of chunk ch at its place in
// x.sendItems.
func (x *RowExchange) serveItems(ch *serveChunk) {
	out, vout := ch.out, ch.vout
	switch ch.kind {
	case KindDegrees:
	case KindRows:
		a := ch.word
		for i := ch.lo; i < ch.hi; i++ {
			cols, rowVals, _ := x.local(x.asked[a]) // checked by serveLengths
			a++
			copy(x.sendItems[out:], cols)
			out += int64(len(cols))
			if x.values {
				copy(x.sendVals[vout:], rowVals)
				vout += int64(len(rowVals))
			}
		}
	default:
		sc := &x.work[ch.w]
		copy(x.sendItems[out:out+int64(ch.n)], sc.items[ch.wOff:])
		if x.kindValues(ch.kind) {
			copy(x.sendVals[vout:vout+int64(ch.n)], sc.vals[ch.wVal:])
		}
	}
}

func sumInts(xs []int) int {
	s := 0
	for _, v := range xs {
		s += v
	}
	return s
}
