package dataset

// A MUSAE folder (Rozemberczki, Allen and Sarkar, "Multi-scale Attributed
// Node Embedding", 2019: Facebook page-page, GitHub, Twitch, Deezer,
// LastFM Asia) as it ships: NAME_edges.csv (a header such as id_1,id_2,
// then one undirected edge per line, stored once), NAME_features.json
// ({"page id": [feature ids], ...}: sparse binary features) and
// NAME_target.csv (a header, the id column and a class column such as
// Facebook's page_type). The ids of the target file are the vertices,
// 0..n-1. Features stay sparse (Dataset.SparseFeatures); classes given
// as names (Facebook's company, government, politician, tvshow) are
// numbered in sorted order and kept as Dataset.ClassNames. The graph is
// symmetrised by default, as PyG's and DGL's loaders of these graphs make
// them undirected. There is no stored split.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/bulksample/bulksample/spgemm"
)

// musaeClassColumns are the class columns of the MUSAE target files, in
// the order they are looked for.
var musaeClassColumns = []string{"page_type", "ml_target", "target", "label", "mature"}

// musaeFiles returns the common prefix of the NAME_edges.csv,
// NAME_features.json and NAME_target.csv files of dir; ok is false when
// dir does not hold exactly one such triple.
func musaeFiles(dir string) (prefix string, ok bool) {
	edges, err := filepath.Glob(filepath.Join(dir, "*_edges.csv"))
	if err != nil || len(edges) != 1 {
		return "", false
	}
	prefix = strings.TrimSuffix(edges[0], "_edges.csv")
	return prefix, fileExists(prefix+"_features.json") && fileExists(prefix+"_target.csv")
}

// loadMUSAE reads the MUSAE folder dir (see the file comment).
func loadMUSAE(ctx context.Context, dir string, o *LoadOptions, chunk int64) (*Dataset, error) {
	prefix, ok := musaeFiles(dir)
	if !ok {
		return nil, fmt.Errorf("%s: %w: not a MUSAE folder (NAME_edges.csv, NAME_features.json, NAME_target.csv)", dir, ErrFormat)
	}
	d := &Dataset{Name: filepath.Base(prefix)}
	progress(o, "reading the classes of %s_target.csv", prefix)
	if err := readMUSAETarget(prefix+"_target.csv", d); err != nil {
		return nil, err
	}
	n := len(d.Labels)
	progress(o, "reading the edges of %s_edges.csv (2 passes)", prefix)
	c, err := openCSV(prefix+"_edges.csv", ',')
	if err != nil {
		return nil, err
	}
	defer c.Close()
	spec := csvEdgeSpec{src: 0, dst: 1, weight: -1, n: n, what: fmt.Sprintf("a node of the %d in %s", n, filepath.Base(prefix+"_target.csv")),
		vertex:  func(id int64) (int32, bool) { return int32(id), id >= 0 && id < int64(n) },
		threads: o.Threads, chunk: chunk}
	if len(c.header) != 2 {
		return nil, fmt.Errorf("%s: line 1: %w: header %q; want the two columns of an edge (id_1,id_2)", c.name, ErrFormat, truncate(strings.Join(c.header, ","), 80))
	}
	rep := &ReadReport{}
	if o.Symmetry != AsStored {
		rep.Reversed, rep.ReversedWhy = true, "MUSAE's graphs are undirected, each edge stored once"
		if o.Symmetry == Symmetrize {
			rep.ReversedWhy = "symmetrize was asked for"
		}
	}
	if d.Adj, err = c.readEdges(ctx, spec, rep); err != nil {
		return nil, err
	}
	d.Report = rep
	progress(o, "reading the sparse features of %s_features.json", prefix)
	if err := readMUSAEFeatures(ctx, prefix+"_features.json", d, o.Threads); err != nil {
		return nil, err
	}
	return d, nil
}

