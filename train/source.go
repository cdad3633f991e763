package train

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/spgemm"
)

// A Source is where a rank of a distributed run reads its data (NewDist):
// a file or folder (Path), a dataset every rank holds in memory (Whole), or
// blocks the rank has loaded itself (Blocks).
type Source interface {
	// load reads this rank's data, building the grid of c replicas over
	// world on the way (dist.NewGrid is collective, and needs the vertex
	// count). whole asks for every row of the graph and the features.
	load(ctx context.Context, world dist.Comm, c int, whole bool, threads int) (*rankData, *dist.Grid, error)
}

// rankData is what one rank holds of the dataset.
type rankData struct {
	info  Info
	lo    int
	hi    int
	whole bool        // adj and feat hold every row
	adj   *spgemm.CSR // rows [lo, hi) of the graph, or all of them (whole)
	feat  []float32   // the feature rows of adj's rows
	// labels has one entry per vertex of the graph: those of the rank's
	// block and of the training vertices, -1 elsewhere when the rank
	// holds a block (all of them when it holds the whole dataset).
	labels             []int32
	train, valid, test []int32
	owned              bool // feat is the rank's own (not the caller's) memory
	allLabels          bool // labels holds every vertex's (the caller's array)
	blockOnly          bool // read by blocks, without the rest of the file
	closers            closers
}

// close releases what the rank's data holds (mappings).
func (r *rankData) close() error { return r.closers.close() }

// closers release what was made, in the order made.
type closers []func() error

// close calls the closers newest first, once.
func (c *closers) close() error {
	var errs []error
	for _, f := range slices.Backward(*c) {
		errs = append(errs, f())
	}
	*c = nil
	return errors.Join(errs...)
}

// block returns the rank's rows [lo, hi) of the graph (a view of adj, or
// a copy of its rows when adj is the whole graph).
func (r *rankData) block() *spgemm.CSR {
	if !r.whole {
		return r.adj
	}
	rows := make([]int32, r.hi-r.lo)
	for i := range rows {
		rows[i] = int32(r.lo + i)
	}
	return spgemm.GatherRows(r.adj, rows, 0)
}

// blockFeatures returns the feature rows [lo, hi).
func (r *rankData) blockFeatures() []float32 {
	if !r.whole {
		return r.feat
	}
	f := r.info.Features
	return r.feat[r.lo*f : r.hi*f]
}

// Path is the Source of the dataset at path (any format package dataset
// reads), loaded with opt (nil: the defaults). A rank of a Split run reads
// only its blocks of the graph, the features and the labels where the
// format allows (dataset.LoadRowBlock, LoadFeatureBlock, LoadLabelBlock),
// and the whole file otherwise; a rank that needs the whole dataset
// (Replicated, or rank 0 with EvalGathered) reads it whole.
func Path(path string, opt *dataset.LoadOptions) Source { return pathSource{path, opt} }

type pathSource struct {
	path string
	opt  *dataset.LoadOptions
}

func (s pathSource) load(ctx context.Context, world dist.Comm, c int, whole bool, threads int) (*rankData, *dist.Grid, error) {
	opt := dataset.LoadOptions{Threads: threads}
	if s.opt != nil {
		opt = *s.opt
	}
	if world.Rank() != 0 {
		opt.Progress = nil // rank 0 alone reports
	}
	gr, err := LoadGraph(ctx, world, s.path, c, &GraphOptions{Whole: whole, Load: &opt})
	if err != nil {
		return nil, nil, err
	}
	g := gr.Grid
	if whole {
		r := wholeData(gr.Dataset, g)
		r.owned = true
		r.closers = append(r.closers, gr.data.close)
		return r, g, nil
	}
	lo, hi := g.MyRows()
	rows := func(int) (int, int) { return int(lo), int(hi) }
	r := &rankData{owned: true, lo: int(lo), hi: int(hi), adj: gr.Adj, closers: closers{gr.data.close}}
	fail := func(err error) (*rankData, *dist.Grid, error) {
		r.close()
		g.Close()
		return nil, nil, err
	}
	lb, labelsOK, err := dataset.LoadLabelBlock(ctx, s.path, rows, &opt)
	if err != nil {
		return fail(err)
	}
	r.info = Info{Name: lb.Name, Nodes: gr.N, Edges: gr.NNZ, Classes: lb.NumClasses, Train: len(lb.Train), Valid: len(lb.Valid), Test: len(lb.Test)}
	r.train, r.valid, r.test = lb.Train, lb.Valid, lb.Test
	r.labels = blockLabels(gr.N, lb)
	fb, err := dataset.LoadFeatureBlock(ctx, s.path, rows)
	if err != nil {
		return fail(err) // training needs features
	}
	r.closers = append(r.closers, fb.Close)
	r.feat, r.info.Features = fb.Features, fb.NumFeatures
	r.blockOnly = gr.BlockOnly && labelsOK
	return r, g, nil
}

