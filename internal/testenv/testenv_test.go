package testenv

import (
	"testing"
)

// fakeT records whether MissingData skipped or failed.
type fakeT struct {
	testing.TB
	skipped, failed bool
}

func (f *fakeT) Helper()               {}
func (f *fakeT) Skip(...any)           { f.skipped = true }
func (f *fakeT) Fatalf(string, ...any) { f.failed = true }

func TestMissingData(t *testing.T) {
	for _, ci := range []string{"", "true"} {
		t.Setenv("CI", ci)
		f := &fakeT{}
		MissingData(f, "cora.npz not found")
		if f.failed != (ci != "") || f.skipped != (ci == "") {
			t.Errorf("CI=%q: skipped %v, failed %v", ci, f.skipped, f.failed)
		}
	}
}
