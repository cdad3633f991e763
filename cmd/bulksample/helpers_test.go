package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/dist/mpitest"
	"github.com/bulksample/bulksample/internal/testenv"
)

// runCLI runs `bulksample command args...` and returns the exit code, stdout
// and stderr.
func runCLI(t *testing.T, command string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), append([]string{command}, args...), &env{stdout: &out, stderr: &errOut})
	return code, out.String(), errOut.String()
}

// lastJSON decodes the last line of stdout, the --json summary, into a T,
// rejecting fields that T lacks.
func lastJSON[T any](t *testing.T, stdout string) T {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var v T
	dec := json.NewDecoder(strings.NewReader(lines[len(lines)-1]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("last line of stdout is not the JSON summary: %v\n%s", err, stdout)
	}
	return v
}

// sharedDataset returns the path of a file of the shared data folder, found
// as `train --data` finds it (findSharedData); it skips the test when the
// file is absent, which is not part of the repository.
func sharedDataset(t *testing.T, name string) string {
	t.Helper()
	p, err := findSharedData(name)
	if err != nil {
		testenv.MissingData(t, "shared dataset %s not available: %v", name, err)
	}
	return p
}

// mpirunTest is the preamble of the tests that launch bulksample under
// mpirun (or srun): it skips t under -short, which leaves those runs to the
// full test pass, and returns mpirun's path (mpitest.Require: t is skipped
// without it, or fails in CI) and testBinary's.
func mpirunTest(t *testing.T) (mpirun, exe string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the mpirun runs are in the full test pass")
	}
	return mpitest.Require(t), testBinary(t)
}

// testBinary returns the path of this test binary, which runs as bulksample
// when started with BULKSAMPLE_TEST_MAIN=1 (TestMain).
func testBinary(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}
