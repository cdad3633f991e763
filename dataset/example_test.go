package dataset_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/bulksample/bulksample/dataset"
)

// Generate an R-MAT graph, save it in the native format and load it back.
func ExampleRMAT() {
	a, err := dataset.RMAT(dataset.RMATOptions{Scale: 10, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "rmat10.bsn")
	if err := dataset.Save(path, &dataset.Dataset{Name: "rmat10", Adj: a}); err != nil {
		fmt.Println(err)
		return
	}
	d, err := dataset.Load(path, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	fmt.Println(d.Name, d.NumNodes(), d.Adj.NNZ() == a.NNZ())
	// Output: rmat10 1024 true
}

// A small labelled planted-partition dataset with a Planetoid split.
func ExamplePlantedPartition() {
	d, err := dataset.PlantedPartition(dataset.PlantedPartitionOptions{
		Nodes: 2000, Classes: 4, Features: 8, Seed: 7, Split: "planetoid:10,100,200",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.NumNodes(), d.NumClasses, d.NumFeatures, len(d.Train), len(d.Valid), len(d.Test))
	// Output: 2000 4 8 40 100 200
}

// Load reads an edge list ("u v" per line: a message from u to v, stored in
// row v); Symmetrize makes it undirected.
func ExampleLoad() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "triangle.txt")
	os.WriteFile(path, []byte("# a triangle\n0 1\n1 2\n2 0\n"), 0o644)

	d, err := dataset.Load(path, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Adj.Indptr, d.Adj.Indices)
	d, _ = dataset.Load(path, &dataset.LoadOptions{Symmetry: dataset.Symmetrize})
	fmt.Println(d.Adj.Indptr, d.Adj.Indices)

	os.WriteFile(path, []byte("0 1\n1 x\n"), 0o644)
	_, err = dataset.Load(path, nil)
	fmt.Println(err != nil)
	// Output:
	// [0 1 2 3] [2 0 1]
	// [0 2 4 6] [1 2 0 2 0 1]
	// true
}

// Compare two copies of a graph file without reading either whole, as the
// ranks of a distributed job do: the second copy has other edges.
func ExampleIdentity() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	var ids [2][]string
	for i := range ids {
		a, err := dataset.RMAT(dataset.RMATOptions{Scale: 6, Seed: uint64(i + 1), Threads: 1})
		if err != nil {
			fmt.Println(err)
			return
		}
		path := filepath.Join(dir, fmt.Sprintf("g%d.bsn", i))
		if err := dataset.Save(path, &dataset.Dataset{Name: "g", Adj: a}); err != nil {
			fmt.Println(err)
			return
		}
		if ids[i], err = dataset.Identity(path); err != nil {
			fmt.Println(err)
			return
		}
	}
	for i, l := range ids[0] {
		if l != ids[1][i] {
			fmt.Printf("%s, %s\n", l, ids[1][i])
		}
	}
	// Output:
	// size 10936 B, size 10776 B
	// native header CRC-32C 37781ef5, native header CRC-32C db9047d0
	// edges 782, edges 758
}
