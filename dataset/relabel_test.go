package dataset

import (
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func isPermutation(p []int32) bool {
	s := slices.Clone(p)
	slices.Sort(s)
	for i, v := range s {
		if int(v) != i {
			return false
		}
	}
	return true
}

// TestDegreeOrderByHand: 8 vertices of degrees 7..0 (vertex v has degree
// 7-v, so the degree order is 0..7). Depth 1 deals 0 L, 1 R, 2 R, 3 L, 4 L,
// 5 R, 6 R, 7 L: left {0, 3, 4, 7}, right {1, 2, 5, 6}, 14 edges each;
// depth 2 splits {0, 3, 4, 7} into {0, 7} and {3, 4}, {1, 2, 5, 6} into
// {1, 6} and {2, 5}: 7 edges each; depth 3 keeps each pair's order.
func TestDegreeOrderByHand(t *testing.T) {
	deg := []int32{7, 6, 5, 4, 3, 2, 1, 0}
	got := DegreeOrder(deg, 1)
	if want := []int32{0, 7, 3, 4, 1, 6, 2, 5}; !slices.Equal(got, want) {
		t.Fatalf("DegreeOrder = %v; want %v", got, want)
	}
	// Ties go by id, whatever the thread count: all degrees equal is the
	// identity dealt.
	flat := make([]int32, 5)
	if a, b := DegreeOrder(flat, 1), DegreeOrder(flat, 4); !slices.Equal(a, b) || !isPermutation(a) {
		t.Fatalf("equal degrees: %v and %v", a, b)
	}
	for n := range 4 {
		if got := DegreeOrder(make([]int32, n), 1); !isPermutation(got) || len(got) != n {
			t.Errorf("n = %d: %v", n, got)
		}
	}
}

// TestDegreeOrderBalance: on R-MAT (heavy-tailed degrees), every block of
// every power-of-two cut holds its share of the edges within the largest
// degree plus the mean degree (DegreeOrder's guarantee), for n a power of
// two and not; the order does not depend on the thread count.
func TestDegreeOrderBalance(t *testing.T) {
	a, err := RMAT(RMATOptions{Scale: 12, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{a.Rows, a.Rows - 77} {
		deg := RowLengths(a)[:n]
		order := DegreeOrder(deg, 1)
		if !isPermutation(order) {
			t.Fatalf("n = %d: not a permutation", n)
		}
		if other := DegreeOrder(deg, 3); !slices.Equal(order, other) {
			t.Fatalf("n = %d: 1 and 3 threads give other orders", n)
		}
		var total, top int64
		for _, d := range deg {
			total += int64(d)
			top = max(top, int64(d))
		}
		mean := float64(total) / float64(n)
		for blocks := 2; blocks <= 64; blocks *= 2 {
			for b := range blocks {
				lo, hi := b*n/blocks, (b+1)*n/blocks
				var e int64
				for _, v := range order[lo:hi] {
					e += int64(deg[v])
				}
				share := float64(hi-lo) * mean
				if dev := float64(e) - share; dev > float64(top)+mean || -dev > float64(top)+mean {
					t.Errorf("n = %d, %d blocks: block %d has %d edges, its share is %.0f (largest degree %d)", n, blocks, b, e, share, top)
				}
			}
		}
	}
}

// relabelFixture is a small labelled, featured dataset with a split.
func relabelFixture(t *testing.T) *Dataset {
	t.Helper()
	d, err := PlantedPartition(PlantedPartitionOptions{Nodes: 300, Classes: 3, AvgDegree: 6, Homophily: 0.8, Features: 4, Exponent: 2.5, Noise: 1, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	// Weights, so that values must follow their columns.
	for i := range d.Adj.Data {
		d.Adj.Data[i] = float32(i%7) + 0.5
	}
	return d
}

// TestRelabelFollows: row x of the relabelled graph is row OrigIDs[x] of
// the source with its columns renamed, values following; features,
// labels and split follow; relabelling twice composes the permutations.
func TestRelabelFollows(t *testing.T) {
	d := relabelFixture(t)
	n := d.NumNodes()
	for _, opt := range []RelabelOptions{{Method: RelabelRandom, Seed: 3}, {Method: RelabelDegree, Threads: 3}} {
		r, err := Relabel(d, opt)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("%s: %v", opt.Method, err)
		}
		orig := r.Relabel.OrigIDs
		inv := inverse(orig)
		for x := range n {
			v := int(orig[x])
			want := map[int32]float32{}
			cols, vals := d.Adj.Row(v)
			for p, c := range cols {
				want[inv[c]] = vals[p]
			}
			gc, gv := r.Adj.Row(x)
			if len(gc) != len(want) {
				t.Fatalf("%s: row %d has %d entries, source row %d %d", opt.Method, x, len(gc), v, len(want))
			}
			for p, c := range gc {
				if w, ok := want[c]; !ok || w != gv[p] {
					t.Fatalf("%s: row %d: entry (%d, %g) is not source (%d, %d)", opt.Method, x, c, gv[p], v, orig[c])
				}
			}
			if r.Labels[x] != d.Labels[v] || !slices.Equal(r.Features[x*4:x*4+4], d.Features[v*4:v*4+4]) {
				t.Fatalf("%s: vertex %d's label or features are not source vertex %d's", opt.Method, x, v)
			}
		}
		for _, s := range [][2][]int32{{r.Train, d.Train}, {r.Valid, d.Valid}, {r.Test, d.Test}} {
			back := make([]int32, len(s[0]))
			for i, x := range s[0] {
				back[i] = orig[x]
			}
			slices.Sort(back)
			if !slices.Equal(back, s[1]) || !slices.IsSorted(s[0]) {
				t.Fatalf("%s: a split does not map back to the source's", opt.Method)
			}
		}
		twice, err := Relabel(r, RelabelOptions{Method: RelabelRandom, Seed: 8})
		if err != nil {
			t.Fatal(err)
		}
		for x, v := range twice.Relabel.OrigIDs {
			if twice.Labels[x] != d.Labels[v] {
				t.Fatalf("%s then random: OrigIDs[%d] = %d does not name the first source's vertex", opt.Method, x, v)
			}
		}
	}
	if _, err := Relabel(d, RelabelOptions{Method: "metis"}); err == nil || !strings.Contains(err.Error(), `"metis"`) {
		t.Errorf("unknown method: %v", err)
	}
	if _, err := Relabel(d, RelabelOptions{Method: RelabelDegree, Seed: 1}); err == nil {
		t.Error("degree with a seed: no error")
	}
}

// TestRelabelSaveLoad: a relabelled dataset survives the native format
// (version 2) and .npz with its relabelling; a graph without one is still
// written as version 1.
func TestRelabelSaveLoad(t *testing.T) {
	d := relabelFixture(t)
	r, err := Relabel(d, RelabelOptions{Method: RelabelRandom, Seed: 1 << 63})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"r.bsn", "r.npz"} {
		path := filepath.Join(dir, name)
		if err := Save(path, r); err != nil {
			t.Fatal(err)
		}
		back, err := Load(path, &LoadOptions{Verify: VerifyChecksums})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if back.Relabel == nil || (back.Relabel.Method != RelabelRandom || back.Relabel.Seed != 1<<63 || !slices.Equal(back.Relabel.OrigIDs, r.Relabel.OrigIDs)) {
			t.Errorf("%s: relabelling %+v after a round trip", name, back.Relabel)
		}
		if !slices.Equal(back.Adj.Indices, r.Adj.Indices) || !slices.Equal(back.Labels, r.Labels) {
			t.Errorf("%s: graph or labels changed in the round trip", name)
		}
		back.Close()
	}
	for _, c := range []struct {
		d       *Dataset
		version uint32
	}{{d, 1}, {r, 2}} {
		path := filepath.Join(dir, "v.bsn")
		if err := Save(path, c.d); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if v := binary.LittleEndian.Uint32(b[8:]); v != c.version {
			t.Errorf("relabelled %v: version %d; want %d", c.d.Relabel != nil, v, c.version)
		}
	}
}

// rewriteHeader returns the native file b with its JSON header edited by
// edit (and the prefix's version set to version), checksums fixed.
func rewriteHeader(t *testing.T, b []byte, version uint32, edit func(h map[string]any)) []byte {
	t.Helper()
	hlen := binary.LittleEndian.Uint64(b[16:])
	var h map[string]any
	if err := json.Unmarshal(b[24:24+hlen], &h); err != nil {
		t.Fatal(err)
	}
	edit(h)
	hdr, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	out := slices.Clone(b)
	if uint64(len(hdr)) > hlen {
		t.Fatalf("edited header grew from %d to %d bytes", hlen, len(hdr))
	}
	hdr = append(hdr, []byte(strings.Repeat(" ", int(hlen)-len(hdr)))...)
	copy(out[24:], hdr)
	binary.LittleEndian.PutUint32(out[8:], version)
	binary.LittleEndian.PutUint32(out[12:], crc32.Checksum(hdr, castagnoli))
	return out
}

// TestRelabelNativeErrors: what a reader refuses of relabelling fields.
func TestRelabelNativeErrors(t *testing.T) {
	a, err := RMAT(RMATOptions{Scale: 6, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Relabel(&Dataset{Adj: a}, RelabelOptions{Method: RelabelDegree})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "r.bsn")
	if err := Save(path, r); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		version uint32
		edit    func(h map[string]any)
		want    string
	}{
		{"relabel in version 1", 1, func(h map[string]any) { h["version"] = 1 }, "in a version 1 file"},
		{"orig_ids without relabel", 2, func(h map[string]any) { delete(h, "relabel") }, `array "orig_ids" without the header's relabel`},
		{"unknown method", 2, func(h map[string]any) { h["relabel"] = "metis" }, `method "metis"`},
		{"version 3", 3, func(h map[string]any) { h["version"] = 3 }, "unsupported native format version 3"},
	} {
		bad := filepath.Join(dir, "bad.bsn")
		if err := os.WriteFile(bad, rewriteHeader(t, b, tc.version, tc.edit), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(bad, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "bad.bsn") {
			t.Errorf("%s: %v; want an error naming the file and %q", tc.name, err, tc.want)
		}
	}
	// orig_ids that are not a permutation: a structure check.
	r.Relabel.OrigIDs[1] = r.Relabel.OrigIDs[0]
	if err := Save(filepath.Join(dir, "dup.bsn"), r); err == nil || !strings.Contains(err.Error(), "not a permutation") {
		t.Errorf("Save of a relabelling that is not a permutation: %v", err)
	}
}
