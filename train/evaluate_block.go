package train

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/internal/par"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/sampling/distsample"
	"github.com/bulksample/bulksample/spgemm"
)

// BlockEvaluator is the distributed evaluation of data-parallel training:
// each rank infers the vertices of its row block of A by layer-wise
// full-neighbour inference (Predict's method), reading the input features
// of its block's neighbours from Features and, at every later layer, the
// hidden rows of remote neighbours from the ranks that computed them (a
// featurex.Dist over the layer's output blocks, one all-to-all inside the
// process column per layer). The correct and counted vertices of each set
// are then summed over the ranks. No rank holds more than its block of A,
// its block of every layer's output and the rows its block reads: the
// graph never has to fit one rank.
//
// GCN takes the graph's degrees of remote neighbours from their owners
// (one exchange, the first time); GCNBlockNorm is refused, since a block
// sees only part of its columns' sums. Inputs are taken dense. The
// predictions equal Predict's on the whole graph up to float32 rounding
// (the dense products run on blocks of other shapes).
//
// Evaluate is collective on the grid of Matrix: every rank calls it; the
// process column exchanges rows, and the sums run over the whole grid (the
// replicas of a block, which compute the same rows, count once). A
// BlockEvaluator is used by one goroutine; Close frees the communicators
// of its stores of the layers' outputs, which Evaluate makes once.
type BlockEvaluator struct {
	// Matrix is this rank's block of A (row v lists the vertices v
	// aggregates from); Features gives the input features of any vertex
	// (a featurex.Dist over the same grid, or a Local copy).
	Matrix   *dist.Matrix
	Features featurex.Store

	prepared bool
	src      []int32    // the block's sources: its rows, then the remote neighbours (ascending)
	blk      spgemm.CSR // rows x len(src), columns indexing src
	deg      []int32    // GCN: graph degree of each source
	norm     []float32  // the normalised values of blk
	self     []float32  // GCN: self-loop weights
	counts   []float64  // per set: its Confusion's Floats
	pred     []int32    // the block's predictions
	score    []float64  // and, for two classes, their class-1 scores
	scoreBuf []float32  // host copy of a chunk's logits
	// The stores of the layers' outputs, by width: each serves its
	// backing array, this block's rows of the last output of that width,
	// to the other ranks of the column.
	outputs  map[int]*outputStore
	scratch  gnn.RowBlockScratch // the inference's reused memory
	normArch gnn.Arch            // the architecture norm was computed for
	normKind gnn.GCNNorm         // and its GCN normalisation
}

var _ Evaluator = (*BlockEvaluator)(nil)

// outputStore is a featurex.Dist over the block's rows of a layer output.
type outputStore struct {
	rows  []float32
	store *featurex.Dist
}

// Close frees the communicators of the stores that serve the layers'
// outputs; it is collective on the grid, as Evaluate is. Evaluate may be
// called again afterwards (the stores are then made again).
func (e *BlockEvaluator) Close() error {
	var errs []error
	for w, o := range e.outputs {
		errs = append(errs, o.store.Close())
		delete(e.outputs, w)
	}
	return errors.Join(errs...)
}

// Comms returns the communicators of the stores that serve the layers'
// outputs (made by the first Evaluate), whose counters hold the hidden
// rows' traffic.
func (e *BlockEvaluator) Comms() []dist.Comm {
	var cs []dist.Comm
	for _, o := range e.outputs {
		cs = append(cs, o.store.Comm())
	}
	return cs
}

// output returns the store of the outputs of width f, made on first use
// (collective on the grid: every rank makes the same stores in the same
// order, since every rank evaluates the same model).
func (e *BlockEvaluator) output(ctx context.Context, f int) (*outputStore, error) {
	if o, ok := e.outputs[f]; ok {
		return o, nil
	}
	o := &outputStore{rows: make([]float32, e.blk.Rows*f)}
	var err error
	if o.store, err = featurex.NewDist(ctx, e.Matrix.Grid, o.rows, f, featurex.DistOptions{}); err != nil {
		return nil, err
	}
	if e.outputs == nil {
		e.outputs = make(map[int]*outputStore)
	}
	e.outputs[f] = o
	return o, nil
}

// NumVertices returns the number of vertices of the graph.
func (e *BlockEvaluator) NumVertices() int { return e.Matrix.Grid.NumVertices() }

