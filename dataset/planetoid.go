package dataset

// The Planetoid datasets (Cora, CiteSeer, PubMed; Yang, Cohen and
// Salakhutdinov, ICML 2016) as Kipf and Welling's GCN repository ships them
// and PyTorch Geometric's Planetoid(root, name) downloads them into
// root/<Name>/raw/:
//
//	ind.NAME.x           scipy CSR, the features of the |y| training vertices
//	ind.NAME.y           numpy one-hot labels of the training vertices
//	ind.NAME.allx        scipy CSR, the features of every vertex that is not a test vertex
//	ind.NAME.ally        numpy one-hot labels of those vertices
//	ind.NAME.tx          scipy CSR, the features of the test vertices, in test.index's order
//	ind.NAME.ty          numpy one-hot labels of the test vertices, in the same order
//	ind.NAME.graph       collections.defaultdict: vertex id -> list of neighbour ids
//	ind.NAME.test.index  text, one test vertex id per line
//
// The pickles (pickle.go) are protocol 2, written by Python 2.
//
// loadPlanetoid assembles them as PyG's read_planetoid_data and Kipf's
// load_data do: the vertices [0, |allx|) have allx's rows and ally's labels;
// row i of tx and ty belongs to the vertex test.index[i] (the "reordering by
// test.index"); the test ids run from |allx| to their maximum, and an id in
// that range that is not a test id (CiteSeer has 15 such isolated vertices)
// gets a zero feature row. The adjacency is the graph's lists made
// symmetric, without self loops or duplicates (PyG: remove_self_loops and
// coalesce; the lists are symmetric already but for a few entries). The
// split is the public one: train = the first |y| vertices, valid = the next
// 500, test = the test ids.
//
// One departure from both: a label row of zeros (CiteSeer's 15 vertices
// outside the files' labelled sets) is -1, unlabelled, where PyG's argmax
// gives class 0 and Kipf's code an all-zero target. Those vertices are in
// no split, so the accuracies are the same.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/bulksample/bulksample/spgemm"
)

// planetoidExts are the suffixes of a Planetoid dataset's files, after
// "ind.NAME.".
var planetoidExts = []string{"x", "y", "tx", "ty", "allx", "ally", "graph", "test.index"}

// planetoidValid is the size of the public split's validation set.
const planetoidValid = 500

// planetoidSource is a Planetoid dataset found on disk: the folder holding
// its ind.NAME.* files, and NAME.
type planetoidSource struct {
	dir, name string
}

func (s planetoidSource) file(ext string) string {
	return filepath.Join(s.dir, "ind."+s.name+"."+ext)
}

// planetoidFileName splits a file name "ind.NAME.EXT" into NAME and EXT, or
// returns ok false when base is not the name of a Planetoid file.
func planetoidFileName(base string) (name, ext string, ok bool) {
	rest, ok := strings.CutPrefix(base, "ind.")
	if !ok {
		return "", "", false
	}
	for _, e := range planetoidExts {
		if n, ok := strings.CutSuffix(rest, "."+e); ok && n != "" {
			return n, e, true
		}
	}
	return "", "", false
}

// planetoidNames returns the NAMEs of the Planetoid files in dir, sorted.
func planetoidNames(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if name, _, ok := planetoidFileName(e.Name()); ok && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// findPlanetoid returns the Planetoid dataset at path, which may be one of
// its files (ind.NAME.x, ...), the folder holding them (PyG's
// <root>/<Name>/raw), that folder's parent (<root>/<Name>), or PyG's root
// when it holds one dataset. ok is false when path is none of these; a
// folder holding several datasets is an error listing them.
func findPlanetoid(path string) (src planetoidSource, ok bool, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return src, false, err
	}
	if !st.IsDir() {
		name, _, ok := planetoidFileName(filepath.Base(path))
		return planetoidSource{dir: filepath.Dir(path), name: name}, ok, nil
	}
	one := func(dir string, names []string) (planetoidSource, bool, error) {
		if len(names) > 1 {
			var files []string
			for _, n := range names {
				files = append(files, filepath.Join(dir, "ind."+n+".x"))
			}
			return planetoidSource{}, false, fmt.Errorf("%s: %w: the Planetoid files of %d datasets (%s): give one of their files, e.g. %s",
				path, ErrFormat, len(names), strings.Join(names, ", "), strings.Join(files, " or "))
		}
		return planetoidSource{dir: dir, name: names[0]}, true, nil
	}
	if names := planetoidNames(path); len(names) > 0 {
		return one(path, names)
	}
	if names := planetoidNames(filepath.Join(path, "raw")); len(names) > 0 {
		return one(filepath.Join(path, "raw"), names)
	}
	// PyG's root, <root>/<Name>/raw.
	entries, err := os.ReadDir(path)
	if err != nil {
		return src, false, err
	}
	var found []planetoidSource
	for _, e := range entries {
		raw := filepath.Join(path, e.Name(), "raw")
		if !e.IsDir() {
			continue
		}
		for _, n := range planetoidNames(raw) {
			found = append(found, planetoidSource{dir: raw, name: n})
		}
	}
	switch len(found) {
	case 0:
		return src, false, nil
	case 1:
		return found[0], true, nil
	}
	var dirs []string
	for _, s := range found {
		dirs = append(dirs, filepath.Dir(s.dir))
	}
	return src, false, fmt.Errorf("%s: %w: a folder of %d Planetoid datasets: give one of %s", path, ErrFormat, len(found), strings.Join(dirs, ", "))
}

