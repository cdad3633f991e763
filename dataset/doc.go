// Package dataset owns reading and writing graphs and node features (scipy
// .npz, the gnn-benchmark .npz layout, OGB node-property folders, edge lists
// and Matrix Market files, and bulksample's native memory-mappable format),
// the synthetic generators (R-MAT, labelled planted-partition graphs) and the
// train/valid/test splits.
//
// # Conventions
//
// A Dataset's Adj is square; row v lists the vertices that v aggregates from
// (its in-neighbours). Files that store a matrix (.npz, .mtx, native) give
// that matrix as Adj. Files that store edges (edge lists, OGB edge_index) are
// read as messages: the edge "u v" (u -> v) becomes entry (v, u). Vertex ids
// are int32, row offsets int64, values and features float32.
//
// Load symmetrises gnn-benchmark files (Cora's stored adjacency is directed
// citations; PyG and DGL use it undirected) and OGB CSV folders (which store
// each undirected edge once), dropping self loops; everything else is taken
// as stored. LoadOptions.Symmetry overrides this.
//
// A labelled dataset without a stored split gets a deterministic one by
// LoadOptions.Seed: the Planetoid protocol (20 nodes per class for training,
// 500 for validation, 1,000 for test) under 100,000 nodes, a stratified
// 10% / 5% / 85% split otherwise. See SplitPlanetoid for the specifications
// LoadOptions.Split accepts.
//
// Save writes the scipy sparse layout to a path ending in .npz (indptr,
// indices, data, shape, format, readable by scipy.sparse.load_npz), adding
// the arrays features (n x f float32), labels (int32), idx_train, idx_valid
// and idx_test when the Dataset has them; any other path gets the native
// format.
//
// # Native format
//
// A native file is little-endian throughout:
//
//	offset  size  field
//	0       8     magic "BSNATIVE"
//	8       4     format version, uint32 (1)
//	12      4     CRC-32C (Castagnoli) of the JSON header, uint32
//	16      8     length H of the JSON header in bytes, uint64
//	24      H     JSON header (below)
//	...           zero padding; then each array at its offset (a multiple of
//	              64), zero padding between arrays
//
// The JSON header holds "format": "bulksample-native", "version", "name",
// "nodes", "edges" (stored entries), "weighted", "num_features",
// "num_classes" and "arrays": a list of {"name", "dtype", "offset", "count",
// "crc32c"}, where dtype is int64, int32 or float32 and crc32c is the CRC-32C
// of the array's bytes. The arrays are indptr (int64, nodes+1), indices
// (int32, edges), data (float32, edges), and optionally features (float32,
// nodes x num_features, row-major), labels (int32, nodes; -1 unlabelled),
// train, valid and test (int32, sorted node ids).
//
// Load maps the file into memory (copy-on-write: the arrays may be modified
// in memory without touching the file) and uses the arrays in place, so a
// load costs the pages touched. By default it checks every checksum and the
// CSR structure (one pass over the file, a few hundred milliseconds for 100M
// edges); LoadOptions.SkipVerify trusts the file and touches only the header.
// Dataset.Close unmaps the file.
//
// # Determinism
//
// RMAT and PlantedPartition draw every random number as a hash of (seed,
// index), so their output depends only on their options, never on the number
// of threads. Splits depend only on the seed.
//
// # Errors
//
// Every problem with input data is returned as an error that names the file
// and, where it applies, the array, field or line, and wraps ErrFormat for
// malformed content; no input makes a reader panic, and sizes declared in a
// file are checked against the file's size before anything is allocated.
// Writers write to a temporary name and rename, so an output file is never
// left half-written.
package dataset