// readMUSAETarget reads the target file into d's labels (and class
// names): the id column must hold 0..n-1, each once.
func readMUSAETarget(path string, d *Dataset) error {
	c, err := openCSV(path, ',')
	if err != nil {
		return err
	}
	defer c.Close()
	idCol, err := c.require("id", "the vertex ids")
	if err != nil {
		return err
	}
	classCol := -1
	for _, name := range musaeClassColumns {
		if classCol = c.column(name); classCol >= 0 {
			break
		}
	}
	if classCol < 0 {
		return fmt.Errorf("%s: line 1: %w: no class column (one of %s); the header has %s",
			path, ErrFormat, strings.Join(musaeClassColumns, ", "), truncate(strings.Join(c.header, ", "), 200))
	}
	var ids []int32
	var classes []string
	for {
		rec, err := c.next()
		if err != nil {
			return err
		}
		if rec == nil {
			break
		}
		id, ok := parseInt64(rec[idCol])
		if !ok || id < 0 || id >= maxDistinctIDs {
			return c.errf("id %q is not a vertex id (an integer in [0, 2^31))", truncate(rec[idCol], 40))
		}
		ids = append(ids, int32(id))
		classes = append(classes, strings.TrimSpace(rec[classCol]))
	}
	n := len(ids)
	row := make([]int32, n) // row[v]: the record of vertex v
	seen := make([]bool, n)
	for r, id := range ids {
		if int(id) >= n || seen[id] {
			return fmt.Errorf("%s: %w: the ids are not 0..%d, each once (record %d has id %d)", path, ErrFormat, n-1, r+1, id)
		}
		seen[id], row[id] = true, int32(r)
	}
	// Integer classes are the class ids; names are numbered in sorted order.
	numeric := true
	for _, s := range classes {
		if v, ok := parseInt64(s); !ok || v < -1 || v >= int64(max(n, 2)) {
			numeric = false
			break
		}
	}
	d.Labels = make([]int32, n)
	if numeric {
		for v := range n {
			l, _ := parseInt64(classes[row[v]])
			d.Labels[v] = int32(l)
		}
		d.NumClasses = numClasses(d.Labels)
		return nil
	}
	names := slices.Compact(slices.Sorted(slices.Values(classes)))
	for v := range n {
		c, _ := slices.BinarySearch(names, classes[row[v]])
		d.Labels[v] = int32(c)
	}
	d.ClassNames, d.NumClasses = names, len(names)
	return nil
}

// readMUSAEFeatures reads the JSON object {"id": [feature ids], ...} at
// path into d.SparseFeatures, a binary n x (largest feature id + 1) CSR;
// an id without an entry has no features.
func readMUSAEFeatures(ctx context.Context, path string, d *Dataset, threads int) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	n := d.NumNodes()
	dec := json.NewDecoder(f)
	dec.UseNumber()
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s: byte %d: %w: %s", path, dec.InputOffset(), ErrFormat, fmt.Sprintf(format, a...))
	}
	token := func() (json.Token, error) {
		t, err := dec.Token()
		if err == io.EOF {
			return nil, bad("the file ends inside the object")
		}
		if err != nil {
			return nil, bad("%v", err)
		}
		return t, nil
	}
	if t, err := token(); err != nil {
		return err
	} else if t != json.Delim('{') {
		return bad("want an object {\"id\": [feature ids], ...}, have %v", t)
	}
	var rows, cols []int32
	seen := make([]bool, n)
	top := int64(-1)
	for k := 0; dec.More(); k++ {
		if k%(1<<14) == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		t, err := token()
		if err != nil {
			return err
		}
		key := t.(string) // object keys are strings
		v, err := strconv.ParseInt(key, 10, 64)
		if err != nil || v < 0 || v >= int64(n) {
			return bad("key %q is not a vertex id in [0, %d)", truncate(key, 40), n)
		}
		if seen[v] {
			return bad("vertex %d appears twice", v)
		}
		seen[v] = true
		if t, err := token(); err != nil {
			return err
		} else if t != json.Delim('[') {
			return bad("vertex %d: want a list of feature ids, have %v", v, t)
		}
		for dec.More() {
			t, err := token()
			if err != nil {
				return err
			}
			num, ok := t.(json.Number)
			x, err := strconv.ParseInt(string(num), 10, 64)
			if !ok || err != nil || x < 0 || x >= maxDistinctIDs {
				return bad("vertex %d: feature id %v is not an integer in [0, 2^31)", v, t)
			}
			rows, cols = append(rows, int32(v)), append(cols, int32(x))
			top = max(top, x)
		}
		if _, err := token(); err != nil { // ']'
			return err
		}
	}
	if _, err := token(); err != nil { // '}'
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return bad("data after the object")
	}
	nf := int(top + 1)
	// The feature count sizes a model's first layer: ids far beyond what
	// the entries can use are a corrupt file, not a width.
	if nf > 1<<20 && int64(nf) > 64*int64(len(cols)) {
		return bad("feature id %d for only %d entries; feature ids must be dense", top, len(cols))
	}
	ones := make([]float32, len(cols))
	for i := range ones {
		ones[i] = 1
	}
	sf, err := spgemm.FromCOO(n, nf, rows, cols, ones, &spgemm.COOOptions{Duplicates: spgemm.DropDuplicates, Threads: threads})
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	d.SparseFeatures, d.NumFeatures = sf, nf
	return nil
}
