package distsample

// DistRows, the rows of a row-distributed adjacency (docs/design.md
// section 4): the row exchange of package dist (dist.RowExchange: rows
// pulled by global id, degrees) plus the push layer of this file, a
// dist.RowService with which the owners of rows select their picks with
// sampling.RowPicker and send back only those. Which of the two a
// node-wise layer uses is the DistRows' plan of the layer (PlanLayer), so
// that pull and push can be chosen per layer; rounds of every kind run in
// the same collective calls, so ranks may mix them.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/sampling"
)

// FetchMode is how a distributed sampler gets the rows it samples.
type FetchMode int

const (
	// FetchAuto, the default, chooses pull or push for each layer of each
	// bulk (node-wise sampling), whichever the byte model of
	// docs/design.md section 4 (PullSampleBytes, PushSampleBytes) says
	// sends less; the layer-wise samplers pull.
	FetchAuto FetchMode = iota
	// FetchPull brings the rows of A to the sampling rank (the paper's
	// 1.5D sparsity-aware product, dist.Mul15D's exchange): deg words per
	// row.
	FetchPull
	// FetchPush sends the rows to sample to their owners, which select
	// and return only the picks: about s words per row.
	FetchPush
)

// String returns "auto", "pull" or "push".
func (m FetchMode) String() string {
	switch m {
	case FetchAuto:
		return "auto"
	case FetchPull:
		return "pull"
	case FetchPush:
		return "push"
	}
	return fmt.Sprintf("FetchMode(%d)", int(m))
}

// ParseFetchMode parses "auto", "pull" or "push".
func ParseFetchMode(s string) (FetchMode, error) {
	switch s {
	case "auto":
		return FetchAuto, nil
	case "pull":
		return FetchPull, nil
	case "push":
		return FetchPush, nil
	}
	return 0, fmt.Errorf("distsample: fetch mode %q, want auto, pull or push", s)
}

// kindPicks is the dist.RowExchange kind of push requests.
const kindPicks = dist.KindUser

// DistRows is the sampling.RowSource of a row-distributed adjacency
// (dist.Matrix), a sampling.RemoteRows: local rows are read in place, the
// others come through a dist.RowExchange inside this rank's process column,
// pulled (FetchRows, sampling.PackedRows) or selected by their owners
// (FetchPicks), as its plan says per layer (PlanLayer); it is a
// sampling.DegreeSource too (sampling.NodeWiseOptions.Degrees, for GCN).
// Every rank of the grid must make its DistRows with the same options, and
// call Drain after its own work of a bulk (the distributed samplers do). It
// is used by one goroutine (the sampler's), apart from Row, RowSpan and
// Packed, which may be called concurrently between fetches.
type DistRows struct {
	x       *dist.RowExchange
	mode    FetchMode
	pickers []*sampling.RowPicker // one per serving goroutine of x
	layers  []LayerFetchStats
	// Push batches on a goroutine of their own (SetOverlap), and what it
	// hid.
	overlap bool
	ov      OverlapStats
	// The auto plan's scratch: per local row, the stamp of the last group
	// that counted it (stamp counts groups across calls).
	mark  []uint32
	stamp uint32
	// The budgets of a pull batch (estimated words of its rows) and of a
	// push batch (words of its picks' bound); 0: the defaults.
	pullBudget, pushBudget int64
}

var (
	_ sampling.RemoteRows   = (*DistRows)(nil)
	_ sampling.PackedRows   = (*DistRows)(nil)
	_ sampling.DegreeSource = (*DistRows)(nil)
)

// NewDistRows returns the row source over m for a node-wise sampler with
// options opt (Seed, Weighted and Replace are used by the owners to pick,
// Threads by the owners to serve), which fetches with mode at every layer
// (FetchAuto: as the byte model says). m must be square (a graph).
func NewDistRows(m *dist.Matrix, mode FetchMode, opt sampling.NodeWiseOptions) (*DistRows, error) {
	if m == nil || m.Grid == nil || m.Local == nil {
		return nil, errors.New("distsample: NewDistRows: nil matrix")
	}
	if mode != FetchAuto && mode != FetchPull && mode != FetchPush {
		return nil, fmt.Errorf("distsample: NewDistRows: fetch mode %d", int(mode))
	}
	return newDistRows(m, mode, opt, opt.Weighted)
}

