package dataset

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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

// TestLoadRefusesSpecialFiles: a named pipe, a device or a socket is an
// error naming it, returned at once. A pipe without a writer used to block
// the loader in open(2) forever, where even SIGTERM could not stop it.
func TestLoadRefusesSpecialFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "graph.bsn")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	tests := []struct {
		path, want string
	}{
		{fifo, "a named pipe"},
		{os.DevNull, "a device"},
	}
	for _, tt := range tests {
		done := make(chan error, 1)
		go func() {
			_, err := Load(tt.path, nil)
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tt.path) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load(%s): %v; want ErrFormat naming the file and %q", tt.path, err, tt.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Load(%s) still blocked after 10 s", tt.path)
		}
	}
}
