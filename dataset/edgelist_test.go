package dataset

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/spgemm"
)

// randomText writes m random entries over n vertices as an edge list (0-based,
// "u v" or "u,v,w") or a Matrix Market body (1-based), with comment and blank
// lines, duplicates and self loops (weights whole, zero and negative too with
// intWeights), and returns the entries' ids and values.
func randomText(rng *rand.Rand, n, m int, weighted, oneBased, intWeights bool) (text string, src, dst []int32, vals []float32) {
	var sb strings.Builder
	for k := range m {
		if rng.IntN(5) == 0 {
			sb.WriteString([]string{"# c\n", "% c 1 2\n", "\n", "  \t\n"}[rng.IntN(4)])
		}
		u, v := int32(rng.IntN(n)), int32(rng.IntN(n))
		switch {
		case k > 0 && rng.IntN(4) == 0: // a duplicate of an earlier entry
			i := rng.IntN(k)
			u, v = src[i], dst[i]
		case rng.IntN(8) == 0:
			v = u
		}
		src, dst = append(src, u), append(dst, v)
		base := int32(0)
		if oneBased {
			base = 1
		}
		sep := []string{" ", "\t", ","}[rng.IntN(3)]
		fmt.Fprintf(&sb, "%d%s%d", u+base, sep, v+base)
		if weighted {
			w := float32(rng.IntN(9)+1) / 4
			if intWeights {
				w = float32(rng.IntN(5) - 2)
			}
			vals = append(vals, w)
			fmt.Fprintf(&sb, "%s%g", sep, w)
		}
		sb.WriteString("\n")
	}
	return sb.String(), src, dst, vals
}

// TestStreamingReadersMatchFromCOO checks the two-pass readers against
// FromCOO on the parsed entries, with chunks of 1, 7 and all the entries.
func TestStreamingReadersMatchFromCOO(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 12 {
		n, m := 1+rng.IntN(30), rng.IntN(200)
		for _, weighted := range []bool{false, true} {
			text, src, dst, vals := randomText(rng, n, m, weighted, false, false)
			want := &spgemm.CSR{Indptr: []int64{0}, Indices: []int32{}, Data: []float32{}}
			// The reader renumbers the distinct ids in ascending order.
			ids := slices.Sorted(maps.Keys(func() map[int32]bool {
				seen := map[int32]bool{}
				for k := range src {
					seen[src[k]], seen[dst[k]] = true, true
				}
				return seen
			}()))
			renum := func(v []int32) []int32 {
				out := make([]int32, len(v))
				for i, x := range v {
					j, _ := slices.BinarySearch(ids, x)
					out[i] = int32(j)
				}
				return out
			}
			if m > 0 {
				opt := &spgemm.COOOptions{Duplicates: spgemm.DropDuplicates, Threads: 2}
				if weighted {
					opt.Duplicates = spgemm.SumDuplicates
				}
				var err error
				if want, err = spgemm.FromCOO(len(ids), len(ids), renum(dst), renum(src), vals, opt); err != nil {
					t.Fatal(err)
				}
			}
			for _, chunk := range []int64{1, 7, ogbChunk} {
				d, err := readEdgeList(context.Background(), "g.txt", strings.NewReader(text), AsStored, 2, chunk)
				if err != nil {
					t.Fatalf("trial %d weighted %v chunk %d: %v", trial, weighted, chunk, err)
				}
				if !reflect.DeepEqual(d.Adj, want) || d.Weighted != (weighted && m > 0) {
					t.Fatalf("edge list trial %d weighted %v chunk %d: got %+v, want %+v", trial, weighted, chunk, d.Adj, want)
				}
				identity := len(ids) == 0 || int(ids[len(ids)-1]) == len(ids)-1
				if identity != (d.SourceIDs == nil) {
					t.Fatalf("edge list trial %d: source ids %v for ids %v", trial, d.SourceIDs, ids)
				}
				for v, id := range d.SourceIDs {
					if id != int64(ids[v]) {
						t.Fatalf("edge list trial %d: vertex %d has source id %d, want %d", trial, v, id, ids[v])
					}
				}
			}
		}
		for _, field := range []string{"pattern", "real", "integer"} {
			for _, sym := range []string{"general", "symmetric"} {
				body, src, dst, vals := randomText(rng, n, m, field != "pattern", true, field == "integer")
				text := fmt.Sprintf("%%%%MatrixMarket matrix coordinate %s %s\n%% c\n%d %d %d\n%s", field, sym, n, n, m, body)
				opt := &spgemm.COOOptions{Symmetrize: sym == "symmetric", Threads: 2}
				if field == "pattern" {
					opt.Duplicates = spgemm.DropDuplicates
				}
				want, err := spgemm.FromCOO(n, n, src, dst, vals, opt)
				if err != nil {
					t.Fatal(err)
				}
				for _, chunk := range []int64{1, 7, ogbChunk} {
					d, err := readMatrixMarket(context.Background(), "m.mtx", strings.NewReader(text), int64(len(text)), 2, chunk)
					if err != nil {
						t.Fatalf("trial %d %s %s chunk %d: %v", trial, field, sym, chunk, err)
					}
					if !reflect.DeepEqual(d.Adj, want) || d.Weighted != (field != "pattern") {
						t.Fatalf("matrix market trial %d %s %s chunk %d: got %+v, want %+v", trial, field, sym, chunk, d.Adj, want)
					}
				}
			}
		}
	}
}

// TestStreamingReadersCancel checks that a cancelled context stops a load.
func TestStreamingReadersCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	text := strings.Repeat("0 1\n", 20)
	if _, err := readEdgeList(ctx, "g.txt", strings.NewReader(text), AsStored, 1, 3); err != context.Canceled {
		t.Errorf("edge list: %v, want context.Canceled", err)
	}
	mm := "%%MatrixMarket matrix coordinate pattern general\n2 2 20\n" + strings.Repeat("1 2\n", 20)
	if _, err := readMatrixMarket(ctx, "m.mtx", strings.NewReader(mm), int64(len(mm)), 1, 3); err != context.Canceled {
		t.Errorf("matrix market: %v, want context.Canceled", err)
	}
}
