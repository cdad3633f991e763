package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	pprofile "github.com/google/pprof/profile"
)

// TestProfileEveryCommand runs every command with --profile and checks that
// the file lands in --profile-dir under its documented name, in the format
// its reader expects, and that stderr names it. (Not parallel: the profile
// package allows one profile per process at a time.)
func TestProfileEveryCommand(t *testing.T) {
	dir := t.TempDir()
	graph := filepath.Join(dir, "g.npz")
	for _, tc := range []struct {
		kind, file string
		args       []string
	}{
		{"cpu", "cpu.pprof", []string{"gen", "rmat", "--scale", "8", "--edge-factor", "4", "--out", graph}},
		{"mem", "mem.pprof", []string{"info", graph}},
		{"allocs", "allocs.pprof", []string{"convert", graph, filepath.Join(dir, "g.bsg")}},
		{"block", "block.pprof", []string{"spgemm", "--a", graph, "--reps", "1"}},
		{"mutex", "mutex.pprof", []string{"sample", "--graph", graph, "--batch", "16", "--fanout", "3,2"}},
		{"trace", "trace.out", []string{"train", "--data", "synthetic:nodes=400,classes=2,features=4,split=random:0.5,0.2,0.3",
			"--fanout", "3", "--batch", "64", "--epochs", "1", "--hidden", "4"}},
	} {
		pdir := filepath.Join(dir, "prof-"+tc.kind) // created by the command
		args := append(tc.args, "--profile", tc.kind, "--profile-dir", pdir)
		code, _, stderr := runCLI(t, args[0], args[1:]...)
		if code != 0 {
			t.Fatalf("%s --profile %s: exit %d\n%s", args[0], tc.kind, code, stderr)
		}
		path := filepath.Join(pdir, tc.file)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s --profile %s: %v", args[0], tc.kind, err)
		}
		// pprof files are gzipped protocol buffers; execution traces start "go 1.".
		magic := []byte{0x1f, 0x8b}
		if tc.kind == "trace" {
			magic = []byte("go 1.")
		}
		if !bytes.HasPrefix(b, magic) {
			t.Errorf("%s: starts %q; want %q", path, b[:min(len(b), 8)], magic)
		}
		if !strings.Contains(stderr, "wrote "+tc.kind+" profile "+path) || !strings.Contains(stderr, "go tool") {
			t.Errorf("%s --profile %s: stderr does not name the file and its reader:\n%s", args[0], tc.kind, stderr)
		}
		if entries, _ := os.ReadDir(pdir); len(entries) != 1 {
			t.Errorf("%s holds %d entries; want only %s (the private directory removed)", pdir, len(entries), tc.file)
		}
	}
}

// TestProfileWrittenOnError: a command that fails still leaves its profile.
func TestProfileWrittenOnError(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := runCLI(t, "info", filepath.Join(dir, "missing.npz"), "--profile", "cpu", "--profile-dir", dir)
	if code != 1 {
		t.Fatalf("info of a missing file: exit %d; want 1\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "cpu.pprof")); err != nil {
		t.Errorf("profile of a failed run: %v", err)
	}
}

func TestProfileFlagErrors(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := runCLI(t, "info", "x.npz", "--profile", "heap")
	if code != 2 || !strings.Contains(stderr, "-profile") || !strings.Contains(stderr, "want cpu, mem, allocs, block, mutex or trace") {
		t.Errorf("--profile heap: exit %d; want 2 and the valid kinds\n%s", code, stderr)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, "gen", "rmat", "--scale", "4", "--out", filepath.Join(dir, "g.npz"), "--profile", "cpu", "--profile-dir", file)
	if code != 1 || !strings.Contains(stderr, "--profile-dir") {
		t.Errorf("--profile-dir naming a file: exit %d; want 1 and an error naming the flag\n%s", code, stderr)
	}
}

func TestProfileFile(t *testing.T) {
	for _, tc := range []struct {
		kind        profileKind
		rank, ranks int
		want        string
	}{
		{"cpu", 0, 1, "cpu.pprof"},
		{"allocs", 0, 1, "allocs.pprof"},
		{"trace", 0, 1, "trace.out"},
		{"cpu", 0, 4, "cpu.rank0.pprof"},
		{"trace", 3, 4, "trace.rank3.out"},
	} {
		if got := profileFile(tc.kind, tc.rank, tc.ranks); got != tc.want {
			t.Errorf("profileFile(%s, %d, %d) = %q; want %q", tc.kind, tc.rank, tc.ranks, got, tc.want)
		}
	}
}

// TestProfileMemoryRecords: --profile mem and allocs record what the
// command allocated after the profile started (the sampler's arrays),
// which a profile whose sampling rate stayed 0 missed, leaving only the
// allocations of package initialisation; a distributed sample's mem
// profile is written too.
func TestProfileMemoryRecords(t *testing.T) {
	dir := t.TempDir()
	graph := filepath.Join(dir, "g.npz")
	if code, _, stderr := runCLI(t, "gen", "rmat", "--scale", "10", "--edge-factor", "8", "--out", graph); code != 0 {
		t.Fatalf("gen: exit %d\n%s", code, stderr)
	}
	for _, tc := range []struct {
		kind  string
		extra []string
	}{
		{"mem", nil},
		{"allocs", nil},
		{"mem", []string{"--inproc-ranks", "2", "--fetch", "push"}},
	} {
		pdir := filepath.Join(dir, "prof-"+tc.kind+fmt.Sprint(len(tc.extra)))
		args := append([]string{"--graph", graph, "--batch", "64", "--fanout", "5,5", "--profile", tc.kind, "--profile-dir", pdir}, tc.extra...)
		if code, _, stderr := runCLI(t, "sample", args...); code != 0 {
			t.Fatalf("sample %v: exit %d\n%s", args, code, stderr)
		}
		f, err := os.Open(filepath.Join(pdir, tc.kind+".pprof"))
		if err != nil {
			t.Fatal(err)
		}
		p, err := pprofile.Parse(f)
		f.Close()
		if err != nil {
			t.Fatalf("--profile %s: %v", tc.kind, err)
		}
		alloc := slices.IndexFunc(p.SampleType, func(st *pprofile.ValueType) bool { return st.Type == "alloc_space" })
		var sampler int64 // bytes allocated under package sampling
		for _, s := range p.Sample {
			if slices.ContainsFunc(s.Location, func(l *pprofile.Location) bool {
				return slices.ContainsFunc(l.Line, func(ln pprofile.Line) bool {
					return strings.Contains(ln.Function.Name, "bulksample/sampling.")
				})
			}) {
				sampler += s.Value[alloc]
			}
		}
		if alloc < 0 || sampler == 0 {
			t.Errorf("sample %v: the %s profile records no allocation of package sampling", tc.extra, tc.kind)
		}
	}
}
