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

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/bulksample/bulksample/internal/par"
)

// headerLen is the number of int64 of one header record: active, count,
// three arguments, kind.
const headerLen = 6

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
// (sampling.DistRows), which selects at the owner and returns only what it
// selected. Every rank of the column must register the same services.
type RowService interface {
	// Serve appends to items (and, when Values, to vals) the answer for
	// row gid of this rank's block, whose column ids and values are cols
	// and rowVals, asked with arg in a round whose arguments are args; it
	// returns the grown slices and the number of items it appended.
	Serve(args [3]int64, gid, arg int32, cols []int32, rowVals []float32, items []int32, vals []float32) ([]int32, []float32, int)
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
}

// Validate returns an error naming a bad field.
func (o *RowExchangeOptions) Validate() error {
	if o.Phase >= NumPhases {
		return fmt.Errorf("dist: RowExchangeOptions.Phase = %d, want < %d", o.Phase, NumPhases)
	}
	return nil
}

// RowExchange fetches rows of a row-distributed Matrix by global id from
// their owners in this rank's process column, and serves the other ranks'
// requests for the rows of its own block. The rows of the last Fetch and
// the local block are readable together as packed arrays (Packed,
// RowSpan), as a CSR's rows are.
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
	services [maxKinds]RowService

	// The packed rows: ind (and val with values) start with a copy of the
	// local block, read in place; the rows of the last Fetch follow at
	// nLocal: the row of a fetched gid v is
	// ind[nLocal+ptr[slot[v]] : nLocal+ptr[slot[v]+1]].
	nLocal  int64
	slot    []int32 // per global row, -1 when not fetched
	fetched []int32 // the rows whose slot is set
	ptr     []int64
	ind     []int32
	val     []float32

	// The arrays of a round kept for the next one, so that a warm
	// exchange allocates none of them per round (rounds are collective
	// and never overlap): the requested rows and their order by owner,
	// and the requests, lengths and answers of a round.
	remote, at     []int32
	owner, order   []int
	byOwner, extra []int32
	pairs          []int32
	asked, lens    []int32
	gotLens        []int32
	sendItems      []int32
	sendVals       []float32
	itemCounts     []int // per requester: the items this rank answered
	recvItems      []int32
	recvVals       []float32
}

