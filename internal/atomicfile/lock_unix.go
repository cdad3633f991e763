//go:build unix

package atomicfile

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive lock (flock) on f, held until f is closed or
// the process ends, however it ends.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// tryLock takes f's exclusive lock if no one holds it and reports whether
// it did.
func tryLock(f *os.File) (bool, error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		case !errors.Is(err, syscall.EINTR):
			return false, err
		}
	}
}

// haveFlock is true: locks exclude each other.
const haveFlock = true
