package dataset

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/bulksample/bulksample/internal/atomicfile"
	"github.com/bulksample/bulksample/internal/hugemem"
	"github.com/bulksample/bulksample/internal/option"
	"github.com/bulksample/bulksample/spgemm"
)

// Symmetry says whether a loader adds the reverse of every edge.
type Symmetry int

const (
	// SymmetryDefault follows the format: gnn-benchmark .npz files and OGB
	// CSV folders (ogbn-products) are symmetrised, as PyG and DGL treat them
	// (Cora's stored adjacency is directed citations; OGB stores each
	// undirected edge once); everything else is taken as stored.
	SymmetryDefault Symmetry = iota
	// Symmetrize adds reverse edges (A + Aᵀ pattern, values: the larger of
	// the two directions) and drops self loops.
	Symmetrize
	// AsStored keeps the adjacency as the file stores it.
	AsStored
)

// LoadOptions modify Load. The zero value (or nil) means: pick the format
// from the file, symmetrise as the format's users expect, keep the stored
// split or make the default one with seed 0, check the structure of native
// files (VerifyStructure), and use GOMAXPROCS goroutines.
type LoadOptions struct {
	// Split is a split specification (see SplitPlanetoid); "" keeps the
	// stored split, or applies the default to a labelled dataset without one.
	Split string
	// Seed seeds the split.
	Seed uint64
	// SplitIndex chooses which of the splits a source stores (the 10
	// official splits of the heterophilous-graphs files) is the one in use;
	// 0, the first, by default. A source that stores one split or none has
	// only index 0. It cannot be combined with Split.
	SplitIndex int
	// Symmetry says whether reverse edges are added.
	Symmetry Symmetry
	// Verify says how much of a native file is checked before use (see
	// VerifyLevel); the zero value checks the structure but not the
	// checksums.
	Verify VerifyLevel
	// SkipVerify, when true, means Verify: VerifyNone, whatever Verify says.
	SkipVerify bool
	// Threads is the number of goroutines; <= 0 means runtime.GOMAXPROCS(0).
	Threads int
	// Progress, when non-nil, receives a line for each stage of a long load.
	Progress io.Writer
}

// Validate returns an *option.Error naming the first field that holds an
// unknown value, or a combination that is refused, or nil.
func (o *LoadOptions) Validate() error {
	bad := func(field string, value any, format string, args ...any) error {
		return option.Errorf("dataset", "LoadOptions", field, value, format, args...)
	}
	switch {
	case o.Symmetry < SymmetryDefault || o.Symmetry > AsStored:
		return bad("Symmetry", int(o.Symmetry), "unknown")
	case o.Verify < VerifyDefault || o.Verify > VerifyNone:
		return bad("Verify", int(o.Verify), "unknown")
	case o.SplitIndex < 0:
		return bad("SplitIndex", o.SplitIndex, "want >= 0")
	case o.SplitIndex != 0 && o.Split != "":
		return option.With(bad("SplitIndex", o.SplitIndex, "a stored split, or a split drawn by Split (%q), not both", o.Split), "Split")
	}
	return nil
}

// checked returns the options (nil: the zero value) with SkipVerify
// applied, or Validate's error.
func (opt *LoadOptions) checked() (LoadOptions, error) {
	var o LoadOptions
	if opt != nil {
		o = *opt
	}
	if err := o.Validate(); err != nil {
		return o, err
	}
	if o.SkipVerify {
		o.Verify = VerifyNone
	}
	return o, nil
}

// Format names, as Detect reports them.
const (
	FormatNative    = "native"
	FormatScipyNPZ  = "scipy-npz"
	FormatGNNBench  = "gnn-benchmark-npz"
	FormatOGB       = "ogb"
	FormatEdgeList  = "edgelist"
	FormatMatrixMkt = "matrix-market"
	FormatPlanetoid = "planetoid" // the ind.NAME.* files of Kipf's GCN repository and PyG's Planetoid (planetoid.go)
	// FormatHeterophilous is the .npz of the heterophilous-graphs
	// benchmark that PyG's HeterophilousGraphDataset reads (hetero.go).
	FormatHeterophilous = "heterophilous-npz"
	FormatMETIS         = "metis"   // METIS .graph files (metis.go)
	FormatDGLCSV        = "dgl-csv" // a folder of DGL's CSVDataset (dglcsv.go)
	FormatMUSAE         = "musae"   // a MUSAE folder: NAME_edges.csv, NAME_features.json, NAME_target.csv (musae.go)
)

// Load reads the graph or dataset at path, whatever its format (see
// LoadContext).
func Load(path string, opt *LoadOptions) (*Dataset, error) {
	return LoadContext(context.Background(), path, opt)
}