// prepare relabels the block's columns (once).
func (e *BlockEvaluator) prepare() {
	if e.prepared {
		return
	}
	m := e.Matrix
	a := m.Local
	rows := int(m.Hi - m.Lo)
	var remote []int32
	seen := make(map[int32]struct{})
	for _, v := range a.Indices[a.Indptr[0]:a.Indptr[rows]] {
		if v >= m.Lo && v < m.Hi {
			continue
		}
		if _, ok := seen[v]; !ok {
			seen[v] = struct{}{}
			remote = append(remote, v)
		}
	}
	slices.Sort(remote)
	e.src = make([]int32, rows, rows+len(remote))
	for i := range rows {
		e.src[i] = m.Lo + int32(i)
	}
	e.src = append(e.src, remote...)
	local := make(map[int32]int32, len(remote))
	for i, v := range remote {
		local[v] = int32(rows + i)
	}
	base, end := a.Indptr[0], a.Indptr[rows]
	e.blk = spgemm.CSR{Rows: rows, Cols: len(e.src), Indptr: make([]int64, rows+1), Data: a.Data[base:end:end],
		Indices: make([]int32, end-base)}
	for i := range e.blk.Indptr {
		e.blk.Indptr[i] = a.Indptr[i] - base
	}
	for p, v := range a.Indices[base:end] {
		if v >= m.Lo && v < m.Hi {
			e.blk.Indices[p] = v - m.Lo
		} else {
			e.blk.Indices[p] = local[v]
		}
	}
	e.prepared = true
}

// normalize forms the block's aggregation operator for m, as Predict does
// for the whole graph (gnn.Model.NormalizeRowBlock), once per architecture.
func (e *BlockEvaluator) normalize(ctx context.Context, m *gnn.Model) error {
	o := m.Options()
	arch, kind := o.Arch, o.GCNNorm
	if e.norm != nil && e.normArch == arch && e.normKind == kind {
		return nil
	}
	if arch == gnn.GCN {
		if kind != gnn.GCNGraphNorm {
			return errors.New("train: BlockEvaluator: GCN with GCNBlockNorm needs the whole graph's column sums; use RootEvaluator")
		}
		if e.deg == nil {
			if err := e.degrees(ctx); err != nil {
				return err
			}
		}
	}
	e.norm = make([]float32, len(e.blk.Data))
	e.self = make([]float32, e.blk.Rows)
	if err := m.NormalizeRowBlock(e.norm, e.self, &e.blk, e.deg); err != nil {
		return fmt.Errorf("train: BlockEvaluator: %w", err)
	}
	e.normArch, e.normKind = arch, kind
	return nil
}

// degrees sets deg to the graph degree of every source: the row lengths of
// the block for its own rows, and for the others one degrees round of the
// sampler's row exchange with their owners.
func (e *BlockEvaluator) degrees(ctx context.Context) error {
	rows := e.blk.Rows
	e.deg = make([]int32, len(e.src))
	for i := range rows {
		e.deg[i] = int32(e.blk.Indptr[i+1] - e.blk.Indptr[i])
	}
	dr, err := distsample.NewDistRows(e.Matrix, distsample.FetchPush, sampling.NodeWiseOptions{})
	if err != nil {
		return err
	}
	if err := dr.Degrees(ctx, e.src[rows:], e.deg[rows:]); err != nil {
		return fmt.Errorf("train: BlockEvaluator: degrees of %d remote neighbours: %w", len(e.src)-rows, err)
	}
	return nil
}

// Evaluate returns, for each of sets, the measures of m over the whole
// graph, every rank inferring its block (see BlockEvaluator): the counts
// of accuracy and macro-F1 summed over the ranks, and for two classes the
// ranks' scores of each set's vertices gathered for its ROC AUC. It is
// collective on the grid.
func (e *BlockEvaluator) Evaluate(ctx context.Context, m *gnn.Model, labels []int32, sets ...[]int32) ([]gnn.Measures, error) {
	g := e.Matrix.Grid
	n := g.NumVertices()
	mo := m.Options()
	if e.Features.NumVertices() != n || e.Features.NumFeatures() != mo.InFeatures || len(labels) != n {
		return nil, fmt.Errorf("train: BlockEvaluator: %d feature rows of %d, %d labels, for a graph of %d vertices and a model of %d features",
			e.Features.NumVertices(), e.Features.NumFeatures(), len(labels), n, mo.InFeatures)
	}
	if mo.Residual || mo.Norm != gnn.NormNone {
		return nil, errors.New("train: BlockEvaluator: the residual architecture (ModelOptions.Residual, Norm) is evaluated by a RootEvaluator (the gathered evaluation)")
	}
	e.prepare()
	if err := e.normalize(ctx, m); err != nil {
		return nil, err
	}
	if err := e.infer(ctx, m); err != nil {
		return nil, err
	}
	// Count this block's vertices of every set; one replica of each block
	// counts (process column 0).
	lo, hi := e.Matrix.Lo, e.Matrix.Hi
	classes := mo.Classes
	counts := make([]gnn.Confusion, len(sets))
	e.counts = e.counts[:0]
	var pts [][]gnn.ScoredLabel
	if classes == 2 {
		pts = make([][]gnn.ScoredLabel, len(sets))
	}
	for s, ids := range sets {
		counts[s] = gnn.NewConfusion(classes)
		if g.ProcCol() == 0 {
			for _, v := range ids {
				if v < lo || v >= hi || labels[v] < 0 {
					continue
				}
				y, p := labels[v], e.pred[v-lo]
				counts[s].Labelled[y]++
				counts[s].Predicted[p]++
				if p == y {
					counts[s].Correct[y]++
				}
				if pts != nil {
					pts[s] = append(pts[s], gnn.ScoredLabel{Score: e.score[v-lo], Positive: y == 1})
				}
			}
		}
		e.counts = append(e.counts, counts[s].Floats()...)
	}
	if err := g.World().Allreduce(ctx, dist.PhaseControl, dist.OpSum, e.counts); err != nil {
		return nil, fmt.Errorf("train: BlockEvaluator: sum the counts: %w", err)
	}
	out := make([]gnn.Measures, len(sets))
	for s := range sets {
		counts[s].SetFloats(e.counts[3*classes*s:])
		out[s] = counts[s].Measures()
		if pts != nil {
			all, err := gatherScores(ctx, g.World(), pts[s])
			if err != nil {
				return nil, fmt.Errorf("train: BlockEvaluator: gather the scores: %w", err)
			}
			out[s].AUC = gnn.AUCOf(all)
		}
	}
	return out, nil
}

