//go:build unix

package atomicfile

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// TestRemoveStale: of the temporaries in a folder, RemoveStale removes
// those of Write's naming for the destination asked that no one holds
// locked, and leaves a locked one (a write in progress), other names and
// other destinations' temporaries alone.
func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, n int) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, make([]byte, n), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stale := write(".ck.gob.tmp123", 1000)
	live := write(".ck.gob.tmp456", 10)
	keep := []string{write(".other.gob.tmp1", 10), write("ck.gob.tmp1", 10), write(".ck.gob.tmpx1", 10), write(".ck.gob", 10), write("ck.gob", 10)}
	// A write in progress holds its lock: here on another open file
	// description of this process, which flock treats as another holder.
	f, err := os.Open(live)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := lockFile(f); err != nil {
		t.Fatal(err)
	}
	got, err := RemoveStale(dir, "ck.gob")
	if err != nil {
		t.Fatal(err)
	}
	if want := []Stale{{stale, 1000}}; !slices.Equal(got, want) {
		t.Errorf("RemoveStale = %v; want %v", got, want)
	}
	for _, p := range append(keep, live) {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v; want it kept", p, err)
		}
	}
	if got, err := RemoveStale(filepath.Join(dir, "missing"), "ck.gob"); got != nil || err != nil {
		t.Errorf("missing folder: %v, %v; want nothing and no error", got, err)
	}
	// Write removes its destination's stale temporaries itself.
	write(".ck.gob.tmp789", 10)
	if err := Write(context.Background(), filepath.Join(dir, "ck.gob"), func(w io.Writer) error { _, err := w.Write([]byte("x")); return err }); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".ck.gob.tmp789")); err == nil {
		t.Error("Write left a stale temporary of its destination")
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("Write removed the temporary of a write in progress: %v", err)
	}
}

// TestKilledWriterTemporary starts a process that writes through Write and
// kills it (SIGKILL, by its pid) while it writes: while it lives its
// temporary is left alone, and once it is dead RemoveStale removes it.
// Before, nothing ever removed such a file.
func TestKilledWriterTemporary(t *testing.T) {
	if os.Getenv("ATOMICFILE_SLOW_WRITER") != "" {
		return // the child's part is TestMain's (slowWriter)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestKilledWriterTemporary$")
	cmd.Env = append(os.Environ(), "ATOMICFILE_SLOW_WRITER="+filepath.Join(dir, "out.bin"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	var temps []string
	for ctx.Err() == nil {
		temps, _ = filepath.Glob(filepath.Join(dir, ".out.bin.tmp*"))
		if len(temps) == 1 {
			if st, err := os.Stat(temps[0]); err == nil && st.Size() > 0 {
				break
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(temps) != 1 {
		t.Fatalf("the writer made no temporary file:\n%s", out.String())
	}
	if got, err := RemoveStale(dir, "out.bin"); len(got) != 0 || err != nil {
		t.Errorf("RemoveStale beside a live writer: %v, %v; want nothing removed", got, err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if _, err := os.Stat(temps[0]); err != nil {
		t.Fatalf("the killed writer's temporary is gone already: %v", err)
	}
	got, err := RemoveStale(dir, "out.bin")
	if err != nil || len(got) != 1 || got[0].Path != temps[0] {
		t.Errorf("RemoveStale after the kill: %v, %v; want %s removed", got, err, temps[0])
	}
}

// TestMain runs the slow writer of TestKilledWriterTemporary and the lock
// holder of TestLockHeldByAnotherProcess in their children.
func TestMain(m *testing.M) {
	if path := os.Getenv("ATOMICFILE_LOCK_HOLDER"); path != "" {
		holdLock(path)
		os.Exit(0)
	}
	if path := os.Getenv("ATOMICFILE_SLOW_WRITER"); path != "" {
		// Writes 1 MiB every 20 ms (Write flushes each MiB) until killed,
		// for at most 6 s and 300 MiB.
		_ = Write(context.Background(), path, func(w io.Writer) error {
			chunk := make([]byte, 1<<20)
			for range 300 {
				if _, err := w.Write(chunk); err != nil {
					return err
				}
				time.Sleep(20 * time.Millisecond)
			}
			return nil
		})
		os.Exit(0)
	}
	os.Exit(m.Run())
}