// LoadContext reads the graph or dataset at path: a scipy sparse .npz, a
// gnn-benchmark .npz, a heterophilous-graphs .npz, an OGB node-property
// folder, a Planetoid dataset (its raw folder, that folder's parent, or one
// of its ind.NAME.* files; with the public split), a DGL CSVDataset folder,
// a MUSAE folder, a native file, an edge list, a METIS file or a Matrix
// Market file, picked by content (magic bytes, a folder's files) and then
// by extension (.mtx, .graph and .metis, .npz; anything else readable as
// text is an edge list). A
// plain graph gives a Dataset with only Adj (and Weighted) set. Long loads
// stop with ctx's error when ctx is done. Every problem with the input comes
// back as an error naming the file and, where it applies, the array, field
// or line.
func LoadContext(ctx context.Context, path string, opt *LoadOptions) (_ *Dataset, err error) {
	o, err := opt.checked()
	if err != nil {
		return nil, err
	}
	format, err := Detect(path)
	if err != nil {
		return nil, err
	}
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, "loading %s (%s)\n", path, format)
	}
	var d *Dataset
	// symmetrize: the format's default; built: the reader has already
	// symmetrised while building the CSR (saving a second build).
	symmetrize, built := false, false
	switch format {
	case FormatNative:
		d, err = loadNative(path, o.Verify, o.Threads)
	case FormatScipyNPZ, FormatGNNBench:
		var z *npzArchive
		if z, err = openNPZ(path); err != nil {
			return nil, err
		}
		z.mem = new(hugemem.Arena) // read straight into huge pages (see settle)
		d, err = readNPZDataset(ctx, z, o.Threads)
		z.Close()
		if err != nil {
			z.mem.Release()
		} else if z.mem.Bytes() > 0 {
			d.mem = z.mem
		}
		symmetrize = format == FormatGNNBench
	case FormatHeterophilous:
		var z *npzArchive
		if z, err = openNPZ(path); err != nil {
			return nil, err
		}
		d, err = readHeterophilous(ctx, z, o.Symmetry, o.Threads, ogbChunk)
		z.Close()
		built = true
	case FormatMETIS:
		d, err = loadMETIS(ctx, path)
	case FormatDGLCSV:
		d, err = loadDGLCSV(ctx, path, &o, ogbChunk)
		built = true
	case FormatMUSAE:
		d, err = loadMUSAE(ctx, path, &o, ogbChunk)
		built = true
	case FormatOGB:
		d, built, err = loadOGB(ctx, path, &o, ogbChunk)
	case FormatPlanetoid:
		// Symmetric by default, as PyG and Kipf's code use the graph.
		d, err = loadPlanetoid(ctx, path, o.Symmetry != AsStored, o.Threads)
		built = true
	case FormatMatrixMkt:
		d, err = loadMatrixMarket(ctx, path, o.Threads)
	case FormatEdgeList:
		// The reader adds reverse edges itself when asked or told to.
		d, err = loadEdgeList(ctx, path, &o)
		built = true
	}
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			d.Close() // release a native file's mapping
		}
	}()
	switch o.Symmetry {
	case Symmetrize:
		symmetrize = true
	case AsStored:
		symmetrize = false
	}
	symmetrize = symmetrize && !built
	if symmetrize {
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "symmetrising %d edges\n", d.Adj.NNZ())
		}
		old := d.Adj
		if d.Adj, err = symmetrized(d.Adj, o.Threads); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		d.Report = d.Report.symmetrized(old, d.Adj, o.Symmetry == Symmetrize)
		freeReplaced(d.mem, old, d.Adj)
	}
	if d.Name == "" {
		d.Name = datasetName(path)
	}
	if err := d.UseSplit(o.SplitIndex); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := applySplit(d, o.Split, o.Seed); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// A native load has validated itself, or was told to trust the file.
	if format != FormatNative || symmetrize || built || o.Split != "" || o.SplitIndex != 0 {
		if err := d.Validate(); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	// Kernels run as fast on what any loader built as on a native file's
	// mapping (whose arrays stay where they are).
	switch {
	case format != FormatNative:
		d.settle(o.Threads, false)
	case symmetrize:
		d.settle(o.Threads, true)
	}
	return d, nil
}

// datasetName is the file or folder name without extensions.
func datasetName(path string) string {
	base := filepath.Base(filepath.Clean(path))
	if i := strings.IndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	return base
}