// NewRowExchange returns the row exchange of m. It copies the column ids
// (and with Values the values) of m's local block, so that fetched rows
// can follow them in one array.
func NewRowExchange(m *Matrix, opt RowExchangeOptions) (*RowExchange, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if m == nil || m.Grid == nil || m.Local == nil {
		return nil, errors.New("dist: NewRowExchange: nil matrix")
	}
	x := &RowExchange{m: m, col: m.Grid.Col(), ph: opt.Phase, values: opt.Values}
	if opt.Phase == 0 {
		x.ph = PhaseSample
	}
	x.slot = make([]int32, m.Grid.NumVertices())
	for i := range x.slot {
		x.slot[i] = -1
	}
	x.nLocal = m.Local.NNZ()
	x.ind = slices.Clone(m.Local.Indices[:x.nLocal])
	if opt.Values {
		x.val = slices.Clone(m.Local.Data[:x.nLocal])
	}
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

// NumVertices returns the number of rows of the whole matrix.
func (x *RowExchange) NumVertices() int { return len(x.slot) }

// Row returns row gid: a local row, or one fetched by the last Fetch; the
// values are nil unless the exchange fetches them. It panics if gid is
// neither.
func (x *RowExchange) Row(gid int32) ([]int32, []float32) {
	s, deg := x.RowSpan(gid)
	cols := x.ind[s : s+int64(deg)]
	if x.val == nil {
		return cols, nil
	}
	return cols, x.val[s : s+int64(deg)]
}

// RowSpan returns where row gid, local or fetched, lies in Packed's
// arrays, and its length. It panics if gid is neither.
func (x *RowExchange) RowSpan(gid int32) (int64, int32) {
	if gid >= x.m.Lo && gid < x.m.Hi {
		ip := x.m.Local.Indptr[gid-x.m.Lo:]
		return ip[0], int32(ip[1] - ip[0])
	}
	k := x.slot[gid]
	if k < 0 {
		panic(fmt.Sprintf("dist: RowExchange: row %d is neither local nor fetched", gid))
	}
	return x.nLocal + x.ptr[k], int32(x.ptr[k+1] - x.ptr[k])
}

// Packed returns the local and fetched rows' arrays (values nil unless the
// exchange fetches them). They may move with each Fetch.
func (x *RowExchange) Packed() ([]int32, []float32) { return x.ind, x.val }

// local returns row gid of this rank's block, or an error naming the rank
// when it is not one of them (a peer asked the wrong owner).
func (x *RowExchange) local(gid int32) ([]int32, []float32, error) {
	if gid < x.m.Lo || gid >= x.m.Hi {
		return nil, nil, fmt.Errorf("dist: rank %d holds rows [%d, %d) but was asked for row %d", x.m.Grid.Rank(), x.m.Lo, x.m.Hi, gid)
	}
	c, v := x.m.Local.Row(int(gid - x.m.Lo))
	return c, v, nil
}

// bucket orders vs (and extra beside them, when not nil) by owner block,
// stably, and returns them with the count per block and each one's
// position. The slices it returns are the exchange's, valid until its next
// call.
func (x *RowExchange) bucket(vs []int32, extra []int32) ([]int32, []int32, []int, []int) {
	g := x.m.Grid
	q := g.Blocks()
	counts := make([]int, q)
	x.owner = par.Resize(x.owner, len(vs))
	for i, v := range vs {
		b, _ := g.Locate(v)
		x.owner[i] = b
		counts[b]++
	}
	pos := make([]int, q)
	for b := 1; b < q; b++ {
		pos[b] = pos[b-1] + counts[b-1]
	}
	x.order, x.byOwner = par.Resize(x.order, len(vs)), par.Resize(x.byOwner, len(vs))
	var outX []int32
	if extra != nil {
		x.extra = par.Resize(x.extra, len(vs))
		outX = x.extra
	}
	for i, v := range vs {
		b := x.owner[i]
		x.order[i] = pos[b]
		x.byOwner[pos[b]] = v
		if extra != nil {
			outX[pos[b]] = extra[i]
		}
		pos[b]++
	}
	return x.byOwner, outX, counts, x.order
}

// checkIDs returns an error naming the first id outside [0, n).
func (x *RowExchange) checkIDs(call string, gids []int32) error {
	n := int32(len(x.slot))
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
	ids, _, counts, _ := x.bucket(remote, nil)
	r, err := x.round(ctx, true, KindRows, [3]int64{}, ids, nil, counts)
	if err != nil {
		return err
	}
	// Pack what came back behind the local block, in the order asked.
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
	ids, _, counts, order := x.bucket(remote, nil)
	r, err := x.round(ctx, true, KindDegrees, [3]int64{}, ids, nil, counts)
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
// (Values). Its slices are the caller's to keep.
type CallResult struct {
	Count  []int32
	Items  []int32
	Values []float32
}

// Call asks the owners of gids (any order, repeats allowed) for the answers
// of the service registered for kind, each id with its argument
// idArgs[i], in a round with arguments args. It is one round: collective
// on the column.
func (x *RowExchange) Call(ctx context.Context, kind int, args [3]int64, gids, idArgs []int32) (*CallResult, error) {
	if kind < KindUser || kind >= maxKinds || x.services[kind] == nil {
		return nil, fmt.Errorf("dist: RowExchange.Call: no service for kind %d", kind)
	}
	if len(idArgs) != len(gids) {
		return nil, fmt.Errorf("dist: RowExchange.Call: %d arguments for %d ids", len(idArgs), len(gids))
	}
	if err := x.checkIDs("Call", gids); err != nil {
		return nil, err
	}
	ids, extra, counts, order := x.bucket(gids, idArgs)
	r, err := x.round(ctx, true, kind, args, ids, extra, counts)
	if err != nil {
		return nil, err
	}
	// Back from owner order to request order.
	start := make([]int64, len(r.lens)+1)
	for i, c := range r.lens {
		start[i+1] = start[i] + int64(c)
	}
	out := &CallResult{Count: make([]int32, len(gids)), Items: make([]int32, 0, len(r.items))}
	if r.vals != nil {
		out.Values = make([]float32, 0, len(r.vals))
	}
	for i, j := range order {
		out.Count[i] = r.lens[j]
		out.Items = append(out.Items, r.items[start[j]:start[j+1]]...)
		if r.vals != nil {
			out.Values = append(out.Values, r.vals[start[j]:start[j+1]]...)
		}
	}
	return out, nil
}

// Drain serves the other ranks of the column until every one of them has
// finished its own rounds. Call it after this rank's rounds of a unit of
// work (a bulk, a product).
func (x *RowExchange) Drain(ctx context.Context) error {
	none := make([]int, x.col.Size())
	for {
		r, err := x.round(ctx, false, KindRows, [3]int64{}, nil, nil, none)
		if err != nil || !r.active {
			return err
		}
	}
}

// roundResult is what one round brought this rank: the lengths (or counts)
// of its ids, in owner order, and the items and values behind them. For
// KindRows the items are in place behind the local block (ind, val).
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

// round runs one round: the header, then, when any rank of the column is
// active, the request and its answers. ids are this rank's requests of
// kind, ordered by owner with counts per owner (and extra, their
// arguments, for a service's kinds). When no rank is active it returns
// after the header with active false.
func (x *RowExchange) round(ctx context.Context, active bool, kind int, args [3]int64, ids, extra []int32, counts []int) (roundResult, error) {
	hdr, res, valuesRound, err := x.header(ctx, active, kind, args, counts)
	if err != nil || !res.active {
		return res, err
	}
	// The requests: ids, or (id, argument) pairs, from every rank.
	q := x.col.Size()
	w := kindWidth(kind)
	sc, rc := make([]int, q), make([]int, q)
	for r := range q {
		sc[r] = w * counts[r]
		rc[r] = kindWidth(int(hdr[headerLen*r+5])) * int(hdr[headerLen*r+1])
	}
	req := ids
	if w == 2 {
		x.pairs = x.pairs[:0]
		for i, v := range ids {
			x.pairs = append(x.pairs, v, extra[i])
		}
		req = x.pairs
	}
	x.asked = par.Resize(x.asked, sumInts(rc))
	if err := x.col.Alltoallv(ctx, x.ph, req, sc, x.asked, rc); err != nil {
		return roundResult{}, err
	}
	// Serve: each request's answer length, then its items (and values).
	if err := x.serve(hdr, rc); err != nil {
		return roundResult{}, err
	}
	answered := make([]int, q) // ids this rank answers per requester
	for r := range q {
		answered[r] = int(hdr[headerLen*r+1])
	}
	x.gotLens = par.Resize(x.gotLens, sumInts(counts))
	if err := x.col.Alltoallv(ctx, x.ph, x.lens, answered, x.gotLens, counts); err != nil {
		return roundResult{}, err
	}
	res.lens = x.gotLens
	err = x.answers(ctx, hdr, kind, counts, valuesRound, &res)
	return res, err
}

// header runs the header exchange of a round and returns every rank's
// record to this one, whether any rank of the column is active, and
// whether the round carries values (an active rank asked for a kind that
// has them: every rank sees every record, so they all agree).
func (x *RowExchange) header(ctx context.Context, active bool, kind int, args [3]int64, counts []int) ([]int64, roundResult, bool, error) {
	q := x.col.Size()
	send := make([]int64, headerLen*q)
	for r := range q {
		h := send[headerLen*r:]
		if active {
			h[0] = 1
		}
		h[1] = int64(counts[r])
		h[2], h[3], h[4], h[5] = args[0], args[1], args[2], int64(kind)
	}
	hl := make([]int, q)
	for r := range hl {
		hl[r] = headerLen
	}
	hdr, err := ExchangeWith(ctx, x.col, x.ph, send, hl, hl)
	if err != nil {
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
// KindRows land behind the local block, the others in res.
func (x *RowExchange) answers(ctx context.Context, hdr []int64, kind int, counts []int, valuesRound bool, res *roundResult) error {
	q := len(counts)
	recvItems := make([]int, q)
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
		// Received straight behind the local block.
		x.ind = slices.Grow(x.ind[:x.nLocal], total)[:x.nLocal+int64(total)]
		items = x.ind[x.nLocal:]
	} else {
		x.recvItems = par.Resize(x.recvItems, total)
		items = x.recvItems
	}
	if err := x.col.Alltoallv(ctx, x.ph, x.sendItems, x.itemCounts, items, recvItems); err != nil {
		return err
	}
	res.items = items
	if !valuesRound {
		return nil
	}
	valueCounts, recvValues := make([]int, q), make([]int, q)
	for r := range q {
		if x.kindValues(int(hdr[headerLen*r+5])) {
			valueCounts[r] = x.itemCounts[r]
		}
	}
	var vals []float32
	switch {
	case kind == KindRows && x.values:
		x.val = slices.Grow(x.val[:x.nLocal], total)[:x.nLocal+int64(total)]
		vals, recvValues = x.val[x.nLocal:], recvItems
	case x.kindValues(kind):
		x.recvVals = par.Resize(x.recvVals, total)
		vals, recvValues = x.recvVals, recvItems
	}
	if err := x.col.Alltoallv(ctx, x.ph, x.sendVals, valueCounts, vals, recvValues); err != nil {
		return err
	}
	if kind != KindRows {
		res.vals = vals
	}
	return nil
}

// serve answers the requests of a round (asked, rc words from each rank,
// the kinds and arguments in hdr): the length of each answer in x.lens, its
// items in x.sendItems and, for the kinds that carry them, values in
// x.sendVals, with the items per requester in x.itemCounts.
func (x *RowExchange) serve(hdr []int64, rc []int) error {
	q := len(rc)
	n := 0
	for r := range q {
		n += int(hdr[headerLen*r+1])
	}
	x.lens = par.Resize(x.lens, n)
	x.itemCounts = par.Resize(x.itemCounts, q)
	items, vals := x.sendItems[:0], x.sendVals[:0]
	o, a := 0, 0 // answers so far, words of asked read
	for r := range q {
		h := hdr[headerLen*r:]
		kind := int(h[5])
		args := [3]int64{h[2], h[3], h[4]}
		w := kindWidth(kind)
		before := len(items)
		for range int(h[1]) {
			gid := x.asked[a]
			var arg int32
			if w == 2 {
				arg = x.asked[a+1]
			}
			a += w
			cols, rowVals, err := x.local(gid)
			if err != nil {
				return fmt.Errorf("%w (asked by rank %d of its column)", err, r)
			}
			switch kind {
			case KindRows:
				x.lens[o] = int32(len(cols))
				items = append(items, cols...)
				if x.values {
					vals = append(vals, rowVals...)
				}
			case KindDegrees:
				x.lens[o] = int32(len(cols))
			default:
				var k int
				items, vals, k = x.services[kind].Serve(args, gid, arg, cols, rowVals, items, vals)
				x.lens[o] = int32(k)
			}
			o++
		}
		x.itemCounts[r] = len(items) - before
	}
	x.sendItems, x.sendVals = items, vals // kept for the next round (Alltoallv keeps no reference)
	return nil
}

func sumInts(xs []int) int {
	s := 0
	for _, v := range xs {
		s += v
	}
	return s
}
