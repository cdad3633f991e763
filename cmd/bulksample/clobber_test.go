package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyTree copies the regular files under src into dst, writable.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// writeGz writes s gzipped to path, making its folder.
func writeGz(t *testing.T, path, s string) {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestOutputsOverInputs: an output that is one of the files a command
// reads (a file inside a folder dataset, the checkpoint being resumed,
// convert's IN, through a symbolic or a hard link too) or another output
// is a usage error (exit 2) naming both, before anything is read or
// written, and the input is left byte for byte. `train --data Cora
// --split-out Cora/raw/ind.cora.graph` exited 0 having replaced the
// graph, `--split-out ck/checkpoint.gob --resume` replaced the checkpoint
// before reading it, and `convert cora.npz cora.npz` rewrote the
// gnn-benchmark file as a scipy one, its node and class names lost.
func TestOutputsOverInputs(t *testing.T) {
	dir := t.TempDir()
	ogb := filepath.Join(dir, "ogb")
	writeGz(t, filepath.Join(ogb, "raw", "edge.csv.gz"), "0,1\n1,2\n")
	writeGz(t, filepath.Join(ogb, "raw", "num-node-list.csv.gz"), "3\n")
	writeGz(t, filepath.Join(ogb, "raw", "num-edge-list.csv.gz"), "2\n")
	writeGz(t, filepath.Join(ogb, "split", "s", "train.csv.gz"), "0\n")
	in := filepath.Join(dir, "g.txt")
	ck := filepath.Join(dir, "ck")
	for p, s := range map[string]string{in: "0 1\n1 2\n", filepath.Join(ck, "checkpoint.gob"): "a checkpoint"} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "new"), 0o755); err != nil {
		t.Fatal(err)
	}
	link, hard := filepath.Join(dir, "link.txt"), filepath.Join(dir, "hard.txt")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   []string
		kept   string // the input that must be left as it was
		stderr string
	}{
		{"a file of an OGB folder", []string{"train", "--data", ogb, "--split-out", filepath.Join(ogb, "split", "s", "train.csv.gz")},
			filepath.Join(ogb, "split", "s", "train.csv.gz"), "is a file of --data " + ogb + ", which the command reads"},
		{"the checkpoint resumed", []string{"train", "--data", in, "--checkpoint", ck, "--resume", "--split-out", filepath.Join(ck, "checkpoint.gob")},
			filepath.Join(ck, "checkpoint.gob"), "is also the checkpoint that --resume reads and rewrites"},
		{"the checkpoint of a fresh run", []string{"train", "--data", in, "--checkpoint", filepath.Join(dir, "new"), "--split-out", filepath.Join(dir, "new", "checkpoint.gob")},
			in, "is also --checkpoint " + filepath.Join(dir, "new") + "'s checkpoint"},
		{"two outputs", []string{"train", "--data", in, "--plot", filepath.Join(dir, "x.png"), "--split-out", filepath.Join(dir, "x.png")}, in, "--split-out " + filepath.Join(dir, "x.png") + " is also --plot"},
		{"convert IN IN", []string{"convert", in, in}, in, "OUT " + in + " is IN, which the command reads"},
		{"convert through a symbolic link", []string{"convert", in, link}, in, "OUT " + link + " is IN (" + in + ")"},
		{"convert through a hard link", []string{"convert", in, hard}, in, "OUT " + hard + " is IN (" + in + ")"},
	}
	for _, tc := range tests {
		before, err := os.ReadFile(tc.kept)
		if err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runCLI(t, tc.args[0], tc.args[1:]...)
		if code != 2 || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("%s: %q: exit %d, stderr %q; want 2 and %q", tc.name, tc.args, code, firstLine(stderr), tc.stderr)
		}
		if after, err := os.ReadFile(tc.kept); err != nil || !bytes.Equal(after, before) {
			t.Errorf("%s: %s was changed (%v)", tc.name, tc.kept, err)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "new")); len(entries) > 0 {
		t.Errorf("the refused run wrote %v into its checkpoint folder", entries)
	}
}

// TestOutputOverPlanetoidFile: `train --data Cora --split-out
// Cora/raw/ind.cora.graph` (a copy of the shared Planetoid folder) is
// refused naming the file of the dataset, which is left as it was.
func TestOutputOverPlanetoidFile(t *testing.T) {
	src := sharedDataset(t, filepath.Join("Planetoid", "Cora"))
	cora := filepath.Join(t.TempDir(), "Cora")
	copyTree(t, src, cora)
	graph := filepath.Join(cora, "raw", "ind.cora.graph")
	before, err := os.ReadFile(graph)
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "train", "--data", cora, "--epochs", "1", "--split-out", graph)
	if want := "--split-out " + graph + " is a file of --data " + cora + ", which the command reads"; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, firstLine(stderr), want)
	}
	if after, err := os.ReadFile(graph); err != nil || !bytes.Equal(after, before) {
		t.Errorf("%s was changed (%v)", graph, err)
	}
}
