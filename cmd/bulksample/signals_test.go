package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bulksample/bulksample/train"
)

// startCLI starts `bulksample args...` as a process and calls onLine with
// every line it writes to stdout or stderr, from one goroutine, until
// onLine returns true; then the caller gets its exit status and both
// outputs. The process is killed if it runs longer than a minute.
func startCLI(t *testing.T, onLine func(p *os.Process, line string) bool, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), "BULKSAMPLE_TEST_MAIN=1") // see TestMain
	outR, outW := io.Pipe()
	var outBuf, errBuf bytes.Buffer
	cmd.Stdout = io.MultiWriter(&outBuf, outW)
	cmd.Stderr = io.MultiWriter(&errBuf, outW)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan struct{})
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			if onLine(cmd.Process, sc.Text()) {
				break
			}
		}
		io.Copy(io.Discard, outR)
	}()
	err := cmd.Wait()
	outW.Close()
	<-lines
	if ctx.Err() != nil {
		t.Fatalf("bulksample %q did not end within a minute\n%s%s", args, outBuf.String(), errBuf.String())
	}
	code = cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		t.Fatalf("bulksample %q: %v", args, err)
	}
	return code, outBuf.String(), errBuf.String()
}

// signalOn returns an onLine function that sends sig on the first line
// starting with prefix.
func signalOn(t *testing.T, prefix string, sig syscall.Signal) func(*os.Process, string) bool {
	return func(p *os.Process, line string) bool {
		if !strings.HasPrefix(line, prefix) {
			return false
		}
		if err := p.Signal(sig); err != nil {
			t.Errorf("signal: %v", err)
		}
		return true
	}
}

// savedRun is what the signal test compares of two runs' checkpoints (gob
// decodes the fields of gnn's checkpoint that it names; from version 5
// the float arrays follow the gob encoding raw, RawLens long).
type savedRun struct {
	EpochsDone           int
	RawLens              []int
	Params, AdamM, AdamV []float32
	AdamT                int64
	History              []struct{ Loss, TrainAcc, ValAcc, TestAcc float64 }
	// Partial is the progress of a stopped epoch (nil at an epoch's end).
	Partial *struct {
		Stats struct{ Epoch, Minibatches int }
	}
}

func readSaved(t *testing.T, dir string) savedRun {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, train.CheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	r := bytes.NewReader(b)
	var s savedRun
	if err := gob.NewDecoder(r).Decode(&s); err != nil {
		t.Fatal(err)
	}
	raw := b[len(b)-r.Len() : len(b)-8] // the float arrays, before the 8-byte trailer
	for i, dst := range []*[]float32{&s.Params, &s.AdamM, &s.AdamV} {
		if i >= len(s.RawLens) || len(raw) < 4*s.RawLens[i] {
			t.Fatalf("checkpoint in %s: raw arrays %v in %d bytes", dir, s.RawLens, len(raw))
		}
		*dst = make([]float32, s.RawLens[i])
		for j := range *dst {
			(*dst)[j] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*j:]))
		}
		raw = raw[4*s.RawLens[i]:]
	}
	return s
}

// TestTrainSignalResume sends SIGINT to `bulksample train` once its first
// epoch is reported: the process must stop within the run, exit with 130,
// say where it stopped and where the checkpoint is, and --resume must then
// end the run exactly as an uninterrupted one (weights, Adam state, every
// epoch's loss and accuracies).
func TestTrainSignalResume(t *testing.T) {
	args := []string{"train", "--data", smallSynthetic, "--fanout", "5,5", "--batch", "16", "--bulk", "4",
		"--epochs", "4", "--hidden", "16", "--threads", "1"}
	whole := t.TempDir()
	if code, _, stderr := runCLI(t, args[0], append(args[1:], "--checkpoint", whole)...); code != 0 {
		t.Fatalf("uninterrupted run: exit %d\n%s", code, stderr)
	}
	dir := t.TempDir()
	code, stdout, stderr := startCLI(t, signalOn(t, "epoch 1/4:", syscall.SIGINT), append(args, "--checkpoint", dir)...)
	ck := filepath.Join(dir, train.CheckpointFile)
	if code != 130 {
		t.Fatalf("exit %d; want 130\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "stopped by SIGINT in epoch") || !strings.Contains(stderr, ck) || !strings.Contains(stderr, "--resume") {
		t.Errorf("stderr does not say where the run stopped and where its checkpoint is:\n%s", stderr)
	}
	if strings.Contains(stdout, "epoch 4/4:") {
		t.Errorf("the run went on to its end after the signal:\n%s", stdout)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("checkpoint directory holds %v; want only the checkpoint", entries)
	}
	t.Logf("stopped: %s", strings.TrimSpace(stderr[strings.LastIndex(strings.TrimSpace(stderr), "\n")+1:]))
	if code, _, stderr := runCLI(t, args[0], append(args[1:], "--checkpoint", dir, "--resume")...); code != 0 {
		t.Fatalf("resumed run: exit %d\n%s", code, stderr)
	}
	got, want := readSaved(t, dir), readSaved(t, whole)
	if got.EpochsDone != 4 || !slices.Equal(got.Params, want.Params) || !slices.Equal(got.AdamM, want.AdamM) ||
		!slices.Equal(got.AdamV, want.AdamV) || got.AdamT != want.AdamT {
		t.Errorf("the resumed run's weights or optimiser state differ from the uninterrupted run's (%d epochs done)", got.EpochsDone)
	}
	if !slices.Equal(got.History, want.History) {
		t.Errorf("per-epoch figures %+v; uninterrupted %+v", got.History, want.History)
	}
}

// TestConvertGenSignal sends SIGTERM to `bulksample convert` and SIGINT to
// `bulksample gen` once they start writing their output (30 MB, written 1
// MiB at a time): each must exit with 143 or 130 and leave nothing under
// the output's name, nor a temporary file.
func TestConvertGenSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 60 MB; skipped with -short")
	}
	gen := []string{"gen", "sbm", "--nodes", "30000", "--features", "256", "--avg-degree", "4", "--threads", "1"}
	src := filepath.Join(t.TempDir(), "in.bsn")
	if code, _, stderr := runCLI(t, gen[0], append(gen[1:], "--out", src)...); code != 0 {
		t.Fatalf("gen: exit %d\n%s", code, stderr)
	}
	for _, tc := range []struct {
		args []string
		sig  syscall.Signal
		code int
	}{
		{[]string{"convert", src}, syscall.SIGTERM, 143},
		{append(slices.Clone(gen), "--out"), syscall.SIGINT, 130},
	} {
		dir := t.TempDir()
		out := filepath.Join(dir, "out.npz")
		code, stdout, stderr := startCLI(t, signalOn(t, "writing "+out, tc.sig), append(tc.args, out)...)
		if code != tc.code || !strings.Contains(stderr, "stopped by SIG") || !strings.Contains(stderr, out) {
			t.Errorf("%s: exit %d; want %d and a message naming %s\n%s%s", tc.args[0], code, tc.code, out, stdout, stderr)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%s: left %v in the output folder", tc.args[0], entries)
		}
	}
}

