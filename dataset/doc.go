// Package dataset owns reading and writing graphs and node features (scipy
// .npz, the gnn-benchmark .npz layout, OGB node-property folders, the
// Planetoid datasets' raw files, edge lists (SNAP, CSV with a header,
// KONECT), METIS .graph files, the heterophilous-graphs .npz, DGL
// CSVDataset and MUSAE folders, Matrix Market files, and bulksample's
// native memory-mappable format),
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
// OGB folders, edge lists and Matrix Market files are read in two streaming
// passes over the edges (counting the entries of each row, then placing them
// into the final arrays), so a load never holds more than the final CSR, 8
// bytes per node of counters and two chunks of 2^20 edges: not a copy of the
// edges, nor their text. An edge list, whose vertex count is only known once
// every id has been seen, takes one more pass first; reading twice or three
// times costs time (about 2x a one-pass load) to halve the peak memory.
//
// Load symmetrises gnn-benchmark files (Cora's stored adjacency is directed
// citations; PyG and DGL use it undirected), OGB CSV folders,
// heterophilous-graphs files and MUSAE folders (which store each
// undirected edge once) and edge lists whose comments say they are
// undirected (SNAP's "# Undirected graph", KONECT's "% sym"), dropping self
// loops; everything else is taken as stored. LoadOptions.Symmetry
// overrides this. Readers of users' files say what they did in
// Dataset.Report (ids renumbered, self loops, merged duplicates, reverse
// edges), and keep a renumbering's source ids in Dataset.SourceIDs.
//
// A Planetoid dataset (Cora, CiteSeer, PubMed) is read from the ind.NAME.*
// files of Kipf and Welling's GCN repository, which PyTorch Geometric
// downloads into <root>/<Name>/raw: Python pickles, read by a restricted
// unpickler that runs nothing and accepts only the classes those files use
// (pickle.go), assembled as PyG's read_planetoid_data does, with the public
// split (planetoid.go).
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
// and idx_test when the Dataset has them, and for a relabelled graph
// orig_ids (int32) and relabel (a string: "degree" or "random:SEED"), and
// the optional parts of npz_extras.go (sparse features as features_*,
// source_ids, splits_offsets and splits); any other path gets the native
// format. A file with stored splits loads split LoadOptions.SplitIndex (0
// by default), whichever of them Train, Valid and Test held when it was
// saved.
//
// # Native format
//
// A native file is little-endian throughout:
//
//	offset  size  field
//	0       8     magic "BSNATIVE" ("BSNPART\x00" while the processes of
//	              GenerateRMATFile write their parts: the magic is written
//	              last, and readers refuse a file without it)
//	8       4     format version, uint32 (1, or 2 for a relabelled graph)
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
// train, valid and test (int32, sorted node ids), and the optional arrays
// of native_extras.go: sparse_indptr, sparse_indices and sparse_data
// (sparse features, in place of features), source_ids (int64) and
// splits_offsets and splits (the stored splits), with the header's
// class_names. A file without them is the same bytes as before they
// existed.
//
// Version 2 is the format of a graph relabelled when it was converted or
// generated (Relabel, GenerateRMATFile): the header adds "relabel" (the
// method, "random" or "degree") and "relabel_seed" (random's seed), and
// the array orig_ids (int32, nodes) gives each vertex's id in the source,
// so that ids map back. A file without a relabelling is written as version
// 1, byte for byte as before version 2 existed, and readers read both.
//
// Load maps the file into memory (copy-on-write: the arrays may be modified
// in memory without touching the file) and uses the arrays in place, so a
// load costs the pages it reads. LoadOptions.Verify chooses what is read
// before the Dataset is returned:
//
//   - VerifyStructure, the default: the header, the row offsets (non-
//     decreasing, ending at the edge count), the column ids (sorted, unique,
//     in range), the labels and the split ids. These are the checks without
//     which a corrupt or hostile file could make a kernel index out of range
//     or silently read a different graph, so they stay on by default. They
//     read the row offsets and column ids (about half of an unweighted
//     graph's file) in parallel; at R-MAT scale 22 (128M entries, 2 cores)
//     that is about 0.1 s, 9 to 10 times less than loading the same graph
//     from a scipy .npz.
//   - VerifyChecksums (the CLI's --verify checksums): the structure, and
//     the CRC-32C of every array, which also catches flipped bits in the
//     edge values and the features. It reads the whole file once, in
//     parallel pieces whose CRCs are combined, checking each piece's rows
//     while it is in cache; about 0.25 s at scale 22, 4 times less than
//     an .npz load.
//     Use it for files that were copied or stored where bits may rot.
//   - VerifyNone (--verify none, LoadOptions.SkipVerify): trust the file;
//     only the header is read, and pages are read on first use.
//
// Checksums are not checked by default because a bit flip in a value or a
// feature cannot crash anything, and the check more than doubles the time of
// a default native load. Dataset.Close unmaps the file.
//
// # Determinism
//
// RMAT and PlantedPartition draw every random number as a hash of (seed,
// index), so their output depends only on their options, never on the number
// of threads; GenerateRMATFile writes the same file from any number of
// processes. Splits and the random relabelling depend only on the seed.
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
