package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

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