// planetoidFiles returns the paths of the dataset's files, in
// planetoidExts' order.
func (s planetoidSource) files() []string {
	out := make([]string, len(planetoidExts))
	for i, e := range planetoidExts {
		out[i] = s.file(e)
	}
	return out
}

// loadPlanetoid reads the Planetoid dataset at path (see findPlanetoid)
// with its public split. symmetrize false keeps the graph's lists as
// stored (duplicates merged, self loops kept); true makes them symmetric
// and drops self loops, as the format's users do.
func loadPlanetoid(ctx context.Context, path string, symmetrize bool, threads int) (*Dataset, error) {
	src, ok, err := findPlanetoid(path)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%s: %w: no Planetoid files (ind.NAME.x, ...)", path, ErrFormat)
	}
	pf, err := readPlanetoidFiles(ctx, src, threads)
	if err != nil {
		return nil, err
	}
	if err := pf.checkShapes(src); err != nil {
		return nil, err
	}
	x, tx, allx, ty, ally, testIDs := pf.x, pf.tx, pf.allx, pf.ty, pf.ally, pf.testIDs
	nTrain, nAll, nTest := x.Rows, allx.Rows, tx.Rows
	f, classes := allx.Cols, ally.classes
	shapeErr := src.shapeErr

	// The test ids run from |allx| up to their maximum: n vertices.
	n := nAll
	for i, v := range testIDs {
		if int(v) < nAll {
			return nil, shapeErr("test.index", "line %d: test id %d is below %d, the rows of %s (the test ids follow them)",
				i+1, v, nAll, filepath.Base(src.file("allx")))
		}
		n = max(n, int(v)+1)
	}
	// CiteSeer leaves 15 of 1,015 ids without a test row; more holes than
	// test ids is no Planetoid file.
	if n-nAll > 2*nTest {
		return nil, shapeErr("test.index", "test ids up to %d leave %d of the %d ids after %s's rows without a test row",
			n-1, n-nAll-nTest, n-nAll, filepath.Base(src.file("allx")))
	}
	d := &Dataset{Name: src.name, NumFeatures: f, NumClasses: classes}
	// Dense features of sparse files: allow 64 MiB, or 1024 times the
	// files' nonzeros (Cora's are 1.3% dense), so that a corrupt shape
	// cannot make us allocate without bound.
	if dense := 4 * int64(n) * int64(f); dense > 1<<26 && dense > 1024*(allx.NNZ()+tx.NNZ()+1) {
		return nil, shapeErr("allx", "dense %d x %d features are too large for %d stored values", n, f, allx.NNZ()+tx.NNZ())
	}
	d.Features = make([]float32, n*f)
	d.Labels = make([]int32, n)
	for i := range d.Labels {
		d.Labels[i] = -1
	}
	row := func(dst int, m *spgemm.CSR, i int) {
		idx, val := m.Row(i)
		for j, c := range idx {
			d.Features[dst*f+int(c)] = val[j]
		}
	}
	for v := range nAll {
		row(v, allx, v)
		d.Labels[v] = ally.label(v)
	}
	seen := make([]bool, n)
	for i, v := range testIDs {
		if seen[v] {
			return nil, shapeErr("test.index", "line %d: test id %d is listed twice", i+1, v)
		}
		seen[v] = true
		row(int(v), tx, i)
		d.Labels[v] = ty.label(i)
	}

	d.Adj, err = planetoidAdjacency(src.file("graph"), pf.graph, n, symmetrize, threads)
	if err != nil {
		return nil, err
	}
	d.Train = make([]int32, nTrain)
	for i := range d.Train {
		d.Train[i] = int32(i)
	}
	d.Valid = make([]int32, planetoidValid)
	for i := range d.Valid {
		d.Valid[i] = int32(nTrain + i)
	}
	d.Test = slices.Clone(testIDs)
	slices.Sort(d.Test)
	return d, nil
}