// newDistRows is NewDistRows, pulling values when values is set.
func newDistRows(m *dist.Matrix, mode FetchMode, opt sampling.NodeWiseOptions, values bool) (*DistRows, error) {
	if !m.IsSquare() {
		return nil, fmt.Errorf("distsample: rank %d: the graph's block is %d x %d of a %d-vertex graph; want a square adjacency", m.Grid.Rank(), m.Local.Rows, m.Local.Cols, m.Grid.NumVertices())
	}
	x, err := dist.NewRowExchange(m, dist.RowExchangeOptions{Values: values, Phase: dist.PhaseSample, Threads: opt.Threads})
	if err != nil {
		return nil, err
	}
	d := &DistRows{x: x, mode: mode, pickers: make([]*sampling.RowPicker, x.Threads())}
	for w := range d.pickers {
		d.pickers[w] = sampling.NewRowPicker(opt)
	}
	if err := x.Handle(kindPicks, pickService{d.pickers}); err != nil {
		return nil, err
	}
	return d, nil
}

// Mode returns the fetch mode.
func (d *DistRows) Mode() FetchMode { return d.mode }

// LayerFetchStats counts how the layers of one depth were fetched: the
// rounds of FetchPull and FetchPush chosen (one per bulk and layer), and
// the bytes the byte model predicted for each choice, summed over them.
type LayerFetchStats struct {
	Pull, Push                     int64
	ModelPullBytes, ModelPushBytes float64
}

// DistRowsStats are a rank's figures of its DistRows: its row exchange's,
// per node-wise layer how it was fetched, and what the overlap of push
// batches hid.
type DistRowsStats struct {
	Exchange dist.ExchangeStats
	Layers   []LayerFetchStats
	Overlap  OverlapStats
}

// OverlapStats count the push batches a DistRows brought in on a goroutine
// of its own (SetOverlap) while the sampler extracted the previous batch:
// their number, their time in FetchPicks (its rounds) and the sampler's
// time waiting for them once it needed them.
type OverlapStats struct {
	Batches      int64
	Fetch, Waits time.Duration
}

// Hidden returns the time of the overlapped rounds the sampler did not
// wait for: it worked meanwhile.
func (o OverlapStats) Hidden() time.Duration { return max(o.Fetch-o.Waits, 0) }

// Stats returns this rank's figures so far.
func (d *DistRows) Stats() DistRowsStats {
	return DistRowsStats{Exchange: d.x.Stats(), Layers: slices.Clone(d.layers), Overlap: d.ov}
}

// SetOverlap sets whether a pushed layer's next batch is asked for while
// the sampler extracts the picks of the current one
// (DistSamplerOptions.Overlap): its rounds then run on a goroutine of the
// DistRows, one batch ahead at most, and the main goroutine calls no round
// meanwhile, so the column's rounds keep their order. It takes effect
// where the column communicator may be called from another goroutine
// (dist.ConcurrentComms); the sample is the same either way.
func (d *DistRows) SetOverlap(on bool) { d.overlap = on }

// Overlap reports whether the DistRows overlaps push batches: SetOverlap
// on, and a column communicator that allows it.
func (d *DistRows) Overlap() bool { return d.overlap && dist.ConcurrentComms(d.x.Comm()) }

// StartPicks runs FetchPicks(ctx, req) on a goroutine of its own and
// returns the function that waits for it (sampling.RemoteRows): the batches
// of a pushed layer whose plan overlaps (SetOverlap).
func (d *DistRows) StartPicks(ctx context.Context, req *sampling.PickRequest) func() error {
	done := make(chan error, 1)
	var took time.Duration
	go func() {
		t := time.Now()
		err := d.FetchPicks(ctx, req)
		took = time.Since(t)
		done <- err
	}()
	return func() error {
		t := time.Now()
		err := <-done
		d.ov.Batches++
		d.ov.Fetch += took
		d.ov.Waits += time.Since(t)
		return err
	}
}

