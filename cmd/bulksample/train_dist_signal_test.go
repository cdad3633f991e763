package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bulksample/bulksample/dist/mpitest"
)

// rankStopLine is a rank's stop message: its rank, epoch (1-based) and
// minibatches done, and who wrote the checkpoint (" by rank 0" on the other
// ranks).
var rankStopLine = regexp.MustCompile(`^bulksample train: rank (\d+): stopped by SIGTERM in epoch (\d+) after (\d+) of its (\d+) minibatches; checkpoint saved in (\S+?)( by rank 0)?: run the same command with --resume to continue$`)

// TestTrainMPISignalResume stops an mpirun training job after its third
// epoch, by Ctrl-C of mpirun (SIGINT to mpirun, which sends SIGTERM to every
// rank a second later and SIGKILL a second after that) and by SIGTERM to
// every rank (as Slurm's scancel, preemption and time limit do). The ranks
// must agree on where to stop (the step's all-reduce carries the request):
// every rank says it stopped by SIGTERM after the same minibatch of the
// same epoch, rank 0's checkpoint holds that minibatch's progress (not
// only the last finished epoch), nothing calls MPI_Abort, every rank ends
// within stopBound, and the job exits non-zero: with 143, the ranks'
// status, when the ranks were signalled; with mpirun's own when mpirun
// was. --resume from the Ctrl-C's checkpoint must end with the parameters
// of an uninterrupted run (param_hash). The graph is large enough that the
// evaluation's products are split over threads and the training's are
// not: a rank resumed at an epoch's start then trained that epoch on other
// OpenBLAS bits (gnn's TestResumeBitIdenticalLargeProducts), and the
// resumed run drifted.
func TestTrainMPISignalResume(t *testing.T) {
	mpirun, exe := mpirunTest(t)
	args := []string{"train", "--data", "synthetic:nodes=20000", "--threads", "2", "--batch", "16", "--json"}
	for _, tc := range []struct {
		name   string
		ctrlC  bool // SIGINT to mpirun; else SIGTERM to every rank
		resume bool
	}{
		{"Ctrl-C of mpirun", true, true},
		{"SIGTERM to every rank", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append(args, "--checkpoint", dir)
			epoch, done := signalTrainJob(t, mpirun, exe, tc.ctrlC, append(args, "--epochs", "100000"))
			saved := readSaved(t, dir)
			if saved.EpochsDone != epoch-1 || saved.Partial == nil || saved.Partial.Stats.Minibatches != done {
				var part any
				if saved.Partial != nil {
					part = saved.Partial.Stats
				}
				t.Fatalf("the checkpoint holds %d epochs and the progress %+v; the ranks stopped in epoch %d after %d minibatches", saved.EpochsDone, part, epoch, done)
			}
			if !tc.resume {
				return
			}
			// Resume to the end of the stopped epoch, then again, from
			// that epoch's end, two epochs further: the second resume
			// starts by training, where a fresh process's OpenBLAS
			// differed.
			var last distTrainSummary
			for _, epochs := range []int{epoch, epoch + 2} {
				out, stderr, err := mpiRun(t, mpirun, 4, time.Minute, args[0], append(args[1:], "--epochs", fmt.Sprint(epochs), "--resume")...)
				if err != nil {
					t.Fatalf("job resumed to %d epochs: %v\n%s\n%s", epochs, err, out, stderr)
				}
				last = lastJSON[distTrainSummary](t, out)
			}
			whole := filepath.Join(t.TempDir(), "ck")
			out, stderr, err := mpiRun(t, mpirun, 4, time.Minute, args[0], append(args[1:], "--epochs", fmt.Sprint(epoch+2), "--checkpoint", whole)...)
			if err != nil {
				t.Fatalf("uninterrupted job: %v\n%s\n%s", err, out, stderr)
			}
			if want := lastJSON[distTrainSummary](t, out); last.ParamHash != want.ParamHash || last.ResumedFrom != epoch {
				t.Errorf("resumed from epoch %d: parameters %s; the uninterrupted run's %s", last.ResumedFrom, last.ParamHash, want.ParamHash)
			}
		})
	}
}

