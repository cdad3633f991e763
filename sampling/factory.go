package sampling

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/bulksample/bulksample/internal/option"
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
	// Semibulk, and Normalize (LADIES only: sample from
	// D^-1/2 (A+I) D^-1/2 rather than from the matrix as given).
	Semibulk  int
	Normalize bool
}

// Validate returns an *option.Error naming the field of o that is invalid
// or that does not apply to its method. The fields that apply are checked
// by the method's own options type (NodeWiseOptions.Validate,
// LayerWiseOptions.Validate), whose errors come back naming the fields of
// SamplerOptions (a layer-wise Budgets[l] as Fanouts[l]). The constructors
// check the rest: the graph, and options they alone know.
func (o SamplerOptions) Validate() error {
	bad := func(field string, value any, format string, args ...any) error {
		return option.Errorf("sampling", "SamplerOptions", field, value, format, args...)
	}
	node := o.IsNodeWise()
	switch {
	case !node && o.Method != MethodLADIES && o.Method != MethodFastGCN:
		return bad("Method", fmt.Sprintf("%q", o.Method), "want %s, %s or %s", MethodNode, MethodLADIES, MethodFastGCN)
	case node && len(o.Fanouts) == 0:
		return bad("Fanouts", "[]", "want one fanout per layer (method %s; the layer-wise methods default to DefaultBudgets)", MethodNode)
	}
	if err := o.inapplicable(); err != nil {
		return option.With(err, "Method")
	}
	if node {
		nw := o.NodeWiseOptions()
		return asSamplerOptions(nw.Validate())
	}
	lw := o.LayerWiseOptions()
	return asSamplerOptions(lw.Validate())
}

// inapplicable returns an *option.Error naming the first field of o that
// is set but does not apply to o.Method, or nil.
func (o SamplerOptions) inapplicable() error {
	bad := func(field string, value any, format string, args ...any) error {
		return option.Errorf("sampling", "SamplerOptions", field, value, format, args...)
	}
	if o.IsNodeWise() {
		switch {
		case o.Semibulk != 0:
			return bad("Semibulk", o.Semibulk, "applies to the layer-wise methods only")
		case o.Normalize:
			return bad("Normalize", true, "applies to method %s only", MethodLADIES)
		}
		return nil
	}
	switch {
	case o.Weighted:
		return bad("Weighted", true, "applies to method %s only", MethodNode)
	case o.Frontier != FrontierAll:
		return bad("Frontier", o.Frontier, "applies to method %s only (layer-wise samplers expand the whole frontier)", MethodNode)
	case o.MaxBulkEdges != 0:
		return bad("MaxBulkEdges", o.MaxBulkEdges, "applies to method %s only", MethodNode)
	case o.Degrees:
		return bad("Degrees", true, "applies to method %s only", MethodNode)
	case o.Normalize && o.Method != MethodLADIES:
		return bad("Normalize", true, "applies to method %s only", MethodLADIES)
	}
	return nil
}

// asSamplerOptions returns err, an *option.Error of NodeWiseOptions or
// LayerWiseOptions, as the same error of SamplerOptions, whose fields have
// the same names but for LayerWiseOptions.Budgets (Fanouts); nil and other
// errors are returned unchanged.
func asSamplerOptions(err error) error {
	var e *option.Error
	if !errors.As(err, &e) {
		return err
	}
	c := *e
	c.Type = "SamplerOptions"
	rename := func(f string) string {
		if rest, ok := strings.CutPrefix(f, "Budgets"); ok {
			return "Fanouts" + rest
		}
		return f
	}
	c.Field = rename(c.Field)
	if len(e.With) > 0 {
		c.With = make([]string, len(e.With))
		for i, w := range e.With {
			c.With[i] = rename(w)
		}
		c.WithPaths = slices.Clone(c.With)
	}
	return &c
}

// NewSampler returns the sampler of opt.Method over the n x n adjacency a:
// a NodeWise or a LayerWise. It returns an error naming the invalid field.
func NewSampler(a *spgemm.CSR, opt SamplerOptions) (Sampler, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	// The constructors' nil pointers must not become non-nil interfaces.
	if opt.IsNodeWise() {
		nw, err := NewNodeWise(a, opt.NodeWiseOptions())
		if err != nil {
			return nil, err
		}
		return nw, nil
	}
	lw, err := NewLayerWise(a, opt.LayerWiseOptions())
	if err != nil {
		return nil, err
	}
	return lw, nil
}

// IsNodeWise reports whether the method is node-wise (MethodNode or
// empty).
func (o *SamplerOptions) IsNodeWise() bool { return o.Method == "" || o.Method == MethodNode }

// NodeWiseOptions returns the node-wise sampler's options of o (its
// node-wise fields; the layer-wise ones are not carried over).
func (o *SamplerOptions) NodeWiseOptions() NodeWiseOptions {
	return NodeWiseOptions{Fanouts: o.Fanouts, Replace: o.Replace, Weighted: o.Weighted,
		Frontier: o.Frontier, Seed: o.Seed, Threads: o.Threads, MaxBulkEdges: o.MaxBulkEdges, Degrees: o.Degrees}
}

// LayerWiseOptions returns the layer-wise sampler's options of o: its
// Method as LADIES or FastGCN, its Fanouts as the Budgets (DefaultBudgets
// when empty).
func (o *SamplerOptions) LayerWiseOptions() LayerWiseOptions {
	method := LADIES
	if o.Method == MethodFastGCN {
		method = FastGCN
	}
	budgets := o.Fanouts
	if len(budgets) == 0 {
		budgets = DefaultBudgets()
	}
	return LayerWiseOptions{Method: method, Budgets: budgets, Semibulk: o.Semibulk,
		Replace: o.Replace, Seed: o.Seed, Threads: o.Threads, Normalize: o.Normalize}
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
	plan, err := NewPlanAll(n, PlanOptions{BatchSize: k, Seed: seed})
	if err != nil {
		return nil, err
	}
	return plan.Epoch(0).Minibatches[0], nil
}
