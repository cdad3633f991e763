package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// workload is one configuration's sampled minibatches with their inputs:
// what both sides train on.
type workload struct {
	cfg     configSpec
	ds      *dataset.Dataset
	mbs     []sampling.Minibatch
	inputs  []gnn.Input
	labels  [][]int32
	edges   int64 // sampled edges of the minibatches
	srcRows []int // input vertices per minibatch
}

// configSpec describes a configuration: the graph and the model.
type configSpec struct {
	Name     string  `json:"name"`
	Layers   int     `json:"layers"`
	Hidden   int     `json:"hidden"`
	Fanouts  []int   `json:"fanouts"`
	Batch    int     `json:"batch"`
	Dropout  float32 `json:"dropout"`
	LR       float64 `json:"lr"`
	Features int     `json:"features"`
	Classes  int     `json:"classes"`
}

// sample builds the graph of c and samples n minibatches of epoch 0 with
// their features (CSR rows when the store keeps them sparse, as the Trainer
// gathers them) and labels.
func sample(ctx context.Context, c *config, spec configSpec, n int) (*workload, error) {
	var ds *dataset.Dataset
	var err error
	switch spec.Name {
	case "products":
		ds, err = dataset.PlantedPartition(dataset.PlantedPartitionOptions{Nodes: c.nodes, Classes: 47, Features: 100,
			AvgDegree: 50, Split: "random:0.08,0.02,0.9", Seed: c.seed, Threads: c.threads})
	case "cora":
		ds, err = dataset.Load(c.cora, nil)
		if err == nil {
			err = featurex.NormalizeRows(ds.Features, ds.NumFeatures)
		}
	}
	if err != nil {
		return nil, err
	}
	spec.Features, spec.Classes = ds.NumFeatures, ds.NumClasses
	s, err := sampling.NewNodeWise(ds.Adj, sampling.NodeWiseOptions{Fanouts: spec.Fanouts, Seed: c.seed, Threads: c.threads})
	if err != nil {
		return nil, err
	}
	plan, err := sampling.NewPlan(ds.Train, sampling.PlanOptions{BatchSize: spec.Batch, BulkSize: n, Seed: c.seed})
	if err != nil {
		return nil, err
	}
	first, seeds := plan.Epoch(0).Bulk(0)
	bulk, err := s.SampleBulk(ctx, 0, first, seeds)
	if err != nil {
		return nil, err
	}
	store, err := featurex.NewLocal(ds.Features, ds.NumFeatures, featurex.LocalOptions{Threads: c.threads})
	if err != nil {
		return nil, err
	}
	w := &workload{cfg: spec, ds: ds}
	for i := range bulk.Len() {
		mb := bulk.Minibatch(i)
		if len(mb.Seeds) < spec.Batch {
			break // a short last minibatch would skew the medians
		}
		in := mb.InputNodes()
		var x gnn.Input
		if store.Sparse() {
			x.Sparse = &spgemm.CSR{}
			if err := store.GatherCSR(ctx, x.Sparse, in); err != nil {
				return nil, err
			}
		} else {
			x.Dense = make([]float32, len(in)*ds.NumFeatures)
			if err := store.Gather(ctx, x.Dense, in); err != nil {
				return nil, err
			}
		}
		y := make([]int32, len(mb.Seeds))
		featurex.Labels(y, ds.Labels, mb.Seeds)
		w.mbs = append(w.mbs, mb)
		w.inputs = append(w.inputs, x)
		w.labels = append(w.labels, y)
		w.srcRows = append(w.srcRows, len(in))
		for _, b := range mb.Blocks {
			w.edges += b.Adj.NNZ()
		}
	}
	if len(w.mbs) == 0 {
		return nil, fmt.Errorf("%s: no full minibatch of %d seeds (%d training vertices)", spec.Name, spec.Batch, len(ds.Train))
	}
	return w, nil
}

// The export format, read by peer.py: a directory with manifest.json and
// one little-endian binary file per array, named in the manifest.
type manifest struct {
	Config      configSpec        `json:"config"`
	Minibatches []exportMinibatch `json:"minibatches"`
	// Params are bulksample's initial parameters (float32, laid out as
	// gnn.Model.Params) and RefLogits its logits of minibatch 0 without
	// dropout (float32): the peer starts from the former and checks its
	// forward pass against the latter.
	Params    string `json:"params"`
	RefLogits string `json:"ref_logits"`
}

type exportMinibatch struct {
	// Blocks in the order the model applies them: the input layer's first.
	Blocks []exportCSR `json:"blocks"`
	// X is the input features: Dense (rows x features float32) or Sparse.
	XRows   int        `json:"x_rows"`
	XDense  string     `json:"x_dense,omitempty"`
	XSparse *exportCSR `json:"x_sparse,omitempty"`
	Labels  string     `json:"labels"` // int32, one per seed
}

type exportCSR struct {
	Rows    int    `json:"rows"`
	Cols    int    `json:"cols"`
	Indptr  string `json:"indptr"`  // int64
	Indices string `json:"indices"` // int32
	Data    string `json:"data"`    // float32
}

// export writes w, the initial parameters and the reference logits to dir
// in the format above.
func export(dir string, w *workload, params, logits []float32) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	m := manifest{Config: w.cfg}
	write := func(name string, v any) (string, error) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return "", err
		}
		if err := binary.Write(f, binary.LittleEndian, v); err != nil {
			f.Close()
			return "", fmt.Errorf("write %s: %w", name, err)
		}
		return name, f.Close()
	}
	writeCSR := func(prefix string, a *spgemm.CSR) (*exportCSR, error) {
		e := &exportCSR{Rows: a.Rows, Cols: a.Cols}
		var err error
		if e.Indptr, err = write(prefix+"_indptr.i64", a.Indptr[:a.Rows+1]); err != nil {
			return nil, err
		}
		if e.Indices, err = write(prefix+"_indices.i32", a.Indices); err != nil {
			return nil, err
		}
		if e.Data, err = write(prefix+"_data.f32", a.Data); err != nil {
			return nil, err
		}
		return e, nil
	}
	for i := range w.mbs {
		mb := &w.mbs[i]
		var em exportMinibatch
		for l := len(mb.Blocks) - 1; l >= 0; l-- {
			e, err := writeCSR(fmt.Sprintf("mb%d_layer%d", i, len(mb.Blocks)-1-l), &mb.Blocks[l].Adj)
			if err != nil {
				return err
			}
			em.Blocks = append(em.Blocks, *e)
		}
		em.XRows = w.srcRows[i]
		var err error
		if x := w.inputs[i]; x.Sparse != nil {
			em.XSparse, err = writeCSR(fmt.Sprintf("mb%d_x", i), x.Sparse)
		} else {
			em.XDense, err = write(fmt.Sprintf("mb%d_x.f32", i), x.Dense)
		}
		if err != nil {
			return err
		}
		if em.Labels, err = write(fmt.Sprintf("mb%d_labels.i32", i), w.labels[i]); err != nil {
			return err
		}
		m.Minibatches = append(m.Minibatches, em)
	}
	var err error
	if m.Params, err = write("params.f32", params); err != nil {
		return err
	}
	if m.RefLogits, err = write("ref_logits.f32", logits); err != nil {
		return err
	}
	b, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "manifest.json"), b, 0o644)
}