// blockLabels returns the n labels of which lb holds the block: lb's, and
// -1 elsewhere.
func blockLabels(n int, lb *dataset.LabelBlock) []int32 {
	if lb.Labels == nil {
		return nil
	}
	labels := make([]int32, n)
	for i := range labels {
		labels[i] = -1
	}
	copy(labels[lb.Lo:], lb.Labels)
	return labels
}

// Whole is the Source of a dataset that every rank holds in memory (a
// generated one, a small one every rank reads whole): each rank keeps
// views of the rows it uses, and copies of the feature rows it normalises
// (Options.NormFeatures), so that ranks of one process may share ds.
func Whole(ds *dataset.Dataset) Source { return wholeSource{ds} }

type wholeSource struct{ ds *dataset.Dataset }

func (s wholeSource) load(ctx context.Context, world dist.Comm, c int, whole bool, _ int) (*rankData, *dist.Grid, error) {
	g, err := dist.NewGrid(ctx, world, c, s.ds.NumNodes())
	if err != nil {
		return nil, nil, err
	}
	r := wholeData(s.ds, g)
	if !whole {
		r.adj, r.feat, r.whole = r.block(), r.blockFeatures(), false
	}
	return r, g, nil
}

// wholeData returns the rank's data of the whole dataset ds on g. Sparse
// features (ds.SparseFeatures) are made dense: the distributed feature
// store and evaluation read dense rows.
func wholeData(ds *dataset.Dataset, g *dist.Grid) *rankData {
	lo, hi := g.MyRows()
	r := &rankData{lo: int(lo), hi: int(hi), whole: true, allLabels: true, adj: ds.Adj, feat: ds.DenseFeatures(), labels: ds.Labels,
		train: ds.Train, valid: ds.Valid, test: ds.Test,
		info: Info{Name: ds.Name, Nodes: ds.NumNodes(), Features: ds.NumFeatures, Classes: ds.NumClasses,
			Train: len(ds.Train), Valid: len(ds.Valid), Test: len(ds.Test)}}
	if ds.Adj != nil {
		r.info.Edges = ds.Adj.NNZ()
	}
	return r
}

// Blocks is the Source of blocks a rank has loaded itself (with the rows
// of a grid of the run's shape: dist.NewGrid with the run's replication,
// MyRows): its block of the graph's rows, of the feature rows (nil: none)
// and of the labels with the whole split. NewDist returns an error when a
// block is not this rank's or the run needs the whole dataset on this rank
// (Replicated, or rank 0 with EvalGathered). The blocks stay the caller's:
// close them after the run.
func Blocks(graph *dataset.RowBlock, features *dataset.FeatureBlock, labels *dataset.LabelBlock) Source {
	return blockSource{graph, features, labels}
}

type blockSource struct {
	graph    *dataset.RowBlock
	features *dataset.FeatureBlock
	labels   *dataset.LabelBlock
}

func (s blockSource) load(ctx context.Context, world dist.Comm, c int, whole bool, _ int) (*rankData, *dist.Grid, error) {
	if s.graph == nil || s.labels == nil {
		return nil, nil, errors.New("train: Blocks: nil graph or label block")
	}
	if whole {
		return nil, nil, fmt.Errorf("train: Blocks: rank %d needs the whole dataset (a Replicated layout, or rank 0 with EvalGathered); use Path or Whole", world.Rank())
	}
	n := s.graph.N
	g, err := dist.NewGrid(ctx, world, c, n)
	if err != nil {
		return nil, nil, err
	}
	lo, hi := g.MyRows()
	r := &rankData{lo: int(lo), hi: int(hi), adj: s.graph.Adj, train: s.labels.Train, valid: s.labels.Valid, test: s.labels.Test,
		labels: blockLabels(n, s.labels), blockOnly: true,
		info: Info{Name: s.labels.Name, Nodes: n, Edges: s.graph.NNZ, Classes: s.labels.NumClasses,
			Train: len(s.labels.Train), Valid: len(s.labels.Valid), Test: len(s.labels.Test)}}
	bad := func(what string, blo, bhi, bn int) error {
		g.Close()
		return fmt.Errorf("train: Blocks: rank %d: the %s block holds rows [%d, %d) of %d; this rank's are [%d, %d) of %d", g.Rank(), what, blo, bhi, bn, lo, hi, n)
	}
	if s.graph.Lo != r.lo || s.graph.Hi != r.hi {
		return nil, nil, bad("graph", s.graph.Lo, s.graph.Hi, n)
	}
	if s.labels.Lo != r.lo || s.labels.Hi != r.hi || s.labels.N != n {
		return nil, nil, bad("label", s.labels.Lo, s.labels.Hi, s.labels.N)
	}
	if f := s.features; f != nil {
		if f.Lo != r.lo || f.Hi != r.hi || f.N != n {
			return nil, nil, bad("feature", f.Lo, f.Hi, f.N)
		}
		r.feat, r.info.Features = f.Features, f.NumFeatures
	}
	if r.info.Edges, err = totalEntries(ctx, world, c, r.info.Edges, r.adj.NNZ()); err != nil {
		g.Close()
		return nil, nil, err
	}
	return r, g, nil
}
