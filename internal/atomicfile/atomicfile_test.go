package atomicfile

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteRefusesFolders: a destination that is a folder (or ends in a
// separator) is an error naming it, given before anything is written, and
// no temporary file is left beside or inside it. Before, the whole output
// was written and the rename failed with a message naming the temporary
// file.
func TestWriteRefusesFolders(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, want string
	}{
		{"existing folder", sub, "is a folder"},
		{"trailing separator", sub + string(filepath.Separator), "is a folder"},
		{"missing folder", filepath.Join(dir, "none", "out.bin"), "folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wrote := false
			err := Write(context.Background(), tt.path, func(w io.Writer) error {
				wrote = true
				_, err := w.Write([]byte("data"))
				return err
			})
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.path) {
				t.Fatalf("Write(%s): %v; want an error naming the path and containing %q", tt.path, err, tt.want)
			}
			if wrote {
				t.Error("the output was written before the error")
			}
			for _, d := range []string{dir, sub} {
				entries, _ := os.ReadDir(d)
				for _, e := range entries {
					if e.Name() != "sub" {
						t.Errorf("left %s in %s", e.Name(), d)
					}
				}
			}
		})
	}
}

// TestWriteReplaces: a complete write replaces the previous file.
func TestWriteReplaces(t *testing.T) {
	p := filepath.Join(t.TempDir(), "out.txt")
	for _, s := range []string{"first", "second"} {
		err := Write(context.Background(), p, func(w io.Writer) error {
			_, err := io.WriteString(w, s)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(p); string(got) != s {
			t.Errorf("file holds %q, want %q", got, s)
		}
	}
}

// TestCheck: what Write would refuse, said before any work, naming the
// path; a writable path is fine.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, want string
		notExist         bool
	}{
		{"new file", filepath.Join(dir, "out.bin"), "", false},
		{"existing file", file, "", false},
		{"folder", dir, "is a folder", false},
		{"missing folder", filepath.Join(dir, "none", "out.bin"), "folder", true},
		{"file as folder", filepath.Join(file, "out.bin"), "is not a folder", false},
	}
	for _, tt := range tests {
		err := Check(tt.path)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: Check(%s) = %v, want nil", tt.name, tt.path, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.path)):
			t.Errorf("%s: Check(%s) = %v; want an error naming the path and containing %q", tt.name, tt.path, err, tt.want)
		case tt.notExist && !errors.Is(err, fs.ErrNotExist):
			t.Errorf("%s: Check(%s) = %v; want it to wrap fs.ErrNotExist", tt.name, tt.path, err)
		}
	}
}
