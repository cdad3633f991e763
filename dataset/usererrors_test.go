package dataset

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSaveMissingFolder: saving into a folder that does not exist reports
// the requested path and the folder, not the temporary file's name.
func TestSaveMissingFolder(t *testing.T) {
	d := smallDataset()
	for _, name := range []string{"g.bsn", "g.npz"} {
		path := filepath.Join(t.TempDir(), "no-such-folder", name)
		err := Save(path, d)
		if err == nil || !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), ".tmp") || !errors.Is(err, os.ErrNotExist) {
			t.Errorf("Save(%s): %v; want an error naming %s (and no temporary name) that wraps ErrNotExist", path, err, path)
		}
	}
}
