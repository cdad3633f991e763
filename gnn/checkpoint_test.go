package gnn

import (
	"bytes"
	"encoding/gob"
	"strings"
	"testing"
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
