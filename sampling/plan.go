package sampling

import (
	"fmt"
	"math/bits"

	"github.com/bulksample/bulksample/internal/option"
)

// Defaults of PlanOptions' zero fields.
const (
	DefaultBatchSize = 1024
	DefaultBulkSize  = 16
)

// PlanOptions configure a minibatch plan. The zero value means the defaults.
type PlanOptions struct {
	// BatchSize is the number of seed vertices per minibatch, b;
	// 0 means DefaultBatchSize.
	BatchSize int
	// BulkSize is the number of minibatches sampled together, k;
	// 0 means DefaultBulkSize.
	BulkSize int
	// Seed selects the random permutations of the epochs.
	Seed uint64
}

// Plan cuts a vertex set into the minibatches of every epoch: each epoch
// permutes the vertices (a pure function of the seed and the epoch), cuts the
// permutation into minibatches of BatchSize vertices (the last one may be
// shorter) and groups consecutive minibatches into bulks of BulkSize (the last
// one may be shorter). Nothing is dropped. A Plan is immutable and safe for
// concurrent use.
type Plan struct {
	vertices []int32 // nil for NewPlanAll's 0..n-1
	n        int     // the set's size
	opt      PlanOptions
}

// Validate returns an error naming the field when BatchSize or BulkSize is
// negative.
func (o *PlanOptions) Validate() error {
	if o.BatchSize < 0 {
		return option.Errorf("sampling", "PlanOptions", "BatchSize", o.BatchSize, "want > 0 (or 0 for the default %d)", DefaultBatchSize)
	}
	if o.BulkSize < 0 {
		return option.Errorf("sampling", "PlanOptions", "BulkSize", o.BulkSize, "want > 0 (or 0 for the default %d)", DefaultBulkSize)
	}
	return nil
}

// NewPlan returns the plan of the vertex set vertices, which it copies. The
// set may be empty (every epoch then has no minibatch) and may hold
// duplicates, which are kept. It returns an error naming the field when
// BatchSize or BulkSize is negative.
func NewPlan(vertices []int32, opt PlanOptions) (*Plan, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if opt.BatchSize == 0 {
		opt.BatchSize = DefaultBatchSize
	}
	if opt.BulkSize == 0 {
		opt.BulkSize = DefaultBulkSize
	}
	return &Plan{vertices: append([]int32(nil), vertices...), n: len(vertices), opt: opt}, nil
}

// NewPlanAll returns the plan of the vertices 0..n-1, the plan NewPlan
// returns for that list, without the list: its epochs allocate one
// n-entry permutation, where a list and NewPlan's copy of it would take
// two more (a graph without a training split samples all its vertices).
// It returns an error for a negative n or an invalid option.
func NewPlanAll(n int, opt PlanOptions) (*Plan, error) {
	if n < 0 || n > maxPlanVertices {
		return nil, fmt.Errorf("sampling: NewPlanAll: %d vertices, want 0 to %d", n, maxPlanVertices)
	}
	p, err := NewPlan(nil, opt)
	if err != nil {
		return nil, err
	}
	p.n = n
	return p, nil
}

// maxPlanVertices is the most vertices of NewPlanAll: int32 ids.
const maxPlanVertices = 1<<31 - 1

// Options returns the plan's options with the defaults filled in.
func (p *Plan) Options() PlanOptions { return p.opt }

// NumVertices returns the size of the vertex set.
func (p *Plan) NumVertices() int { return p.n }

// NumMinibatches returns the number of minibatches of every epoch,
// ceil(NumVertices / BatchSize).
func (p *Plan) NumMinibatches() int {
	return (p.n + p.opt.BatchSize - 1) / p.opt.BatchSize
}

// Coordinates of the plan's draws in the random stream. Samplers use
// minibatch indices >= 0, so -1 cannot collide with a sampling draw.
const (
	planMinibatch = -1
	planLayer     = -1
)