// PlanLayer returns how node-wise layer dm.Layer reads its rows
// (sampling.RemoteRows): pulled or pushed as layerFetch says, in the
// batches of pullBatches or pushBatches, a pushed layer's overlapped when
// Overlap says so.
func (d *DistRows) PlanLayer(dm sampling.LayerDemand, batches []int) sampling.LayerPlan {
	if d.layerFetch(dm) == FetchPush {
		return sampling.LayerPlan{Push: true, Overlap: d.Overlap(), Batches: d.pushBatches(dm, batches)}
	}
	return sampling.LayerPlan{Batches: d.pullBatches(dm, batches)}
}

// layerFetch returns how node-wise layer d.Layer fetches its rows: the
// DistRows' mode, or with FetchAuto the one the byte model predicts to
// send fewer bytes, and counts it in the layer's LayerFetchStats. The
// model's inputs (the distinct rows of each pull group and their degrees,
// the rows' picks) are estimated from the rows of this rank's own block
// among them, whose
// degrees it reads in place: a sample of the layer's rows when the vertex
// ids are spread over the blocks, as R-MAT's and relabelled graphs' are.
// With no row of its own among them it pushes.
func (d *DistRows) layerFetch(dm sampling.LayerDemand) FetchMode {
	for len(d.layers) <= dm.Layer {
		d.layers = append(d.layers, LayerFetchStats{})
	}
	st := &d.layers[dm.Layer]
	mode := d.mode
	if mode == FetchAuto {
		var pull, push float64
		mode, pull, push = d.plan(dm)
		st.ModelPullBytes += pull
		st.ModelPushBytes += push
	}
	if mode == FetchPush {
		st.Push++
	} else {
		st.Pull++
	}
	return mode
}

// planRows bounds the rows the auto plan scans per layer: it reads the
// groups in order until it has scanned this many rows and scales what it
// found to the layer. Scanning every row costs a random read of the row's
// degree and of its mark per row of the rank's own block, serially, which
// was a fifth of the sampling at R-MAT 22, p = 4, 1 thread a rank; the
// first groups underestimate how often the layer's rows repeat across
// groups, so the bound leans towards push, which needs no memory for rows.
const planRows = 1 << 16

// plan returns the cheaper mode of dm by the byte model and the bytes it
// predicts for pull (in the batches of pullBatches) and push.
func (d *DistRows) plan(dm sampling.LayerDemand) (FetchMode, float64, float64) {
	g := d.x.Matrix().Grid
	p, c := g.Size(), g.Replication()
	var rows float64 // the layer's expanded rows
	for mb := range len(dm.Start) - 1 {
		rows += float64(dm.Start[mb+1] - dm.Start[mb])
		if dm.Skip != nil {
			rows -= float64(dm.Skip[mb])
		}
	}
	var sum groupFigures
	parts := partedBatches{budget: float64(d.pullWords())}
	batches := 0
	d.batched(dm, planRows, func(f groupFigures, newBatch bool) {
		if newBatch {
			parts.end()
			batches++
		}
		parts.add(f, d.remoteWords(f.deg, f.distinct))
		sum.add(f)
	})
	parts.end()
	if sum.own == 0 {
		return FetchPush, 0, PushSampleBytes(p, c, rows, rows*float64(max(dm.Fanout, 1))) + SampleHeaderBytes(p, c, d.pushRoundsOf(dm))
	}
	scale := rows / sum.own
	rounds := int(float64(batches+parts.rounds) * rows / sum.rows)
	// A parted batch's rows are asked for twice (their lengths, then the
	// rows in parts): their ids and lengths count twice.
	pull := PullSampleBytes(p, c, (sum.distinct+parts.distinct)*scale, sum.deg*scale) + SampleHeaderBytes(p, c, max(rounds, 1))
	push := PushSampleBytes(p, c, rows, sum.picks*scale) + SampleHeaderBytes(p, c, d.pushRoundsOf(dm))
	if push < pull {
		return FetchPush, pull, push
	}
	return FetchPull, pull, push
}

// partedBatches counts, for plan, what PullParts adds to the pull batches
// it cuts into parts: a batch of one group whose remote words exceed half
// the budget (a batch of several groups stays within it) costs a round of
// its rows' lengths and then a round a part, not one round.
type partedBatches struct {
	budget   float64 // the budget of a batch, in words (pullWords)
	groups   int     // the groups of the batch being read
	words    float64 // its remote words (remoteWords)
	own      float64 // its distinct rows of this rank's block
	rounds   int     // the rounds the parted batches add
	distinct float64 // their distinct rows of this rank's block
}

