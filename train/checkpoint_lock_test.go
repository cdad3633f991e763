package train

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCheckpointFolderClaimed: while a run trains with a checkpoint
// folder, a second run in that folder fails at once with an error naming
// the folder and the first run's process (pid and host), writing nothing;
// once the first has ended, the folder is free. Two runs in one folder
// used to both train, overwriting each other's checkpoints (or one died
// when the other removed its temporary file). A claim taken by the caller
// (Checkpoint.Lock) serves Run, and keeps other runs out as long as it is
// held. Bounded: 10 s per wait.
func TestCheckpointFolderClaimed(t *testing.T) {
	ds := smallGraph(t, 200, 3, 5, 8, 0.8, 1, 2)
	dir := t.TempDir()
	newRun := func(hooks Hooks, lock *CheckpointLock) *Trainer {
		t.Helper()
		hooks.Notes = io.Discard
		tr, err := NewTrainer(dataOf(t, ds, nodeWise(t, ds, []int{3}, 1)), TrainerOptions{Model: ModelOptions{Hidden: 8},
			Plan: PlanOptions{Epochs: 2, BatchSize: 50}, Checkpoint: CheckpointOptions{Dir: dir, Resume: true, Lock: lock}, Hooks: hooks})
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	started, release := make(chan struct{}), make(chan struct{})
	first := newRun(Hooks{OnMinibatch: func(epoch, done, total int) {
		if epoch == 0 && done == 1 {
			close(started)
			<-release
		}
	}}, nil)
	done := make(chan error, 1)
	go func() {
		_, err := first.Run(context.Background(), nil)
		done <- err
	}()
	select {
	case <-started:
	case err := <-done:
		t.Fatalf("the first run ended before its first minibatch: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the first run did not start within 10 s")
	}
	host, _ := os.Hostname()
	_, err := newRun(Hooks{}, nil).Run(context.Background(), nil)
	want := fmt.Sprintf("process %d on host %s", os.Getpid(), host)
	if !errors.Is(err, ErrCheckpointInUse) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), fmt.Sprint(os.Getpid())) {
		t.Errorf("second run: %v; want ErrCheckpointInUse naming %s and %s", err, dir, want)
	}
	if _, serr := os.Stat(filepath.Join(dir, CheckpointFile)); serr == nil {
		t.Error("a checkpoint was written while the first run had saved none")
	}
	close(release)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("first run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the first run did not end within 10 s")
	}
	// Free again: a resume of the finished run trains nothing and succeeds.
	if _, err := newRun(Hooks{}, nil).Run(context.Background(), nil); err != nil {
		t.Fatalf("a run after the first ended: %v", err)
	}
	// The caller's claim serves its run and keeps others out.
	l, err := LockCheckpoint(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newRun(Hooks{}, l).Run(context.Background(), nil); err != nil {
		t.Errorf("a run with the caller's claim: %v", err)
	}
	if _, err := newRun(Hooks{}, nil).Run(context.Background(), nil); !errors.Is(err, ErrCheckpointInUse) {
		t.Errorf("a run while the caller holds the claim: %v; want ErrCheckpointInUse", err)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, CheckpointLockFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock file is left after the claim ended: %v", err)
	}
	other, err := LockCheckpoint(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Unlock()
	opt := TrainerOptions{Checkpoint: CheckpointOptions{Dir: dir, Lock: other}}
	if err := opt.Validate(); err == nil || !strings.Contains(err.Error(), "Checkpoint.Lock") {
		t.Errorf("a claim on another folder: %v; want an error naming Checkpoint.Lock", err)
	}
}