// Epoch returns the minibatches of epoch: a Fisher-Yates permutation of the
// vertex set whose swap at position i is drawn from the stream at
// (Seed, epoch, planMinibatch, planLayer, 0, i), cut into minibatches. It
// costs O(NumVertices) time and allocates one permuted copy of the set.
func (p *Plan) Epoch(epoch int) *EpochPlan {
	perm := p.vertices
	if perm == nil {
		perm = make([]int32, p.n)
		for i := range perm {
			perm[i] = int32(i)
		}
	} else {
		perm = append([]int32(nil), perm...)
	}
	key := NewStream(p.opt.Seed).Row(epoch, planMinibatch, planLayer, 0)
	for i := len(perm) - 1; i > 0; i-- {
		// Lemire's multiply-shift maps 64 random bits to [0, i]; its bias,
		// below 2^-32 for any int32-sized set, is far under sampling noise.
		j, _ := bits.Mul64(key.Uint64(int64(i)), uint64(i)+1)
		perm[i], perm[j] = perm[j], perm[i]
	}
	e := &EpochPlan{Epoch: epoch, BulkSize: p.opt.BulkSize}
	b := p.opt.BatchSize
	e.Minibatches = make([][]int32, 0, p.NumMinibatches())
	for lo := 0; lo < len(perm); lo += b {
		hi := min(lo+b, len(perm))
		e.Minibatches = append(e.Minibatches, perm[lo:hi:hi])
	}
	return e
}

// EpochPlan is the sequence of minibatches of one epoch. Minibatches[i] holds
// the seed vertices of global minibatch i.
type EpochPlan struct {
	Epoch       int
	BulkSize    int
	Minibatches [][]int32
}

// NumBulks returns the number of bulks, ceil(len(Minibatches) / BulkSize).
func (e *EpochPlan) NumBulks() int {
	k := max(e.BulkSize, 1)
	return (len(e.Minibatches) + k - 1) / k
}

// Truncate keeps the first n seeds of the epoch in order: the minibatches
// before the one holding seed n stay whole, that one is cut after it, and
// the rest are dropped. n <= 0, or n at least the epoch's seed count, keeps
// everything. Benchmarks and the CLI's --seeds sample a prefix of an epoch
// this way, so a truncated run's minibatches are those of the full epoch.
func (e *EpochPlan) Truncate(n int) {
	if n <= 0 {
		return
	}
	for i, mb := range e.Minibatches {
		if n <= len(mb) {
			clear(e.Minibatches[i+1:]) // the dropped views: nothing holds on to their seeds
			e.Minibatches = e.Minibatches[:i+1]
			e.Minibatches[i] = mb[:n:n]
			return
		}
		n -= len(mb)
	}
}

// Keep keeps the seeds of the minibatches i for which keep(i) is true,
// copied into one array of their own, and empties the others (nil), so
// that the permutation they were views of is garbage: a rank that samples
// only its part of each bulk holds its seeds, not the epoch's. The
// minibatches keep their indices, so NumBulks and Bulk's first index and
// count are unchanged.
func (e *EpochPlan) Keep(keep func(i int) bool) {
	n := 0
	for i, mb := range e.Minibatches {
		if keep(i) {
			n += len(mb)
		}
	}
	kept := make([]int32, 0, n)
	for i, mb := range e.Minibatches {
		if !keep(i) {
			e.Minibatches[i] = nil
			continue
		}
		lo := len(kept)
		kept = append(kept, mb...)
		e.Minibatches[i] = kept[lo:len(kept):len(kept)]
	}
}

// Bulk returns bulk i (0 <= i < NumBulks()): the global index of its first
// minibatch and the seeds of its minibatches, which are views of
// Minibatches. It panics with an spgemm.IndexError if i is out of range.
func (e *EpochPlan) Bulk(i int) (first int, seeds [][]int32) {
	if uint(i) >= uint(e.NumBulks()) {
		panic(indexError("EpochPlan.Bulk", i, e.NumBulks()))
	}
	k := max(e.BulkSize, 1)
	first = i * k
	hi := min(first+k, len(e.Minibatches))
	return first, e.Minibatches[first:hi:hi]
}