// planetoidFiles are the contents of a Planetoid dataset's files.
type planetoidFiles struct {
	x, tx, allx *spgemm.CSR
	y, ty, ally *oneHot
	graph       *pyDict
	testIDs     []int32
}

// readPlanetoidFiles reads the files of src.
func readPlanetoidFiles(ctx context.Context, src planetoidSource, threads int) (*planetoidFiles, error) {
	pf := &planetoidFiles{}
	var err error
	featureFiles := []struct {
		ext string
		m   **spgemm.CSR
	}{{"x", &pf.x}, {"allx", &pf.allx}, {"tx", &pf.tx}}
	labelFiles := []struct {
		ext string
		a   **oneHot
	}{{"y", &pf.y}, {"ally", &pf.ally}, {"ty", &pf.ty}}
	for _, f := range featureFiles {
		if *f.m, err = readPickledCSR(ctx, src.file(f.ext), threads); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, f := range labelFiles {
		if *f.a, err = readPickledOneHot(ctx, src.file(f.ext)); err != nil {
			return nil, err
		}
	}
	if pf.graph, err = readPickledGraph(ctx, src.file("graph")); err != nil {
		return nil, err
	}
	if pf.testIDs, err = readTestIndex(src.file("test.index")); err != nil {
		return nil, err
	}
	return pf, ctx.Err()
}

// shapeErr is a format error naming the file of ext.
func (s planetoidSource) shapeErr(ext, format string, a ...any) error {
	return fmt.Errorf("%s: %w: %s", s.file(ext), ErrFormat, fmt.Sprintf(format, a...))
}

// checkShapes checks that the feature and label files agree with each
// other and with the test ids.
func (pf *planetoidFiles) checkShapes(src planetoidSource) error {
	x, tx, allx, y, ty, ally, testIDs := pf.x, pf.tx, pf.allx, pf.y, pf.ty, pf.ally, pf.testIDs
	nTrain, nAll, nTest := x.Rows, allx.Rows, tx.Rows
	f, classes := allx.Cols, ally.classes
	shapeErr := src.shapeErr
	switch {
	case x.Cols != f:
		return shapeErr("x", "shape (%d, %d): %d features, but %s has %d", x.Rows, x.Cols, x.Cols, filepath.Base(src.file("allx")), f)
	case tx.Cols != f:
		return shapeErr("tx", "shape (%d, %d): %d features, but %s has %d", tx.Rows, tx.Cols, tx.Cols, filepath.Base(src.file("allx")), f)
	case ally.rows != nAll:
		return shapeErr("ally", "shape (%d, %d): %d rows for the %d of %s", ally.rows, classes, ally.rows, nAll, filepath.Base(src.file("allx")))
	case y.rows != nTrain || y.classes != classes:
		return shapeErr("y", "shape (%d, %d), want (%d, %d): the rows of %s and the classes of %s", y.rows, y.classes, nTrain, classes,
			filepath.Base(src.file("x")), filepath.Base(src.file("ally")))
	case ty.rows != nTest || ty.classes != classes:
		return shapeErr("ty", "shape (%d, %d), want (%d, %d): the rows of %s and the classes of %s", ty.rows, ty.classes, nTest, classes,
			filepath.Base(src.file("tx")), filepath.Base(src.file("ally")))
	case len(testIDs) != nTest:
		return shapeErr("test.index", "%d test ids for the %d rows of %s", len(testIDs), nTest, filepath.Base(src.file("tx")))
	case nTrain+planetoidValid > nAll:
		return shapeErr("x", "%d training vertices and %d valid ones exceed the %d rows of %s", nTrain, planetoidValid, nAll,
			filepath.Base(src.file("allx")))
	}
	return nil
}

// planetoidAdjacency builds the n x n adjacency of the graph dict read
// from file: row u lists graph[u].
func planetoidAdjacency(file string, graph *pyDict, n int, symmetrize bool, threads int) (*spgemm.CSR, error) {
	var src, dst []int32
	for ki, k := range graph.keys {
		u, ok := k.(int64)
		if !ok || u < 0 || u >= int64(n) {
			return nil, fmt.Errorf("%s: %w: key %s is not a vertex id in [0, %d)", file, ErrFormat, pyRepr(k), n)
		}
		l, ok := graph.vals[ki].(*pyList)
		if !ok {
			return nil, fmt.Errorf("%s: %w: the value of key %d is a %s, not a list of vertex ids", file, ErrFormat, u, pyTypeName(graph.vals[ki]))
		}
		for i, w := range l.items {
			v, ok := w.(int64)
			if !ok || v < 0 || v >= int64(n) {
				return nil, fmt.Errorf("%s: %w: key %d: neighbour %d is %s, not a vertex id in [0, %d)", file, ErrFormat, u, i, pyRepr(w), n)
			}
			src, dst = append(src, int32(u)), append(dst, int32(v))
		}
	}
	a, err := spgemm.FromCOO(n, n, src, dst, nil, &spgemm.COOOptions{
		Symmetrize: symmetrize, DropSelfLoops: symmetrize, Duplicates: spgemm.DropDuplicates, Threads: threads})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return a, nil
}

// readPickle reads and unpickles the file at path, naming it in errors; it
// stops with ctx's error once ctx is done.
func readPickle(ctx context.Context, path string) (any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, planetoidFileErr(path, err)
	}
	v, err := unpickle(ctx, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// planetoidFileErr is the error of reading the Planetoid file path: a
// missing one is named with what such a dataset holds (it was the bare
// "open ...: no such file or directory").
func planetoidFileErr(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s is missing: a Planetoid dataset holds the eight files ind.NAME.{x,y,tx,ty,allx,ally,graph,test.index}: %w", path, fs.ErrNotExist)
	}
	return err
}

// ndarray is a numpy array read from a pickle: its raw bytes and what
// numpy's __reduce__ records of them.
type ndarray struct {
	h   npyHeader // the dtype, shape and order, as a .npy header holds them
	raw []byte    // count x itemsize bytes
}

// read converts the array's elements into dst, of its length.
func (a *ndarray) read(dst any) error {
	r := bytes.NewReader(a.raw)
	switch dst := dst.(type) {
	case []int64:
		return readNPYData(r, &a.h, dst, nil)
	case []int32:
		return readNPYData(r, &a.h, dst, nil)
	case []float32:
		return readNPYData(r, &a.h, dst, nil)
	}
	panic(fmt.Sprintf("ndarray.read into %T", dst))
}

// oneHot is a 2-d array of one-hot label rows.
type oneHot struct {
	rows, classes int
	v             []float32 // rows x classes
}

// label returns the class of row i: the column of its largest value (the
// first on ties, as numpy's argmax), or -1 for a row without a positive
// value.
func (a *oneHot) label(i int) int32 {
	best, lab := float32(0), int32(-1)
	for j, v := range a.v[i*a.classes : (i+1)*a.classes] {
		if v > best {
			best, lab = v, int32(j)
		}
	}
	return lab
}

// decodeNDArray reads the array that numpy's ndarray.__reduce__ pickles:
// _reconstruct(ndarray, (0,), 'b') with the state (version, shape, dtype,
// is_fortran, raw bytes), the dtype being dtype(descr, 0, 1) with the state
// (version, byte order, ...). what names the array in errors.
func decodeNDArray(v any, what string) (*ndarray, error) {
	bad := func(format string, a ...any) (*ndarray, error) {
		return nil, fmt.Errorf("%w: %s: %s", ErrFormat, what, fmt.Sprintf(format, a...))
	}
	o, ok := v.(*pyObject)
	if !ok || o.class != globalNDArray {
		return bad("a %s, not a numpy array", pyTypeName(v))
	}
	st, ok := o.state.(pyTuple)
	if !ok || len(st) != 5 {
		return bad("numpy array state %s, want (version, shape, dtype, fortran, data)", describeState(o.state))
	}
	shapeT, ok := st[1].(pyTuple)
	if !ok {
		return bad("shape is a %s, not a tuple", pyTypeName(st[1]))
	}
	dt, err := decodeDtype(st[2])
	if err != nil {
		return bad("%v", err)
	}
	fortran, ok := st[3].(bool)
	if !ok {
		return bad("fortran flag is a %s, not a bool", pyTypeName(st[3]))
	}
	raw, ok := st[4].(string)
	if !ok {
		return bad("data is a %s, not raw bytes (an object array?)", pyTypeName(st[4]))
	}
	a := &ndarray{raw: []byte(raw), h: npyHeader{dtype: dt, fortran: fortran}}
	count := uint64(1)
	for i, s := range shapeT {
		d, ok := s.(int64)
		if !ok || d < 0 {
			return bad("shape[%d] is %s, not a size", i, pyRepr(s))
		}
		if hi, lo := bits.Mul64(count, uint64(d)); hi != 0 || lo > math.MaxInt64 {
			return bad("shape %s overflows", pyRepr(shapeT))
		}
		count *= uint64(d)
		a.h.shape = append(a.h.shape, d)
	}
	if hi, lo := bits.Mul64(count, uint64(dt.size)); hi != 0 || lo != uint64(len(raw)) {
		return bad("shape %v of %s does not match the %d bytes of data", a.h.shape, dt.descr, len(raw))
	}
	if !dt.isNumeric() {
		return bad("dtype %s is not numeric", dt.descr)
	}
	if fortran && len(a.h.shape) > 1 {
		return bad("Fortran-ordered %d-d arrays are not supported", len(a.h.shape))
	}
	return a, nil
}

// decodeDtype reads numpy.dtype(descr, 0, 1) with the state (3, order, ...).
func decodeDtype(v any) (npyDtype, error) {
	o, ok := v.(*pyObject)
	if !ok || o.class != globalDtype {
		return npyDtype{}, fmt.Errorf("dtype is a %s, not numpy.dtype", pyTypeName(v))
	}
	if len(o.args) != 3 {
		return npyDtype{}, fmt.Errorf("numpy.dtype%s, want (descr, 0, 1)", describeTuple(o.args))
	}
	descr, ok := o.args[0].(string)
	if !ok {
		return npyDtype{}, fmt.Errorf("numpy.dtype of a %s, not a type string", pyTypeName(o.args[0]))
	}
	st, ok := o.state.(pyTuple)
	if !ok || len(st) < 2 {
		return npyDtype{}, fmt.Errorf("numpy.dtype state %s, want (version, byte order, ...)", describeState(o.state))
	}
	order, ok := st[1].(string)
	if !ok || len(order) != 1 {
		return npyDtype{}, fmt.Errorf("numpy.dtype byte order %s, want '<', '>', '|' or '='", pyRepr(st[1]))
	}
	return parseDtype(order + descr)
}

// describeState describes a BUILD state for errors.
func describeState(v any) string {
	if t, ok := v.(pyTuple); ok {
		return describeTuple(t)
	}
	return pyTypeName(v)
}

// readPickledCSR reads a pickled scipy.sparse.csr_matrix: NEWOBJ of the
// class with the state dict {_shape, indptr, indices, data, format, ...}.
// Its structure is checked and unsorted rows sorted (duplicates summed).
func readPickledCSR(ctx context.Context, path string, threads int) (*spgemm.CSR, error) {
	v, err := readPickle(ctx, path)
	if err != nil {
		return nil, err
	}
	return pickledCSR(path, v, threads)
}

// pickledCSR is readPickledCSR of the unpickled value v of file path.
func pickledCSR(path string, v any, threads int) (*spgemm.CSR, error) {
	bad := func(format string, a ...any) (*spgemm.CSR, error) {
		return nil, fmt.Errorf("%s: %w: %s", path, ErrFormat, fmt.Sprintf(format, a...))
	}
	o, ok := v.(*pyObject)
	if !ok || o.class != globalCSRMatrix {
		return bad("holds a %s, not a scipy.sparse.csr_matrix", pyTypeName(v))
	}
	st, ok := o.state.(*pyDict)
	if !ok {
		return bad("csr_matrix state is a %s, not a dict", pyTypeName(o.state))
	}
	if f, ok := st.get("format"); ok && f != "csr" {
		return bad("csr_matrix format %s, want 'csr'", pyRepr(f))
	}
	shapeV, _ := st.get("_shape")
	shape, ok := shapeV.(pyTuple)
	if !ok || len(shape) != 2 {
		return bad("csr_matrix _shape is %s, want (rows, columns)", describeState(shapeV))
	}
	rows, ok1 := shape[0].(int64)
	cols, ok2 := shape[1].(int64)
	if !ok1 || !ok2 || rows < 0 || cols < 0 || rows > 1<<31-1 || cols > 1<<31-1 {
		return bad("csr_matrix _shape %s is not two sizes below 2^31", pyRepr(shape))
	}
	m := &spgemm.CSR{Rows: int(rows), Cols: int(cols)}
	arrays := []struct {
		key string
		dst func(*ndarray) error
	}{
		{"indptr", func(a *ndarray) error { m.Indptr = make([]int64, a.h.count()); return a.read(m.Indptr) }},
		{"indices", func(a *ndarray) error { m.Indices = make([]int32, a.h.count()); return a.read(m.Indices) }},
		{"data", func(a *ndarray) error { m.Data = make([]float32, a.h.count()); return a.read(m.Data) }},
	}
	for _, ar := range arrays {
		v, _ := st.get(ar.key)
		a, err := decodeNDArray(v, "csr_matrix "+ar.key)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(a.h.shape) != 1 {
			return bad("csr_matrix %s has shape %v, want 1-d", ar.key, a.h.shape)
		}
		if err := ar.dst(a); err != nil {
			return nil, fmt.Errorf("%s: csr_matrix %s: %w", path, ar.key, err)
		}
	}
	if err := canonicalize(path, "", m, threads); err != nil {
		return nil, err
	}
	return m, nil
}

// readPickledOneHot reads a pickled 2-d numpy array of one-hot labels.
func readPickledOneHot(ctx context.Context, path string) (*oneHot, error) {
	v, err := readPickle(ctx, path)
	if err != nil {
		return nil, err
	}
	return pickledOneHot(path, v)
}

// pickledOneHot is readPickledOneHot of the unpickled value v of file path.
func pickledOneHot(path string, v any) (*oneHot, error) {
	a, err := decodeNDArray(v, "labels")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(a.h.shape) != 2 {
		return nil, fmt.Errorf("%s: %w: labels of shape %v, want (vertices, classes) one-hot rows", path, ErrFormat, a.h.shape)
	}
	if a.h.shape[0] > math.MaxInt32 || a.h.shape[1] > math.MaxInt32 {
		return nil, fmt.Errorf("%s: %w: labels of shape %v", path, ErrFormat, a.h.shape)
	}
	o := &oneHot{rows: int(a.h.shape[0]), classes: int(a.h.shape[1]), v: make([]float32, a.h.count())}
	if err := a.read(o.v); err != nil {
		return nil, fmt.Errorf("%s: labels: %w", path, err)
	}
	return o, nil
}

// readPickledGraph reads the pickled dict (a collections.defaultdict of
// lists) of adjacency lists.
func readPickledGraph(ctx context.Context, path string) (*pyDict, error) {
	v, err := readPickle(ctx, path)
	if err != nil {
		return nil, err
	}
	d, ok := v.(*pyDict)
	if !ok {
		return nil, fmt.Errorf("%s: %w: holds a %s, not a dict of adjacency lists", path, ErrFormat, pyTypeName(v))
	}
	return d, nil
}

// readTestIndex reads the test ids, one decimal integer per line.
func readTestIndex(path string) ([]int32, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, planetoidFileErr(path, err)
	}
	var ids []int32
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		v, err := strconv.ParseInt(line, 10, 32)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("%s: %w: line %d: %q is not a vertex id", path, ErrFormat, i+1, truncate(line, 40))
		}
		ids = append(ids, int32(v))
	}
	return ids, nil
}

// planetoidFeatureBlock reads the dataset at path whole (the Planetoid
// datasets have at most 20,000 vertices) and returns the rows pick gives.
func planetoidFeatureBlock(ctx context.Context, path string, pick blockPicker) (*FeatureBlock, error) {
	d, err := loadPlanetoid(ctx, path, true, 1)
	if err != nil {
		return nil, err
	}
	lo, hi, err := pick(d.NumNodes())
	if err != nil {
		return nil, err
	}
	f := d.NumFeatures
	return &FeatureBlock{N: d.NumNodes(), NumFeatures: f, Lo: lo, Hi: hi, Features: d.Features[lo*f : hi*f : hi*f]}, nil
}

// planetoidIdentity returns Identity's lines of the dataset's files.
func planetoidIdentity(files []string) ([]string, error) {
	var lines []string
	for _, p := range files {
		l, err := fileIdentity(p, filepath.Base(p)+": ")
		if err != nil {
			return nil, err
		}
		lines = append(lines, l...)
	}
	return lines, nil
}
