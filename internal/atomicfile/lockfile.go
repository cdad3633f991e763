package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Lock is an exclusive lock on a lock file, held by one process (one Lock)
// at a time, which lets a program claim a folder for as long as it works
// in it: a run that writes a checkpoint folder claims it so that a second
// run started in the same folder stops at once rather than overwrite the
// first one's checkpoints. The lock is an flock on the file, which the
// operating system drops when the holder ends, however it ends (kill -9
// included): a lock file left by a dead holder is taken over. While it is
// held the file records the holder's process id, host and start time, for
// the error of the next one that tries.
type Lock struct {
	f    *os.File
	path string
}

// ErrLocked is wrapped by the *LockedError of a lock another holder has.
var ErrLocked = errors.New("in use")

// LockedError is TryLock's error when another holder has the lock: who,
// as the lock file records it (PID 0 when it records nothing yet: the
// holder is between taking the lock and writing its name).
type LockedError struct {
	Path  string // the lock file
	PID   int
	Host  string
	Since time.Time // when the holder took it; zero if unknown
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("%s: %v by %s", e.Path, ErrLocked, e.Holder())
}

// Holder names the holder: "process 1234 on host node7 since 2026-12-02
// 10:00:00", "this process (1234), through another Lock", or another
// process that has not recorded itself yet.
func (e *LockedError) Holder() string {
	who := "another process (it has not recorded its id yet)"
	if e.PID > 0 {
		who = fmt.Sprintf("process %d on host %s", e.PID, e.Host)
		if host, _ := os.Hostname(); e.Host == host && e.PID == os.Getpid() {
			who = fmt.Sprintf("this process (%d), through another Lock", e.PID)
		}
		if !e.Since.IsZero() {
			who += fmt.Sprintf(" since %s UTC", e.Since.UTC().Format(time.DateTime))
		}
	}
	return who
}

func (e *LockedError) Unwrap() error { return ErrLocked }

// TryLock takes the lock of the lock file path, creating it (mode 0666
// less the umask) if it does not exist, without waiting: when another
// holder has it, it returns a *LockedError naming the holder. The folder
// of path must exist. Where flock is missing (not unix) every TryLock
// succeeds.
func TryLock(path string) (*Lock, error) {
	for range 8 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		held, err := tryLock(f)
		held = held || !haveFlock
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if !held {
			e := holder(f, path)
			f.Close()
			return nil, e
		}
		// A holder that ended removed the file (Unlock) between our open
		// and our lock: the lock we hold is on a name that is gone.
		st, serr := f.Stat()
		cur, err := os.Stat(path)
		if serr != nil || err != nil || !os.SameFile(st, cur) {
			f.Close()
			continue
		}
		host, _ := os.Hostname()
		rec := fmt.Sprintf("pid %d\nhost %s\nsince %s\n", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))
		err = f.Truncate(0)
		if err == nil {
			_, err = f.WriteAt([]byte(rec), 0)
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		return &Lock{f: f, path: path}, nil
	}
	return nil, fmt.Errorf("lock %s: the lock file was removed as it was taken, eight times", path)
}

// holder reads who holds the lock of f from what the holder wrote in it.
func holder(f *os.File, path string) *LockedError {
	e := &LockedError{Path: path}
	b := make([]byte, 512)
	n, _ := f.ReadAt(b, 0)
	for _, line := range bytes.Split(b[:n], []byte("\n")) {
		k, v, _ := strings.Cut(string(line), " ")
		switch k {
		case "pid":
			e.PID, _ = strconv.Atoi(v)
		case "host":
			e.Host = v
		case "since":
			e.Since, _ = time.Parse(time.RFC3339, v)
		}
	}
	if e.PID <= 0 {
		e.PID, e.Host = 0, ""
	}
	return e
}

// Path returns the lock file's path.
func (l *Lock) Path() string { return l.path }

// Unlock removes the lock file and releases the lock; it is idempotent.
// The file is removed while the lock is still held, so that no one takes
// a lock on a name about to go (TryLock checks the name it locked).
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := os.Remove(l.path)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	if err != nil {
		return fmt.Errorf("unlock %s: %w", l.path, err)
	}
	return nil
}
