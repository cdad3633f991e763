package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInfoAsShipped runs info on the real files of users' sources as they
// ship: MUSAE's Facebook edge list (a CSV header), its folder (sparse
// features, named classes) and the heterophilous-graphs Tolokers file.
func TestInfoAsShipped(t *testing.T) {
	dir := sharedDataset(t, "musae-facebook")
	code, stdout, stderr := runCLI(t, "info", filepath.Join(dir, "facebook_edges.csv"), "--json")
	if code != 0 {
		t.Fatalf("info facebook_edges.csv: exit %d\n%s", code, stderr)
	}
	m := lastJSONMap(t, stdout)
	if m["nodes"] != float64(22470) || m["edges"] != float64(171002) || m["symmetric"] != false || m["self_loops"] != float64(179) {
		t.Errorf("facebook_edges.csv: %v", m)
	}
	if !strings.Contains(stdout, "note      header columns id_1, id_2: id_1 -> id_2") ||
		!strings.Contains(stdout, "symmetric no: 170823 entries without their reverse") {
		t.Errorf("facebook_edges.csv: output lacks the header note or the symmetry line:\n%s", stdout)
	}
	code, stdout, stderr = runCLI(t, "info", dir, "--json")
	if code != 0 {
		t.Fatalf("info musae-facebook: exit %d\n%s", code, stderr)
	}
	m = lastJSONMap(t, stdout)
	names, _ := m["class_names"].([]any)
	if m["format"] != "musae" || m["features"] != float64(4714) || m["sparse_features"] != true || m["classes"] != float64(4) ||
		len(names) != 4 || m["symmetric"] != true || m["components"] != float64(1) {
		t.Errorf("musae-facebook: %v", m)
	}
	read, _ := m["read"].(map[string]any)
	if read["edges"] != float64(171002) || read["self_loops"] != float64(179) || read["reversed"] != true {
		t.Errorf("musae-facebook: read %v", read)
	}
	if code, stdout, _ := runCLI(t, "info", dir, "--facts=false", "--json"); code != 0 || lastJSONMap(t, stdout)["facts"] != false ||
		!strings.Contains(stdout, "symmetric not checked (--facts=false)") {
		t.Errorf("info --facts=false: exit %d\n%s", code, stdout)
	}
	tol := sharedDataset(t, "tolokers/tolokers.npz")
	code, stdout, stderr = runCLI(t, "info", tol, "--split-index", "7", "--json")
	if code != 0 {
		t.Fatalf("info tolokers: exit %d\n%s", code, stderr)
	}
	m = lastJSONMap(t, stdout)
	if m["format"] != "heterophilous-npz" || m["edges"] != float64(1038000) || m["stored_splits"] != float64(10) || m["split_index"] != float64(7) ||
		m["train"] != float64(5879) {
		t.Errorf("tolokers: %v", m)
	}
	if code, _, stderr := runCLI(t, "info", tol, "--split-index", "10"); code != 1 || !strings.Contains(stderr, "split index 10 outside [0, 10): the dataset stores 10 splits") {
		t.Errorf("--split-index 10: exit %d\n%s", code, stderr)
	}
}

// TestTrainAsShipped trains on Tolokers' official split 0 and on MUSAE's
// folder as they ship (one epoch: that they run, not how well).
func TestTrainAsShipped(t *testing.T) {
	tol := sharedDataset(t, "tolokers/tolokers.npz")
	code, stdout, stderr := runCLI(t, "train", "--data", tol, "--split-index", "0", "--epochs", "1", "--fanout", "5,5", "--hidden", "16", "--json")
	if code != 0 {
		t.Fatalf("train tolokers: exit %d\n%s", code, stderr)
	}
	m := lastJSONMap(t, stdout)
	if m["nodes"] != float64(11758) || m["edges"] != float64(1038000) {
		t.Errorf("train tolokers: %v nodes, %v edges", m["nodes"], m["edges"])
	}
	dir := sharedDataset(t, "musae-facebook")
	code, _, stderr = runCLI(t, "train", "--data", dir, "--split", "random:0.6,0.2,0.2", "--epochs", "1", "--fanout", "5,5", "--hidden", "16", "--no-eval")
	if code != 0 {
		t.Fatalf("train musae-facebook: exit %d\n%s", code, stderr)
	}
}

