package train

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/bulksample/bulksample/internal/atomicfile"
)

// CheckpointLockFile is the name of the lock file by which a run claims
// its TrainerOptions' Checkpoint.Dir (LockCheckpoint) while it runs.
const CheckpointLockFile = ".checkpoint.lock"

// ErrCheckpointInUse is wrapped by LockCheckpoint's error when another run
// holds the folder.
var ErrCheckpointInUse = errors.New("in use by another run")

// CheckpointLock is a run's claim on a checkpoint folder: while one run
// holds it, no other (in this process or another, on this host or another
// that shares the folder) can take it. Two runs that saved into one folder
// overwrote each other's checkpoints, each resuming from the other's
// epochs. The operating system drops the claim of a run that ends,
// however it ends.
type CheckpointLock struct {
	dir string
	l   *atomicfile.Lock
}

// LockCheckpoint claims the checkpoint folder dir, creating it, for one
// run, until Unlock: when another run holds it, the error names the
// folder and that run's process (its id, host and start), wrapping
// ErrCheckpointInUse. Trainer.Run takes the claim itself for as long as it
// runs unless TrainerOptions' Checkpoint.Lock gives one the caller took.
func LockCheckpoint(dir string) (*CheckpointLock, error) {
	if err := os.MkdirAll(dir, 0o777); err != nil { // less the umask
		return nil, fmt.Errorf("train: write checkpoint %s: %w", filepath.Join(dir, CheckpointFile), err)
	}
	l, err := atomicfile.TryLock(filepath.Join(dir, CheckpointLockFile))
	var le *atomicfile.LockedError
	switch {
	case errors.As(err, &le):
		return nil, fmt.Errorf("train: checkpoint folder %s: %w: %s holds its lock file %s; wait for it to end, or give another folder",
			dir, ErrCheckpointInUse, le.Holder(), le.Path)
	case err != nil:
		return nil, fmt.Errorf("train: checkpoint folder %s: %w", dir, err)
	}
	return &CheckpointLock{dir: dir, l: l}, nil
}

// Dir returns the folder the lock claims.
func (l *CheckpointLock) Dir() string { return l.dir }

// Unlock ends the claim; it is idempotent.
func (l *CheckpointLock) Unlock() error {
	if l == nil {
		return nil
	}
	return l.l.Unlock()
}

// claims reports whether l claims the folder dir.
func (l *CheckpointLock) claims(dir string) bool {
	return filepath.Clean(l.dir) == filepath.Clean(dir)
}

// lockCheckpoint takes the claim on Checkpoint.Dir for Run, on the rank
// that writes the checkpoints, unless the options give one; it returns the
// function that ends it.
func (t *Trainer) lockCheckpoint() (unlock func(), err error) {
	ck := t.opt.Checkpoint
	if ck.Dir == "" || ck.Lock != nil || !t.writesCheckpoints() {
		return func() {}, nil
	}
	l, err := LockCheckpoint(ck.Dir)
	if err != nil {
		return nil, err
	}
	return func() { l.Unlock() }, nil
}