// add adds a group of the batch being read, of remote words w.
func (pb *partedBatches) add(f groupFigures, w float64) {
	pb.groups++
	pb.words += w
	pb.own += f.distinct
}

// end ends the batch being read (nothing when there is none).
func (pb *partedBatches) end() {
	if pb.groups == 1 && pb.words > pb.budget/2 {
		pb.rounds += max(1, int(math.Ceil(pb.words/pb.budget)))
		pb.distinct += pb.own
	}
	pb.groups, pb.words, pb.own = 0, 0, 0
}

// groupFigures are what a group of a layer asks, as scanned by markGroup:
// its expanded rows, and of those in this rank's block their number, the
// ones not yet seen in the group's batch and the sum of their degrees,
// and their picks' bound.
type groupFigures struct {
	rows, own, distinct, deg, picks float64
}

func (f *groupFigures) add(o groupFigures) {
	f.rows += o.rows
	f.own += o.own
	f.distinct += o.distinct
	f.deg += o.deg
	f.picks += o.picks
}

// newBatch starts a batch: no row of the block is marked as seen in it.
func (d *DistRows) newBatch() {
	d.stamp++
	if d.stamp == 0 { // wrapped: forget every mark
		clear(d.mark)
		d.stamp = 1
	}
}

// markGroup scans group j of dm, marking its rows of this rank's block as
// seen in the current batch.
func (d *DistRows) markGroup(dm sampling.LayerDemand, j int) groupFigures {
	m := d.x.Matrix()
	lo, hi := m.Lo, m.Hi
	if len(d.mark) != int(hi-lo) {
		d.mark = make([]uint32, hi-lo)
	}
	ip := m.Local.Indptr
	var f groupFigures
	for mb := dm.Groups[j]; mb < dm.Groups[j+1]; mb++ {
		first := dm.Start[mb]
		if dm.Skip != nil {
			first += int(dm.Skip[mb])
		}
		f.rows += float64(dm.Start[mb+1] - first)
		for _, v := range dm.Frontier[first:dm.Start[mb+1]] {
			if v < lo || v >= hi {
				continue
			}
			deg := int(ip[v-lo+1] - ip[v-lo])
			f.own++
			f.picks += float64(dm.PickBound(deg))
			if d.mark[v-lo] != d.stamp {
				d.mark[v-lo] = d.stamp
				f.distinct++
				f.deg += float64(deg)
			}
		}
	}
	return f
}

// batched cuts the groups of dm into pull batches (see pullBatches) and
// calls each with every group's figures in order, newBatch set for the
// first group of a batch, until it has scanned limit rows (0: all).
func (d *DistRows) batched(dm sampling.LayerDemand, limit int, each func(f groupFigures, newBatch bool)) {
	budget := float64(d.pullWords())
	var est, scanned float64
	d.newBatch()
	for j := range len(dm.Groups) - 1 {
		if limit > 0 && scanned >= float64(limit) {
			return
		}
		f := d.markGroup(dm, j)
		words := d.remoteWords(f.deg, f.distinct) // what the group adds to the batch's fetch
		start := j == 0
		if !start && est+words > budget {
			d.newBatch()
			f = d.markGroup(dm, j)
			words, est, start = d.remoteWords(f.deg, f.distinct), 0, true
		}
		est += words
		scanned += f.rows
		each(f, start)
	}
}

// rowWords is what a pulled row costs beyond its entries: its id, sent
// to the owner, and its length, sent back.
const rowWords = 2

// remoteWords estimates the words a pull of some rows brings from the
// other q - 1 blocks of the column, from this block's rows among them
// (ownDeg entries in ownRows distinct rows): a pull's rows are spread
// over the blocks, so each other block holds about as many.
func (d *DistRows) remoteWords(ownDeg, ownRows float64) float64 {
	return float64(d.x.Comm().Size()-1) * (ownDeg + rowWords*ownRows)
}