// TestSymmetryAndSplitIndexFlags checks that sample and train take
// --symmetry and --split-index as info and convert do, and that convert
// --split-index keeps the one split.
func TestSymmetryAndSplitIndexFlags(t *testing.T) {
	dir := t.TempDir()
	snap := filepath.Join(dir, "g.txt")
	if err := os.WriteFile(snap, []byte("# Directed graph\n1\t2\n2\t3\n3\t4\n4\t1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		symmetry string
		edges    float64
	}{{"default", 4}, {"stored", 4}, {"symmetrize", 8}} {
		code, stdout, stderr := runCLI(t, "sample", "--graph", snap, "--symmetry", tt.symmetry, "--batch", "2", "--fanout", "2", "--json")
		if code != 0 {
			t.Fatalf("sample --symmetry %s: exit %d\n%s", tt.symmetry, code, stderr)
		}
		if m := lastJSONMap(t, stdout); m["edges"] != tt.edges || m["vertices"] != float64(4) {
			t.Errorf("sample --symmetry %s: %v vertices, %v edges; want 4, %v", tt.symmetry, m["vertices"], m["edges"], tt.edges)
		}
	}
	code, stdout, _ := runCLI(t, "info", snap)
	if code != 0 || !strings.Contains(stdout, "ids       1-based: the file's ids 1..4 are vertices 0..3 (source ids kept)") {
		t.Errorf("info of a 1-based SNAP file: exit %d\n%s", code, stdout)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"sample", "--graph", snap, "--symmetry", "both"}, `--symmetry "both": want default, symmetrize or stored`},
		{[]string{"sample", "--graph", snap, "--split-index", "-1"}, "--split-index -1: want >= 0"},
		{[]string{"info", snap, "--split-index", "1", "--split", "random:0.5,0.2,0.3"}, "--split-index 1 and --split"},
		{[]string{"train", "--data", snap, "--split-index", "2", "--split", "none"}, "--split-index 2 and --split"},
		{[]string{"train", "--data", "synthetic", "--split-index", "1"}, "--split-index and --symmetry apply to data read from a file"},
		{[]string{"train", "--data", snap, "--symmetry", "up"}, `--symmetry "up"`},
	} {
		code, _, stderr := runCLI(t, tt.args[0], tt.args[1:]...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%q: exit %d, stderr %q; want usage error %q", tt.args, code, stderr, tt.want)
		}
	}
	if code, _, stderr := runCLI(t, "sample", "--graph", snap, "--split-index", "1"); code != 1 || !strings.Contains(stderr, "split index 1: the dataset stores no split (index 0 only)") {
		t.Errorf("sample --split-index 1 of an edge list: exit %d\n%s", code, stderr)
	}
	tol := sharedDataset(t, "tolokers/tolokers.npz")
	out := filepath.Join(dir, "t3.bsn")
	if code, _, stderr := runCLI(t, "convert", tol, out, "--split-index", "3"); code != 0 || !strings.Contains(stderr, "keeping split 3 of the 10 stored") {
		t.Fatalf("convert --split-index 3: exit %d\n%s", code, stderr)
	}
	all := filepath.Join(dir, "all.npz")
	if code, _, stderr := runCLI(t, "convert", tol, all); code != 0 {
		t.Fatalf("convert: exit %d\n%s", code, stderr)
	}
	_, one, _ := runCLI(t, "info", out, "--json")
	_, three, _ := runCLI(t, "info", all, "--split-index", "3", "--json")
	a, b := lastJSONMap(t, one), lastJSONMap(t, three)
	if a["stored_splits"] != nil || b["stored_splits"] != float64(10) || a["train"] != b["train"] {
		t.Errorf("convert --split-index 3: %v stored splits, train %v; the 10 splits' third: train %v", a["stored_splits"], a["train"], b["train"])
	}
}
