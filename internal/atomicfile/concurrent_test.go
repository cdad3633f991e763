//go:build unix

package atomicfile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestConcurrentWriters: two writers of one path (two runs saving into one
// checkpoint folder), each of whose writes first removes the path's stale
// temporaries (RemoveStale), never remove each other's file: every write
// succeeds and the path holds one writer's complete contents. Write
// released its lock when it closed the file, before the rename, and the
// other writer's RemoveStale could take it and remove the finished file
// ("rename .ck.tmpNNN ck: no such file or directory", 3 of 3 trials of two
// trainings within 16 s; here within 50-300 writes of each). Bounded:
// 2 x 800 writes of 4 KiB (200 with -short), 60 s; the first failure ends
// both writers.
func TestConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ck.gob")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	writes := 800
	if testing.Short() {
		writes = 200
	}
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for w := range 2 {
		payload := bytes.Repeat([]byte{byte('a' + w)}, 4096)
		wg.Go(func() {
			for i := 0; i < writes && ctx.Err() == nil; i++ {
				if err := Write(ctx, path, func(out io.Writer) error { _, err := out.Write(payload); return err }); err != nil {
					errs[w] = fmt.Errorf("writer %d, write %d: %w", w, i, err)
					cancel()
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
	}
	if err := ctx.Err(); err != nil {
		t.Fatalf("the writes did not end within the test's time: %v", err)
	}
	b, err := os.ReadFile(path)
	if err != nil || len(b) != 4096 || !(bytes.Count(b, b[:1]) == 4096) {
		t.Errorf("the path holds %d bytes (%v); want one writer's 4096", len(b), err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".ck.gob.tmp*")); len(left) > 0 {
		t.Errorf("temporaries left: %v", left)
	}
}

// TestLockedUntilRename: at the last moment before the rename, the
// finished temporary file is still locked, so that a RemoveStale then (of
// another writer of the same path) leaves it alone and the rename
// succeeds. With the lock released by closing the file before the rename,
// the RemoveStale here removed it and the write failed.
func TestLockedUntilRename(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.bin")
	var removed []Stale
	var rerr error
	err := writeFile(context.Background(), path, func(w io.Writer) error { _, err := w.Write([]byte("complete")); return err },
		func(string) { removed, rerr = RemoveStale(dir, "out.bin") })
	if err != nil || len(removed) != 0 || rerr != nil {
		t.Fatalf("write: %v; RemoveStale just before the rename removed %v (%v); want the write to succeed and nothing removed", err, removed, rerr)
	}
	if b, err := os.ReadFile(path); string(b) != "complete" {
		t.Errorf("%s holds %q (%v)", path, b, err)
	}
}

// TestWriteUmask: Write's file has the mode 0666 less the umask, as
// os.Create's (it was 0644 whatever the umask: a umask of 077 left a
// world-readable checkpoint).
func TestWriteUmask(t *testing.T) {
	for _, mask := range []int{0o077, 0o022, 0o002} {
		old := syscall.Umask(mask)
		p := filepath.Join(t.TempDir(), "out.bin")
		err := Write(context.Background(), p, func(w io.Writer) error { _, err := w.Write([]byte("x")); return err })
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := st.Mode().Perm(), os.FileMode(0o666&^mask); got != want {
			t.Errorf("umask %03o: mode %v, want %v", mask, got, want)
		}
	}
}
