package train

// Data-parallel training (docs/design.md section 4): every rank trains its share
// of every global minibatch and the gradients are averaged with one
// all-reduce per step.

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/sampling"
)

// Sharder is an optional capability of a GradReducer whose ranks split every
// global minibatch between them: the trainer of each rank then trains on
// Shard of each minibatch of the plan (keeping the minibatch's global index,
// so that its sample is the single process's), and keys its dropout masks
// with Part, so that ranks draw independent masks.
type Sharder interface {
	// Shard returns this rank's part of the seeds of one global minibatch,
	// a subslice of seeds; it may be empty (the rank then takes a
	// zero-weight step).
	Shard(seeds []int32) []int32
	// Part returns the number of this rank's part, in [0, number of parts).
	Part() int
}

// DataParallel is the GradReducer of data-parallel training on the ranks of
// a dist.Comm, and their Sharder: the B seeds of each global minibatch are
// cut into Size() contiguous parts (rank r takes dist.BlockRange(B, p, r)),
// every rank computes the gradient of the mean loss of its part, and Reduce
// turns these into the gradient of the mean loss of the whole minibatch:
//
//	g = (Σ_r L_r·g_r) / Σ_r L_r
//
// where L_r is rank r's labelled seed count and L_r·g_r the gradient of its
// sum of losses. The gradients (scaled by L_r) and the step's metrics travel
// in one flat []float32 buffer, in one Allreduce (sum) per step under
// dist.PhaseGradients: len(grads)+4 floats, the three metrics and the
// stop requests (StepMetrics.Stops) last, so that the ranks agree on a stop
// with no collective of its own. A rank
// whose part is empty (or unlabelled) contributes zeros but still calls
// Reduce, so that every rank makes the same collective calls.
//
// The result equals the single-process gradient of the same global
// minibatch up to float32 rounding (the sums are ordered differently), for
// every sampler whose sample of a seed does not depend on the other seeds of
// its minibatch (node-wise sampling; not LADIES or FastGCN, whose layers are
// drawn per minibatch), with dropout drawn independently per part. Every
// rank gets the same bits (dist.Comm's Allreduce promises it), so the
// parameters stay identical on every rank (ParamHash checks it).
//
// A DataParallel is used by one goroutine (the trainer's).
type DataParallel struct {
	comm dist.Comm
	buf  []float32
}

var (
	_ GradReducer = (*DataParallel)(nil)
	_ Sharder     = (*DataParallel)(nil)
	_ CommUser    = (*DataParallel)(nil)
)

// NewDataParallel returns the data-parallel reducer over the ranks of c.
func NewDataParallel(c dist.Comm) *DataParallel { return &DataParallel{comm: c} }

// Comm returns the communicator of the all-reduce (CommUser).
func (d *DataParallel) Comm() dist.Comm { return d.comm }

// Size returns the number of ranks; Rank this rank's.
func (d *DataParallel) Size() int { return d.comm.Size() }
func (d *DataParallel) Rank() int { return d.comm.Rank() }

// Part returns this rank's number.
func (d *DataParallel) Part() int { return d.comm.Rank() }

// Shard returns seeds[lo:hi] for this rank's run (lo, hi) of
// dist.BlockRange(len(seeds), Size(), Rank()).
func (d *DataParallel) Shard(seeds []int32) []int32 {
	lo, hi := dist.BlockRange(len(seeds), d.comm.Size(), d.comm.Rank())
	return seeds[lo:hi:hi]
}

// metricFloats is the number of metrics that follow the gradients in the
// reduced buffer: StepMetrics.Floats, then Stops.
const metricFloats = 4