// TestStoppedBy: a rank's error is led by the signal only when the signal
// caused it (it wraps the cancellation), not when the rank failed on its
// own while a signal (the other ranks' abort) arrived.
func TestStoppedBy(t *testing.T) {
	signalled, cancel := context.WithCancelCause(context.Background())
	cancel(&signalError{sig: syscall.SIGTERM})
	own := errors.New("train: checkpoint ck/checkpoint.gob was written with fanout=\"25,10\"")
	for _, tc := range []struct {
		name string
		ctx  context.Context
		err  error
		want string
	}{
		{"cancelled by the signal", signalled, fmt.Errorf("dist: Allreduce on rank 0 of 4: %w", context.Canceled),
			"stopped by SIGTERM: dist: Allreduce on rank 0 of 4: context canceled"},
		{"its own error during a signal", signalled, own, own.Error()},
		{"no signal", context.Background(), fmt.Errorf("x: %w", context.Canceled), "x: context canceled"},
	} {
		if got := stoppedBy(tc.ctx, tc.err).Error(); got != tc.want {
			t.Errorf("%s: %q; want %q", tc.name, got, tc.want)
		}
	}
}

// TestSecondSignal: the first SIGTERM cancels the command's context; the
// second ends the process at once with status 143 after a line saying so
// (it was killed by the default action without a word). The signals go to
// this test process, whose handler notifyContext installs.
func TestSecondSignal(t *testing.T) {
	type exit struct {
		msg  string
		code int
	}
	exits := make(chan exit, 1)
	ctx, stop := notifyContext(context.Background(), func(msg string, code int) { exits <- exit{msg, code} })
	defer stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the first SIGTERM did not cancel the context")
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case e := <-exits:
		if e.code != 143 || !strings.HasPrefix(e.msg, "bulksample: second SIGTERM: exiting at once with status 143") {
			t.Errorf("exit(%q, %d); want status 143 and the line saying so", e.msg, e.code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the second SIGTERM did not end the process")
	}
}

// TestTrainCheckpointFolderInUse: while one `train --checkpoint DIR` runs
// (a process of its own), a second one in DIR, on one process or on
// in-process ranks, exits 1 at once, before loading its data, saying that
// the folder is in use and by which process; two runs in one folder used
// to both train, overwriting each other's checkpoints, or one died when
// the other's save removed its temporary file.
func TestTrainCheckpointFolderInUse(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--data", smallSynthetic, "--fanout", "5,5", "--batch", "16", "--bulk", "4",
		"--epochs", "500", "--hidden", "16", "--threads", "1", "--checkpoint", dir, "--resume"}
	var pid int
	code, stdout, stderr := startCLI(t, func(p *os.Process, line string) bool {
		if !strings.HasPrefix(line, "epoch 1/500:") {
			return false
		}
		pid = p.Pid
		for _, extra := range [][]string{nil, {"--inproc-ranks", "2"}} {
			code, _, stderr := runCLI(t, "train", append(slices.Clone(args), extra...)...)
			want := fmt.Sprintf("train: checkpoint folder %s: in use by another run: process %d on host ", dir, pid)
			if code != 1 || !strings.Contains(stderr, want) || strings.Contains(stderr, "generating") {
				t.Errorf("second run %q: exit %d; want 1 and %q before the data is made\n%s", extra, code, want, stderr)
			}
		}
		if err := p.Signal(syscall.SIGINT); err != nil {
			t.Errorf("signal: %v", err)
		}
		return true
	}, append([]string{"train"}, args...)...)
	if pid == 0 || code != 130 {
		t.Fatalf("first run: exit %d; want it stopped by SIGINT after its first epoch\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, train.CheckpointLockFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the first run left its lock file: %v", err)
	}
}
