package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bulksample/bulksample/internal/mpitest"
)

// TestTrainMPISignalResume presses Ctrl-C on an mpirun training job (SIGINT
// to mpirun, which sends SIGTERM to every rank) after its third epoch: the
// job must fail, every rank must end within stopBound, and --resume from
// the checkpoint must end with the parameters of an uninterrupted run
// (param_hash). The graph is large enough that the evaluation's products
// are split over threads and the training's are not: a rank resumed at an
// epoch's start then trained that epoch on other OpenBLAS bits (gnn's
// TestResumeBitIdenticalLargeProducts), and the resumed run drifted.
func TestTrainMPISignalResume(t *testing.T) {
	mpirun, exe := mpirunTest(t)
	dir := t.TempDir()
	args := []string{"train", "--data", "synthetic:nodes=20000", "--threads", "2", "--checkpoint", dir, "--json"}

	outPath := filepath.Join(t.TempDir(), "stdout")
	outFile, err := os.Create(outPath)
	if err != nil {
		t.Fatal(err)
	}
	defer outFile.Close()
	cmd := mpitest.Command(context.Background(), mpirun, 4, exe, append(args, "--epochs", "100000")...)
	cmd.Env = append(cmd.Env, "BULKSAMPLE_TEST_MAIN=1")
	cmd.Stdout, cmd.Stderr = outFile, outFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	var ranks []procID
	t.Cleanup(func() {
		select {
		case <-done:
		default:
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		for _, r := range ranks {
			if r.alive() {
				syscall.Kill(r.pid, syscall.SIGKILL)
			}
		}
	})
	output := func() string {
		b, err := os.ReadFile(outPath)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for deadline := time.Now().Add(time.Minute); !strings.Contains(output(), "epoch 3/100000:"); {
		select {
		case <-done:
			t.Fatalf("mpirun ended before its third epoch (%v)\n%s", cmd.ProcessState, output())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no third epoch within a minute\n%s", output())
		}
	}
	ranks = childrenOf(cmd.Process.Pid)
	signalled := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	gone := func() bool {
		for _, r := range ranks {
			if r.alive() {
				return false
			}
		}
		select {
		case <-done:
			return true
		default:
			return false
		}
	}
	for !gone() {
		if time.Since(signalled) > stopBound {
			t.Fatalf("%v after Ctrl-C: mpirun or a rank still runs\n%s", stopBound, output())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if cmd.ProcessState.ExitCode() == 0 {
		t.Errorf("the interrupted job exited 0\n%s", output())
	}
	// Rank 0 alone writes the checkpoint: another rank that says where it
	// stopped must not claim one (it printed "(checkpoint DIR/...)").
	for line := range strings.Lines(output()) {
		if strings.HasPrefix(line, "rank ") && !strings.HasPrefix(line, "rank 0:") && strings.Contains(line, "stopped in epoch") &&
			(strings.Contains(line, "(checkpoint ") || !strings.Contains(line, "rank 0 writes")) {
			t.Errorf("a rank other than 0 claims a checkpoint it did not write: %s", line)
		}
	}
	saved := readSaved(t, dir)
	t.Logf("stopped %.2fs after Ctrl-C with %d epochs in the checkpoint", time.Since(signalled).Seconds(), saved.EpochsDone)

	// Resume to the end of the stopped epoch, then again, from that
	// epoch's end, two epochs further: the second resume starts by
	// training, where a fresh process's OpenBLAS differed.
	var last distTrainSummary
	for _, epochs := range []int{saved.EpochsDone + 1, saved.EpochsDone + 3} {
		out, stderr, err := mpiRun(t, mpirun, 4, time.Minute, args[0], append(args[1:], "--epochs", fmt.Sprint(epochs), "--resume")...)
		if err != nil {
			t.Fatalf("job resumed to %d epochs: %v\n%s\n%s", epochs, err, out, stderr)
		}
		last = lastJSON[distTrainSummary](t, out)
	}
	whole := filepath.Join(t.TempDir(), "ck")
	out, stderr, err := mpiRun(t, mpirun, 4, time.Minute, args[0], append(args[1:], "--epochs", fmt.Sprint(saved.EpochsDone+3), "--checkpoint", whole)...)
	if err != nil {
		t.Fatalf("uninterrupted job: %v\n%s\n%s", err, out, stderr)
	}
	if want := lastJSON[distTrainSummary](t, out); last.ParamHash != want.ParamHash || last.ResumedFrom != saved.EpochsDone+1 {
		t.Errorf("resumed from epoch %d: parameters %s; the uninterrupted run's %s", last.ResumedFrom, last.ParamHash, want.ParamHash)
	}
}