// pullBatches cuts the groups of a pulled layer into the batches one
// FetchRows brings in, appending their boundaries to dst[:0]: consecutive
// groups while the words of their distinct remote rows, estimated from the
// rows of this rank's block among them (whose degrees it reads in place),
// stay within pullWords. A batch of one group may exceed it: PullParts then
// cuts it.
func (d *DistRows) pullBatches(dm sampling.LayerDemand, dst []int) []int {
	dst = dst[:0]
	j := 0
	d.batched(dm, 0, func(_ groupFigures, newBatch bool) {
		if newBatch {
			dst = append(dst, j)
		}
		j++
	})
	return append(dst, j)
}

// PullParts cuts vertices, the distinct rows of a batch of one group,
// into parts whose remote rows fit pullWords (sampling.RemoteRows). When the
// remote rows' words, estimated from this rank's rows among them as
// pullBatches estimates them, are at most half the budget, it returns one
// part at once, deg unset; otherwise it asks the owners for the rows'
// lengths (one round, DistRows.Degrees) and counts a remote row's words
// as pullBatches does, its entries plus rowWords (local rows, read in
// place, count nothing).
func (d *DistRows) PullParts(ctx context.Context, vertices, deg []int32, dst []int) ([]int, error) {
	dst = dst[:0]
	m := d.x.Matrix()
	budget := d.pullWords()
	var ownDeg, ownRows float64
	for _, v := range vertices {
		if v >= m.Lo && v < m.Hi {
			ip := m.Local.Indptr[v-m.Lo:]
			ownDeg += float64(ip[1] - ip[0])
			ownRows++
		}
	}
	if d.remoteWords(ownDeg, ownRows) <= float64(budget/2) {
		return append(dst, len(vertices)), nil
	}
	if err := d.x.Degrees(ctx, vertices, deg); err != nil {
		return dst, err
	}
	var words int64
	for i, v := range vertices {
		if v >= m.Lo && v < m.Hi {
			continue
		}
		w := int64(deg[i]) + rowWords
		if words > 0 && words+w > budget {
			dst = append(dst, i)
			words = 0
		}
		words += w
	}
	return append(dst, len(vertices)), nil
}

// pullBlocks is the default budget of a pull batch in blocks
// (DistSamplerOptions.PullBatchBytes): the fetched rows of a batch hold
// about as many words as pullBlocks times the rank's block. Frontier
// vertices are reached in proportion to their degree, so the rows a group
// reads are large and every group of a layer reads the same hubs: fetching
// several groups' rows at once sends each once (R-MAT 20, fanouts 15,10,5,
// p = 4, 16 minibatches a rank: 1453 MB in 28 rounds group by group, 573
// MB in 12 with a layer a batch), at the cost of the memory that holds
// them, a batch's rows and the owners' copy of them in their send
// buffers. A smaller budget holds less, a group too large for it being
// pulled in parts (PullParts), and sends more (R-MAT 22, p = 4: peak
// resident set 1,149 MiB a rank and 1.85 GB sent by the busiest rank at 4
// blocks, 425 MiB and 4.43 GB at 64 MiB, 327 MiB at 16 MiB, at about the
// same SEPS on one machine), so the default stays at 4, for networks
// slower than shared memory. Push needs none of it, and FetchAuto pushes
// such layers.
const pullBlocks = 4

// minPullWords is the least default budget of a pull batch: 4Mi words.
const minPullWords = 4 << 20

// DefaultPushBatchBytes is the default budget of a push round
// (DistSamplerOptions.PushBatchBytes): the bound of its picks (fanout
// times rows), 4 bytes each (8 with values). Unlike a pull batch's, a push
// round's size changes no byte of the answers, only the number of rounds
// (a header each, 48 bytes a peer, and the column's lockstep: each round
// waits for its slowest rank) and the memory of a round: its requests, the
// owners' answers in their scratch and send buffers, and the picks
// received, each about the round's size, kept for the next round. 2 MiB
// moves in about a millisecond, against the tens of microseconds of a
// round's latency. (R-MAT 20, fanouts 15,10,5, 1 thread a rank, push:
// one round a layer held 60 MB of these arrays a rank at p = 4, peak RSS
// 197 MB and 345 MB at p = 2; 2 MiB rounds 145 and 207 MB at 3% fewer
// SEPS at p = 2; 1 MiB rounds 132 and 200 MB, but 17% fewer SEPS at p =
// 2, the ranks waiting for each other in twice as many rounds.) A pushed
// layer's picks are also held whole, per batch of groups of minibatches
// (pushBatches) within the same budget.
const DefaultPushBatchBytes = 2 << 20

