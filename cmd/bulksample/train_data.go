package main

// Where `bulksample train` gets its data: --data names a file or folder,
// a built-in dataset found in the shared data folders (cora, citeseer) or
// the planted-partition generator (synthetic[:k=v,...]).

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/train"
)

// checkDataSpec returns an error naming the bad option of a --data value
// that names a built-in dataset (cora:..., synthetic:nodes=abc).
func checkDataSpec(data string) error {
	name, opts, _ := strings.Cut(data, ":")
	switch name {
	case "synthetic":
		p, err := plantedOptions(opts)
		if err != nil {
			return err
		}
		// Out-of-range values too (nodes=-5 was a run error, exit 1).
		return p.Validate()
	case "cora", "citeseer":
		if opts != "" {
			return fmt.Errorf("%s takes no options", name)
		}
	}
	return nil
}

// loadTrainData resolves --data: cora and citeseer by name, synthetic
// through the planted-partition generator, anything else as a path.
func loadTrainData(ctx context.Context, e *env, c *trainConfig) (*dataset.Dataset, error) {
	name, opts, _ := strings.Cut(c.data, ":")
	switch name {
	case "synthetic":
		p, err := plantedOptions(opts)
		if err != nil {
			return nil, fmt.Errorf("--data %q: %w", c.data, err)
		}
		p.Threads = c.opt.Trainer.Runtime.Threads
		e.status(true, "generating the planted-partition dataset %q", c.data)
		return dataset.PlantedPartition(p)
	case "cora", "citeseer":
		if opts != "" {
			return nil, fmt.Errorf("--data %q: %s takes no options", c.data, name)
		}
		path, err := findBuiltinData(name)
		if err != nil {
			return nil, err
		}
		return dataset.LoadContext(ctx, path, c.loadOptions(e, path))
	}
	ds, err := dataset.LoadContext(ctx, c.data, c.loadOptions(e, c.data))
	return ds, c.dataError(err)
}

// dataError returns err, an error of reading --data as a path, saying for
// a path that does not exist that it is no built-in dataset either (a
// misspelt coraa).
func (c *trainConfig) dataError(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Stat(c.data); errors.Is(serr, fs.ErrNotExist) {
			return fmt.Errorf("--data %q: no such file or folder, nor a built-in dataset (cora, citeseer, synthetic[:k=v,...]): %w", c.data, err)
		}
	}
	return err
}

// loadOptions are the options of loading --data from the file path: the
// split of --split and --split-seed or --split-index, --symmetry, and the
// loader's progress lines, which a bar replaces on a terminal and which go
// to -v's notes elsewhere.
func (c *trainConfig) loadOptions(e *env, path string) *dataset.LoadOptions {
	lines, _ := e.loading(true, path)
	return &dataset.LoadOptions{Split: c.split, Seed: c.splitSeed, SplitIndex: c.splitIndex, Symmetry: c.symmetry,
		Threads: c.opt.Trainer.Runtime.Threads, Progress: lines}
}

// source returns where a rank of a distributed run reads --data
// (train.Path: its blocks of a file or folder; train.Whole: the generated
// dataset, which every rank generates alike) and the dataset's name (as
// dataset.Load gives it, for --norm-features auto).
func (c *trainConfig) source(ctx context.Context, e *env) (train.Source, string, error) {
	name, _, _ := strings.Cut(c.data, ":")
	path := c.data
	switch name {
	case "synthetic":
		ds, err := loadTrainData(ctx, e, c)
		if err != nil {
			return nil, "", err
		}
		return train.Whole(ds), ds.Name, nil
	case "cora", "citeseer":
		p, err := findBuiltinData(name)
		if err != nil {
			return nil, "", err
		}
		path = p
	}
	dsName, err := dataset.NameOf(path)
	if err != nil {
		return nil, "", c.dataError(err)
	}
	return train.Path(path, c.loadOptions(e, path)), dsName, nil
}

// plantedOptions parses "nodes=20000,classes=8": the options of the
// synthetic dataset. split, whose value may hold commas, must come last.
func plantedOptions(s string) (dataset.PlantedPartitionOptions, error) {
	p := dataset.PlantedPartitionOptions{Seed: 1}
	for s != "" {
		var kv string
		if strings.HasPrefix(s, "split=") {
			kv, s = s, ""
		} else {
			kv, s, _ = strings.Cut(s, ",")
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return p, fmt.Errorf("option %q: want key=value", kv)
		}
		var err error
		atoi := func(dst *int) {
			if *dst, err = strconv.Atoi(v); err != nil {
				err = errors.New("want an integer")
			}
		}
		atof := func(dst *float64) {
			if *dst, err = strconv.ParseFloat(v, 64); err != nil {
				err = errors.New("want a number")
			}
		}
		switch k {
		case "nodes":
			atoi(&p.Nodes)
		case "classes":
			atoi(&p.Classes)
		case "features":
			atoi(&p.Features)
		case "degree":
			atof(&p.AvgDegree)
		case "exponent":
			atof(&p.Exponent)
		case "homophily":
			atof(&p.Homophily)
		case "noise":
			atof(&p.Noise)
		case "seed":
			if p.Seed, err = strconv.ParseUint(v, 10, 64); err != nil {
				err = errors.New("want an integer >= 0")
			}
		case "split":
			p.Split = v
		default:
			return p, fmt.Errorf("unknown option %q (want nodes, classes, features, degree, exponent, homophily, noise, seed or split)", k)
		}
		if err != nil {
			return p, fmt.Errorf("option %s=%q: %w", k, v, err)
		}
	}
	return p, nil
}

// findSharedData returns the path of the first of files as
// dataset.FindShared finds it.
func findSharedData(files ...string) (string, error) { return dataset.FindShared(files...) }
