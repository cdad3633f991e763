package sampling

import (
	"fmt"

	"github.com/bulksample/bulksample/spgemm"
)

// Sampler methods, as command lines and configurations name them.
const (
	MethodNode    = "node"    // NodeWise (GraphSAGE neighbour sampling)
	MethodLADIES  = "ladies"  // LayerWise with LADIES
	MethodFastGCN = "fastgcn" // LayerWise with FastGCN
)

// SamplerOptions configure NewSampler: one struct for every sampler
// method. The zero value of each field means its documented default.
type SamplerOptions struct {
	// Method is MethodNode (the default when empty), MethodLADIES or
	// MethodFastGCN.
	Method string
	// Fanouts are the per-layer fanouts (node-wise; required) or column
	// budgets (layer-wise; empty means DefaultBudgets), the seeds' layer
	// first.
	Fanouts []int
	// Replace samples with replacement.
	Replace bool
	// Seed selects the random stream; Threads is the number of goroutines
	// (0: GOMAXPROCS).
	Seed    uint64
	Threads int
	// Node-wise only (an error with a layer-wise method when set):
	// NodeWiseOptions' Weighted, Frontier, MaxBulkEdges and Degrees.
	Weighted     bool
	Frontier     FrontierMode
	MaxBulkEdges int64
	Degrees      bool
	// Layer-wise only (an error with MethodNode when set): LayerWiseOptions'
	// Semibulk.
	Semibulk int
}

// Validate returns an error naming the field of o that is invalid or that
// does not apply to its method. The method's own options are checked by
// its constructor.
func (o SamplerOptions) Validate() error {
	switch o.Method {
	case "", MethodNode:
		if o.Semibulk != 0 {
			return fmt.Errorf("sampling: SamplerOptions.Semibulk = %d applies to the layer-wise methods only", o.Semibulk)
		}
	case MethodLADIES, MethodFastGCN:
		switch {
		case o.Weighted:
			return fmt.Errorf("sampling: SamplerOptions.Weighted applies to method %s only", MethodNode)
		case o.Frontier != FrontierAll:
			return fmt.Errorf("sampling: SamplerOptions.Frontier = %v applies to method %s only", o.Frontier, MethodNode)
		case o.MaxBulkEdges != 0:
			return fmt.Errorf("sampling: SamplerOptions.MaxBulkEdges applies to method %s only", MethodNode)
		case o.Degrees:
			return fmt.Errorf("sampling: SamplerOptions.Degrees applies to method %s only", MethodNode)
		}
	default:
		return fmt.Errorf("sampling: SamplerOptions.Method = %q, want %s, %s or %s", o.Method, MethodNode, MethodLADIES, MethodFastGCN)
	}
	return nil
}

// NewSampler returns the sampler of opt.Method over the n x n adjacency a:
// a NodeWise or a LayerWise. It returns an error naming the invalid field.
func NewSampler(a *spgemm.CSR, opt SamplerOptions) (Sampler, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	// The constructors' nil pointers must not become non-nil interfaces.
	if opt.Method == "" || opt.Method == MethodNode {
		nw, err := NewNodeWise(a, NodeWiseOptions{Fanouts: opt.Fanouts, Replace: opt.Replace, Weighted: opt.Weighted,
			Frontier: opt.Frontier, Seed: opt.Seed, Threads: opt.Threads, MaxBulkEdges: opt.MaxBulkEdges, Degrees: opt.Degrees})
		if err != nil {
			return nil, err
		}
		return nw, nil
	}
	method := LADIES
	if opt.Method == MethodFastGCN {
		method = FastGCN
	}
	lw, err := NewLayerWise(a, LayerWiseOptions{Method: method, Budgets: opt.Fanouts, Semibulk: opt.Semibulk,
		Replace: opt.Replace, Seed: opt.Seed, Threads: opt.Threads})
	if err != nil {
		return nil, err
	}
	return lw, nil
}

// RandomRows returns k distinct vertices of [0, n) in random order, a pure
// function of seed: the first minibatch of epoch 0 of a Plan of all n
// vertices with BatchSize k, as the first minibatch of training would be.
// Q = QPerEntry([][]int32{rows}, n) then selects those rows (Q·A). It
// returns an error unless 1 <= k <= n.
func RandomRows(n, k int, seed uint64) ([]int32, error) {
	if k < 1 || k > n {
		return nil, fmt.Errorf("sampling: RandomRows: %d rows of %d, want 1 to %d", k, n, n)
	}
	all := make([]int32, n)
	for i := range all {
		all[i] = int32(i)
	}
	plan, err := NewPlan(all, PlanOptions{BatchSize: k, Seed: seed})
	if err != nil {
		return nil, err
	}
	return plan.Epoch(0).Minibatches[0], nil
}