// pullWords is the budget of a pull batch, in words: PullBatchBytes, or
// pullBlocks times the words of the rank's block and at least
// minPullWords.
func (d *DistRows) pullWords() int64 {
	if d.pullBudget > 0 {
		return max(d.pullBudget/4, 1)
	}
	return max(pullBlocks*int64(len(d.x.Matrix().Local.Indices)), minPullWords)
}

// pushWords is the budget of a push batch, in words of its picks' bound.
func (d *DistRows) pushWords() int64 {
	b := d.pushBudget
	if b <= 0 {
		b = DefaultPushBatchBytes
	}
	w := int64(4)
	if d.pickers[0].HasValues() {
		w = 8
	}
	return max(b/w, 1)
}

// SetBatchBytes sets the budgets of a pull batch (the estimated bytes of
// the rows one FetchRows brings in) and of a push batch (the bound of the
// picks one FetchPicks brings in: 4 bytes a pick, 8 with values); 0 means
// the default (DistSamplerOptions.PullBatchBytes, PushBatchBytes). A batch
// of one group may exceed its budget. Every rank may set its own; the
// sample is the same whatever they are. It panics on a negative budget.
func (d *DistRows) SetBatchBytes(pull, push int64) {
	if pull < 0 || push < 0 {
		panic(fmt.Sprintf("distsample: DistRows.SetBatchBytes(%d, %d): want >= 0", pull, push))
	}
	d.pullBudget, d.pushBudget = pull, push
}

// groupPicks returns the expanded rows of group j of dm and the bound of
// their picks: the rows times the fanout, or with no fanout (every
// neighbour) the picks of its rows of this rank's block scaled to all its
// rows.
func (d *DistRows) groupPicks(dm sampling.LayerDemand, j int) (int64, int64) {
	var rows int64
	for mb := dm.Groups[j]; mb < dm.Groups[j+1]; mb++ {
		rows += int64(dm.Start[mb+1] - dm.Start[mb])
		if dm.Skip != nil {
			rows -= int64(dm.Skip[mb])
		}
	}
	if dm.Fanout > 0 {
		return rows, rows * int64(dm.Fanout)
	}
	f := d.markGroup(dm, j)
	if f.own == 0 {
		return rows, rows
	}
	return rows, int64(f.picks * float64(rows) / f.own)
}

// pushBatched cuts the groups of dm into push batches, consecutive groups
// while the bound of their picks stays within the push budget, and calls
// each with its first group and its expanded rows.
func (d *DistRows) pushBatched(dm sampling.LayerDemand, each func(j int, rows int64)) {
	budget := d.pushWords()
	var est, rows int64
	first := 0
	for j := range len(dm.Groups) - 1 {
		r, w := d.groupPicks(dm, j)
		if j > 0 && est+w > budget {
			each(first, rows)
			first, est, rows = j, 0, 0
		}
		est += w
		rows += r
	}
	each(first, rows)
}

// pushBatches cuts the groups of a pushed layer into the batches one
// FetchPicks brings in, appending their boundaries to dst[:0]:
// consecutive groups while the bound of their picks stays within the push
// budget (SetBatchBytes). A batch of
// one group may exceed it: FetchPicks then brings it in several rounds.
func (d *DistRows) pushBatches(dm sampling.LayerDemand, dst []int) []int {
	dst = dst[:0]
	d.pushBatched(dm, func(j int, _ int64) { dst = append(dst, j) })
	return append(dst, len(dm.Groups)-1)
}

// pushRoundsOf returns the push rounds of dm: FetchPicks' rounds of each
// batch of pushBatches.
func (d *DistRows) pushRoundsOf(dm sampling.LayerDemand) int {
	n := 0
	d.pushBatched(dm, func(_ int, rows int64) { n += d.pushRounds(rows, dm.Fanout) })
	return n
}

// Exchange returns the row exchange the DistRows reads through.
func (d *DistRows) Exchange() *dist.RowExchange { return d.x }

// NumVertices returns n.
func (d *DistRows) NumVertices() int { return d.x.NumVertices() }

