package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestMakeRunInstallsOnlyWhatRunningNeeds: `make run` (and `make build`)
// install OpenBLAS but not staticcheck, which only `make test` needs. It
// reads the dependency steps `make -n` would run and asks each, with
// --list, what it installs.
func TestMakeRunInstallsOnlyWhatRunningNeeds(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skipf("make not installed: %v", err)
	}
	needs := func(target string) []string {
		cmd := exec.Command("make", "-n", target, "TAGS=openblas") // TAGS set: make -n need not probe for OpenBLAS
		cmd.Dir = "../.."
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("make -n %s: %v", target, err)
		}
		var all []string
		for line := range strings.Lines(string(out)) {
			line = strings.TrimSpace(line)
			if !strings.HasPrefix(line, "scripts/deps.sh") {
				continue
			}
			list := exec.Command("bash", "-c", line+" --list")
			list.Dir = "../.."
			got, err := list.Output()
			if err != nil {
				t.Fatalf("%s --list: %v", line, err)
			}
			all = append(all, strings.Fields(string(got))...)
		}
		return all
	}
	if run := needs("run"); slices.Contains(run, "staticcheck") || !slices.Contains(run, "libopenblas-dev") {
		t.Errorf("make run installs %q; want OpenBLAS and not staticcheck", run)
	}
	if test := needs("test"); !slices.Contains(test, "staticcheck") || !slices.Contains(test, "libopenblas-dev") {
		t.Errorf("make test installs %q; want OpenBLAS and staticcheck", test)
	}
}