// signalTrainJob starts `mpirun -np 4 bulksample args...`, signals it
// after its third epoch (SIGINT to mpirun when ctrlC, else SIGTERM to every
// rank), checks how it ended and returns the epoch (1-based) and the
// minibatches of it after which every rank says it stopped.
func signalTrainJob(t *testing.T, mpirun, exe string, ctrlC bool, args []string) (epoch, done int) {
	t.Helper()
	outPath := filepath.Join(t.TempDir(), "stdout")
	outFile, err := os.Create(outPath)
	if err != nil {
		t.Fatal(err)
	}
	defer outFile.Close()
	cmd := mpitest.Command(context.Background(), mpirun, 4, exe, args...)
	cmd.Env = append(cmd.Env, "BULKSAMPLE_TEST_MAIN=1")
	cmd.Stdout, cmd.Stderr = outFile, outFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan struct{})
	go func() { cmd.Wait(); close(ended) }()
	var ranks []procID
	t.Cleanup(func() {
		select {
		case <-ended:
		default:
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-ended
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
		case <-ended:
			t.Fatalf("mpirun ended before its third epoch (%v)\n%s", cmd.ProcessState, output())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no third epoch within a minute\n%s", output())
		}
	}
	ranks = childrenOf(cmd.Process.Pid)
	if len(ranks) != 4 {
		t.Fatalf("mpirun has %d children; want its 4 ranks", len(ranks))
	}
	signalled := time.Now()
	if ctrlC {
		err = cmd.Process.Signal(syscall.SIGINT)
	} else {
		for _, r := range ranks {
			if err == nil && r.alive() {
				err = syscall.Kill(r.pid, syscall.SIGTERM)
			}
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	gone := func() bool {
		for _, r := range ranks {
			if r.alive() {
				return false
			}
		}
		select {
		case <-ended:
			return true
		default:
			return false
		}
	}
	for !gone() {
		if time.Since(signalled) > stopBound {
			t.Fatalf("%v after the signal: mpirun or a rank still runs\n%s", stopBound, output())
		}
		time.Sleep(20 * time.Millisecond)
	}
	out := strings.ReplaceAll(output(), "\r", "\n") // the progress bar's lines
	t.Logf("stopped %.2fs after the signal (%v)", time.Since(signalled).Seconds(), cmd.ProcessState)
	switch code := cmd.ProcessState.ExitCode(); {
	case ctrlC && code == 0, !ctrlC && code != 143:
		t.Errorf("the stopped job exited %d; want %s\n%s", code, map[bool]string{true: "mpirun's failure", false: "143, its ranks' status"}[ctrlC], out)
	}
	if strings.Contains(out, "MPI_ABORT") || strings.Contains(out, "MPI_Abort") {
		t.Errorf("a rank aborted the job\n%s", out)
	}
	// Every rank says where it stopped, and all say the same; rank 0
	// alone wrote the checkpoint.
	seen := make(map[int]bool)
	epoch, done = -1, -1
	for line := range strings.Lines(out) {
		m := rankStopLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		r, _ := strconv.Atoi(m[1])
		e, _ := strconv.Atoi(m[2])
		d, _ := strconv.Atoi(m[3])
		if seen[r] {
			t.Errorf("rank %d reports its stop twice", r)
		}
		seen[r] = true
		if epoch < 0 {
			epoch, done = e, d
		} else if e != epoch || d != done {
			t.Errorf("rank %d stopped in epoch %d after %d minibatches; another rank in epoch %d after %d", r, e, d, epoch, done)
		}
		if (r == 0) != (m[6] == "") {
			t.Errorf("rank %d misstates who wrote the checkpoint: %s", r, line)
		}
	}
	if len(seen) != 4 {
		t.Fatalf("%d ranks say where they stopped; want 4\n%s", len(seen), out)
	}
	return epoch, done
}

// TestTrainInprocSignal sends SIGINT to `bulksample train --inproc-ranks
// 2` once its first epoch is reported: both ranks stop after the same step
// (the signal closes both ranks' stop requests), the process exits with
// 130 without aborting, says where it stopped, and the checkpoint holds
// that step's progress.
func TestTrainInprocSignal(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := startCLI(t, signalOn(t, "epoch 1/1000:", syscall.SIGINT), "train", "--data", smallSynthetic, "--inproc-ranks", "2",
		"--fanout", "5,5", "--batch", "16", "--bulk", "4", "--epochs", "1000", "--hidden", "16", "--threads", "1", "--checkpoint", dir)
	if code != 130 {
		t.Fatalf("exit %d; want 130\n%s%s", code, stdout, stderr)
	}
	var m []string
	for line := range strings.Lines(stderr) {
		if m = regexp.MustCompile(`^bulksample train: rank 0: stopped by SIGINT in epoch (\d+) after (\d+) of its \d+ minibatches; checkpoint saved in `).FindStringSubmatch(line); m != nil {
			break
		}
	}
	if m == nil || strings.Contains(stderr, "aborted") {
		t.Fatalf("stderr does not say where rank 0 stopped, or a rank aborted:\n%s", stderr)
	}
	epoch, _ := strconv.Atoi(m[1])
	done, _ := strconv.Atoi(m[2])
	if saved := readSaved(t, dir); saved.EpochsDone != epoch-1 || saved.Partial == nil || saved.Partial.Stats.Minibatches != done {
		t.Errorf("the checkpoint holds %d epochs and the progress %+v; the run stopped in epoch %d after %d minibatches", saved.EpochsDone, saved.Partial, epoch, done)
	}
}
