package dataset

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Fuzz targets of the readers of data as users' sources ship it: SNAP and
// CSV edge lists, METIS files, the heterophilous-graphs .npz, DGL's
// CSVDataset folders, MUSAE folders and the YAML subset. Their seeds come
// from formatSeeds (merged into fuzzSeeds, so TestFuzzSeedCorpus keeps
// testdata/fuzz in step).

func FuzzReadSNAP(f *testing.F) {
	for _, s := range fuzzSeeds(f)["FuzzReadSNAP"] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, sym := range []Symmetry{SymmetryDefault, Symmetrize} {
			d, err := readEdgeList(context.Background(), "f.txt", bytes.NewReader(b), sym, 2, 3)
			checkAccepted(t, d, err)
			if err == nil && sym == Symmetrize && !Facts(d.Adj).Symmetric {
				t.Fatalf("symmetrised but not symmetric")
			}
		}
	})
}

func FuzzReadMETIS(f *testing.F) {
	for _, s := range fuzzSeeds(f)["FuzzReadMETIS"] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := readMETIS(context.Background(), "f.graph", bytes.NewReader(b), int64(len(b)))
		checkAccepted(t, d, err)
	})
}

func FuzzReadHeterophilous(f *testing.F) {
	for _, s := range fuzzSeeds(f)["FuzzReadHeterophilous"] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		z, err := newNPZ("f.npz", bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		d, err := readHeterophilous(context.Background(), z, SymmetryDefault, 2, 3)
		checkAccepted(t, d, err)
	})
}

func FuzzParseYAML(f *testing.F) {
	for _, s := range fuzzSeeds(f)["FuzzParseYAML"] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = parseYAML("f.yaml", b)
	})
}

// fuzzFolder writes the files of a fuzz input, texts separated by lines
// "===" in the order of names (missing ones are removed), into dir.
func fuzzFolder(t *testing.T, dir string, b []byte, names []string) {
	parts := bytes.SplitN(b, []byte("\n===\n"), len(names))
	for i, name := range names {
		p := filepath.Join(dir, name)
		if i < len(parts) {
			writeFile(t, p, parts[i])
		} else {
			os.Remove(p)
		}
	}
}

var (
	dglFuzzFiles   = []string{"meta.yaml", "nodes.csv", "edges.csv"}
	musaeFuzzFiles = []string{"f_target.csv", "f_edges.csv", "f_features.json"}
)

// FuzzReadDGLCSV feeds a CSVDataset folder to its loader: the texts of
// meta.yaml, nodes.csv and edges.csv separated by lines "===", with
// chunks of 3 edges.
func FuzzReadDGLCSV(f *testing.F) {
	for _, s := range fuzzSeeds(f)["FuzzReadDGLCSV"] {
		f.Add(s)
	}
	dir := f.TempDir() // one folder per process, rewritten by every input
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzFolder(t, dir, b, dglFuzzFiles)
		for _, sym := range []Symmetry{SymmetryDefault, Symmetrize} {
			d, err := loadDGLCSV(context.Background(), dir, &LoadOptions{Symmetry: sym, Threads: 2}, 3)
			checkAccepted(t, d, err)
		}
	})
}

// FuzzReadMUSAE feeds a MUSAE folder to its loader: the texts of
// NAME_target.csv, NAME_edges.csv and NAME_features.json separated by
// lines "===", with chunks of 3 edges.
func FuzzReadMUSAE(f *testing.F) {
	for _, s := range fuzzSeeds(f)["FuzzReadMUSAE"] {
		f.Add(s)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzFolder(t, dir, b, musaeFuzzFiles)
		d, err := loadMUSAE(context.Background(), dir, &LoadOptions{Threads: 2}, 3)
		checkAccepted(t, d, err)
	})
}

// formatSeeds returns the seeds of the targets above, from the files the
// unit tests use.
func formatSeeds(t testing.TB) map[string][][]byte {
	join := func(files map[string]string, names []string) []byte {
		var parts [][]byte
		for _, n := range names {
			parts = append(parts, []byte(files[n]))
		}
		return bytes.Join(parts, []byte("\n===\n"))
	}
	musae := map[string]string{}
	for k, v := range musaeFilesSmall {
		musae["f"+strings.TrimPrefix(k, "tiny")] = v
	}
	stored := heteroMembers()
	for i := range stored {
		stored[i].deflate = false // mutations reach the arrays, not the deflate stream
	}
	oneSplit := slices.Clone(stored)
	for i := range oneSplit {
		if strings.HasSuffix(oneSplit[i].name, "_masks") {
			oneSplit[i].shape, oneSplit[i].data = []int64{4}, oneSplit[i].data[:4]
		}
	}
	return map[string][][]byte{
		"FuzzReadSNAP": {
			[]byte("# Undirected graph: g.txt\n# Nodes: 3 Edges: 2\n# FromNodeId\tToNodeId\n1\t2\n2\t3\n"),
			[]byte("id_1,id_2\n0,18427\n1,21708\n"),
			[]byte("% sym unweighted\n% 3 3 3\n10 20\n20 30\n"),
			[]byte("source target weight\n5 1 0.5\n1 5 2\n"),
			[]byte("9223372036854775807 3\n3 3\n"),
		},
		"FuzzReadMETIS": {
			[]byte("% a triangle\n4 3\n2 3\n1 3\n1 2\n\n"),
			[]byte("4 3 111 2\n1 1 1 2 5 3 7\n1 1 1 1 5 3 2\n1 1 1 1 7 2 2\n1 1 1\n"),
			[]byte("2 1 001\n2 0.5\n1 0.5\n"),
		},
		"FuzzReadHeterophilous": {buildNPZ(t, stored), buildNPZ(t, oneSplit), buildNPZ(t, heteroMembers())},
		"FuzzParseYAML": {
			[]byte(dglFeatureFiles["meta.yaml"]),
			[]byte("version: 1.0.0\nseparator: ';'\nedge_data:\n  - file_name: e.csv\n    etype: [v, \"e\", v]\nnode_data:\n- file_name: n.csv\n  ntype: v # c\nlist:\n- - a\n  -\n    b\n"),
		},
		"FuzzReadDGLCSV": {
			join(dglFeatureFiles, dglFuzzFiles),
			[]byte("separator: ';'\nedge_data:\n- file_name: edges.csv\n  src_id_field: a\n  dst_id_field: b\nnode_data:\n- file_name: nodes.csv\n===\nnode_id;label\n7;0\n-2;1\n===\na;b;weight\n7;-2;0.5\n-2;-2;1\n"),
		},
		"FuzzReadMUSAE": {join(musae, musaeFuzzFiles)},
	}
}