// symmetrized returns A + Aᵀ (pattern union; values: the larger of a[i,j]
// and a[j,i]) without self loops.
func symmetrized(a *spgemm.CSR, threads int) (*spgemm.CSR, error) {
	src := make([]int32, a.NNZ())
	for i := range a.Rows {
		for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
			src[p] = int32(i)
		}
	}
	return spgemm.FromCOO(a.Rows, a.Cols, src, a.Indices, a.Data, &spgemm.COOOptions{
		Symmetrize: true, Duplicates: spgemm.DropDuplicates, DropSelfLoops: true, Threads: threads,
	})
}

// Detect returns the format of the file or folder at path (one of the
// Format constants), or an error if it is none of them.
func Detect(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if st.IsDir() {
		if isOGBFolder(path) {
			return FormatOGB, nil
		}
		if _, ok, err := findPlanetoid(path); err != nil {
			return "", err
		} else if ok {
			return FormatPlanetoid, nil
		}
		if isDGLFolder(path) {
			return FormatDGLCSV, nil
		}
		if _, ok := musaeFiles(path); ok {
			return FormatMUSAE, nil
		}
		return "", fmt.Errorf("%s: %w: a folder, but not an OGB node-property dataset (no raw/ with edge.csv.gz or data.npz), "+
			"a Planetoid one (no ind.NAME.x, ... in it, in raw/ or in NAME/raw/), a DGL CSVDataset (no meta.yaml) "+
			"nor a MUSAE one (no NAME_edges.csv, NAME_features.json and NAME_target.csv)", path, ErrFormat)
	}
	if _, _, ok := planetoidFileName(filepath.Base(path)); ok && st.Mode().IsRegular() {
		return FormatPlanetoid, nil
	}
	// The readers map, seek or size their file. Opening a named pipe with
	// no writer blocks forever (a signal could not stop it), and a device
	// such as /dev/zero never ends.
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s: %w: not a regular file (%s); graphs are read from files or OGB folders", path, ErrFormat, fileKind(st.Mode()))
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	head := make([]byte, 512)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, []byte(nativeMagic)):
		return FormatNative, nil
	case bytes.HasPrefix(head, []byte(nativeMagicUnfinished)):
		return "", fmt.Errorf("%s: %w: %s", path, ErrFormat, unfinishedNative)
	case bytes.HasPrefix(head, []byte("PK\x03\x04")) || bytes.HasPrefix(head, []byte("PK\x05\x06")):
		z, err := openNPZ(path)
		if err != nil {
			return "", err
		}
		defer z.Close()
		switch z.layout() {
		case layoutGNNBenchmark:
			return FormatGNNBench, nil
		case layoutScipy:
			return FormatScipyNPZ, nil
		case layoutHeterophilous:
			return FormatHeterophilous, nil
		}
		_, err = readNPZDataset(context.Background(), z, 1) // for its error naming the arrays
		return "", err
	case bytes.HasPrefix(bytes.ToLower(head), []byte("%%matrixmarket")):
		return FormatMatrixMkt, nil
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return "", fmt.Errorf("%s: %w: a gzip file; decompress it, or give the OGB dataset folder", path, ErrFormat)
	}
	ext := strings.ToLower(filepath.Ext(path))
	switch ext {
	case ".mtx":
		return FormatMatrixMkt, nil
	case ".graph", ".metis":
		return FormatMETIS, nil
	case ".npz", ".npy", ".bsn":
		return "", fmt.Errorf("%s: %w: a %s file without its magic bytes (truncated or corrupt?)", path, ErrFormat, ext)
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return "", fmt.Errorf("%s: %w: binary content of an unknown format", path, ErrFormat)
	}
	return FormatEdgeList, nil
}

// Save writes d to path: the scipy sparse .npz layout when path ends in
// .npz (plus the features, labels, idx_train, idx_valid and idx_test arrays
// when d has them), otherwise the native format (see SaveContext).
func Save(path string, d *Dataset) error {
	return SaveContext(context.Background(), path, d)
}

// SaveContext writes d to path as Save does. It writes a temporary file next
// to path and renames it into place once it is complete and synced, so path
// is never left half-written: when the write fails (a full disk, a file-size
// limit, an unwritable folder) or ctx is done before it ends, the temporary
// file is removed, whatever was at path before is left as it was, and the
// error names path.
func SaveContext(ctx context.Context, path string, d *Dataset) error {
	if err := d.Validate(); err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	write := writeNative
	if strings.EqualFold(filepath.Ext(path), ".npz") {
		write = writeNPZ
	}
	return atomicfile.Write(ctx, path, func(w io.Writer) error { return write(w, d) })
}

// fileKind names the kind of a file that is neither regular nor a folder.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}

// openSized opens the file at path for reading and returns it with its
// size (the readers that need it: zip's directory, a gzip file's bound on
// its lines, a mapping's length, a Matrix Market file's re-reads).
func openSized(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}
