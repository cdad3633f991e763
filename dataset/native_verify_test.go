package dataset

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestCRC32Combine(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, 5000)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	for _, cut := range [][]int{{0}, {1}, {4999}, {5000}, {7, 8, 4096}, {1, 2, 3, 1000, 1001, 4999}} {
		var sum uint32
		lo := 0
		for _, hi := range append(cut, len(b)) {
			sum = crc32Combine(sum, crc32.Checksum(b[lo:hi], castagnoli), int64(hi-lo))
			lo = hi
		}
		if want := crc32.Checksum(b, castagnoli); sum != want {
			t.Errorf("cuts %v: combined %08x, want %08x", cut, sum, want)
		}
	}
}

func TestAppendRowPieces(t *testing.T) {
	for _, indptr := range [][]int64{{0}, {0, 0, 0}, {0, 100, 100, 101}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}} {
		for _, parts := range []int{1, 3, 16} {
			pieces := appendRowPieces(nil, 1, indptr, parts)
			next := 0
			for _, p := range pieces {
				if p.rows[0] != next || p.array != 1 || p.lo != indptr[p.rows[0]]*4 || p.hi != indptr[p.rows[1]]*4 {
					t.Fatalf("indptr %v parts %d: pieces %+v", indptr, parts, pieces)
				}
				next = p.rows[1]
			}
			if next != len(indptr)-1 || len(pieces) == 0 || len(pieces) > parts {
				t.Fatalf("indptr %v parts %d: pieces %+v", indptr, parts, pieces)
			}
		}
	}
}

// nativeBytes writes d in the native format and returns the bytes and the
// header.
func nativeBytes(t *testing.T, d *Dataset) ([]byte, nativeHeader) {
	t.Helper()
	var buf bytes.Buffer
	if err := writeNative(&buf, d); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	var h nativeHeader
	hlen := int(binary.LittleEndian.Uint64(b[16:]))
	if err := json.Unmarshal(b[nativePrefixLen:nativePrefixLen+hlen], &h); err != nil {
		t.Fatal(err)
	}
	return b, h
}

// TestVerifyLevels checks what each level catches on a file cut into many
// pieces: a corrupt column id (every level but none), a corrupt edge value
// or feature (only VerifyChecksums), for several thread counts.
func TestVerifyLevels(t *testing.T) {
	a, err := RMAT(RMATOptions{Scale: 12, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	n := a.Rows
	feats := make([]float32, n*3)
	for i := range feats {
		feats[i] = float32(i % 11)
	}
	good, h := nativeBytes(t, &Dataset{Name: "g", Adj: a, Features: feats, NumFeatures: 3})
	offset := map[string]int64{}
	for _, x := range h.Arrays {
		offset[x.Name] = x.Offset
	}
	// Entry p of a middle row becomes its row's previous column id.
	row := n / 2
	for a.Indptr[row+1]-a.Indptr[row] < 2 {
		row++
	}
	p := a.Indptr[row] + 1
	tests := []struct {
		name   string
		modify func(b []byte)
		want   map[VerifyLevel]string // "" = accepted
	}{
		{"good", func([]byte) {}, map[VerifyLevel]string{VerifyStructure: "", VerifyChecksums: "", VerifyNone: ""}},
		{"duplicate column id", func(b []byte) {
			binary.LittleEndian.PutUint32(b[offset["indices"]+4*p:], uint32(a.Indices[p-1]))
		}, map[VerifyLevel]string{
			VerifyStructure: `array "indices": dataset: bad input: adjacency: spgemm: invalid CSR: row ` + strconv.Itoa(row) + ": duplicate column id",
			VerifyChecksums: `array "indices": dataset: bad input: checksum mismatch`,
			VerifyNone:      "",
		}},
		{"column id out of range", func(b []byte) {
			binary.LittleEndian.PutUint32(b[offset["indices"]+4*(a.NNZ()-1):], uint32(n))
		}, map[VerifyLevel]string{VerifyStructure: "outside [0, " + strconv.Itoa(n) + ")", VerifyChecksums: "checksum mismatch", VerifyNone: ""}},
		{"indptr decreases", func(b []byte) {
			binary.LittleEndian.PutUint64(b[offset["indptr"]+8*3:], 1<<40)
		}, map[VerifyLevel]string{VerifyStructure: "indptr decreases at row", VerifyChecksums: `array "indptr": dataset: bad input: checksum mismatch`, VerifyNone: ""}},
		{"edge value", func(b []byte) { b[offset["data"]+4*p] ^= 1 },
			map[VerifyLevel]string{VerifyStructure: "", VerifyChecksums: `array "data": dataset: bad input: checksum mismatch`, VerifyNone: ""}},
		{"feature", func(b []byte) { b[offset["features"]+4*int64(len(feats))-1] ^= 1 },
			map[VerifyLevel]string{VerifyStructure: "", VerifyChecksums: `array "features": dataset: bad input: checksum mismatch`, VerifyNone: ""}},
	}
	for _, tt := range tests {
		for level, want := range tt.want {
			for _, threads := range []int{1, 3} {
				b := bytes.Clone(good)
				tt.modify(b)
				d, err := decodeNative("g.bsn", b, level, threads, nil)
				switch {
				case want == "" && err != nil:
					t.Errorf("%s, %v, %d threads: %v", tt.name, level, threads, err)
				case want == "" && level != VerifyNone && tt.name == "good":
					if err := d.Validate(); err != nil {
						t.Errorf("accepted an invalid dataset: %v", err)
					}
				case want != "" && (err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "g.bsn: ")):
					t.Errorf("%s, %v, %d threads: error %v, want one containing %q", tt.name, level, threads, err, want)
				}
			}
		}
	}
	// Load's default is the structure check: it rejects the bad column id
	// and accepts the bad edge value, which VerifyChecksums rejects.
	dir := t.TempDir()
	for _, tt := range tests[1:] {
		path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".bsn")
		b := bytes.Clone(good)
		tt.modify(b)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, level := range []VerifyLevel{VerifyDefault, VerifyChecksums} {
			want := tt.want[level]
			if level == VerifyDefault {
				want = tt.want[VerifyStructure]
			}
			d, err := Load(path, &LoadOptions{Verify: level})
			if (err == nil) != (want == "") || err != nil && !strings.Contains(err.Error(), want) {
				t.Errorf("Load %s at %v: %v, want %q", tt.name, level, err, want)
			}
			if err == nil {
				d.Close()
			}
		}
	}
	if _, err := Load(dir, &LoadOptions{Verify: VerifyNone + 1}); err == nil || !strings.Contains(err.Error(), "Verify") {
		t.Errorf("unknown level: %v", err)
	}
	if VerifyDefault.String() != "default" || VerifyChecksums.String() != "checksums" {
		t.Error("VerifyLevel.String")
	}
}
