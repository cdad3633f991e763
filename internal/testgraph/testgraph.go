// Package testgraph makes the small labelled graphs that the tests of
// packages gnn and train train and infer on, so that both test the same
// data. It is a test kit: no library package imports it (it imports
// dataset and featurex, which internal/ helpers otherwise never do).
package testgraph

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/internal/testenv"
	"github.com/bulksample/bulksample/spgemm"
)

// Small returns a labelled graph of n vertices in classes communities
// where each vertex has about deg neighbours, a fraction homophily of them in
// its own class, and features whose class signal is weak (signal) against
// unit Gaussian noise, so that the graph helps. Vertices are split
// 50/25/25 into train, valid and test.
func Small(t testing.TB, n, classes, deg, f int, homophily, signal float64, seed uint64) *dataset.Dataset {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 99))
	labels := make([]int32, n)
	byClass := make([][]int32, classes)
	for v := range labels {
		labels[v] = int32(v % classes)
		byClass[v%classes] = append(byClass[v%classes], int32(v))
	}
	var src, dst []int32
	for v := range n {
		for range deg / 2 {
			u := int32(rng.IntN(n))
			if rng.Float64() < homophily {
				c := byClass[labels[v]]
				u = c[rng.IntN(len(c))]
			}
			src, dst = append(src, int32(v)), append(dst, u)
		}
	}
	adj, err := spgemm.FromCOO(n, n, src, dst, nil, &spgemm.COOOptions{Symmetrize: true, Duplicates: spgemm.KeepFirst, DropSelfLoops: true})
	if err != nil {
		t.Fatal(err)
	}
	feats := make([]float32, n*f)
	for v := range n {
		for j := range f {
			x := rng.NormFloat64()
			if j%classes == int(labels[v]) {
				x += signal
			}
			feats[v*f+j] = float32(x)
		}
	}
	ds := &dataset.Dataset{Name: "small", Adj: adj, Features: feats, NumFeatures: f, Labels: labels, NumClasses: classes}
	perm := rng.Perm(n)
	for i, v := range perm {
		switch {
		case i < n/2:
			ds.Train = append(ds.Train, int32(v))
		case i < 3*n/4:
			ds.Valid = append(ds.Valid, int32(v))
		default:
			ds.Test = append(ds.Test, int32(v))
		}
	}
	for _, s := range [][]int32{ds.Train, ds.Valid, ds.Test} {
		slices.Sort(s)
	}
	return ds
}

// Shared loads ../shared/data/<name>.npz next to the repository, from a
// test of a package one folder below the repository's root, with its
// default split (stratified: 20 labelled vertices per class for training,
// 500 valid, 1000 test) and row-normalised features (the Planetoid
// protocol), or skips the test when the file is absent (fails it in CI).
func Shared(t *testing.T, name string) *dataset.Dataset {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("..", "..", "shared", "data", name+".npz"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		testenv.MissingData(t, "%s not available (%v): this accuracy test needs %s", name, err, path)
	}
	ds, err := dataset.Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := featurex.NormalizeRows(ds.Features, ds.NumFeatures); err != nil {
		t.Fatal(err)
	}
	if len(ds.Train) != 20*ds.NumClasses || len(ds.Valid) != 500 || len(ds.Test) != 1000 {
		t.Fatalf("%s split: %d/%d/%d vertices; want %d/500/1000", name, len(ds.Train), len(ds.Valid), len(ds.Test), 20*ds.NumClasses)
	}
	return ds
}
