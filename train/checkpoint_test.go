package train

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bulksample/bulksample/gnn"
)

// TestDecodeCheckpointDamage: a checkpoint file with a flipped bit, cut
// short, or without the trailer its version requires is an error; before
// the checksum, gob decoded flipped bits in the weights without complaint
// and the run resumed from altered parameters.
func TestDecodeCheckpointDamage(t *testing.T) {
	ck := &checkpoint{Version: checkpointVersion, Config: map[string]string{"model": "sage"}, EpochsDone: 1,
		Params: []float32{1, 2, 3, 4}, AdamM: make([]float32, 4), AdamV: make([]float32, 4), AdamT: 7,
		History: []EpochStats{{Epoch: 0, Loss: 1.5}}}
	var good bytes.Buffer
	if err := encodeCheckpoint(&good, ck); err != nil {
		t.Fatal(err)
	}
	b := good.Bytes()
	flip := func(i int) []byte {
		c := bytes.Clone(b)
		c[i] ^= 0x10
		return c
	}
	// A version 2 file (no trailer) from before the checksum still reads.
	old := *ck
	old.Version = 2
	var legacy bytes.Buffer
	if err := gob.NewEncoder(&legacy).Encode(&old); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		in   []byte
		want string // "" for success
	}{
		{"intact", b, ""},
		{"version 2 without a trailer", legacy.Bytes(), ""},
		{"bit flipped in the last parameter bytes", flip(len(b) - trailerLen - 20), "checksum mismatch"},
		{"bit flipped in the middle", flip(len(b) / 2), "checksum mismatch"},
		{"bit flipped in the checksum", flip(len(b) - 1), "checksum mismatch"},
		{"trailer cut off", b[:len(b)-trailerLen], "without its checksum"},
		{"cut in the trailer", b[:len(b)-3], "corrupt"},
		{"cut in half", b[:len(b)/2], "corrupt"},
		{"empty", nil, "not a checkpoint"},
		{"not a checkpoint", []byte("not a checkpoint"), "not a checkpoint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeCheckpoint(tt.in)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("error %v", err)
			case tt.want == "" && (got.EpochsDone != 1 || got.AdamT != 7 || len(got.Params) != 4 || got.Params[3] != 4):
				t.Errorf("decoded %+v", got)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("error %v; want one containing %q", err, tt.want)
			}
		})
	}
}

// FuzzDecodeCheckpoint: no input makes the checkpoint reader panic, and what
// it accepts has a version it knows.
func FuzzDecodeCheckpoint(f *testing.F) {
	ck := &checkpoint{Version: checkpointVersion, Config: map[string]string{"model": "gcn", "hidden": "16"}, EpochsDone: 2,
		Params: []float32{1, -2, 3}, AdamM: []float32{0, 0, 0}, AdamV: []float32{1, 1, 1}, AdamT: 3,
		History: []EpochStats{{Epoch: 0, Loss: 2}, {Epoch: 1, Loss: 1}}, Partial: &partialEpoch{}}
	var b bytes.Buffer
	if err := encodeCheckpoint(&b, ck); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	old := *ck
	old.Version, old.Partial = 1, nil
	var legacy bytes.Buffer
	if err := gob.NewEncoder(&legacy).Encode(&old); err != nil {
		f.Fatal(err)
	}
	f.Add(legacy.Bytes())
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := decodeCheckpoint(in)
		if err == nil && (got.Version < 1 || got.Version > checkpointVersion) {
			t.Errorf("accepted version %d", got.Version)
		}
	})
}

