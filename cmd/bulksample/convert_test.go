package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConvertRoundTrip(t *testing.T) {
	p := sharedDataset(t, "citeseer.npz")
	dir := t.TempDir()
	native := filepath.Join(dir, "citeseer.bsn")
	scipy := filepath.Join(dir, "citeseer.npz")
	code, stdout, stderr := runCLI(t, "convert", p, native, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m := lastJSON[map[string]any](t, stdout)
	if m["out_format"] != "native" || m["nodes"] != float64(3312) || m["features"] != float64(3703) {
		t.Errorf("summary %v", m)
	}
	if code, _, stderr = runCLI(t, "convert", native, scipy); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var infos []map[string]any
	for _, f := range []string{p, native, scipy} {
		code, stdout, _ := runCLI(t, "info", f, "--json")
		if code != 0 {
			t.Fatalf("info %s failed", f)
		}
		m := lastJSON[map[string]any](t, stdout)
		delete(m, "path")
		delete(m, "format")
		delete(m, "load_seconds")
		delete(m, "peak_rss_bytes")
		delete(m, "phases") // measurements, like the two above
		delete(m, "name")
		delete(m, "read") // what the reader did to that file's data
		infos = append(infos, m)
	}
	for i := 1; i < len(infos); i++ {
		for k, v := range infos[0] {
			if infos[i][k] != v {
				t.Errorf("file %d: %s = %v, want %v", i, k, infos[i][k], v)
			}
		}
	}
}

func TestConvertErrors(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "g.txt")
	os.WriteFile(in, []byte("0 1\n"), 0o644)
	if code, _, _ := runCLI(t, "convert", in); code != 2 {
		t.Errorf("one argument: exit %d, want 2", code)
	}
	// An unwritable output is a run error naming it, and nothing is left.
	out := filepath.Join(dir, "no", "such", "dir", "g.bsn")
	code, _, stderr := runCLI(t, "convert", in, out)
	if code != 1 || !strings.Contains(stderr, out) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	// A corrupt input is named.
	corrupt := filepath.Join(dir, "c.bsn")
	os.WriteFile(corrupt, []byte("BSNATIVE\x01\x00\x00\x00garbagegarbage"), 0o644)
	code, _, stderr = runCLI(t, "convert", corrupt, filepath.Join(dir, "o.npz"))
	if code != 1 || !strings.Contains(stderr, corrupt) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "o.npz")); err == nil {
		t.Error("output written for a corrupt input")
	}
}
