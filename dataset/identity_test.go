package dataset

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/spgemm"
)

// TestIdentity: two copies of a file have one identity; a file of the same
// shape and size but other entries (the stale copy a rank may read), in
// each format Identity knows, has another, and the line that differs says
// what.
func TestIdentity(t *testing.T) {
	dir := t.TempDir()
	// A 4-cycle, i -> i+shift: the same shape and entry count for every
	// shift, other column ids.
	graph := func(shift int32) *Dataset {
		return &Dataset{Name: "g", Adj: &spgemm.CSR{Rows: 4, Cols: 4, Indptr: []int64{0, 1, 2, 3, 4},
			Indices: []int32{shift % 4, (1 + shift) % 4, (2 + shift) % 4, (3 + shift) % 4}, Data: []float32{1, 1, 1, 1}}}
	}
	save := func(name string, shift int32) string {
		p := filepath.Join(dir, name)
		if err := Save(p, graph(shift)); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ogb := func(name string, dst1 int32) string {
		p := filepath.Join(dir, name)
		writeOGBEdges(t, p, 4, []int32{0, 1}, []int32{1, dst1}, "csv")
		return p
	}
	// A long text file: a change within its first 64 KiB is seen.
	long := strings.Repeat("1 2\n", 50000)
	for _, tc := range []struct {
		name       string
		a, b, copy string
		want       string // in the first line that differs
	}{
		{"native", save("a.bsg", 1), save("b.bsg", 2), "", "native header CRC-32C"},
		{"scipy npz", save("a.npz", 1), save("b.npz", 2), "", "member "},
		{"edge list", write("a.txt", "0 1\n1 2\n"), write("b.txt", "0 1\n1 3\n"), "", "CRC-32C of the first and last 64 KiB"},
		{"long edge list", write("la.txt", "0 9\n"+long), write("lb.txt", "0 8\n"+long), "", "CRC-32C of the first and last 64 KiB"},
		{"ogb", ogb("oa", 2), ogb("ob", 3), "", "raw/edge.csv.gz: gzip CRC-32"},
	} {
		ia, err := Identity(tc.a)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		ib, err := Identity(tc.b)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		b, err := os.ReadFile(tc.a)
		if err == nil {
			c := tc.a + ".copy"
			if err := os.WriteFile(c, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if ic, err := Identity(c); err != nil || !slices.Equal(ic, ia) {
				t.Errorf("%s: a copy's identity %q (%v); want %q", tc.name, ic, err, ia)
			}
		}
		if len(ia) != len(ib) || ia[0] != ib[0] {
			t.Errorf("%s: sizes or line counts differ (%q, %q): the test wants copies of one size", tc.name, ia, ib)
			continue
		}
		i := slices.IndexFunc(ia, func(l string) bool { return !slices.Contains(ib, l) })
		if i < 0 || !strings.Contains(ia[i], tc.want) {
			t.Errorf("%s: identities %q and %q; want them to differ in a line with %q", tc.name, ia, ib, tc.want)
		}
	}
	if _, err := Identity(filepath.Join(dir, "missing.bsg")); err == nil || !strings.Contains(err.Error(), "missing.bsg") {
		t.Errorf("missing file: %v; want an error naming it", err)
	}
}