// TestStaleCheckpointTemporariesRemoved: a run killed while saving (kill
// -9, a second SIGTERM) leaves the save's temporary file; the next run in
// that folder removes it when it starts, says so in Notes, and leaves
// other files alone. Ten such kills had left 51.7 MB behind.
func TestStaleCheckpointTemporariesRemoved(t *testing.T) {
	ds := smallGraph(t, 200, 3, 5, 8, 0.8, 1, 2)
	dir := t.TempDir()
	stale := filepath.Join(dir, "."+CheckpointFile+".tmp123456")
	other := filepath.Join(dir, "notes.txt")
	for _, p := range []string{stale, other} {
		if err := os.WriteFile(p, make([]byte, 2000), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var notes strings.Builder
	tr, err := NewTrainer(dataOf(t, ds, nodeWise(t, ds, []int{3}, 1)), TrainerOptions{Model: ModelOptions{Hidden: 8}, Plan: PlanOptions{Epochs: 1}, Checkpoint: CheckpointOptions{Dir: dir}, Hooks: Hooks{Notes: &notes}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); err != nil {
		t.Fatal("NewTrainer removed it already; Run is where a run starts in its folder")
	}
	if _, err := tr.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Errorf("the stale temporary %s is still there", stale)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another file of the folder was removed: %v", err)
	}
	if !strings.Contains(notes.String(), "removed 1 stale temporary checkpoint file (0.0 MB) from "+dir) {
		t.Errorf("notes %q; want the removal said", notes.String())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("the folder holds %v; want the checkpoint and notes.txt", entries)
	}
}

// TestCheckpointEvery: CheckpointEvery saves after every N-th epoch and
// after the last; CheckpointInterval after an epoch that ends long enough
// after the last save (never within an hour here, so only the last epoch;
// always with a nanosecond); with neither, every epoch. Each case reads
// the checkpoint's epoch count when every epoch starts.
func TestCheckpointEvery(t *testing.T) {
	ds := smallGraph(t, 200, 3, 5, 8, 0.8, 1, 2)
	for _, tc := range []struct {
		every    int
		interval time.Duration
		want     []int // epochs in the checkpoint when epochs 1..5 start (-1: none yet)
	}{
		{0, 0, []int{-1, 1, 2, 3, 4}},
		{2, 0, []int{-1, -1, 2, 2, 4}},
		{0, time.Hour, []int{-1, -1, -1, -1, -1}},
		{0, time.Nanosecond, []int{-1, 1, 2, 3, 4}},
		{3, time.Hour, []int{-1, -1, -1, 3, 3}},
	} {
		dir := t.TempDir()
		var got []int
		opt := TrainerOptions{Model: ModelOptions{Hidden: 8}, Plan: PlanOptions{Epochs: 5, BatchSize: 1000}, Checkpoint: CheckpointOptions{Dir: dir, Every: tc.every, Interval: tc.interval}, Hooks: Hooks{Notes: io.Discard, OnMinibatch: func(epoch, done, total int) {
			if done != 1 {
				return
			}
			ck, err := loadCheckpoint(dir)
			switch {
			case err != nil:
				t.Fatal(err)
			case ck == nil:
				got = append(got, -1)
			default:
				got = append(got, ck.EpochsDone)
			}
		}}}
		tr, err := NewTrainer(dataOf(t, ds, nodeWise(t, ds, []int{3}, 1)), opt)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tr.Run(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		ck, err := loadCheckpoint(dir)
		if err != nil || ck == nil || ck.EpochsDone != 5 {
			t.Errorf("every %d, interval %v: the last epoch was not saved (%v)", tc.every, tc.interval, err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("every %d, interval %v: checkpoint epochs %v when the epochs started; want %v", tc.every, tc.interval, got, tc.want)
		}
	}
	if _, err := NewTrainer(dataOf(t, ds, nodeWise(t, ds, []int{3}, 1)), TrainerOptions{Checkpoint: CheckpointOptions{Every: -1}}); err == nil || !strings.Contains(err.Error(), "Checkpoint.Every") {
		t.Errorf("Checkpoint.Every -1: %v; want an error naming it", err)
	}
}

// TestResumeAfterLastMinibatch: a run stopped after the last minibatch of
// its second epoch, before that epoch's evaluation, saves 1 complete epoch
// and all the minibatches of the second; a resume reports exactly that,
// through OnResume and Result (the CLI said "after epoch 2" while its JSON
// said resumed_from 1).
func TestResumeAfterLastMinibatch(t *testing.T) {
	ds := smallGraph(t, 300, 3, 5, 8, 0.8, 1, 2)
	s := nodeWise(t, ds, []int{3}, 1)
	dir := t.TempDir()
	stop := make(chan struct{})
	opt := TrainerOptions{Model: ModelOptions{Hidden: 8}, Plan: PlanOptions{Epochs: 3, BatchSize: 32}, Runtime: RuntimeOptions{PipelineDepth: 1}, Checkpoint: CheckpointOptions{Dir: dir}, Hooks: Hooks{Notes: io.Discard, Stop: stop}}
	opt.Hooks.OnMinibatch = func(epoch, done, total int) {
		if epoch == 1 && done == total-1 {
			close(stop) // the next step, the epoch's last, carries it
		}
	}
	tr, err := NewTrainer(dataOf(t, ds, s), opt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Run(context.Background(), nil); !errors.Is(err, ErrStopRequested) {
		t.Fatalf("run: %v; want it stopped", err)
	}
	var got []int
	resume := opt
	resume.Hooks.Stop, resume.Hooks.OnMinibatch, resume.Checkpoint.Resume = nil, nil, true
	resume.Hooks.OnResume = func(done, mbs, total int) { got = []int{done, mbs, total} }
	tr, err = NewTrainer(dataOf(t, ds, s), resume)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tr.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	total := tr.plan.NumMinibatches()
	if want := []int{1, total, total}; !slices.Equal(got, want) || res.ResumedFrom != 1 || res.ResumedMinibatches != total {
		t.Errorf("OnResume %v, Result %d epochs and %d minibatches; want %v", got, res.ResumedFrom, res.ResumedMinibatches, want)
	}
}

// TestDecodeCheckpointOfPackageGnn: a version 6 checkpoint written when the
// trainer was package gnn's (testdata/checkpoint-v6-gnn.gob, encoded from
// the value below by that code) decodes to the same value: the move kept
// the format. The files differ only in gob's name of the unnamed history
// type ([]gnn.EpochStats then, []train.EpochStats now), which a decoder
// does not read.
func TestDecodeCheckpointOfPackageGnn(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "checkpoint-v6-gnn.gob"))
	if err != nil {
		t.Fatal(err)
	}
	ck, err := decodeCheckpoint(b)
	if err != nil {
		t.Fatal(err)
	}
	want := &checkpoint{Version: 6, Config: map[string]string{"a": "b", "hidden": "8"}, EpochsDone: 2,
		Params: []float32{1, 2, 3}, AdamM: []float32{4}, AdamV: []float32{5}, AdamT: 7,
		History:    []EpochStats{{Epoch: 1, Loss: 0.5, Evaluated: true, Valid: gnn.Measures{Accuracy: 0.25}, Phases: PhaseTimes{Sample: time.Second}}},
		Partial:    &partialEpoch{Stats: EpochStats{Epoch: 2, Minibatches: 3}, LossSum: 1.5, Correct: 2, Labelled: 4},
		BestParams: []float32{9, 8}}
	ck.RawLens = nil
	if !reflect.DeepEqual(ck, want) {
		t.Fatalf("decoded %+v; want %+v", ck, want)
	}
	var out bytes.Buffer
	if err := encodeCheckpoint(&out, want); err != nil {
		t.Fatal(err)
	}
	// The history type's name is 2 bytes longer, and so is the length of
	// the gob message that defines it; the rest is the same.
	if d := out.Len() - len(b); d != len("[]train.EpochStats")-len("[]gnn.EpochStats") || !bytes.Contains(out.Bytes(), []byte("[]train.EpochStats")) {
		t.Errorf("the encoding is %d bytes longer than package gnn's; want only the history type's longer name", d)
	}
}
