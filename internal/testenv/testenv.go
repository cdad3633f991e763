package testenv

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// MissingData reports that a data file a test needs is absent: the test is
// skipped with the message, except in CI (the CI environment variable is
// set), where the data sets are part of the environment and their absence
// fails the test rather than letting it pass silently.
func MissingData(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("CI") != "" {
		t.Fatalf("%s (CI is set: the shared data sets must be present)", msg)
		return
	}
	t.Skip(msg)
}

// SharedData returns the path of rel (a file or folder, slash-separated)
// in the first shared/data folder found in the working directory or one of
// its parents, as the project layout puts shared/ beside the checkout (or
// beside the folder of checkouts). When none holds rel, the test is
// skipped, or failed in CI (MissingData).
func SharedData(t testing.TB, rel string) string {
	t.Helper()
	p, err := findShared(rel)
	if err != nil {
		MissingData(t, "shared data %s not available: %v; it is not part of the repository", rel, err)
	}
	return p
}

// findShared returns the absolute path of shared/data/rel in the working
// directory or its nearest parent that has it.
func findShared(rel string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, "shared", "data", filepath.FromSlash(rel))
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no shared/data/%s in the working directory or its parents", rel)
		}
		dir = parent
	}
}

// SameBits reports whether a and b hold the same float32 values bit for
// bit: the equality of the project's determinism promises, under which
// NaN equals a NaN of the same bits and 0 differs from -0.
func SameBits(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}
