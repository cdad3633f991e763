//go:build unix

package atomicfile

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTryLock: a second holder of a lock file is refused with an error
// naming the holder (this process, through another Lock), the lock is
// free again after Unlock, which removes the file, and a lock file that a
// holder left behind (as a killed one does) is taken over.
func TestTryLock(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".lock")
	l, err := TryLock(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = TryLock(path)
	var le *LockedError
	if !errors.As(err, &le) || !errors.Is(err, ErrLocked) || le.PID != os.Getpid() || !strings.Contains(err.Error(), "this process") {
		t.Fatalf("second TryLock: %v; want a *LockedError naming this process", err)
	}
	host, _ := os.Hostname()
	if le.Host != host || time.Since(le.Since) > time.Minute {
		t.Errorf("holder %+v; want host %s and a start within the last minute", le, host)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	if err := l.Unlock(); err != nil {
		t.Errorf("second Unlock: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Unlock left the lock file: %v", err)
	}
	// Left behind, with someone else's record: taken over.
	if err := os.WriteFile(path, []byte("pid 1\nhost elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err = TryLock(path)
	if err != nil {
		t.Fatalf("TryLock of a lock file no one holds: %v", err)
	}
	defer l.Unlock()
	if b, _ := os.ReadFile(path); !strings.HasPrefix(string(b), "pid ") || strings.Contains(string(b), "elsewhere") {
		t.Errorf("the lock file holds %q; want this process's record only", b)
	}
}

// TestLockHeldByAnotherProcess: while a child process holds the lock, a
// TryLock here names the child's pid and host; once the child is killed
// (SIGKILL, by its pid), the lock is free.
func TestLockHeldByAnotherProcess(t *testing.T) {
	if os.Getenv("ATOMICFILE_LOCK_HOLDER") != "" {
		return // the child's part is TestMain's (holdLock)
	}
	path := filepath.Join(t.TempDir(), ".lock")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestLockHeldByAnotherProcess$")
	cmd.Env = append(os.Environ(), "ATOMICFILE_LOCK_HOLDER="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "locked\n" {
		cmd.Process.Kill()
		t.Fatalf("the child said %q (%v), want locked", line, err)
	}
	_, err = TryLock(path)
	var le *LockedError
	if !errors.As(err, &le) || le.PID != cmd.Process.Pid {
		t.Errorf("TryLock beside the child %d: %v; want its pid named", cmd.Process.Pid, err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	l, err := TryLock(path)
	if err != nil {
		t.Fatalf("TryLock after the holder was killed: %v", err)
	}
	l.Unlock()
}

// holdLock is the child of TestLockHeldByAnotherProcess: it takes the
// lock, says so and waits to be killed, for at most 20 s.
func holdLock(path string) {
	if _, err := TryLock(path); err != nil {
		os.Stdout.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	os.Stdout.WriteString("locked\n")
	time.Sleep(20 * time.Second)
}