// gatherScores returns every rank's pts, concatenated in rank order (one
// all-gather of the counts, one of the scores and labels as float64 pairs).
// It is collective over comm.
func gatherScores(ctx context.Context, comm dist.Comm, pts []gnn.ScoredLabel) ([]gnn.ScoredLabel, error) {
	p := comm.Size()
	sizes := make([]int64, p)
	sizes[comm.Rank()] = int64(2 * len(pts))
	if err := comm.Allreduce(ctx, dist.PhaseControl, dist.OpSum, sizes); err != nil {
		return nil, err
	}
	counts := make([]int, p)
	total := 0
	for r, c := range sizes {
		counts[r] = int(c)
		total += int(c)
	}
	send := make([]float64, 0, 2*len(pts))
	for _, q := range pts {
		y := 0.0
		if q.Positive {
			y = 1
		}
		send = append(send, q.Score, y)
	}
	recv := make([]float64, total)
	if err := comm.Allgatherv(ctx, dist.PhaseControl, send, recv, counts); err != nil {
		return nil, err
	}
	all := make([]gnn.ScoredLabel, total/2)
	for i := range all {
		all[i] = gnn.ScoredLabel{Score: recv[2*i], Positive: recv[2*i+1] == 1}
	}
	return all, nil
}

// infer sets pred to the predictions of the block's rows (and score to
// their class-1 scores): gnn.Model.InferRowBlock, with the layers' outputs
// served to the process column by the output stores.
func (e *BlockEvaluator) infer(ctx context.Context, m *gnn.Model) error {
	be := m.Backend()
	rows := e.blk.Rows
	full := e.blk
	full.Data = e.norm
	e.pred = par.Resize(e.pred, rows)
	if m.Options().Classes == 2 {
		e.score = par.Resize(e.score, rows)
	}
	hidden := func(ctx context.Context, li, f int) ([]float32, featurex.Store, error) {
		o, err := e.output(ctx, f)
		if err != nil {
			return nil, nil, err
		}
		return o.rows, o.store, nil
	}
	b := gnn.RowBlock{Adj: &full, Src: e.src, Self: e.self, Features: e.Features, Hidden: hidden, Scratch: &e.scratch}
	err := m.InferRowBlock(ctx, b, func(lo, hi int, logits gnn.Buf) {
		classes := logits.Len() / (hi - lo)
		be.ArgmaxRows(e.pred[lo:hi], logits, classes)
		e.scores(be, lo, hi, logits, classes)
	})
	if err != nil {
		return fmt.Errorf("train: BlockEvaluator: %w", err)
	}
	return nil
}

// scores sets the class-1 scores of rows [lo, hi) from their logits, for
// two classes (see Model.predictScored).
func (e *BlockEvaluator) scores(be gnn.Backend, lo, hi int, logits gnn.Buf, classes int) {
	if classes != 2 {
		return
	}
	z := logits.Host()
	if z == nil {
		e.scoreBuf = par.Resize(e.scoreBuf, 2*(hi-lo))
		be.Download(e.scoreBuf, logits.Slice(0, 2*(hi-lo)))
		z = e.scoreBuf
	}
	for r := range hi - lo {
		e.score[lo+r] = float64(z[2*r+1]) - float64(z[2*r])
	}
}
