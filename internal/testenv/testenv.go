// Package testenv holds what the project's tests share about their
// environment: how a test that needs the data sets of ../shared/data reacts
// when they are absent.
package testenv

import (
	"fmt"
	"os"
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