// Row returns row v: a local row, or one fetched by the last FetchRows
// (pull). It panics if v is neither.
func (d *DistRows) Row(v int32) ([]int32, []float32) { return d.x.Row(v) }

// RowSpan returns where row v, local or fetched, lies in Packed's arrays.
func (d *DistRows) RowSpan(v int32) (int64, int32) { return d.x.RowSpan(v) }

// Packed returns the local block's arrays and the fetched rows' (values
// nil unless fetched).
func (d *DistRows) Packed() sampling.PackedArrays {
	local := d.x.Matrix().Local
	ind, val, base := d.x.Packed()
	p := sampling.PackedArrays{Ind: local.Indices, Base: base, FarInd: ind, FarVal: val}
	if d.x.Values() {
		p.Val = local.Data
	}
	return p
}

// FetchRows brings the rows of vertices (distinct) in: one pull round.
func (d *DistRows) FetchRows(ctx context.Context, vertices []int32) error {
	return d.x.Fetch(ctx, vertices)
}

// Degrees sets deg[i] to the length of row vertices[i] of A
// (sampling.DegreeSource): local rows are read in place, the others asked
// of their owners in one round, answered with the lengths alone. It leaves
// the rows fetched by the last FetchRows in place. Every rank of the column
// must be in SampleBulk or Drain meanwhile, as for any round.
func (d *DistRows) Degrees(ctx context.Context, vertices []int32, deg []int32) error {
	return d.x.Degrees(ctx, vertices, deg)
}

// FetchPicks has the owners of req's rows select them
// (sampling.RemoteRows): push rounds whose arguments are the request's
// epoch, layer and fanout and each row's minibatch, each of at most the
// push budget's picks (SetBatchBytes: rows times the fanout; one round
// without a fanout), their answers back to back. It writes them into req's
// own Count, Picks and Values, reused when large enough, so that the
// answers of another request stay valid (SetOverlap).
func (d *DistRows) FetchPicks(ctx context.Context, req *sampling.PickRequest) error {
	args := [3]int64{int64(req.Epoch), int64(req.Layer), int64(req.Fanout)}
	res := dist.CallResult{Count: req.Count[:0], Items: req.Picks[:0], Values: req.Values[:0]}
	n, per := len(req.Vertex), d.roundRows(req.Fanout)
	for lo := 0; lo < n || lo == 0; lo += per {
		hi := min(lo+per, n)
		err := d.x.CallAppend(ctx, &res, kindPicks, args, req.Vertex[lo:hi], req.Minibatch[lo:hi])
		req.Count, req.Picks = res.Count, res.Items
		if res.Values != nil {
			req.Values = res.Values
		}
		if err != nil {
			return err
		}
	}
	if res.Values == nil {
		req.Values = req.Values[:0]
	}
	return nil
}

// roundRows returns the most rows of one push round of fanout s: the push
// budget's picks over s, or every row without a fanout.
func (d *DistRows) roundRows(s int) int {
	if s <= 0 {
		return math.MaxInt
	}
	return int(max(d.pushWords()/int64(s), 1))
}

// pushRounds returns the push rounds of a batch of rows expanded rows
// (FetchPicks).
func (d *DistRows) pushRounds(rows int64, s int) int {
	per := int64(d.roundRows(s))
	return int(max((rows+per-1)/per, 1))
}

// Drain serves the other ranks of the column until every one of them has
// finished its own rounds. Call it after this rank's work of a bulk.
func (d *DistRows) Drain(ctx context.Context) error { return d.x.Drain(ctx) }

// pickService is the push layer: the owner of a row selects its picks
// exactly as the sampler would (a sampling.RowPicker per serving goroutine) for
// the requester's epoch, layer, fanout and minibatch.
type pickService struct{ p []*sampling.RowPicker }

func (s pickService) Serve(w int, args [3]int64, m *dist.Matrix, gids, mbs []int32, counts []int32, picks []int32, pvals []float32) ([]int32, []float32) {
	return s.p[w].PickRows(int(args[0]), int(args[1]), int(args[2]), m.Local, m.Lo, gids, mbs, counts, picks, pvals)
}

func (s pickService) Values() bool { return s.p[0].HasValues() }