// Reduce replaces grads, the gradient of this rank's mean loss, by the
// gradient of the global minibatch's mean loss, and *m by the sum of every
// rank's metrics, Stops included. It returns the communicator's error; with the in-process
// backend an aborted job returns dist.ErrAborted on every rank, and under
// MPI a failed call aborts the job.
func (d *DataParallel) Reduce(ctx context.Context, grads []float32, m *StepMetrics) error {
	n := len(grads)
	if cap(d.buf) < n+metricFloats {
		d.buf = make([]float32, n+metricFloats)
	}
	buf := d.buf[:n+metricFloats]
	if w := float32(m.Labelled); w == 0 {
		// A zero-weight step: zeros, whatever stale values grads holds
		// (0·Inf would be NaN).
		clear(buf[:n])
	} else {
		for i, g := range grads {
			buf[i] = g * w
		}
	}
	f := m.Floats()
	for i, v := range f {
		buf[n+i] = float32(v)
	}
	buf[n+len(f)] = float32(m.Stops)
	if err := d.comm.Allreduce(ctx, dist.PhaseGradients, dist.OpSum, buf); err != nil {
		return fmt.Errorf("train: gradient all-reduce of %d floats: %w", len(buf), err)
	}
	for i := range f {
		f[i] = float64(buf[n+i])
	}
	// Counts below 2^24 per step are exact in float32; round anyway so that
	// a count never truncates to one less.
	f[1], f[2] = math.Round(f[1]), math.Round(f[2])
	m.SetFloats(f)
	m.Stops = int64(math.Round(float64(buf[n+len(f)])))
	if m.Labelled == 0 {
		clear(grads) // no labelled seed anywhere: the single process's zero gradient
		return nil
	}
	inv := 1 / float32(m.Labelled)
	for i := range grads {
		grads[i] = buf[i] * inv
	}
	return nil
}

// CheckReplicas returns an error naming the ranks of c whose model
// parameters differ from rank 0's (compared by gnn.Model.ParamHash): the
// replicas of a data-parallel run must hold the same bits after every
// step. It is collective over c.
func CheckReplicas(ctx context.Context, m *gnn.Model, c dist.Comm) error {
	p := c.Size()
	all := make([]int64, p)
	counts := make([]int, p)
	for i := range counts {
		counts[i] = 1
	}
	if err := c.Allgatherv(ctx, dist.PhaseControl, []int64{int64(m.ParamHash())}, all, counts); err != nil {
		return fmt.Errorf("train: compare the parameters of the ranks: %w", err)
	}
	var bad []int
	for r, h := range all {
		if h != all[0] {
			bad = append(bad, r)
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("train: the parameters of rank(s) %v differ from rank 0's (hash %016x): data-parallel replicas diverged", bad, uint64(all[0]))
	}
	return nil
}

// shardedEpoch returns the minibatches this trainer trains in epoch: the
// plan's, or, with a Sharder reducer, this rank's part of each (the same
// number of minibatches on every rank, some possibly empty).
func (t *Trainer) shardedEpoch(epoch int) *sampling.EpochPlan {
	ep := t.plan.Epoch(epoch)
	if s, ok := t.data.Reducer.(Sharder); ok {
		for i, mb := range ep.Minibatches {
			ep.Minibatches[i] = s.Shard(mb)
		}
	}
	return ep
}

// part returns the number of this trainer's part of every minibatch (0
// without a Sharder), which keys its dropout masks.
func (t *Trainer) part() int {
	if s, ok := t.data.Reducer.(Sharder); ok {
		return s.Part()
	}
	return 0
}

// ranker is implemented by reducers that know their ranks (DataParallel).
type ranker interface {
	Rank() int
	Size() int
}

// ranks returns the number of ranks training together: the reducer's, or 1.
func (t *Trainer) ranks() int {
	if r, ok := t.data.Reducer.(ranker); ok {
		return r.Size()
	}
	return 1
}

// writesCheckpoints reports whether this trainer writes the checkpoints:
// on one process it does, in data-parallel training rank 0 alone does (the
// parameters are the same on every rank).
func (t *Trainer) writesCheckpoints() bool {
	r, ok := t.data.Reducer.(ranker)
	return !ok || r.Rank() == 0
}

// ranksKey is the checkpoint's record of the number of ranks that wrote it
// (absent from checkpoints of single-process runs before it existed).
const ranksKey = "ranks"

// checkRanks returns an error naming both counts when the checkpoint ck at
// path was written by a run on another number of ranks: the minibatches'
// parts, hence the dropout masks and the float sums, depend on it, so that
// such a resume would not continue the same run.
func (t *Trainer) checkRanks(ck *checkpoint, path string) error {
	got := 1
	if s, ok := ck.Config[ranksKey]; ok {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return fmt.Errorf("train: checkpoint %s: %s=%q is not a number of ranks", path, ranksKey, s)
		}
		got = n
	}
	if want := t.ranks(); got != want {
		return fmt.Errorf("train: checkpoint %s was written by a run on %d rank(s); this run has %d: resume with %d", path, got, want, got)
	}
	return nil
}
