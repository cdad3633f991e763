package main

import (
	"bytes"
	"context"
	"os"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/gnn"
)

// TestHelpGoesToStdout: help that was asked for goes to standard output
// with exit 0 (so that `bulksample train --help | head` shows it); usage
// errors go to standard error with exit 2 and nothing on standard output:
// the error and one line saying how to get the usage, as go and git print
// them, not the whole usage (69-117 lines after the one that mattered).
func TestHelpGoesToStdout(t *testing.T) {
	for _, args := range [][]string{
		{"help"}, {"--help"}, {"-h"}, {"help", "train"},
		{"gen", "--help"}, {"convert", "--help"}, {"info", "--help"}, {"spgemm", "--help"},
		{"sample", "--help"}, {"train", "--help"}, {"train", "-h"}, {"device", "--help"},
	} {
		code, stdout, stderr := runCLI(t, args[0], args[1:]...)
		if code != 0 || !strings.Contains(stdout, "usage: bulksample") || stderr != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 0, the usage on stdout and nothing on stderr", args, code, firstLine(stdout), firstLine(stderr))
		}
	}
	for _, tc := range []struct {
		args []string
		want string // the first line, after "bulksample CMD: "
	}{
		{[]string{"nosuchcommand"}, `unknown command "nosuchcommand" (want gen, convert, info, spgemm, sample, train, device)`},
		{[]string{"train", "--nosuchflag"}, "unknown flag --nosuchflag"},
		{[]string{"sample", "--batch", "x"}, `--batch "x": want an integer`},
		{[]string{"train", "--data", "cora", "--lr", "abc"}, `--lr "abc": want a number`},
		{[]string{"train", "--data", "cora", "--seed", "-1"}, `--seed "-1": want an integer >= 0`},
		{[]string{"train", "--data", "cora", "--batch", "x"}, `--batch "x": want a number or all`},
		{[]string{"train", "--data"}, "--data needs a value"},
		{[]string{"gen", "foo", "--out", "x.bsn"}, `unknown generator "foo" (want rmat or sbm)`},
		{[]string{"info"}, ""},
		{[]string{"train"}, "--data is required"},
	} {
		code, stdout, stderr := runCLI(t, tc.args[0], tc.args[1:]...)
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		hint := helpHint(tc.args[0])
		if tc.args[0] == "nosuchcommand" {
			hint = "Run 'bulksample help' for usage."
		}
		if code != 2 || stdout != "" || len(lines) != 2 || lines[1] != hint || !strings.HasSuffix(lines[0], tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2, nothing on stdout and on stderr %q then %q", tc.args, code, firstLine(stdout), stderr, tc.want, hint)
		}
	}
	// No arguments at all is a usage error.
	var out, errOut bytes.Buffer
	if code := run(context.Background(), nil, &env{stdout: &out, stderr: &errOut}); code != 2 || out.Len() != 0 || errOut.Len() == 0 {
		t.Errorf("no command: exit %d, stdout %q; want 2 and the usage on stderr", code, out.String())
	}
}

// TestVersion: --version prints the build's version on stdout with exit 0,
// then what the binary was built with: its BLAS and MPI, from the binary
// itself (scripts/run.sh prints its BLAS line).
func TestVersion(t *testing.T) {
	for _, arg := range []string{"--version", "version"} {
		code, stdout, stderr := runCLI(t, arg)
		want := "bulksample " + version() + "\n" + buildReport()
		if code != 0 || stdout != want || stderr != "" || version() == "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 0 and %q", arg, code, stdout, stderr, want)
		}
	}
	blas := "BLAS: pure-Go gonum"
	if gnn.BLAS == "openblas" {
		blas = "BLAS: OpenBLAS through cgo"
	}
	mpi := "MPI: no"
	if dist.MPIAvailable {
		mpi = "MPI: yes"
	}
	if r := buildReport(); !strings.Contains(r, "\n"+blas) || !strings.Contains(r, "\n"+mpi) {
		t.Errorf("buildReport() = %q; want lines %q and %q", r, blas, mpi)
	}
	if got := formatBuildReport("none", "gonum", false); !strings.HasPrefix(got, "build tags: none\nBLAS: pure-Go gonum") || !strings.Contains(got, "\nMPI: no") {
		t.Errorf("tagless build: %q", got)
	}
	if got := buildTags(&debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "-tags", Value: "openblas,mpi"}}}); got != "openblas mpi" {
		t.Errorf("buildTags = %q; want %q", got, "openblas mpi")
	}
}

func TestFormatVersion(t *testing.T) {
	rev := []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "32e2f502547afcc037ae5cb92550e1b02b9cd9e3"}}
	dirty := append(rev, debug.BuildSetting{Key: "vcs.modified", Value: "true"})
	for _, tc := range []struct {
		version  string
		settings []debug.BuildSetting
		want     string
	}{
		{"", nil, "(devel)"},
		{"(devel)", nil, "(devel)"},
		{"v1.2.3", nil, "v1.2.3"},
		{"(devel)", rev, "(devel) 32e2f502547a"},
		{"(devel)", dirty, "(devel) 32e2f502547a+dirty"},
		{"v0.0.0-20261121211915-32e2f502547a+dirty", dirty, "v0.0.0-20261121211915-32e2f502547a+dirty"},
		{"v1.2.3", rev, "v1.2.3 32e2f502547a"},
	} {
		bi := &debug.BuildInfo{Main: debug.Module{Version: tc.version}, Settings: tc.settings}
		if got := formatVersion(bi); got != tc.want {
			t.Errorf("version %q, settings %v: %q; want %q", tc.version, tc.settings, got, tc.want)
		}
	}
}

// TestFanoutOrderHelp: the help of --fanout, and the README, say that the
// fanouts run from the seeds outwards (PyG's num_neighbors order), the
// reverse of DGL's lists.
func TestFanoutOrderHelp(t *testing.T) {
	for _, cmd := range []string{"sample", "train"} {
		_, stdout, _ := runCLI(t, cmd, "--help")
		_, after, _ := strings.Cut(stdout, "  -fanout ")
		block, _, _ := strings.Cut(after, "\n  -")
		for _, want := range []string{"seeds' layer first", "num_neighbors=[25, 10]", "MultiLayerNeighborSampler([10, 25])", "Blocks[0]"} {
			if !strings.Contains(block, want) {
				t.Errorf("%s --help: --fanout's help lacks %q:\n%s", cmd, want, block)
			}
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"num_neighbors=[25, 10]", "MultiLayerNeighborSampler([10, 25])"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README.md does not compare the layer order with PyG's and DGL's: no %q", want)
		}
	}
}
