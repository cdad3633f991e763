package dataset

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/bulksample/bulksample/internal/atomicfile"
)

// TestSaveContextCancelled cancels a save in the middle of its writes: the
// error names the path, no temporary file is left, and the file that was at
// the path before is untouched.
func TestSaveContextCancelled(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.bsn")
	if err := Save(p, smallDataset()); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(p)
	ctx, cancel := context.WithCancel(context.Background())
	written := 0
	err := atomicfile.Write(ctx, p, func(w io.Writer) error {
		chunk := make([]byte, 64<<10)
		for range 64 { // 4 MiB, cancelled after 1.5 MiB
			if written >= 3<<19 {
				cancel()
			}
			if _, err := w.Write(chunk); err != nil {
				return err
			}
			written += len(chunk)
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), p) {
		t.Fatalf("err = %v; want context.Canceled naming %s", err, p)
	}
	if written >= 4<<20 {
		t.Errorf("the write went on to its end (%d bytes) after the cancellation", written)
	}
	checkOnly(t, dir, "out.bsn")
	if after, _ := os.ReadFile(p); !bytes.Equal(after, before) {
		t.Error("the previous file changed")
	}
	// A context done before the save writes nothing.
	if err := SaveContext(ctx, filepath.Join(dir, "new.bsn"), smallDataset()); !errors.Is(err, context.Canceled) {
		t.Errorf("save with a done context: %v", err)
	}
	checkOnly(t, dir, "out.bsn")
}

// checkOnly fails unless dir holds exactly the named files.
func checkOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != strings.Join(names, " ") {
		t.Errorf("%s holds %q; want %q", dir, got, names)
	}
}

// TestSaveUnwritable: an output path under a regular file (which fails for
// root too) is an error naming the path.
func TestSaveUnwritable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(file, "out.npz")
	if err := Save(p, smallDataset()); err == nil || !strings.Contains(err.Error(), p) || !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("err = %v; want ENOTDIR naming %s", err, p)
	}
}

// saveFSizeHelperEnv makes the test binary, re-executed by
// TestSaveFileSizeLimit, save a dataset under a file-size limit.
const saveFSizeHelperEnv = "BULKSAMPLE_DATASET_FSIZE_HELPER"

// TestSaveFileSizeLimit saves over an existing output in a subprocess whose
// RLIMIT_FSIZE is below the new file's size (a full disk as far as the
// process can tell; the limit applies to root too). The save must fail with
// an error naming the path and the cause, remove its temporary file and
// leave the previous output byte for byte, loadable. Both formats.
func TestSaveFileSizeLimit(t *testing.T) {
	if p := os.Getenv(saveFSizeHelperEnv); p != "" {
		saveFSizeHelper(t, p)
		return
	}
	for _, name := range []string{"out.bsn", "out.npz"} {
		dir := t.TempDir()
		p := filepath.Join(dir, name)
		if err := Save(p, smallDataset()); err != nil {
			t.Fatal(err)
		}
		before, _ := os.ReadFile(p)
		cmd := exec.Command(os.Args[0], "-test.run=^TestSaveFileSizeLimit$", "-test.v")
		cmd.Env = append(os.Environ(), saveFSizeHelperEnv+"="+p)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("helper: %v\n%s", err, out)
		}
		if !bytes.Contains(out, []byte("HELPER-SAVE-FAILED")) {
			t.Fatalf("%s: the helper's save did not fail:\n%s", name, out)
		}
		if !bytes.Contains(out, []byte("write "+p)) || !bytes.Contains(out, []byte("file too large")) {
			t.Errorf("%s: the error does not name the path and the cause:\n%s", name, out)
		}
		checkOnly(t, dir, name)
		if after, _ := os.ReadFile(p); !bytes.Equal(after, before) {
			t.Errorf("%s: the previous output changed", name)
		}
		if _, err := Load(p, &LoadOptions{Verify: VerifyChecksums}); err != nil {
			t.Errorf("%s: the previous output does not load: %v", name, err)
		}
	}
}

// saveFSizeHelper runs in the subprocess: a dataset of about 1 MiB saved
// under a 256 KiB file-size limit.
func saveFSizeHelper(t *testing.T, path string) {
	const lim = 256 << 10
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: lim, Max: lim}); err != nil {
		t.Fatal(err)
	}
	d := smallDataset()
	d.NumFeatures = 1 << 16
	d.Features = make([]float32, d.NumNodes()*d.NumFeatures)
	if err := Save(path, d); err != nil {
		t.Logf("HELPER-SAVE-FAILED: %v", err)
	}
}
